# timeout: 565
# Session 32's second request, for bench/sweeps/run-call.sh: .exp/build.tgz is 8201d21 (kBatch: SS
# stages without a promotion inside issue every step behind one fence and wait once), .exp/main.tgz
# main before it (5ba2203, s32-a's build; its hum CLI runs wherever it is extracted).
# 1. W8A8 n = k = 8192 M 256..8192, main against kBatch, two rounds, beside cuBLASLt fp8;
# 2. FP8 block-wise 7168 x 2048 and 8192 x 8192 (SS, promoted every stage with K-group factors), one round each;
# 3. on kBatch: 128-row tiles (the M 385..1024 entry's) above M = 1024 (r128), weights_ss at M
#    257..384 (ss384);
# 4. the gpu label on 8201d21.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s32-b.sh | sed "s/# timeout: //") - 10 ))
mkdir -p /tmp/mainb && tar xzf .exp/main.tgz -C /tmp/mainb
echo "main build of $(cat /tmp/mainb/hum-commit.txt 2>/dev/null)" >> $R/calls.txt
bench() { # LABEL HUM CACHE ARGS...: one hum bench run's rows into ab.txt
  echo "== $1" >> $R/ab.txt
  local h=$2 c=$3; shift 3
  HUM_CACHE_DIR=/tmp/c-$c timeout 60 $h bench "$@" --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check|M [0-9]+\.\.' >> $R/ab.txt
}
X=n=8192,k=8192,w=e4m3,a=e4m3
for round in 1 2; do
  bench "main round $round" /tmp/mainb/runtime/hum main --layer $X --m 256,384,512,768,1024,2048,4096,8192
  bench "kBatch round $round" build/runtime/hum batch --layer $X --m 256,384,512,768,1024,2048,4096,8192
done
for s in n=7168,k=2048 n=8192,k=8192; do
  bench "main fp8blk $s" /tmp/mainb/runtime/hum main --layer $s,w=e4m3,a=e4m3,block=128x128,ascale=group128 --m 128,1024,8192
  bench "kBatch fp8blk $s" build/runtime/hum batch --layer $s,w=e4m3,a=e4m3,block=128x128,ascale=group128 --m 128,1024,8192
done
echo "ab done at $(($(date +%s) - t0)) s" >> $R/calls.txt
. bench/sweeps/site-policy.sh /tmp/cand
pol r128 "if e.m_min > 1024 then t = wg('wgmma_ws', 128, 128, 128, 6); t.c_tile = 'stage'; t.multicast_a = true; t.whole_fill = 95; t.weights_ss = true end"
pol ss384 "if e.m_max == 384 then t.weights_ss = true end"
bench "kBatch r128" build/runtime/hum r128 --config /tmp/cand/r128.yaml --layer $X --m 2048,4096,8192
bench "kBatch ss384" build/runtime/hum ss384 --config /tmp/cand/ss384.yaml --layer $X --m 320,384
echo "candidates done at $(($(date +%s) - t0)) s" >> $R/calls.txt
left=$((B - ($(date +%s) - t0)))
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout $((left - 5)) ctest -L gpu -j12 --timeout $((left - 15)) --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
