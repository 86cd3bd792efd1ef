# timeout: 540
# Session 19, call 2: W4A8 MXFP4 promoted every 1024 of K on every entry (`pall`, call 1's winner) with
# tiles beside it: 16 x 64 x 256 / 8 whole at M 9..16 (c16), 32 x 64 x 256 / 6 whole at 17..32 (c32),
# 256 x 64 x 128 / 4 whole at 129..256 (r256n64), 192 x 128 x 128 / 4 whole at 257..384 (r192); W8A8 e4m3
# at M 129..256 promoted every 256 (w8p) and on 256 x 64 x 128 / 4 whole (w8r). Two rounds. Then
# test_gemm_a8's built-in and fill passes under `cand` (all the W4A8 candidates at once: each entry's
# error stands alone; the built-in pass's n = 1024, K = 8192 MXFP4 case at M 1 / 7 / 48 / 200 / 520).
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/s19c2
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/s19c2-pol
MX="layer.a_dtype == 'float8_e4m3fn' and layer.weight_float and layer.weight_bits == 4"
P="t.promote_k = 1024"
pol pall "if $MX then $P end"
pol c16 "if $MX then $P; if e.m_min > 8 and e.m_max <= 16 then t = whole(wg('wgmma_ws', 16, 64, 256, 8)); $P end end"
pol c32 "if $MX then $P; if e.m_min > 16 and e.m_max <= 32 then t = whole(wg('wgmma_ws', 32, 64, 256, 6)); $P end end"
pol r256n64 "if $MX then $P; if e.m_min > 128 and e.m_max <= 256 then t = whole(wg('wgmma_ws', 256, 64, 128, 4)); $P end end"
pol r192 "if $MX then $P; if e.m_min > 256 and e.m_max <= 384 then t = whole(wg('wgmma_ws', 192, 128, 128, 4)); $P end end"
pol cand "if $MX then $P; if e.m_min > 8 and e.m_max <= 16 then t = whole(wg('wgmma_ws', 16, 64, 256, 8)); $P elseif e.m_min > 16 and e.m_max <= 32 then t = whole(wg('wgmma_ws', 32, 64, 256, 6)); $P elseif e.m_min > 128 and e.m_max <= 256 then t = whole(wg('wgmma_ws', 256, 64, 128, 4)); $P elseif e.m_min > 256 and e.m_max <= 384 then t = whole(wg('wgmma_ws', 192, 128, 128, 4)); $P end end"
pol w8p "if e.m_min > 128 and e.m_max <= 256 then t.promote_k = 256 end"
pol w8r "if e.m_min > 128 and e.m_max <= 256 then t = whole(wg('wgmma_ws', 256, 64, 128, 4)); t.promote_k = 256 end"
b() { # CONFIG LAYER MS
    echo "=== $1 $2 $3" >>$R/sweep.txt
    timeout 60 $H bench --config /tmp/s19c2-pol/$1.yaml --layer $2 --m $3 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
for r in 1 2; do
  for v in base pall c16 c32 r256n64 r192; do b $v $W4 1,8,16,32,64,128,256,384; done
  for v in base w8p w8r; do b $v $W8 128,256; done
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/sweep.txt > $R/summary.txt
for p in built-in fill; do
  echo "=== test_gemm_a8 $p under cand" >> $R/acc.txt
  HUM_CONFIG=/tmp/s19c2-pol/cand.yaml timeout 150 build/tests/test_test_gemm_a8 $p >> $R/acc.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/acc.txt
done
