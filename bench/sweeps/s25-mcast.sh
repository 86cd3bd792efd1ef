# timeout: 560
# Session 25's third request (bench/NOTES.md, "Session 25 (lead)"), for bench/sweeps/run-call.sh
# (copy it to .exp/NAME.sh; .exp/build.tgz of branch mcast-a, after s25-next.sh passed on it): A
# multicast to 2-CTA clusters (multicast_a) above M = 384 beside the built-in tables and Humming,
# three rounds (side-by-side.py checks no result; s25-next.sh's hum bench checked mcs5):
# - uint8 channel (built-in 256 x 128 x 64 / 3): multicast alone (mc); with C in the stage on five
#   stages (mcs5); 176 x 256 x 64 (two slabs a warp, Humming's 16-bit-A shape) and 192 x 256 x 64,
#   both with multicast and C in the stage (w176, w192), and 176 x 256 without multicast (w176n);
# - uint2 channel and uint4 g128 (built-in 256 x 128 x 128 / 2): mc, C in the stage on three stages
#   with multicast (mcs3), w176, w192;
# - W4A8 MXFP4 (M 256 / 1024 / 8192) and W8A8 e4m3 (1024 / 8192) above M = 384 on whole tiles with
#   multicast (amc) and without (amw), beside their built-in stream-K entries (a workspace for every M);
#   W4A8 with multicast on its table's whole-tile entries (a8mc: M = 256's 256 x 64 x 128, one wave of
#   128 CTAs that each read all of A); multicast on every wgmma_ws entry, stream-K ones included
#   (mcall), there and on n = 4096, k = 14336 at M = 128 (1.045x Humming in session 24).
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
. bench/sweeps/site-policy.sh /tmp/cand
BIG='e.m_min > 384'; S="t.c_tile = 'stage'"; MC='t.multicast_a = true'
pol mc "if $BIG then $MC end"
pol mcs5 "if $BIG then $MC; $S; t.stages = 5 end"
pol mcs3 "if $BIG then $MC; $S; t.stages = 3 end"
pol w176 "if $BIG then t = whole(wg('wgmma_ws', 176, 256, 64, 6)); t.warp_n = 32; $MC; $S end"
pol w192 "if $BIG then t = whole(wg('wgmma_ws', 192, 256, 64, 6)); t.warp_n = 32; $MC; $S end"
pol w176n "if $BIG then t = whole(wg('wgmma_ws', 176, 256, 64, 6)); t.warp_n = 32; $S end"
pol amc "if $BIG then t.stream_k = false; t.stream_k_sum = nil; $MC end"
pol amw "if $BIG then t.stream_k = false; t.stream_k_sum = nil end"
pol a8mc "if t.kernel == 'wgmma_ws' and not t.stream_k then $MC end"
pol mcall "if t.kernel == 'wgmma_ws' then $MC end"
H=build/runtime/hum
for cw in mc:uint8 mcs5:uint8 w176:uint8 w192:uint8 w176n:uint8 mc:uint2 mcs3:uint2 w176:uint2 w192:uint2 \
    mcs3:uint4,group=128 w176:uint4,group=128 w192:uint4,group=128; do
  echo "== $cw" >> $R/tables.txt
  $H info --config /tmp/cand/${cw%%:*}.yaml --arch sm_90a --layer n=8192,k=8192,w=${cw#*:} 2>&1 | grep '385\.\.' >> $R/tables.txt
done
HUM_CACHE_DIR=/tmp/sbs-cache timeout 380 python3 bench/sweeps/side-by-side.py --out $R/sbs.json --rounds 3 --floor '' \
  --only w8ch,w2ch,w4g128 --m 512,2048,8192 --hum mc=/tmp/cand/mc.yaml:w8ch+w2ch --hum mcs5=/tmp/cand/mcs5.yaml:w8ch \
  --hum mcs3=/tmp/cand/mcs3.yaml:w2ch+w4g128 --hum w176=/tmp/cand/w176.yaml --hum w192=/tmp/cand/w192.yaml \
  --hum w176n=/tmp/cand/w176n.yaml:w8ch > $R/sbs.txt 2>&1
echo "sbs exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
left=$((550 - ($(date +%s) - t0)))
HUM_CACHE_DIR=/tmp/sbs-cache timeout $left python3 bench/sweeps/side-by-side.py --out $R/sbs-a8.json --rounds 3 --floor '' \
  --only w4a8mx,w8a8,llama-4096x14336 --hum amc=/tmp/cand/amc.yaml:w4a8mx+w8a8 --hum amw=/tmp/cand/amw.yaml:w4a8mx+w8a8 \
  --hum a8mc=/tmp/cand/a8mc.yaml:w4a8mx --hum mcall=/tmp/cand/mcall.yaml > $R/sbs-a8.txt 2>&1
echo "sbs-a8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
