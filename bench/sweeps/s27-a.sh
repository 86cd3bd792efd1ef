# timeout: 575
# Session 27's first request (bench/NOTES.md, "Session 27 (lead)"), for bench/sweeps/run-call.sh (copy
# it to .exp/NAME.sh; .exp/build.tgz of main): session 26's s26-next.sh cut to two rounds, plus W8A8,
# whose M >= 1024 cells stand 1.34-1.39x cuBLASLt fp8 (issue 9's bar 1.1x):
# 1. the gpu label, every test cut at 260 s (test_gemm_wgmma's multicast passes hold sm90.lua's uint8
#    entry above M = 384, which no label has run yet);
# 2. W8A8 e4m3 n = k = 8192 at M 1024 / 8192 through hum bench (float64 check and cuBLASLt fp8 in the
#    same rows), built-in against: C in the last stage's slot and two stages more (w8s6: 128 rows 6,
#    192 rows 5), the same with A multicast (w8mcs), and 128 x 128 x 128 / 6 whole tiles with the slot
#    and multicast, cuBLASLt's own shape at M = 1024 (w8mc);
# 3. side-by-side.py, two rounds, every case at its own M (the cells behind Humming in session 26:
#    uint8 / uint2 channel M 512 / 2048 / 8192, uint4 g128 8192, 4096 x 14336 M = 128, W4A8 MXFP4
#    256 / 1024 / 8192, W8A8 1024 / 8192) beside Humming, with candidates: uint4 g128 / uint2 above
#    M = 384 (built-in 256 x 128 x 128 / 2, own C tile) with A multicast alone (mc2) and on 256 x 128
#    x 64 / 4 (k64); uint8 on 128-row tiles above M = 384 (t128: 128 x 128 x 128 whole, C in the slot, the stages that fit; t128w:
#    128 x 256 x 64 / 4; the built-in's second row block at M = 400 holds 144 of 256 rows); W8A8 w8mc;
#    4096 x 14336 at M = 128 (built-in 128 x 128 x 128 / 4 stream-K) with C in the slot and the
#    stages that frees (l6: five fit) and on 64 x 128 x 256 / 4 stream-K (l64).
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 290 ctest -L gpu -j12 --timeout 260 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
. bench/sweeps/site-policy.sh /tmp/cand
BIG='e.m_min > 384'; S="t.c_tile = 'stage'"; MC='t.multicast_a = true'
pol w8s6 "if $BIG then $S; t.stages = t.stages + 2 end"
pol w8mcs "if $BIG then $S; t.stages = t.stages + 2; $MC end"
pol w8mc "if $BIG then t = whole(wg('wgmma_ws', 128, 128, 128, 6)); $S; $MC end"
pol mc2 "if $BIG then $MC end"
pol k64 "if $BIG then t = whole(wg('wgmma_ws', 256, 128, 64, 4)) end"
pol t128 "if $BIG then t = whole(wg('wgmma_ws', 128, 128, 128, 5)); $S end"
pol t128w "if $BIG then t = whole(wg('wgmma_ws', 128, 256, 64, 4)); t.warp_n = 32 end"
R128='e.m_min <= 128 and e.m_max >= 128'
pol l6 "if $R128 then $S; t.stages = t.stages + 2 end"
pol l64 "if $R128 then t = wg('wgmma_ws', 64, 128, 256, 4); t.stream_k = true end"
X=n=8192,k=8192,w
for cw in l6:n=4096,k=14336,w=uint4,group=128 l64:n=4096,k=14336,w=uint4,group=128 w8s6:$X=e4m3,a=e4m3 \
    w8mcs:$X=e4m3,a=e4m3 w8mc:$X=e4m3,a=e4m3 mc2:$X=uint4,group=128 k64:$X=uint4,group=128 k64:$X=uint2 \
    t128:$X=uint8 t128w:$X=uint8; do
  echo "== $cw" >> $R/tables.txt
  build/runtime/hum info --config /tmp/cand/${cw%%:*}.yaml --arch sm_90a --layer ${cw#*:} 2>&1 \
    | grep -E '(65|385|1025)\.\.' >> $R/tables.txt
done
for c in base w8s6 w8mcs w8mc; do
  echo "== w8a8 $c" >> $R/w8a8.txt
  HUM_CACHE_DIR=/tmp/w8-$c timeout 40 build/runtime/hum bench --config /tmp/cand/$c.yaml \
    --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024,8192 --warmup 10 --reps 50 >> $R/w8a8.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/w8a8.txt
done
left=$((555 - ($(date +%s) - t0)))
HUM_CACHE_DIR=/tmp/sbs-cache timeout $left python3 bench/sweeps/side-by-side.py --out $R/sbs.json --rounds 2 \
  --floor '' --hum mc2=/tmp/cand/mc2.yaml:w4g128+w2ch --hum k64=/tmp/cand/k64.yaml:w4g128+w2ch \
  --hum t128=/tmp/cand/t128.yaml:w8ch --hum t128w=/tmp/cand/t128w.yaml:w8ch --hum w8mc=/tmp/cand/w8mc.yaml:w8a8 \
  --hum l6=/tmp/cand/l6.yaml:llama-4096x14336 --hum l64=/tmp/cand/l64.yaml:llama-4096x14336 \
  > $R/sbs.txt 2>&1
echo "sbs exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
