# timeout: 590
# The next session's first request (bench/NOTES.md, "Session 35 (lead)", Next), for
# bench/sweeps/run-call.sh. Here first: main's Release build as .exp/old-hum (its hum CLI links
# libhum statically, kernels included); then bench/sweeps/s36/kscale-stage-sets.patch applied
# (git apply), built in Release and packed as .exp/build.tgz (tools/pack-device.sh); Humming's
# wheel in .whl. Session 35 wrote this request and could start no device to run it.
# 1. the gpu label in full on the patched build (test_gemm_kgroup runs the new path: stream-K
#    segments of 1..14 k-blocks, whole tiles of 5 / 16 / 17 k-blocks, runs across the ring's wrap,
#    M = 24 on the 32-row tiles, block-scaled weights beside per-token A);
# 2. FP8 block-wise 7168 x 2048 and 8192 x 8192 at M 128 / 1024 / 8192, main (old) against the
#    patch (new), hum bench's checks on, two rounds in turn;
# 3. bench/sweeps/wgmma-rate.sh: fp8 wgmma's rate with A from registers (RS, W4A8 MXFP4's form)
#    against both operands in shared memory (SS, W8A8's), no decode, no loads;
# 4. with the time left, side-by-side.py: FP8 block-wise beside Humming's BLOCK scales, then the
#    cells closest to Humming (W4A8 MXFP4, W8A8, uint8 and uint2 channel at M 1024 / 8192).
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s36-a.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
left() { echo $((B - ($(date +%s) - t0))); }
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout $(($(left) - 5)) ctest -L gpu -j12 --timeout 240 \
  --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
run() { # LABEL HUM CACHE LAYER M
  [ $(left) -gt 40 ] || { echo "== $1 $4 skipped (time)" >> $R/ab.txt; return; }
  echo "== $1 $4" >> $R/ab.txt
  HUM_CACHE_DIR=/tmp/c-$3 timeout 60 $2 bench --layer $4 --m $5 --warmup 10 --reps 50 2>&1 \
    | grep -E '^ +[0-9]+ |FAIL|rror|check' >> $R/ab.txt
}
for round in 1 2; do
  for l in n=7168,k=2048 n=8192,k=8192; do
    spec=$l,w=e4m3,a=e4m3,block=128x128,ascale=group128
    if [ $round = 1 ]; then
      run "old $round" .exp/old-hum old $spec 128,1024,8192
      run "new $round" build/runtime/hum new $spec 128,1024,8192
    else
      run "new $round" build/runtime/hum new $spec 128,1024,8192
      run "old $round" .exp/old-hum old $spec 128,1024,8192
    fi
  done
  echo "A/B round $round done at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
if [ $(left) -gt 110 ]; then
  timeout 100 bash bench/sweeps/wgmma-rate.sh
  echo "wgmma-rate exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
l=$(left)
if [ $l -gt 45 ]; then
  timeout $((l - 5)) python3 bench/sweeps/side-by-side.py --out $R/sbs-fp8blk.json --rounds 1 --floor '' \
    --only fp8blk7168,fp8blk8192 > $R/sbs-fp8blk.txt 2>&1
  echo "side-by-side fp8 block exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
l=$(left)
if [ $l -gt 45 ]; then
  timeout $((l - 5)) python3 bench/sweeps/side-by-side.py --out $R/sbs.json --rounds 2 --floor '' \
    --only w4a8mx,w8a8,w8ch,w2ch --m 1024,8192 > $R/sbs.txt 2>&1
  echo "side-by-side exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
