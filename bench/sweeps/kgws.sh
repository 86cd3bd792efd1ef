#!/bin/bash
# Session 6 (engineer kgws, issue 9): K-group layers (FP8 block-wise 128 x 128 weights with 1 x 128
# A groups, MXFP8 A) on wgmma_ws, their scales staged with the codes (kernels/gemm/kscale.cuh,
# copy_kscales), stream-K slices summed in the workspace (policies/sm90.lua). One short device call
# (about 90 s on an H200, over a Release build made elsewhere; each step with its own timeout, none
# depending on another). Writes under $OUT (default ./out), a line per step in summary.txt:
#   test_gemm_kgroup.log        FP8 block and MXFP8 against the float64 reference, M 1 / 48 / 130 / 1024
#   bench-fp8blk*.txt, json/    `hum bench` of bench/sweeps/show.sh's two FP8 block rows (cuBLAS and
#                               cuBLASLt fp8 beside them), M 1 / 128 / 1024 / 8192
#   cli_run_check_fp8.log       `hum run --check` on an FP8 block-wise checkpoint
#   test_expert_gemm-mxfp8.log  with the time left (BUDGET s, default 87): the MoE MXFP8 cases
#   OUT=out bash bench/sweeps/kgws.sh [BUILD_DIR]
set -u
build=${1:-build}
OUT=${OUT:-out}
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
mkdir -p "$OUT/json"
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader >"$S" 2>&1
HUM_CACHE_DIR=$(mktemp -d) timeout 36 "$build/tests/test_test_gemm_kgroup" >"$OUT/test_gemm_kgroup.log" 2>&1
echo "test_gemm_kgroup: exit $? at $(el) s" >>"$S"
grep -E " (ok  |FAIL) |check failed" "$OUT/test_gemm_kgroup.log" | head -20 >>"$S"
row() { # NAME SPEC
    HUM_CACHE_DIR=$(mktemp -d) timeout 20 "$build/runtime/hum" bench --layer "$2" --m 1,128,1024,8192 \
        --warmup 10 --reps 50 --out "$OUT/json/$1.json" >"$OUT/bench-$1.txt" 2>&1
    echo "bench $1: exit $? at $(el) s" >>"$S"
    grep -E "^ +[0-9]+ +[0-9.]+ |M [0-9]+\.\.|check:" "$OUT/bench-$1.txt" >>"$S"
}
row fp8blk7168 n=7168,k=2048,w=e4m3,a=e4m3,block=128x128,ascale=group128
row fp8blk8192 n=8192,k=8192,w=e4m3,a=e4m3,block=128x128,ascale=group128
HUM_CACHE_DIR=$(mktemp -d) timeout 12 "$build/tests/test_cli_run_check_fp8" >"$OUT/cli_run_check_fp8.log" 2>&1
echo "cli_run_check_fp8: exit $? at $(el) s" >>"$S"
grep -E "check failed|passed|FAIL" "$OUT/cli_run_check_fp8.log" | head -6 >>"$S"
left=$((${BUDGET:-87} - $(el)))
if [ "$left" -gt 8 ]; then
    HUM_CACHE_DIR=$(mktemp -d) HUM_TEST_CASES=mxfp8 timeout "$left" "$build/tests/test_test_expert_gemm" \
        >"$OUT/test_expert_gemm-mxfp8.log" 2>&1
    echo "test_expert_gemm (HUM_TEST_CASES=mxfp8): exit $? at $(el) s" >>"$S"
    grep -E " (ok  |FAIL) |check failed" "$OUT/test_expert_gemm-mxfp8.log" | head -12 >>"$S"
fi
