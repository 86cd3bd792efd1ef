# timeout: 300
# Session 29's third request (bench/NOTES.md, "Session 29 (lead)"), for bench/sweeps/run-call.sh;
# .exp/build.tgz of main (s29-a's build). hum bench, two rounds, site policies (bench/sweeps/site-policy.sh):
# 1. W8A8 e4m3 8192 x 8192 at M 512 / 640 / 768 / 896 / 1024, the whole 385..1024 entry: built-in
#    128 x 128 x 128 / 4 under stream-K against s29-b's winner at M = 1024 (w8mc: the tile whole, six
#    stages, C in the last stage's slot, A multicast to 2-CTA clusters; 146.2 -> 137.7 µs) and stream-K
#    kept with the slot, six stages and multicast (mcs2: 142.5);
# 2. W4A8 MXFP4 at M 768 / 1024 / 2048: its 256 x 128 x 128 / 3 entry above M = 512 without stream-K
#    (mxwhole: 256 tiles at M = 1024, 1.94 waves on 132 SMs).
set -u
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/cand
S="t.c_tile = 'stage'"; MC='t.multicast_a = true'; MID='e.m_min > 384 and e.m_max <= 1024'
pol w8mc "if $MID then t = whole(wg('wgmma_ws', 128, 128, 128, 6)); $S; $MC end"
pol mcs2 "if $MID then $MC; $S; t.stages = t.stages + 2 end"
pol mxwhole "if e.m_min > 512 then t = whole(t) end"
X=n=8192,k=8192
bench() { # CONFIG SPEC M
  left=$((290 - ($(date +%s) - t0))); [ $left -lt 15 ] && return
  echo "== $1 $2" >> $R/ab.txt
  HUM_CACHE_DIR=/tmp/ab-$1-${2##*w=} timeout $left build/runtime/hum bench --config /tmp/cand/$1.yaml \
    --layer $2 --m $3 --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check|M 385|M 513|M 1025' >> $R/ab.txt
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/ab.txt
}
for round in 1 2; do
  for c in base w8mc mcs2; do bench $c $X,w=e4m3,a=e4m3 512,640,768,896,1024; done
  for c in base mxwhole; do bench $c $X,w=e2m1,group=32,scale=e8m0,a=e4m3 768,1024,2048; done
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
