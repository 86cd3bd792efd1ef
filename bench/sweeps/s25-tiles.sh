# timeout: 560
# Session 25's second request (bench/NOTES.md, "Session 25 (lead)"), for bench/sweeps/run-call.sh
# (copy it to .exp/NAME.sh; .exp/build.tgz of branch mcast-a, after s25-next.sh passed on it):
# session 24's s24-next.sh tile candidates for the cells behind Humming, with C staged in the last
# stage's slot (c_tile "stage") where that buys a stage or a deeper block K, beside the built-in
# tables and Humming, three rounds (side-by-side.py checks no result: a tile a table takes goes
# through hum bench and the label first):
# - uint8 channel above M = 384 (8192 x 8192; built-in 256 x 128 x 64 / 3): 256 x 128 x 64 on four and
#   five stages (C in the stage), 128 x 256 x 64 / 4 and x 128 / 3 (C in the stage), 192 x 128 x 64
#   on five (own tile) and six (C in the stage), 192 x 128 x 128 / 3 (C in the stage);
# - uint2 channel and uint4 g128 above M = 384 (built-in 256 x 128 x 128 / 2): the same on three
#   stages (C in the stage); uint2 also 128 x 256 x 128 / 4 and 192 x 128 x 128 / 4 (C in the stage)
#   and 128 x 256 x 64 / 4;
# - n = 4096, k = 14336 at M = 128 (the 65..384 entry, 128 x 128 x 128 / 4 summed in the workspace):
#   64 x 128 x 128 / 4, 128 x 64 x 128 / 4, 128 x 128 x 64 / 6, and 128 x 128 x 128 / 5 (C in the stage);
# - W4A8 MXFP4 and W8A8 e4m3 at M 256 .. 8192 with a workspace for every M (built-in only).
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
. bench/sweeps/site-policy.sh /tmp/cand
BIG='e.m_min > 384'; MID='e.m_min > 64 and e.m_max <= 384'; S="t.c_tile = 'stage'"
pol u8s4 "if $BIG then $S; t.stages = 4 end"
pol u8s5 "if $BIG then $S; t.stages = 5 end"
pol u8a "if $BIG then t = whole(wg('wgmma_ws', 128, 256, 64, 4)); t.warp_n = 32 end"
pol u8c "if $BIG then t = whole(wg('wgmma_ws', 128, 256, 128, 3)); t.warp_n = 32; $S end"
pol u8d "if $BIG then t = whole(wg('wgmma_ws', 192, 128, 64, 5)) end"
pol u8e "if $BIG then t = whole(wg('wgmma_ws', 192, 128, 128, 3)); $S end"
pol u8f "if $BIG then t = whole(wg('wgmma_ws', 192, 128, 64, 6)); $S end"
pol s3 "if $BIG then $S; t.stages = 3 end"
pol u2b "if $BIG then t = whole(wg('wgmma_ws', 128, 256, 128, 4)); t.warp_n = 32; $S end"
pol u2c "if $BIG then t = whole(wg('wgmma_ws', 128, 256, 64, 4)); t.warp_n = 32 end"
pol u2d "if $BIG then t = whole(wg('wgmma_ws', 192, 128, 128, 4)); $S end"
pol la "if $MID then t = wg('wgmma_ws', 64, 128, 128, 4) end"
pol lb "if $MID then t = wg('wgmma_ws', 128, 64, 128, 4) end"
pol ld "if $MID then t = wg('wgmma_ws', 128, 128, 64, 6) end"
pol le "if $MID then t = wg('wgmma_ws', 128, 128, 128, 5); $S end"
H=()
for c in u8s4 u8s5 u8a u8c u8d u8e u8f; do H+=(--hum $c=/tmp/cand/$c.yaml:w8ch); done
H+=(--hum s3=/tmp/cand/s3.yaml:w2ch+w4g128)
for c in u2b u2c u2d; do H+=(--hum $c=/tmp/cand/$c.yaml:w2ch); done
for c in la lb ld le; do H+=(--hum $c=/tmp/cand/$c.yaml:llama-4096x14336); done
for cw in u8s4:uint8 u8s5:uint8 u8a:uint8 u8c:uint8 u8d:uint8 u8e:uint8 u8f:uint8 s3:uint2 s3:uint4,group=128 \
    u2b:uint2 u2c:uint2 u2d:uint2; do
  echo "== $cw" >> $R/tables.txt
  build/runtime/hum info --config /tmp/cand/${cw%%:*}.yaml --arch sm_90a --layer n=8192,k=8192,w=${cw#*:} 2>&1 \
    | grep '385\.\.' >> $R/tables.txt
done
HUM_CACHE_DIR=/tmp/sbs-cache timeout 520 python3 bench/sweeps/side-by-side.py --out $R/sbs.json --rounds 3 --floor '' \
  --only w8ch,w2ch,w4g128,llama-4096x14336,w4a8mx,w8a8 "${H[@]}" > $R/sbs.txt 2>&1
echo "sbs exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
