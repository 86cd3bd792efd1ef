# timeout: 570
# Session 25's third request (bench/NOTES.md, "Session 25 (lead)"), for bench/sweeps/run-call.sh
# (copy it to .exp/NAME.sh; .exp/build.tgz of branch mcast-a, after s25-next.sh passed on c-tile):
# A multicast to 2-CTA clusters (multicast_a), never run on a GPU before this call:
# 1. test_gemm_wgmma alone (its multicast passes, C in either place; three shards), then the rest
#    of the gpu label;
# 2. compute-sanitizer synccheck / racecheck of the uint8 table with multicast above M = 384;
# 3. hum bench (every M checked) of uint8 with multicast and C in the stage on five stages;
# 4. side-by-side.py, three rounds: multicast candidates above M = 384 beside the built-in tables and
#    Humming (uint8 and uint2 channel, uint4 g128; M 512 / 2048 / 8192).
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && timeout 150 ctest -R test_gemm_wgmma -j3 --output-on-failure) > $R/wgmma.txt 2>&1
echo "test_gemm_wgmma exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
(cd build && timeout 200 ctest -L gpu -E test_gemm_wgmma -j12 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
. bench/sweeps/site-policy.sh /tmp/cand
BIG='e.m_min > 384'; S="t.c_tile = 'stage'"; MC='t.multicast_a = true'
pol mc "if $BIG then $MC end"
pol mcs5 "if $BIG then $MC; $S; t.stages = 5 end"
pol mcs3 "if $BIG then $MC; $S; t.stages = 3 end"
H=build/runtime/hum
for cw in mc:uint8 mcs5:uint8 mc:uint2 mcs3:uint2 mcs3:uint4,group=128; do
  echo "== $cw" >> $R/tables.txt
  $H info --config /tmp/cand/${cw%%:*}.yaml --arch sm_90a --layer n=8192,k=8192,w=${cw#*:} 2>&1 | grep '385\.\.' >> $R/tables.txt
done
SAN=(python3 bench/sweeps/side-by-side.py --ncu --impl hum --only w8ch --m 512 --rounds 1 --floor ''
     --hum mc=/tmp/cand/mc.yaml --hum mcs5=/tmp/cand/mcs5.yaml)
HUM_CACHE_DIR=/tmp/san-cache timeout 40 "${SAN[@]}" --out $R/san-warm.json > $R/san-warm.txt 2>&1
for tool in synccheck:40 racecheck:50; do
  HUM_CACHE_DIR=/tmp/san-cache timeout ${tool#*:} compute-sanitizer --tool ${tool%:*} --print-limit 20 "${SAN[@]}" \
    --out $R/san-${tool%:*}.json > $R/san-${tool%:*}.txt 2>&1
  echo "${tool%:*} exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
HUM_CACHE_DIR=/tmp/sbs-cache timeout 35 $H bench --config /tmp/cand/mcs5.yaml --layer n=8192,k=8192,w=uint8 \
  --m 512,8192 --warmup 5 --reps 20 --out $R/bench-mcs5.json > $R/bench-mcs5.txt 2>&1
echo "bench mcs5 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
left=$((560 - ($(date +%s) - t0)))
HUM_CACHE_DIR=/tmp/sbs-cache timeout $left python3 bench/sweeps/side-by-side.py --out $R/sbs.json --rounds 3 --floor '' \
  --only w8ch,w2ch,w4g128 --m 512,2048,8192 --hum mc=/tmp/cand/mc.yaml:w8ch+w2ch --hum mcs5=/tmp/cand/mcs5.yaml:w8ch \
  --hum mcs3=/tmp/cand/mcs3.yaml:w2ch+w4g128 > $R/sbs.txt 2>&1
echo "sbs exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
