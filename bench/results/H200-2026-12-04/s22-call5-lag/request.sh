# timeout: 420
# Session 22, call 5 (main 1ce4153 + kLag, uncommitted): the gpu label on the tree; then A/B against
# main's hum (.exp/hum-main), two rounds: FP8 block-wise (drained at every stage end), W8A8 at M 2048 /
# 8192 (192-row tiles, two sets), W4A8 MXFP4 (256 x 128 tiles promoted every 1024), and entries the lag
# does not reach (W8A8 M 256 / 1024 on stage sets).
set -u
H=build/runtime/hum
t0=$(date +%s)
(cd build && HUM_CACHE_DIR=$(mktemp -d) timeout 300 ctest -L gpu -j12 --timeout 280 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
grep -E "tests passed|Failed|\*\*\*" $R/label.txt >> $R/calls.txt
b() { # NAME BIN LAYER MS
  echo "=== $1 $3" >> $R/sweep.txt
  HUM_CACHE_DIR=/tmp/c5-$1 timeout 60 $2 bench --layer $3 --m $4 --warmup 10 --reps 50 >> $R/sweep.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/sweep.txt
}
for r in 1 2; do
  for v in main lag; do
    bin=$H; [ $v = main ] && bin=.exp/hum-main
    b $v $bin n=7168,k=2048,w=e4m3,a=e4m3,block=128x128,ascale=group128 128,1024,8192
    b $v $bin n=8192,k=8192,w=e4m3,a=e4m3,block=128x128,ascale=group128 1024,8192
    b $v $bin n=8192,k=8192,w=e4m3,a=e4m3 256,1024,2048,8192
    b $v $bin n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0 512,1024,8192
  done
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/sweep.txt > $R/summary.txt
