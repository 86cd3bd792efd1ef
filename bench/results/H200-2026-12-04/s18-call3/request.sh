# timeout: 520
# Session 18, call 3: W4A8 MXFP4 at M 9..64 and 8-bit A at M 256 / 512 on tiles that fill the 132 SMs whole (site policies beside the built-in of e2bd988, two rounds interleaved); Humming's quant rows after
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/c3cache
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/c3pol
pol m16w "if e.m_min == 9 and e.m_max == 16 then t = whole(wg('wgmma_ws', 16, 64, 256, 8)) end"
pol m32r "if e.m_min == 17 and e.m_max == 32 then t = whole(wg('wgmma_ws', 16, 128, 256, 6)) end"
pol m64r "if e.m_min == 33 and e.m_max == 64 then t = whole(wg('wgmma_ws', 32, 128, 256, 5)) end"
pol m64c "if e.m_min == 33 and e.m_max == 64 then t = wg('wgmma_ws', 64, 128, 128, 6) end"
pol r256 "if e.m_min == 129 then t = whole(wg('wgmma_ws', 128, 128, 128, 4)) end"
b() { # NAME CONFIG LAYER MS
    [ $(($(date +%s) - t0)) -lt 400 ] || { echo "=== $1 $2: skipped (time)" >>$R/sweep.txt; return; }
    echo "=== $1 $2 $3 $4" >>$R/sweep.txt
    timeout 45 $H bench --config /tmp/c3pol/$2.yaml --layer $3 --m $4 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
for r in 1 2; do
  for v in base m16w m32r m64r m64c; do b small $v $W4 16,32,64; done
  for v in base r256; do b mid $v $W4 256,512; b mid $v $W8 256,512; done
done
PYTHONUNBUFFERED=1 timeout $((510 - ($(date +%s) - t0))) python3 tools-shared/bench-humming.py --only quant --out $R/humming-quant.json > $R/humming-quant.txt 2>&1
echo "humming exit $? at $(($(date +%s) - t0)) s" >> $R/sweep.txt
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/sweep.txt > $R/summary.txt
