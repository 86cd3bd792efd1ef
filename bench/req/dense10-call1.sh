# timeout: 80
# dense10, call 1 (issue 8): ncu of the M = 1 kernels and of n = 4096, k = 14336 at M = 1024; the
# pre-moe9 binary (e052469) beside this one; candidate tiles beside the built-in (bench/sweeps/dense10.sh)
set -u
OUT=$R OLD_HUM=$ROOT/.exp/kv/dense10-old/hum BUDGET=76 SET=1 timeout 79 bash bench/sweeps/dense10.sh build
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $R/gpu.txt 2>&1
