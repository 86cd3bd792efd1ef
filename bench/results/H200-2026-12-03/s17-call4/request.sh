# timeout: 420
# Session 17 call 4 (main 1e2e4b0 + uncommitted: warp-specialised codes by bulk copy, W4A8 MXFP4 without stage
# sets): A = main's hum (.exp/hum-main), B = this tree's hum with main's kernels (HUM_KERNEL_PATH: the C rule
# alone, W4A8's 128-row entry without stage sets: 295 local-memory instructions gone), C = this tree (bulk codes
# too); two rounds, interleaved; then test_gemm_wgmma and test_expert_gemm (ctest) on this tree.
set -u
H=build/runtime/hum
t0=$(date +%s)
b() { # NAME LAYER MS ...env
    n=$1 l=$2 m=$3; shift 3
    echo "=== $n $l $m" >>$R/ab.txt
    case $n in
      A) HUM_CACHE_DIR=/tmp/c4-A timeout 50 .exp/hum-main bench --layer $l --m $m --warmup 10 --reps 50 >>$R/ab.txt 2>&1 ;;
      B) HUM_KERNEL_PATH=$PWD/.exp/kernels-main HUM_CACHE_DIR=/tmp/c4-B timeout 50 $H bench --layer $l --m $m --warmup 10 --reps 50 >>$R/ab.txt 2>&1 ;;
      C) HUM_CACHE_DIR=/tmp/c4-C timeout 50 $H bench --layer $l --m $m --warmup 10 --reps 50 >>$R/ab.txt 2>&1 ;;
    esac
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/ab.txt
}
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
U4=n=8192,k=8192,w=uint4,a=float16,group=128
for r in 1 2; do
  for v in A B C; do b $v $W4 128,256,1024,8192; done
  for v in A C; do b $v $W8 128,1024,8192; done
  for v in A C; do b $v $U4 128,1024,8192; done
done
(cd build && HUM_CACHE_DIR=/tmp/c4-t timeout 150 ctest -R "test_gemm_wgmma|test_expert_gemm" -j6 --timeout 140 --output-on-failure) > $R/tests.txt 2>&1
echo "tests exit $? at $(($(date +%s) - t0)) s" >> $R/tests.txt
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/ab.txt > $R/summary.txt
