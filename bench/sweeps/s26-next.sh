# timeout: 580
# Session 26's next request (bench/NOTES.md, "Session 26 (lead)"), for bench/sweeps/run-call.sh (copy
# it to .exp/NAME.sh; .exp/build.tgz of main): the label on main's head, then what session 26 left open,
# each beside Humming in three rounds (side-by-side.py checks no result: a tile a table takes goes
# through hum bench's check and the label first):
# 1. the gpu label, every test cut at 260 s: test_gemm_wgmma's multicast passes now hold sm90.lua's
#    uint8 entry above M = 384 (n = 8192, k = 1024 at M = 1024, plain and act-order), which no label
#    has run yet;
# 2. uint4 g128 and uint2 channel above M = 384 (built-in 256 x 128 x 128 / 2, C in a tile of its
#    own): with A multicast alone (mc2), on 256 x 128 x 64 / 4 with their own tile (k64), and three
#    stages with C in the stage plus multicast (mcs3; session 26: level with the built-in at M = 8192);
# 3. uint8 channel at M 400 / 512 (built-in 256 x 128 x 64 / 5, the second row block 144 of 256 rows
#    at M = 400): 128 x 128 x 128 tiles whole (t128) and 128 x 256 x 64 (t128w), against the built-in,
#    and session 26's old entry (own C tile, three stages: own3) at M 2048 / 8192 for a third round.
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 290 ctest -L gpu -j12 --timeout 260 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
. bench/sweeps/site-policy.sh /tmp/cand
BIG='e.m_min > 384'; S="t.c_tile = 'stage'"; MC='t.multicast_a = true'
pol mc2 "if $BIG then $MC end"
pol k64 "if $BIG then t = whole(wg('wgmma_ws', 256, 128, 64, 4)) end"
pol mcs3 "if $BIG then $MC; $S; t.stages = 3 end"
pol t128 "if $BIG then t = whole(wg('wgmma_ws', 128, 128, 128, 4)) end"
pol t128w "if $BIG then t = whole(wg('wgmma_ws', 128, 256, 64, 4)); t.warp_n = 32 end"
pol own3 "if $BIG and t.c_tile == 'stage' then t.c_tile = 'own'; t.multicast_a = false; t.stages = 3 end"
for cw in mc2:uint4,group=128 k64:uint4,group=128 mcs3:uint4,group=128 k64:uint2 t128:uint8 t128w:uint8 own3:uint8; do
  echo "== $cw" >> $R/tables.txt
  build/runtime/hum info --config /tmp/cand/${cw%%:*}.yaml --arch sm_90a --layer n=8192,k=8192,w=${cw#*:} 2>&1 \
    | grep '385\.\.' >> $R/tables.txt
done
left=$((560 - ($(date +%s) - t0)))
HUM_CACHE_DIR=/tmp/sbs-cache timeout $((left * 6 / 10)) python3 bench/sweeps/side-by-side.py --out $R/sbs-u4.json --rounds 3 \
  --floor '' --only w4g128,w2ch --m 2048,8192 --hum mc2=/tmp/cand/mc2.yaml --hum k64=/tmp/cand/k64.yaml \
  --hum mcs3=/tmp/cand/mcs3.yaml:w4g128 > $R/sbs-u4.txt 2>&1
echo "sbs-u4 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
left=$((565 - ($(date +%s) - t0)))
HUM_CACHE_DIR=/tmp/sbs-cache timeout $left python3 bench/sweeps/side-by-side.py --out $R/sbs-u8.json --rounds 3 \
  --floor '' --only w8ch --m 400,512,2048,8192 --hum t128=/tmp/cand/t128.yaml --hum t128w=/tmp/cand/t128w.yaml \
  --hum own3=/tmp/cand/own3.yaml > $R/sbs-u8.txt 2>&1
echo "sbs-u8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
