# timeout: 590
# Session 29's first request (bench/NOTES.md, "Session 29 (lead)"), for bench/sweeps/run-call.sh (copy
# it to .exp/NAME.sh; .exp/build.tgz of main 03e08f1, code 47e3600):
# 1. the gpu label on main's head (ba3a933's pool and 47e3600 have none), every test cut at 400 s;
# 2. cold and warm prepares after the pool fix (ba3a933): hum bench's prepare line, an empty cache,
#    then the same cache again, for the 8192 x 8192 uint4 g128 fp16, W8A8 e4m3 and uint2 tables;
# 3. uint2 channel 8192 x 8192 above M = 384 (1.018x Humming at 8192 on the H100, s27-show): the
#    built-in 256 x 128 x 128 / 2 whole with its own C tile against C in the last stage's slot and
#    three stages (st3), the same with A multicast (st3mc), block K 64 with C in the slot, six stages
#    (k64s6), and uint8's entry (k64, C in the slot, five stages, multicast: u8like); M 2048 / 8192,
#    two rounds.
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 430 ctest -L gpu -j12 --timeout 400 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
X=n=8192,k=8192
for L in $X,w=uint4,group=128 $X,w=e4m3,a=e4m3 $X,w=uint2; do
  for pass in cold warm; do
    echo "== $pass $L" >> $R/prepare.txt
    HUM_CACHE_DIR=/tmp/prep-${L##*w=} timeout 30 build/runtime/hum bench --layer $L --m 1 --warmup 2 --reps 5 \
      2>&1 | head -4 >> $R/prepare.txt
  done
done
echo "prepare done at $(($(date +%s) - t0)) s" >> $R/calls.txt
. bench/sweeps/site-policy.sh /tmp/cand
BIG='e.m_min > 384'; S="t.c_tile = 'stage'"; MC='t.multicast_a = true'
pol st3 "if $BIG then $S; t.stages = 3 end"
pol st3mc "if $BIG then $S; t.stages = 3; $MC end"
pol k64s6 "if $BIG then t = whole(wg('wgmma_ws', 256, 128, 64, 6)); $S end"
pol u8like "if $BIG then t = whole(wg('wgmma_ws', 256, 128, 64, 5)); $S; $MC end"
for c in st3 st3mc k64s6 u8like; do
  build/runtime/hum info --config /tmp/cand/$c.yaml --arch sm_90a --layer $X,w=uint2 2>&1 | grep -E '385\.\.' >> $R/tables.txt
done
for round in 1 2; do
  for c in base st3 st3mc k64s6 u8like; do
    left=$((580 - ($(date +%s) - t0))); [ $left -lt 20 ] && break 2
    echo "== $c round $round" >> $R/uint2.txt
    HUM_CACHE_DIR=/tmp/u2-$c timeout $left build/runtime/hum bench --config /tmp/cand/$c.yaml \
      --layer $X,w=uint2 --m 2048,8192 --warmup 10 --reps 50 >> $R/uint2.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >> $R/uint2.txt
  done
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
