# timeout: 420
# Session 29's second request (bench/NOTES.md, "Session 29 (lead)"), for bench/sweeps/run-call.sh;
# .exp/build.tgz of main (s29-a's build). hum bench, two rounds, every candidate a site policy over
# the built-in table on the entries above M = 384 (bench/sweeps/site-policy.sh):
# 1. W8A8 e4m3 8192 x 8192 (1.43x / 1.23x cuBLASLt fp8 at M 1024 / 8192 on the H100, s27-show) at
#    M 1024 / 2048 / 8192: A multicast to 2-CTA clusters (mc: cuBLASLt's 128 x 128 tile runs in 2 x 1
#    clusters), with C in the last stage's slot and one or two stages more (mcs1, mcs2), and 128 x 128 x
#    128 / 6 whole tiles with the slot and multicast at M 385..1024 (w8mc);
# 2. W4A8 MXFP4 (1.16x / 1.03x Humming at M 1024 / 8192) at M 1024 / 8192: mc;
# 3. uint2 channel at M 512 / 1024 / 4096 / 8192 (s29-a: M 2048 325 against 338 µs with C in the slot
#    and three stages, M 8192 noisy): base, st3, st3mc.
set -u
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/cand
BIG='e.m_min > 384'; S="t.c_tile = 'stage'"; MC='t.multicast_a = true'
pol mc "if $BIG then $MC end"
pol mcs1 "if $BIG then $MC; $S; t.stages = t.stages + 1 end"
pol mcs2 "if $BIG then $MC; $S; t.stages = t.stages + 2 end"
pol w8mc "if $BIG and e.m_max <= 1024 then t = whole(wg('wgmma_ws', 128, 128, 128, 6)); $S; $MC end"
pol st3 "if $BIG then $S; t.stages = 3 end"
pol st3mc "if $BIG then $S; t.stages = 3; $MC end"
X=n=8192,k=8192
bench() { # CONFIG SPEC M
  left=$((410 - ($(date +%s) - t0))); [ $left -lt 15 ] && return
  echo "== $1 $2" >> $R/ab.txt
  HUM_CACHE_DIR=/tmp/ab-$1-${2##*w=} timeout $left build/runtime/hum bench --config /tmp/cand/$1.yaml \
    --layer $2 --m $3 --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check|M 385|M 513|M 1025' >> $R/ab.txt
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/ab.txt
}
for round in 1 2; do
  for c in base mc mcs1 mcs2 w8mc; do bench $c $X,w=e4m3,a=e4m3 1024,2048,8192; done
  for c in base mc; do bench $c $X,w=e2m1,group=32,scale=e8m0,a=e4m3 1024,8192; done
  for c in base st3 st3mc; do bench $c $X,w=uint2 512,1024,4096,8192; done
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
