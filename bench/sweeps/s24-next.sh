# timeout: 420
# Session 24's next request (bench/NOTES.md, "Session 24 (lead)"; no device was lent for it), for
# bench/sweeps/run-call.sh (copy it to .exp/NAME.sh): hum and Humming round after round in one
# process (side-by-side.py, hum with a workspace for the largest M), with site-policy candidates
# for the cells still behind: uint8 / uint2 channel above M = 384 (8192 x 8192, M 512 / 2048 /
# 8192: the built-in 256 x 128 tiles against 128 x 256 ones and 192-row ones a stage deeper), n = 4096, k = 14336 at
# M = 128 (the 65..384 entry), and W4A8 MXFP4 / W8A8 e4m3 at M 256 .. 8192 with a workspace for
# every M in one pass (call 2's M = 8192 rows ran in chunks of 1024 rows). side-by-side.py checks no
# result: a candidate a table takes goes through hum bench (it checks every M against float64) and
# the gpu label first.
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
. bench/sweeps/site-policy.sh /tmp/cand
BIG='e.m_min > 384'; MID='e.m_min > 64 and e.m_max <= 384'
pol u8a "if $BIG then t = whole(wg('wgmma_ws', 128, 256, 64, 4)); t.warp_n = 32 end"
pol u8b "if $BIG then t = whole(wg('wgmma_ws', 192, 128, 64, 4)) end"
pol u8c "if $BIG then t = whole(wg('wgmma_ws', 128, 256, 128, 3)); t.warp_n = 32 end"
pol u8d "if $BIG then t = whole(wg('wgmma_ws', 192, 128, 64, 5)) end"
pol u2a "if $BIG then t = whole(wg('wgmma_ws', 256, 128, 64, 4)) end"
pol u2b "if $BIG then t = whole(wg('wgmma_ws', 128, 256, 128, 3)); t.warp_n = 32 end"
pol u2c "if $BIG then t = whole(wg('wgmma_ws', 128, 256, 64, 4)); t.warp_n = 32 end"
pol u2d "if $BIG then t = whole(wg('wgmma_ws', 192, 128, 128, 3)) end"
pol la "if $MID then t = wg('wgmma_ws', 64, 128, 128, 4) end"
pol lb "if $MID then t = wg('wgmma_ws', 128, 64, 128, 4) end"
pol lc "if $MID then t = wg('wgmma_ws', 128, 128, 256, 3) end"
pol ld "if $MID then t = wg('wgmma_ws', 128, 128, 64, 6) end"
H=()
for c in u8a u8b u8c u8d; do H+=(--hum $c=/tmp/cand/$c.yaml:w8ch); done
for c in u2a u2b u2c u2d; do H+=(--hum $c=/tmp/cand/$c.yaml:w2ch); done
for c in la lb lc ld; do H+=(--hum $c=/tmp/cand/$c.yaml:llama-4096x14336); done
HUM_CACHE_DIR=/tmp/sbs-cache timeout 400 python3 bench/sweeps/side-by-side.py --out $R/sbs.json --rounds 3 --floor '' \
  --only w8ch,w2ch,llama-4096x14336,w4a8mx,w8a8 "${H[@]}" > $R/sbs.txt 2>&1
echo "sbs exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
