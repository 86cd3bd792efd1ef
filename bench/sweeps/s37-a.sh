# timeout: 590
# The next session's first request (bench/NOTES.md, "Session 36 (lead)", Next), for
# bench/sweeps/run-call.sh. Here first: main's Release build as .exp/old-hum (its hum CLI links
# libhum statically, kernels included); then bench/sweeps/s37/uniform-block-scales.patch applied
# (git apply), built in Release and packed as .exp/build.tgz (tools/pack-device.sh); Humming's
# wheel in .whl.
# 1. the gpu label in full on the patched build: test_gemm_kgroup's block-scaled weights beside
#    per-token A (never run on a GPU: s36-a's test passed its scales as [M, 1] and the forward
#    refused them; 5e35985 passes [M]) and every block-wise case on the one-read weight factors;
# 2. FP8 block-wise 7168 x 2048 and 8192 x 8192 at M 128 / 1024 / 8192, main (old) against the
#    patch (new), hum bench's checks on, two rounds in turn;
# 3. block-wise tunings on the patched build (site policies, bench/sweeps/site-policy.sh), the
#    128 x 128 x 128 entries above M = 64: the built-in four stages against five, six with C in
#    the last stage's slot, and that with whole_fill 95, M 128 .. 8192, one round;
# 4. with the time left, side-by-side.py: FP8 block-wise beside Humming's BLOCK path, then uint8
#    and uint2 channel and W4A8 MXFP4 at M = 8192 (issue 8's last cells), two rounds.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s37-a.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
left() { echo $((B - ($(date +%s) - t0))); }
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout $(($(left) - 5)) ctest -L gpu -j12 --timeout 240 \
  --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
run() { # LABEL HUM CACHE LAYER M [ARGS]
  [ $(left) -gt 40 ] || { echo "== $1 $4 skipped (time)" >> $R/ab.txt; return; }
  echo "== $1 $4" >> $R/ab.txt
  HUM_CACHE_DIR=/tmp/c-$3 timeout 60 $2 bench --layer $4 --m $5 --warmup 10 --reps 50 ${6:-} 2>&1 \
    | grep -E '^ +[0-9]+ |FAIL|rror|check' >> $R/ab.txt
}
blk=w=e4m3,a=e4m3,block=128x128,ascale=group128
for round in 1 2; do
  for l in n=7168,k=2048 n=8192,k=8192; do
    if [ $round = 1 ]; then
      run "old $round" .exp/old-hum old $l,$blk 128,1024,8192
      run "new $round" build/runtime/hum new $l,$blk 128,1024,8192
    else
      run "new $round" build/runtime/hum new $l,$blk 128,1024,8192
      run "old $round" .exp/old-hum old $l,$blk 128,1024,8192
    fi
  done
  echo "A/B round $round done at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
. bench/sweeps/site-policy.sh /tmp/sp
W="if t.block_m >= 128 and t.kernel == 'wgmma_ws' then t.block_m = 128; t.warp_m = 128;"
pol s5 "$W t.stages = 5 end"
pol s6c "$W t.stages = 6; t.c_tile = 'stage' end"
pol s6cw "$W t.stages = 6; t.c_tile = 'stage'; t.whole_fill = 95 end"
for l in n=7168,k=2048 n=8192,k=8192; do
  for c in base s5 s6c s6cw; do
    run "tune $c" build/runtime/hum $c $l,$blk 128,256,512,1024,2048,8192 "--config /tmp/sp/$c.yaml"
  done
done
echo "tunings done at $(($(date +%s) - t0)) s" >> $R/calls.txt
l=$(left)
if [ $l -gt 45 ]; then
  timeout $((l - 5)) python3 bench/sweeps/side-by-side.py --out $R/sbs-fp8blk.json --rounds 1 --floor '' \
    --only fp8blk7168,fp8blk8192 > $R/sbs-fp8blk.txt 2>&1
  echo "side-by-side fp8 block exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
l=$(left)
if [ $l -gt 45 ]; then
  timeout $((l - 5)) python3 bench/sweeps/side-by-side.py --out $R/sbs.json --rounds 2 --floor '' \
    --only w8ch,w2ch,w4a8mx --m 8192 > $R/sbs.txt 2>&1
  echo "side-by-side exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
