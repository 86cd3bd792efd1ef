#!/bin/bash
# timeout: 80
# Session 9, engineer a8small (issue 9): 8-bit A at small M, first device call (<= 80 s on the H200).
# Kernels: BASE = main c46c0fa's kernels (HUM_KERNEL_PATH=$KV/a8small-base/kernels), NEW = this tree's
# (embedded: e4m3 mma.sync as float16 HMMA without ptxas's per-k32 adds, per-token quantizer holding
# the row in registers). Rows in order of what they decide; each skipped when the time left cannot
# hold it.
#  1. hum bench W4A8 MXFP4 x e4m3 n=k=8192 M 1/16/128, BASE then NEW;
#  2. test_gemm_a8's `small` pass (M 1, 7, 16 on the built-in tables: mma.sync) on the MXFP4, e4m3 and
#     uint4 cases, NEW, against float64;
#  3. ncu (boost clocks, L2 flushed) of the first forward's two kernels, quantizer and GEMM, at M = 1
#     and 16, BASE and NEW: where the time goes;
#  4. hum bench W8A8 e4m3 M 1/16, BASE then NEW;
#  5. test_quantize_a_gpu (NEW: bit-exact against the C twin, rows past the 16384 held columns);
#  6. ncu of the wgmma_ws 16-row tile (session 8's small-ws16 policy) at M = 1 and 16, NEW.
#   R=out ROOT=/work/main bash bench/sweeps/a8small.sh
set -u
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
out=${R:-out}
mkdir -p "$out"
S=$out/summary.txt
H=build/runtime/hum
KV=${ROOT:-/work/main}/.exp/kv
BASE=$KV/a8small-base/kernels
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
export HUM_CACHE_DIR=${HUM_CACHE_DIR:-$(mktemp -d)}
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader >"$S" 2>&1
echo "ncu: ${NCU:-none}; BASE $BASE $(ls "$BASE" >/dev/null 2>&1 && echo present || echo MISSING)" >>"$S"
fits() { [ $((78 - $(el))) -ge "$1" ]; }
bench() { # NAME KERNELS(base|new) SPEC MLIST [POLICY-DIR]
    fits 11 || { echo "bench $1: skipped at $(el) s" >>"$S"; return; }
    local kp=
    [ "$2" = base ] && kp=$BASE
    HUM_KERNEL_PATH=$kp HUM_POLICY_PATH=${5:-} timeout 13 "$H" bench --layer "$3" --m "$4" --warmup 10 --reps 50 \
        --out "$out/$1.json" >"$out/$1.log" 2>&1
    echo "bench $1: exit $? at $(el) s" >>"$S"
    grep -E "^ +[0-9]+ +[0-9.]+ |check|rror" "$out/$1.log" >>"$S"
}
prof() { # NAME KERNELS SPEC M [POLICY-DIR]: the first forward's quantizer and GEMM under ncu
    [ -n "$NCU" ] || return
    fits 12 || { echo "ncu $1: skipped at $(el) s" >>"$S"; return; }
    local kp=
    [ "$2" = base ] && kp=$BASE
    HUM_KERNEL_PATH=$kp HUM_POLICY_PATH=${5:-} timeout 14 "$NCU" --clock-control none -k regex:'hum_quantize_a|hum_gemm' \
        -c 2 --metrics gpu__time_duration.sum,launch__grid_size,sm__cycles_elapsed.avg.per_second --csv \
        "$H" bench --layer "$3" --m "$4" --warmup 0 --reps 1 --out "$out/ncu-$1.json" >"$out/ncu-$1.log" 2>&1
    echo "ncu $1: exit $? at $(el) s" >>"$S"
    grep -E '^"[0-9]' "$out/ncu-$1.log" | awk -F'","' '{print $5, $9, $(NF-2), $(NF-1), $NF}' >>"$S"
}
P=$(mktemp -d)
mkdir -p "$P/ws16"
cp bench/w4a8-r192/small-ws16/*.lua "$P/ws16/"
bench w4a8-base base "$W4" 1,16,128
bench w4a8-new new "$W4" 1,16,128
if fits 16; then
    HUM_TEST_CASES=e2m1,scale=tensor timeout 16 stdbuf -oL \
        build/tests/test_test_gemm_a8 small >"$out/test_gemm_a8_small.log" 2>&1
    echo "test_gemm_a8 small (e2m1, scale=tensor): exit $? at $(el) s" >>"$S"
    grep -E " (ok  |FAIL) |check failed|passed|failed" "$out/test_gemm_a8_small.log" | head -12 >>"$S"
fi
prof w4a8-m1-base base "$W4" 1
prof w4a8-m1-new new "$W4" 1
prof ws16-m16-new new "$W4" 16 "$P/ws16"
bench w8a8-base base "$W8" 1,16
bench w8a8-new new "$W8" 1,16
prof w4a8-m16-base base "$W4" 16
prof w4a8-m16-new new "$W4" 16
if fits 12; then
    timeout 12 build/tests/test_test_quantize_a_gpu >"$out/test_quantize_a_gpu.log" 2>&1
    echo "test_quantize_a_gpu: exit $? at $(el) s" >>"$S"
    tail -3 "$out/test_quantize_a_gpu.log" >>"$S"
fi
prof ws16-m1-new new "$W4" 1 "$P/ws16"
echo "end at $(el) s" >>"$S"
rm -rf "$P"
