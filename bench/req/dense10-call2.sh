# timeout: 90
# dense10, call 2 (issue 8): test_gemm's bfloat16 cases (the window decode), bf16 rows beside main's
# kernels and table, whole tiles above M = 384 beside main's stream-K entry (bench/sweeps/dense10.sh SET=2)
set -u
OUT=$R BASE=$ROOT/.exp/kv/dense10-base BUDGET=86 SET=2 timeout 89 bash bench/sweeps/dense10.sh build
