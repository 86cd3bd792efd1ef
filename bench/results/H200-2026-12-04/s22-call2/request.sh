# timeout: 540
# Session 22, call 2 (main 1ce4153 + SS weights for e4m3 A, uncommitted): the gpu label on the tree,
# then A/B of W8A8 e4m3 and FP8 block-wise, main's kernels (HUM_KERNEL_PATH=.exp/kernels-main, the same
# host code) against the tree's embedded ones, two rounds.
set -u
H=build/runtime/hum
t0=$(date +%s)
(cd build && HUM_CACHE_DIR=$(mktemp -d) timeout 300 ctest -L gpu -j12 --timeout 280 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
grep -E "tests passed|Failed|\*\*\*|Test +#" $R/label.txt >> $R/calls.txt
ab() { # NAME LAYER MS
  for r in 1 2; do for v in main ss; do
    kp=""; [ $v = main ] && kp=$PWD/.exp/kernels-main
    echo "=== $v $1 r$r" >> $R/ab.txt
    HUM_KERNEL_PATH=$kp HUM_CACHE_DIR=/tmp/ab-$v timeout 80 $H bench --layer $2 --m $3 --warmup 10 --reps 50 >> $R/ab.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >> $R/ab.txt
  done; done
}
ab w8a8 n=8192,k=8192,w=e4m3,a=e4m3 1,16,64,128,256,384,512,1024,2048,8192
ab block n=7168,k=2048,w=e4m3,a=e4m3,block=128x128,ascale=group128 128,1024,8192
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/ab.txt > $R/summary.txt
