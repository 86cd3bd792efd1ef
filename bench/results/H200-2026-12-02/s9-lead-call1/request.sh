# timeout: 200
# Session 9 lead, call 1: act-order with workspace sums at M 65..384; act-order and plain interleaved.
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/cache-lead
(cd build && stdbuf -oL timeout 60 ./tests/test_test_gemm_workspace) >$R/workspace.log 2>&1; echo "workspace exit $?" >>$R/workspace.log
tail -3 $R/workspace.log
P=n=8192,k=8192,w=uint4,a=float16,group=128
# pre-warm both tables
timeout 20 $H bench --layer $P --m 1 --warmup 1 --reps 1 >/dev/null 2>&1
timeout 20 $H bench --layer $P,actorder=1 --m 1 --warmup 1 --reps 1 >/dev/null 2>&1
for r in 1 2; do
  for s in $P $P,actorder=1; do
    echo "=== round $r $s" >>$R/ao.txt
    timeout 20 $H bench --layer $s --m 16,32,64,128,256,1024,8192 --warmup 10 --reps 50 >>$R/ao.txt 2>&1
  done
done
cat $R/ao.txt | grep -v '^#' | head -80
# bench checks every M now: how long the show.sh rows take with them
s=$(date +%s); timeout 60 $H bench --layer $P --m 1,16,32,64,128,256,512,1024,2048,4096,8192 --warmup 10 --reps 50 >$R/w4.txt 2>&1; echo "w4 row exit $? in $(($(date +%s)-s)) s" | tee -a $R/w4.txt
s=$(date +%s); timeout 60 $H bench --moe e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128 --m 1,8,128,1024,4096 --warmup 10 --reps 50 >$R/moe.txt 2>&1; echo "moe row exit $? in $(($(date +%s)-s)) s" | tee -a $R/moe.txt
grep -E '^check|^ +[0-9]' $R/w4.txt $R/moe.txt | head -40
# what bounds W4A8 MXFP4 at M = 1024 (issue 9: 183.71 against Humming's 113.76)
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
timeout 70 $NCU --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis \
  --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy -k regex:hum_gemm -c 1 \
  $H bench --layer n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0 --m 1024 --warmup 1 --reps 1 >$R/ncu-w4a8.txt 2>&1
echo "ncu exit $?" >>$R/ncu-w4a8.txt; grep -E 'Duration|Throughput|Issue Slots|Stall|No Eligible|Registers' $R/ncu-w4a8.txt | head -30
