# timeout: 90
# dense9, call 1: bench/sweeps/dense9.sh (issue 8's rows behind Humming: site-policy tiles beside
# the built-in table, one call, cold cache)
set -u
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > "$R/gpu.txt" 2>&1
OUT=$R BUDGET=84 timeout 87 bash bench/sweeps/dense9.sh build
echo "rc $?" >> "$R/dense9.txt"
