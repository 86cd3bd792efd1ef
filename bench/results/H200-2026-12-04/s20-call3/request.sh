# timeout: 420
# Session 20, call 3 (main d31d872 + hum_gemm_wgmma_smem_totals for two slabs, uncommitted): 128 x 256 x
# 128 tiles (two warpgroups of two slabs; half of e4m3's totals in shared memory) under stream-K above
# M = 128: W4A8 MXFP4 promoted every 1024 (t256, stages 3 and 4) and never (t256n: the bound without
# promotions); W8A8 e4m3 promoted every 128 (w8t256). Split warpgroups (call 2) lost: M 256 is not
# bound by one warpgroup's wgmma wait but, on 64-column tiles, by each of 128 CTAs reading all of A
# (2 MB) from L2. Two rounds. Then test_gemm_a8's rows128x256 pass.
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/s20c3
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/s20c3-pol
T="local function t256(s, p) local u = wg('wgmma_ws', 128, 256, 128, s); u.warp_n = 32; u.promote_k = p; return u end"
pol t256 "$T; if e.m_min > 128 then t = t256(3, t.promote_k) end"
pol t256s4 "$T; if e.m_min > 128 then t = t256(4, t.promote_k) end"
pol t256n "$T; if e.m_min > 128 then t = t256(3, layer.padded_k) end"
b() { # CONFIG LAYER MS
    echo "=== $1 $2 $3" >>$R/sweep.txt
    timeout 60 $H bench --config /tmp/s20c3-pol/$1.yaml --layer $2 --m $3 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
W4L=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8L=n=8192,k=8192,w=e4m3,a=e4m3
for r in 1 2; do
  for v in base t256 t256s4; do b $v $W4L 256,384,512,1024,8192; done
  b t256n $W4L 256,512,1024
  for v in base t256; do b $v $W8L 256,512,1024,8192; done
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/sweep.txt > $R/summary.txt
echo "=== test_gemm_a8 rows128x256" >> $R/acc.txt
timeout 120 build/tests/test_test_gemm_a8 rows128x256 >> $R/acc.txt 2>&1
echo "exit $? at $(($(date +%s) - t0)) s" >> $R/acc.txt
