# timeout: 330
# Session 23 call 3 (main 9f2bb27's build): the rows call 2 had no time for, the table before
# (.exp/oldpol, sm90-old) against the built-in at M 1 / 4 / 8 / 16, two rounds, interleaved.
set -u
H=build/runtime/hum
t0=$(date +%s)
b() { # NAME CONFIG LAYER MS
  echo "=== $1 $3" >> $R/sweep.txt
  HUM_CACHE_DIR=/tmp/c3-$1 timeout 40 $H bench ${2:+--config $2} --layer $3 --m $4 --warmup 10 --reps 50 >> $R/sweep.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/sweep.txt
}
for r in 1 2; do
for l in n=4096,k=4096,w=uint4,a=float16,group=128 n=14336,k=4096,w=uint4,a=float16,group=128 n=4096,k=14336,w=uint4,a=float16,group=128 \
    n=8192,k=8192,w=uint4,a=float16,group=128,actorder=1 n=7168,k=2048,w=e4m3,a=e4m3,block=128x128,ascale=group128 \
    n=8192,k=8192,w=uint8,a=int8 n=8192,k=8192,w=e4m3,a=bfloat16,block=128x128; do
  [ $(($(date +%s) - t0)) -lt 300 ] || break 2
  b old .exp/old.yaml $l 1,4,8,16
  b new "" $l 1,4,8,16
done
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/sweep.txt > $R/summary.txt
