# timeout: 590
# Session 28's first request (bench/NOTES.md, "Session 28 (lead)"), for bench/sweeps/run-call.sh (copy
# it to .exp/NAME.sh). Build: .exp/build.tgz of branch `fresh-acc` (main plus the promotions that
# leave e4m3 accumulators to the next period's first wgmma); .exp/main-kernels: main's kernels/ folder
# (`git archive main kernels | tar x -C .exp/main-kernels --strip-components=1`), through
# HUM_KERNEL_PATH the same binary's A side. Then bench/sweeps/s27-a.sh without its label.
# 1. the gpu label on fresh-acc, every test cut at 260 s (also the first label of sm90.lua's uint8
#    entry above M = 384 inside test_gemm_wgmma's multicast passes);
# 2. hum bench (float64 check, cuBLASLt fp8 in the rows), main's kernels against fresh-acc's, two
#    rounds, on the entries whose SASS changed: W8A8 e4m3 n = k = 8192 M 32 / 64 / 384 / 2048 / 8192
#    (199 -> 165 instructions a stage on the 192-row tile), W4A8 MXFP4 M 1024 / 8192 (promoted every
#    1024), FP8 block-wise 7168 x 2048 M 1024 / 8192;
# 3. W8A8's 192-row entry promoted every 256 (p256: half its drains; the accuracy is hum bench's check,
#    the bar test_gemm_a8's 1e-3), M 2048 / 8192, fresh-acc's kernels.
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 290 ctest -L gpu -j12 --timeout 260 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
. bench/sweeps/site-policy.sh /tmp/cand
pol p256 "if e.m_min > 1024 then t.promote_k = 256 end"
X=n=8192,k=8192
bench() { # NAME KERNELS CONFIG SPEC M
  echo "== $1 $4" >> $R/ab.txt
  HUM_KERNEL_PATH=$2 HUM_CACHE_DIR=/tmp/ab-$1 timeout 60 build/runtime/hum bench --config /tmp/cand/$3.yaml \
    --layer $4 --m $5 --warmup 10 --reps 50 >> $R/ab.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/ab.txt
}
for round in 1 2; do
  for side in main fresh; do
    k=$PWD/.exp/main-kernels; [ $side = fresh ] && k=
    bench $side-w8 "$k" base $X,w=e4m3,a=e4m3 32,64,384,2048,8192
    bench $side-w4a8 "$k" base $X,w=e2m1,group=32,scale=e8m0,a=e4m3 1024,8192
    bench $side-blk "$k" base n=7168,k=2048,w=e4m3,block=128x128,a=e4m3,ascale=group128 1024,8192
  done
  bench p256 "" p256 $X,w=e4m3,a=e4m3 2048,8192
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
