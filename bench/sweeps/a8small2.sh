#!/bin/bash
# timeout: 90
# Session 9, engineer a8small (issue 9): the second device call (<= 90 s on the H200): correctness of
# this tree, then its rows beside main c46c0fa's kernels (BASE, HUM_KERNEL_PATH=$KV/a8small-base/kernels;
# the runtime is this tree's in both, with the workspace's row count fixed, so M = 128 runs in one chunk
# either way) in the same call.
#  1. test_quantize_a_gpu: the quantizer bit for bit against its C twin (rows past the 16384 columns a
#     CTA holds, aligned and not);
#  2. test_gemm_a8 `small` (M 1, 7, 16, the mma.sync entry: e4m3 as float16 products) on the K = 2064
#     cases (e4m3 and uint4 x e4m3 with bias, and their int8 twins; call 1 ran the MXFP4 and per-tensor
#     ones), against float64;
#  3. hum bench n=k=8192, M 1/16/128 (its check: M = 1 against float64 of the quantized A): W4A8 MXFP4
#     NEW, BASE, and NEW with M <= 16 on the 16-row wgmma_ws tile (session 8's small-ws16 policy: its
#     M = 16 cost was the workspace's M = max_m split, now fixed); then test_gemm_a8_quantize (layers
#     quantizing their own A, a workspace for 64 rows: chunks); then W8A8 e4m3 the same three ways.
#   R=out ROOT=/work/main bash bench/sweeps/a8small2.sh
set -u
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
out=${R:-out}
mkdir -p "$out"
S=$out/summary.txt
H=build/runtime/hum
BASE=${ROOT:-/work/main}/.exp/kv/a8small-base/kernels
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
export HUM_CACHE_DIR=${HUM_CACHE_DIR:-$(mktemp -d)}
lb=$(command -v stdbuf >/dev/null && echo "stdbuf -oL")
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader >"$S" 2>&1
echo "BASE $BASE $(ls "$BASE" >/dev/null 2>&1 && echo present || echo MISSING)" >>"$S"
fits() { [ $((88 - $(el))) -ge "$1" ]; }
test_run() { # NAME TIMEOUT command...
    local name=$1 to=$2
    shift 2
    fits "$to" || { echo "$name: skipped at $(el) s" >>"$S"; return; }
    timeout "$to" $lb "$@" >"$out/$name.log" 2>&1
    echo "$name: exit $? at $(el) s" >>"$S"
    grep -E " (ok  |FAIL) |check failed|passed|failed" "$out/$name.log" | head -20 >>"$S"
}
bench() { # NAME KERNELS(base|new) SPEC MLIST [POLICY-DIR]
    fits 12 || { echo "bench $1: skipped at $(el) s" >>"$S"; return; }
    local kp=
    [ "$2" = base ] && kp=$BASE
    HUM_KERNEL_PATH=$kp HUM_POLICY_PATH=${5:-} timeout 14 "$H" bench --layer "$3" --m "$4" --warmup 10 --reps 50 \
        --out "$out/$1.json" >"$out/$1.log" 2>&1
    echo "bench $1: exit $? at $(el) s" >>"$S"
    grep -E "^ +[0-9]+ +[0-9.]+ |check|rror" "$out/$1.log" >>"$S"
}
P=$(mktemp -d)
mkdir -p "$P/ws16"
cp bench/w4a8-r192/small-ws16/*.lua "$P/ws16/"
test_run test_quantize_a_gpu 12 build/tests/test_test_quantize_a_gpu
HUM_TEST_CASES=k=2064 test_run test_gemm_a8_small 14 build/tests/test_test_gemm_a8 small
bench w4a8-new new "$W4" 1,16,128
bench w4a8-base base "$W4" 1,16,128
bench w4a8-ws16 new "$W4" 1,16,128 "$P/ws16"
test_run test_gemm_a8_quantize 14 build/tests/test_test_gemm_a8_quantize
bench w8a8-new new "$W8" 1,16,128
bench w8a8-base base "$W8" 1,16,128
bench w8a8-ws16 new "$W8" 1,16,128 "$P/ws16"
echo "end at $(el) s" >>"$S"
rm -rf "$P"
