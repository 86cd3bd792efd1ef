# timeout: 100
# dense9, call 2: SET=2 of bench/sweeps/dense9.sh (this tree's table, M 65..384 summed in the
# workspace, against main's entry there; what call 1 skipped), then test_gemm_workspace: the
# workspace sums against float64 and the forward's host overhead beside the bare launch it makes
set -u
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > "$R/gpu.txt" 2>&1
SET=2 OUT=$R BUDGET=74 timeout 76 bash bench/sweeps/dense9.sh build
echo "rc $?" >> "$R/dense9.txt"
timeout 21 build/tests/test_test_gemm_workspace > "$R/test_gemm_workspace.log" 2>&1
echo "rc $?" >> "$R/test_gemm_workspace.log"
