#!/bin/bash
# timeout: 95
# Session 10, engineer w4a8x (issue 9): the first device call. W4A8 MXFP4 (e2m1, e8m0 groups of 32) x e4m3,
# n = k = 8192, M 128 / 1024, all on this tree's runtime, kernels switched by HUM_KERNEL_PATH:
#   base  main 7629405's kernels (exp/base/kernels, untracked, packed with the tree)
#   new   this tree's: the code words' LDS addresses worked out once per stage (242 against 263
#         main-loop instructions per stage of the 128 x 128 x 128 tile)
#   pg2   EXPERIMENT: the e8m0 group scales applied per group of 32 to the accumulators (one FFMA
#         per accumulator and group, two accumulator sets: one promoted while the other's wgmma runs)
#         instead of folded into the decoded codes (HUM_EXP_PG in gemm_wgmma.cu; 410 instructions per stage)
#   fb4   EXPERIMENT: four fragment buffers (HUM_EXP_FB): a warpgroup issues a stage's four k32 groups
#         as fast as it decodes them, without waiting for the one two steps back
#   nofb  EXPERIMENT (bound, not exact for groups 12+ binades below their column's top): the float16
#         fallback of the byte tables removed (its compare and branch: 20 of the 242 per stage)
#   ch    e2m1 with channel scales (the decode without folded scales), W8A8 e4m3 (no decode): the split
# then test_gemm_a8's MXFP4 cases (built-in tables and 192-row tiles) on this tree's kernels, then ncu of
# this tree's 128-row kernel at M = 1024 and 128 (sections and per-SASS-instruction stall samples).
#   R=out ROOT=/work/main bash bench/sweeps/w4a8x-call1.sh
# (The experiments' code, HUM_EXP_PG and HUM_EXP_FB in gemm_wgmma.cu, lived in the tree for this call only:
# they lost, bench/NOTES.md session 10 w4a8x, and were not landed; this script no longer runs as it is.)
set -u
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
out=${R:-out}
mkdir -p "$out"
S=$out/summary.txt
H=build/runtime/hum
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
CH=n=8192,k=8192,w=e2m1,a=e4m3
W8=n=8192,k=8192,w=e4m3,a=e4m3
export HUM_CACHE_DIR=${HUM_CACHE_DIR:-$(mktemp -d)}
lb=$(command -v stdbuf >/dev/null && echo "stdbuf -oL")
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader >"$S" 2>&1
K=$(mktemp -d)
cp -r kernels "$K/pg2" && sed -i "1i #define HUM_EXP_PG 2" "$K/pg2/gemm/gemm_wgmma.cu"
cp -r kernels "$K/fb4" && sed -i "1i #define HUM_EXP_FB 4" "$K/fb4/gemm/gemm_wgmma.cu"
cp -r kernels "$K/nofb" && sed -i "s/if (e0 < 10u || e1 < 10u) {/if (false) {/" "$K/nofb/gemm/dequant.cuh"
grep -c "if (false)" "$K/nofb/gemm/dequant.cuh" >>"$S"
fits() { [ $((92 - $(el))) -ge "$1" ]; }
bench() { # NAME KERNELDIR('' = this tree's) SPEC MLIST
    fits 10 || { echo "bench $1: skipped at $(el) s" >>"$S"; return; }
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
    grep -E " (ok  |FAIL) |check failed|passed|failed" "$out/$name.log" | head -30 >>"$S"
}
bench w4-base exp/base/kernels "$W4" 128,1024
bench w4-new "" "$W4" 128,1024
bench w4-fb4 "$K/fb4" "$W4" 128,1024
bench w4-nofb "$K/nofb" "$W4" 128,1024
bench w4-pg2 "$K/pg2" "$W4" 128,1024
bench ch-new "" "$CH" 128,1024
bench w8-new "" "$W8" 128,1024
bench w4-new2 "" "$W4" 128,1024
bench w4-fb4b "$K/fb4" "$W4" 128,1024
HUM_TEST_CASES=e2m1 test_run test_gemm_a8 16 build/tests/test_test_gemm_a8
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for m in 1024 128; do
    fits 14 || { echo "ncu $m: skipped at $(el) s" >>"$S"; continue; }
    timeout 13 $NCU --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
        --section ComputeWorkloadAnalysis --section InstructionStats --section SourceCounters --section LaunchStats \
        -k regex:hum_gemm -c 1 -o "$K/ncu-$m" -f "$H" bench --layer "$W4" --m $m --warmup 1 --reps 1 \
        >"$out/ncu-run-$m.log" 2>&1
    echo "ncu $m: exit $? at $(el) s" >>"$S"
    $NCU -i "$K/ncu-$m.ncu-rep" --page details >"$out/ncu-$m.txt" 2>&1
    $NCU -i "$K/ncu-$m.ncu-rep" --page source --csv --print-source sass 2>/dev/null | gzip >"$out/ncu-$m-sass.csv.gz"
    grep -E "Duration|Issue Slots Busy|No Eligible|Active Warps Per|Eligible Warps|Tensor" "$out/ncu-$m.txt" | head -8 >>"$S"
done
echo "end at $(el) s" >>"$S"
rm -rf "$K"
