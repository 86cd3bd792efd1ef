# timeout: 420
# A request for bench/sweeps/run-call.sh (written in session 17, not yet run): W8A8 e4m3 and W4A8 MXFP4 at
# n = k = 8192 on tiles that fill the 132 SMs whole (128 tiles), as the M <= 16 W8A8 entry does since
# 1e2e4b0 (bench/NOTES.md, "Session 17"), at M 32 / 64 / 128; and W4A8's 256-row entry promoted every 1024
# of K instead of 512 (time only: its accuracy against test_gemm_a8's 1e-3 bar at K = 8192 is untested);
# W4A8 at M <= 8 on 8 x 64 x 256 whole (session 17's call 3, one reading: 21.95 / 22.91 against 22.10, 22.13 /
# 22.90, 22.99 at M 1 / 8).
# Site policies beside the built-in, two rounds interleaved.
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/next-whole
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/next-whole-pol
pol w32 "if e.m_min == 17 and e.m_max == 32 then t = whole(wg('wgmma_ws', 32, 64, 256, 6)) end"
pol w64 "if e.m_min == 33 and e.m_max == 64 then t = whole(wg('wgmma_ws', 64, 64, 256, 5)) end"
pol r128n64 "if e.m_min == 65 then t = whole(wg('wgmma_ws', 128, 64, 128, 6)) end"
pol r64n128 "if e.m_min == 65 then t = whole(wg('wgmma_ws', 64, 128, 256, 4)) end"
pol p1024 "if e.m_min > 384 and t.block_m == 256 then t.promote_k = 1024 end"
pol w8 "if e.m_max <= 8 then t = whole(wg('wgmma_ws', 8, 64, 256, 8)) end"
b() { # NAME CONFIG LAYER MS
    echo "=== $1 $2 $3 $4" >>$R/sweep.txt
    timeout 45 $H bench --config /tmp/next-whole-pol/$2.yaml --layer $3 --m $4 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
for r in 1 2; do
  for v in base w32 w64 r128n64 r64n128; do b small $v $W8 32,64,128; done
  for v in base w32 w64 r128n64 r64n128; do b small $v $W4 32,64,128; done
  for v in base p1024; do b big $v $W4 1024,8192; done
  for v in base w8; do b tiny $v $W4 1,8; done
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror" $R/sweep.txt > $R/summary.txt
