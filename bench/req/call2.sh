# timeout: 100
# dense9, call 2: SET=2 of bench/sweeps/dense9.sh (this tree's table, M 65..128 summed in the
# workspace, against main's entry there; what call 1 skipped)
set -u
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > "$R/gpu.txt" 2>&1
SET=2 OUT=$R BUDGET=93 timeout 97 bash bench/sweeps/dense9.sh build
echo "rc $?" >> "$R/dense9.txt"
