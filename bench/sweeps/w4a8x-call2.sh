#!/bin/bash
# timeout: 80
# Session 10, engineer w4a8x (issue 9): the second device call. W4A8 MXFP4 (e2m1, e8m0 groups of 32) x e4m3,
# n = k = 8192, this tree's runtime, kernels switched by HUM_KERNEL_PATH:
#   base  main 7629405's kernels (exp/base/kernels, untracked, packed with the tree)
#   addr  commit cd7a59d's (exp/addr/kernels): the code words' LDS addresses from one per-stage base
#   new   this tree's: and the byte tables' path (window IMADs or float16 products) chosen once per
#         stage and warpgroup instead of a compare and branch per k32 step (call 1: that branch removed
#         altogether, `nofb`, 180.4 -> 165.5 us at M = 1024)
# with test_gemm_a8's MXFP4 cases (built-in tables; the case whose groups lie 12..14 binades below their
# column's top takes the products path) and test_gemm_wgmma's uint3 and e2m1 cases (16-bit A on both
# wgmma families: the address change) on this tree's kernels, then the 192-row MXFP4 pass.
#   R=out ROOT=/work/main bash bench/sweeps/w4a8x-call2.sh
set -u
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
out=${R:-out}
mkdir -p "$out"
S=$out/summary.txt
H=build/runtime/hum
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W416=n=8192,k=8192,w=uint4,a=float16,group=128
export HUM_CACHE_DIR=${HUM_CACHE_DIR:-$(mktemp -d)}
lb=$(command -v stdbuf >/dev/null && echo "stdbuf -oL")
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader >"$S" 2>&1
fits() { [ $((78 - $(el))) -ge "$1" ]; }
bench() { # NAME KERNELDIR('' = this tree's) SPEC MLIST
    fits 11 || { echo "bench $1: skipped at $(el) s" >>"$S"; return; }
    HUM_KERNEL_PATH=$2 timeout 12 "$H" bench --layer "$3" --m "$4" --warmup 10 --reps 50 \
        --out "$out/$1.json" >"$out/$1.log" 2>&1
    echo "bench $1: exit $? at $(el) s" >>"$S"
    grep -E "^ +[0-9]+ +[0-9.]+ |check|rror" "$out/$1.log" >>"$S"
}
test_run() { # NAME TIMEOUT command...
    local name=$1 to=$2
    shift 2
    fits "$to" || { echo "$name: skipped at $(el) s" >>"$S"; return; }
    timeout "$to" $lb "$@" >"$out/$name.log" 2>&1
    echo "$name: exit $? at $(el) s" >>"$S"
    grep -E " (ok  |FAIL) |check failed|passed|failed|rror" "$out/$name.log" | head -40 >>"$S"
}
bench w4-new "" "$W4" 1,128,1024
bench w4-base exp/base/kernels "$W4" 1,128,1024
HUM_TEST_CASES=e2m1 test_run test_gemm_a8 20 build/tests/test_test_gemm_a8
bench w4-addr exp/addr/kernels "$W4" 128,1024
HUM_TEST_CASES=uint3,e2m1 test_run test_gemm_wgmma 16 build/tests/test_test_gemm_wgmma
HUM_TEST_CASES=e2m1 test_run test_gemm_a8_rows192 8 build/tests/test_test_gemm_a8 rows192
bench w4-new2 "" "$W4" 128,1024
echo "end at $(el) s" >>"$S"
