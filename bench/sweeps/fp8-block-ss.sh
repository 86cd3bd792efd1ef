#!/bin/bash
# timeout: 560
# Session 23: the four branches below did not reach that session's checkout (bench/NOTES.md, "Session 23
# (lead)"); they have to be rebuilt from NOTES' descriptions before this request can run.
# Issue 9, FP8 block-wise (session 22: 2.0x cuBLASLt fp8 at 7168 x 2048 after the warpgroup lag; n = k =
# 8192 at M = 1024 218 us against W8A8 channel's 139). A request for bench/sweeps/run-call.sh (copy it to
# .exp/NAME.sh; it writes under $R), from a Release build of main packed into .exp/build.tgz, with two
# branches beside it (session 22, compiled for sm_90a without local memory, never run on a GPU):
#   ss-kscale-s22 (8a0b775): wgmma reads FP8 block-wise's e4m3 weights from shared memory (SS), no
#     fragments beside the promotion's factors, the lag kept; W8A8 with channel scales stays on
#     registers, loaded from one-word planes. Kernels only (its host change is the repack's CPU twin):
#       rm -rf .exp/kernels-ss && mkdir -p .exp/kernels-ss &&
#         git archive ss-kscale-s22 kernels | tar x -C .exp/kernels-ss --strip-components=1
#   ss-sets-s22 (11a3c17): that, plus accumulator sets by stage on the 128-row tiles (C's rule: its own
#     binaries):
#       git worktree add /tmp/wt-sets ss-sets-s22 &&
#         (cd /tmp/wt-sets && HUM_TARGETS="hum_cli test_test_gemm_kgroup" tools/build.sh) &&
#         cp /tmp/wt-sets/build/runtime/hum .exp/hum-sets &&
#         cp /tmp/wt-sets/build/tests/test_test_gemm_kgroup .exp/kgroup-sets
#   label  the gpu ctest label on main's build (the lag's kernels, 16b15d4, have passed it only on a
#          wider lag, s22-call5-lag; every kernel of main compiles to that tree's SASS or 1ce4153's)
#   ab     main against both branches, two rounds: FP8 block-wise, and W8A8 with channel scales (which
#          ss-kscale-s22 loads from one-word planes)
#   tests  test_gemm_kgroup on both branches, test_gemm_a8's e4m3 cases on ss-kscale-s22's kernels
#          (test_gemm_repack would fail there: main's CPU twin writes two-word planes)
#   ncu    full set and source-level stalls of FP8 block-wise n = k = 8192 at M = 1024 on main
set -u
H=build/runtime/hum
t0=$(date +%s)
(cd build && HUM_CACHE_DIR=$(mktemp -d) timeout 240 ctest -L gpu -j12 --timeout 230 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
grep -E "tests passed|Failed|\*\*\*" $R/label.txt >> $R/calls.txt
b() { # NAME BINARY KERNEL_PATH LAYER MS
  echo "=== $1 $4" >> $R/sweep.txt
  HUM_KERNEL_PATH=$3 HUM_CACHE_DIR=/tmp/fbs-$1 timeout 60 $2 bench --layer $4 --m $5 --warmup 10 --reps 50 >> $R/sweep.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/sweep.txt
}
for r in 1 2; do
  for v in main ss sets; do
    bin=$H kp=""
    [ $v = ss ] && kp=$PWD/.exp/kernels-ss
    [ $v = sets ] && bin=.exp/hum-sets
    b $v $bin "$kp" n=7168,k=2048,w=e4m3,a=e4m3,block=128x128,ascale=group128 128,1024,8192
    b $v $bin "$kp" n=8192,k=8192,w=e4m3,a=e4m3,block=128x128,ascale=group128 1024,8192
    [ $v = sets ] || b $v $bin "$kp" n=8192,k=8192,w=e4m3,a=e4m3 16,256,1024,2048,8192
  done
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/sweep.txt > $R/summary.txt
HUM_KERNEL_PATH=$PWD/.exp/kernels-ss HUM_CACHE_DIR=/tmp/fbs-t timeout 90 build/tests/test_test_gemm_kgroup > $R/kgroup-ss.txt 2>&1
echo "kgroup ss exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
HUM_CACHE_DIR=/tmp/fbs-t2 timeout 90 .exp/kgroup-sets > $R/kgroup-sets.txt 2>&1
echo "kgroup sets exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
HUM_KERNEL_PATH=$PWD/.exp/kernels-ss HUM_TEST_CASES=w=e4m3 HUM_CACHE_DIR=/tmp/fbs-t timeout 90 build/tests/test_test_gemm_a8 built-in > $R/a8-ss.txt 2>&1
echo "a8 e4m3 ss exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
export HUM_CACHE_DIR=/tmp/fbs-prof
name=fp8block-8192-1024
timeout 80 ncu --set full --import-source no -k regex:hum_gemm -c 1 -o $R/$name "$H" bench --layer n=8192,k=8192,w=e4m3,a=e4m3,block=128x128,ascale=group128 --m 1024 --warmup 0 --reps 1 > $R/$name.log 2>&1
echo "$name exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
ncu -i $R/$name.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $R/$name-sass.csv.gz
ncu -i $R/$name.ncu-rep --page details --print-units base > $R/$name.txt 2>&1
python3 bench/sweeps/ncu-stalls.py $R/$name-sass.csv.gz 60 > $R/$name-stalls.txt 2>&1
rm -f $R/$name.ncu-rep
