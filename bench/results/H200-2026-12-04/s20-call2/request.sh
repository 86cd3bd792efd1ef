# timeout: 500
# Session 20, call 2 (main d31d872 + the token split, uncommitted): two math warpgroups splitting a
# 64-column tile's tokens (warp_m = block_m / 2). W4A8 MXFP4: every wgmma_ws 64-column entry split
# (sall: M 17..256), with M 385.. on 256 x 64 x 128 / 4 split, stream-K (s512) or whole (s512w), M
# 257..384 on the same under stream-K (s384); W8A8 e4m3: sall (M 17..128), M 129..256 256 x 64 x 128 / 4
# split whole and 257..1024 the same under stream-K (w256); dense uint4 g128 fp16: M 65..128 128 x 64 x
# 128 / 4 split whole, 129..384 256 x 64 x 64 / 4 split whole (d). Two rounds. Then test_gemm_a8's
# built-in and fill passes under `cand` (sall + s512 + w256).
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/s20c2
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/s20c2-pol
MX="layer.a_dtype == 'float8_e4m3fn' and layer.weight_float and layer.weight_bits == 4"
W8="layer.a_dtype == 'float8_e4m3fn' and layer.weight_float and layer.weight_bits == 8"
SP="local function sp(u) u.warp_m = u.block_m / 2; return u end"
SALL="if t.kernel == 'wgmma_ws' and t.block_n == 64 and t.block_m >= 32 then t = sp(t) end"
R256="local function r256(w) local u = sp(wg('wgmma_ws', 256, 64, 128, 4)); u.promote_k = t.promote_k; return w and whole(u) or u end"
pol sall "$SP; $SALL"
pol s512 "$SP; $R256; $SALL; if $MX and e.m_min > 384 then t = r256(false) end"
pol s512w "$SP; $R256; $SALL; if $MX and e.m_min > 384 then t = r256(true) end"
pol s384 "$SP; $R256; $SALL; if $MX and e.m_min > 256 and e.m_max <= 384 then t = r256(false) end"
pol w256 "$SP; $R256; $SALL; if $W8 and e.m_min > 128 and e.m_max <= 256 then t = r256(true) elseif $W8 and e.m_min > 256 and e.m_max <= 1024 then t = r256(false) end"
pol cand "$SP; $R256; $SALL; if $MX and e.m_min > 384 then t = r256(false) elseif $W8 and e.m_min > 128 and e.m_max <= 256 then t = r256(true) elseif $W8 and e.m_min > 256 and e.m_max <= 1024 then t = r256(false) end"
pol d "$SP; if e.m_min > 64 and e.m_max >= 128 and e.m_min <= 128 then t = whole(sp(wg('wgmma_ws', 128, 64, 128, 4))) end; if e.m_min > 128 and e.m_max <= 384 then t = whole(sp(wg('wgmma_ws', 256, 64, 64, 4))) end"
b() { # CONFIG LAYER MS
    echo "=== $1 $2 $3" >>$R/sweep.txt
    timeout 60 $H bench --config /tmp/s20c2-pol/$1.yaml --layer $2 --m $3 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
W4L=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8L=n=8192,k=8192,w=e4m3,a=e4m3
DL=n=8192,k=8192,w=uint4,a=float16,group=128
for r in 1 2; do
  b base $W4L 32,64,128,256,384,512,1024
  b sall $W4L 32,64,128,256
  for v in s512 s512w; do b $v $W4L 512,1024; done
  b s384 $W4L 384
  for v in base sall w256; do b $v $W8L 32,64,128,256,512,1024; done
  for v in base d; do b $v $DL 128,256,384; done
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/sweep.txt > $R/summary.txt
for p in built-in fill; do
  echo "=== test_gemm_a8 $p under cand" >> $R/acc.txt
  HUM_CONFIG=/tmp/s20c2-pol/cand.yaml timeout 100 build/tests/test_test_gemm_a8 $p >> $R/acc.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/acc.txt
done
