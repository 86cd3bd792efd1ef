# timeout: 560
# Session 19, call 1: W4A8 MXFP4 (n = k = 8192) with every entry promoted every 1024 of K (no stage sets:
# the 128-row kernels' 564..836-byte spills gone), and tiles beside it at M 17..64 (Humming's 256 columns)
# and 129..384 (256 rows, stream-K or 64 columns whole); site policies beside the built-in, two rounds.
# Then test_gemm_a8's built-in and fill passes under `pall` (the K = 8192 MXFP4 case at M 1 / 7 / 48 / 200 /
# 520, every entry every 1024).
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/s19c1
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/s19c1-pol
MX="layer.a_dtype == 'float8_e4m3fn' and layer.weight_float and layer.weight_bits == 4"
pol pall "if $MX then t.promote_k = 1024 end"
pol s256 "if $MX then t.promote_k = 1024; if e.m_min > 128 and e.m_max <= 384 then t = wg('wgmma_ws', 256, 128, 128, 3); t.promote_k = 1024 end end"
pol r256n64 "if $MX then t.promote_k = 1024; if e.m_min > 128 and e.m_max <= 256 then t = whole(wg('wgmma_ws', 256, 64, 128, 4)); t.promote_k = 1024 end end"
pol n256 "if $MX then t.promote_k = 1024; if e.m_min >= 33 and e.m_max <= 64 then t = mma(64, 256, 128, 64, 32, 128, 4); t.kernel = 'wgmma_ws'; t.promote_k = 1024 elseif e.m_min >= 17 and e.m_max <= 32 then t = mma(32, 256, 256, 32, 32, 256, 4); t.kernel = 'wgmma_ws'; t.promote_k = 1024 end end"
b() { # CONFIG LAYER MS
    echo "=== $1 $2 $3" >>$R/sweep.txt
    timeout 60 $H bench --config /tmp/s19c1-pol/$1.yaml --layer $2 --m $3 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
for r in 1 2; do
  for v in base pall s256 r256n64 n256; do b $v $W4 1,8,16,32,64,128,256,384,1024; done
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/sweep.txt > $R/summary.txt
for p in built-in fill; do
  echo "=== test_gemm_a8 $p under pall" >> $R/acc.txt
  HUM_CONFIG=/tmp/s19c1-pol/pall.yaml timeout 150 build/tests/test_gemm_a8 $p >> $R/acc.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/acc.txt
done
