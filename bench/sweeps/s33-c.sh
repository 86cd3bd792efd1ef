# timeout: 440
# Session 33's third request, for bench/sweeps/run-call.sh, on main's head (f18d6cc's kernels; its
# gpu label passed 34 / 34 in s33-a): site-policy candidates, two rounds in turn, with hum bench's
# float64 checks, n = k = 8192:
#  W8A8 e4m3 at M 768 / 1024 (the 128 x 128 x 128 six-stage entry, stage sets promoted every 128):
#    never   promote_k 8192, never promoted (the floor the promotions leave; not shippable: error)
#    k256    128 x 128 x 256, three stages, promoted every 256 (stage sets: half the stage ends)
#    k256own the same with its own C tile
#    st7     seven stages of 128
#  and above M = 1024 (M 2048 / 8192): k256big, 128 x 128 x 256 with stage sets, A multicast;
#  uint8 channel fp16 at M 256 / 320 / 384 (M 384 took 129.7 us against 94.4 at 512 in s33-a: one
#    row block and a half of 256 x 128 x 64 tiles with three stages): 192 x 128 x 64 with five
#    stages under stream-K (u8r192) or whole (u8r192w), 128 x 128 x 128 with four (u8r128);
#  W4A8 MXFP4 at M 768 / 1024 / 2048 (1.08x Humming at 1024 in s32-c): 192 x 128 x 128 with four
#    stages (mx192), 128 x 128 x 128 with six, C in the stage, A multicast (mx128).
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s33-c.sh | sed "s/# timeout: //") - 10 ))
. bench/sweeps/site-policy.sh /tmp/cand
pol never "if e.m_min == 385 then t.promote_k = 8192 end"
pol k256 "if e.m_min == 385 then t = wg('wgmma_ws', 128, 128, 256, 3); t.weights_ss = true; t.c_tile = 'stage'; t.multicast_a = true; t.whole_fill = 95; t.promote_k = 256 end"
pol k256own "if e.m_min == 385 then t = wg('wgmma_ws', 128, 128, 256, 3); t.weights_ss = true; t.multicast_a = true; t.whole_fill = 95; t.promote_k = 256 end"
pol st7 "if e.m_min == 385 then t = wg('wgmma_ws', 128, 128, 128, 7); t.weights_ss = true; t.c_tile = 'stage'; t.multicast_a = true; t.whole_fill = 95 end"
pol k256big "if e.m_min > 1024 then t = wg('wgmma_ws', 128, 128, 256, 3); t.weights_ss = true; t.c_tile = 'stage'; t.multicast_a = true; t.promote_k = 256 end"
pol u8r192 "if e.m_min == 129 then t = wg('wgmma_ws', 192, 128, 64, 6) end"
pol u8r192w "if e.m_min == 129 then t = whole(wg('wgmma_ws', 192, 128, 64, 6)) end"
pol u8r128 "if e.m_min == 129 then t = wg('wgmma_ws', 128, 128, 128, 4) end"
pol mx192 "if e.m_min == 513 then t = wg('wgmma_ws', 192, 128, 128, 4); t.whole_fill = 95; t.promote_k = 1024 end"
pol mx128 "if e.m_min == 513 then t = wg('wgmma_ws', 128, 128, 128, 6); t.whole_fill = 95; t.promote_k = 1024; t.c_tile = 'stage'; t.multicast_a = true end"
X=n=8192,k=8192,w=e4m3,a=e4m3
U8=n=8192,k=8192,w=uint8,a=float16
MX=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
cand() { # NAME LAYER M: one run into ab.txt when the time left holds it
  [ $((B - ($(date +%s) - t0))) -gt 25 ] || { echo "== $1 $2 skipped (time)" >> $R/ab.txt; return; }
  echo "== $1 $2" >> $R/ab.txt
  HUM_CACHE_DIR=/tmp/c-$1 timeout 30 build/runtime/hum bench --config /tmp/cand/$1.yaml --layer $2 --m $3 --warmup 10 --reps 50 2>&1 \
    | grep -E '^ +[0-9]+ |check|rror|M 385|M 129|M 65|M 513|M 1025' >> $R/ab.txt
}
for round in 1 2; do
  for c in base never k256 k256own st7; do cand $c $X 768,1024; done
  for c in base k256big; do cand $c $X 2048,8192; done
  for c in base u8r192 u8r192w u8r128; do cand $c $U8 256,320,384; done
  for c in base mx192 mx128; do cand $c $MX 768,1024,2048; done
  echo "round $round done at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
