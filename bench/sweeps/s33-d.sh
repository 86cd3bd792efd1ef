# timeout: 200
# Session 33's fourth request, for bench/sweeps/run-call.sh, on main's head (f18d6cc's kernels):
# where the two winners of s33-c hold before they land, with checks, one round each, n = k = 8192:
#  uint8 channel fp16, M 160..384: the built-in (256 x 128 x 64, three stages, stream-K) against
#    128 x 128 x 128 under stream-K (u8r128, the M 65..128 tile: 63.6 against 69.5 us at M 256) and
#    192 x 128 x 64 whole (u8r192w: 74.4 against 130.6 at M 384);
#  W4A8 MXFP4, M 544..896: the built-in (256 x 128 x 128, three stages, whole where the waves fill
#    to 95 %) against 192 x 128 x 128 with four (mx192: 95.9 against 103.1 at M 768);
#  W8A8 e4m3 at M = 1024 with K 2048 / 4096 / 8192 (n = 8192) beside cuBLASLt fp8: what a tile
#    costs outside its K loop (the epilogue, the pipeline's fill), hum against cuBLASLt.
set -u
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/cand
pol u8r192w "if e.m_min == 129 then t = whole(wg('wgmma_ws', 192, 128, 64, 6)) end"
pol u8r128 "if e.m_min == 129 then t = wg('wgmma_ws', 128, 128, 128, 4) end"
pol mx192 "if e.m_min == 513 then t = wg('wgmma_ws', 192, 128, 128, 4); t.whole_fill = 95; t.promote_k = 1024 end"
U8=n=8192,k=8192,w=uint8,a=float16
MX=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
cand() { # NAME LAYER M
  echo "== $1 $2" >> $R/ab.txt
  HUM_CACHE_DIR=/tmp/c-$1 timeout 40 build/runtime/hum bench --config /tmp/cand/$1.yaml --layer $2 --m $3 --warmup 10 --reps 50 2>&1 \
    | grep -E '^ +[0-9]+ |check|rror' >> $R/ab.txt
}
for c in base u8r128 u8r192w; do cand $c $U8 160,192,224,256,288,320,352,384; done
for c in base mx192; do cand $c $MX 544,576,640,704,768,832,896; done
for k in 2048 4096 8192; do cand base n=8192,k=$k,w=e4m3,a=e4m3 1024; done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
