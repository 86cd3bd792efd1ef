# timeout: 470
# Session 32's fourth request, for bench/sweeps/run-call.sh, on 20f2fce (W8A8's M 257..384 entry with
# weights_ss, its 192-row entry above M = 1024 promoted every 256 of K; test_gemm_a8's `wide` pass):
# 1. W8A8 n = k = 8192 at M 2048 / 4096 / 8192, the built-in (every 256) against every 128 (p128,
#    the table before), two rounds in turn;
# 2. the gpu label on 20f2fce.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s32-d.sh | sed "s/# timeout: //") - 10 ))
. bench/sweeps/site-policy.sh /tmp/cand
pol p128 "if e.m_min > 1024 then t.promote_k = 0 end"
X=n=8192,k=8192,w=e4m3,a=e4m3
for round in 1 2; do
  for c in base p128; do
    echo "== $c round $round" >> $R/ab.txt
    HUM_CACHE_DIR=/tmp/c-$c timeout 40 build/runtime/hum bench --config /tmp/cand/$c.yaml --layer $X --m 2048,4096,8192 \
      --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check|M 1025' >> $R/ab.txt
  done
done
echo "ab done at $(($(date +%s) - t0)) s" >> $R/calls.txt
left=$((B - ($(date +%s) - t0)))
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout $((left - 5)) ctest -L gpu -j12 --timeout $((left - 15)) --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
