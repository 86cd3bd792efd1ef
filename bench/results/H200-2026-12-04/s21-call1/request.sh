# timeout: 540
# Session 21, call 1 (main 00cf2ac): the gpu label; A/B of branch deep-groups-s20's kernels (two wgmma
# groups queued by a lone math warpgroup) against main's, same binary, two rounds; Humming 0.1.20's
# quant rows; L2 bytes of W4A8 MXFP4 at M = 256 and W8A8 at M = 1024 (is A's re-read per column tile
# what bounds them?).
set -u
H=build/runtime/hum
t0=$(date +%s)
OUT=$R/show ROWS=none HUMMING= BUDGET=240 bash bench/sweeps/show.sh build > $R/show.txt 2>&1
echo "label done at $(($(date +%s) - t0)) s" >> $R/calls.txt
K=$PWD/.exp/kernels-ahead2
b() { # NAME KERNEL_PATH LAYER MS
    echo "=== $1 $3 $4" >>$R/sweep.txt
    HUM_CACHE_DIR=/tmp/ahead2-$1 HUM_KERNEL_PATH=$2 timeout 60 $H bench --layer $3 --m $4 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
W4L=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8L=n=8192,k=8192,w=e4m3,a=e4m3
for r in 1 2; do
  b main "" $W4L 1,8,16,32,64,128,256,384,512,1024
  b ahead2 $K $W4L 1,8,16,32,64,128,256,384,512,1024
  b main "" $W8L 32,64,128
  b ahead2 $K $W8L 32,64,128
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/sweep.txt > $R/summary.txt
PYTHONUNBUFFERED=1 timeout 70 python3 tools-shared/bench-humming.py --only quant --out $R/humming-quant.json > $R/humming-quant.txt 2>&1
echo "humming exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
export HUM_CACHE_DIR=/tmp/ahead2-main
M=gpu__time_duration.sum,lts__t_bytes.sum,lts__t_bytes.sum.per_second,lts__t_bytes.sum.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,sm__cycles_elapsed.avg.per_second
q() { # NAME hum-bench-args...
  local name=$1; shift
  timeout 40 ncu --metrics $M -k regex:hum_gemm -c 1 --page raw "$H" bench "$@" --warmup 0 --reps 1 >$R/$name-l2.txt 2>&1
  echo "$name exit $? at $(($(date +%s) - t0)) s" >>$R/calls.txt
}
q w4a8-256 --layer $W4L --m 256
q w8a8-1024 --layer $W8L --m 1024
q w4a8-1024 --layer $W4L --m 1024
