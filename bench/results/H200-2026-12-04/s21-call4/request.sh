# timeout: 240
# Session 21, call 4 (main 2a0...: stage sets over periods of two stages): W8A8 e4m3 at M 128..1024
# on the built-in table (every 128 of K, sets by stage) against site policy p256 (the 128-row wgmma_ws
# entries promoted every 256: sets by two-stage period), two rounds; test_gemm_a8's W8A8 cases
# (built-in and fill passes) under p256, and its promote256 pass.
set -u
H=build/runtime/hum
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/c4pol
pol p256 "if t.kernel == 'wgmma_ws' and t.block_m == 128 and e.m_min > 64 and e.m_max <= 1024 then t.promote_k = 256 end"
W8L=n=8192,k=8192,w=e4m3,a=e4m3
b() { # CONFIG MS
    echo "=== $1 $2" >>$R/sweep.txt
    HUM_CACHE_DIR=/tmp/c4-$1 timeout 40 $H bench --config /tmp/c4pol/$1.yaml --layer $W8L --m $2 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
for r in 1 2; do for v in base p256; do b $v 128,256,512,1024; done; done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/sweep.txt > $R/summary.txt
T=build/tests/test_test_gemm_a8
for s in 0 1 2 3; do
  (HUM_CONFIG=/tmp/c4pol/p256.yaml HUM_TEST_CASES=w=e4m3 HUM_TEST_SHARD=$s/4 HUM_CACHE_DIR=/tmp/c4-t$s timeout 150 $T built-in > $R/acc-builtin-$s.txt 2>&1; echo "exit $?" >> $R/acc-builtin-$s.txt) &
done
(HUM_CONFIG=/tmp/c4pol/p256.yaml HUM_TEST_CASES=w=e4m3 HUM_CACHE_DIR=/tmp/c4-tf timeout 150 $T fill > $R/acc-fill.txt 2>&1; echo "exit $?" >> $R/acc-fill.txt) &
(HUM_TEST_CASES=w=e4m3 HUM_CACHE_DIR=/tmp/c4-tp timeout 150 $T promote256 > $R/acc-p256.txt 2>&1; echo "exit $?" >> $R/acc-p256.txt) &
wait
echo "tests done at $(($(date +%s) - t0)) s" >> $R/summary.txt
