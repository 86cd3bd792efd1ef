# timeout: 590
# Session 37's third request, for bench/sweeps/run-call.sh, on main's Release build (3e6ab73: the
# quantizer's group / tensor modes in one wave of CTAs, four rows a CTA at a time; FP8 block-wise at
# M <= 128 on whole 64-column tiles); .exp/old-hum is 40ac199's hum (neither change).
# 1. the gpu label (test_quantize_a_gpu's rows past a wave, test_gemm_kgroup on the new tiles);
# 2. old against new, hum bench with checks, two rounds in turn: FP8 block-wise 7168 x 2048 and
#    8192 x 8192 (M 1 / 128 / 1024 / 8192), e4m3 per tensor and MXFP8 A (8192 x 8192, M 1024 /
#    8192): the quantizer's modes that changed;
# 3. issue 9's rows beside Humming (side-by-side.py, two rounds, M 1 / 128 / 1024 / 8192):
#    FP8 block-wise both shapes, W8A8, W4A8 MXFP4.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s37-c.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
left() { echo $((B - ($(date +%s) - t0))); }
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 280 ctest -L gpu -j12 --timeout 240 \
  --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
run() { # LABEL HUM CACHE LAYER M
  [ $(left) -gt 40 ] || { echo "== $1 $4 skipped (time)" >> $R/ab.txt; return; }
  echo "== $1 $4" >> $R/ab.txt
  HUM_CACHE_DIR=/tmp/c-$3 timeout 60 $2 bench --layer $4 --m $5 --warmup 10 --reps 50 2>&1 \
    | grep -E '^ +[0-9]+ |FAIL|rror|check' >> $R/ab.txt
}
blk=w=e4m3,a=e4m3,block=128x128,ascale=group128
layers="n=7168,k=2048,$blk:1,128,1024,8192 n=8192,k=8192,$blk:1,128,1024,8192
  n=8192,k=8192,w=e4m3,a=e4m3,ascale=tensor:1024,8192 n=8192,k=8192,w=e4m3,a=mxfp8:1024,8192"
for round in 1 2; do
  for lm in $layers; do
    l=${lm%%:*} m=${lm##*:}
    if [ $round = 1 ]; then
      run "old $round" .exp/old-hum old $l $m; run "new $round" build/runtime/hum new $l $m
    else
      run "new $round" build/runtime/hum new $l $m; run "old $round" .exp/old-hum old $l $m
    fi
  done
  echo "A/B round $round done at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
l=$(left)
if [ $l -gt 45 ]; then
  timeout $((l - 5)) python3 bench/sweeps/side-by-side.py --out $R/sbs.json --rounds 2 --floor '' \
    --only fp8blk7168,fp8blk8192,w8a8,w4a8mx --m 1,128,1024,8192 > $R/sbs.txt 2>&1
  echo "side-by-side exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
