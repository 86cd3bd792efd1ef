# timeout: 575
# Session 23 call 2 (main 524ed9c + NOTES): the gpu label on the built-in tables with 8-row mma.sync
# warps at M <= 8; the table before (.exp/oldpol: policies/sm90.lua of 490ec9f, renamed sm90-old) against
# the built-in at M 1 / 4 / 8 / 16, one process each, interleaved; Humming 0.1.20 quant, dense, llama.
set -u
H=build/runtime/hum
t0=$(date +%s)
left() { echo $((560 - ($(date +%s) - t0))); }
(cd build && HUM_CACHE_DIR=$(mktemp -d) timeout 300 ctest -L gpu -j12 --timeout 280 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
grep -E "tests passed|Failed|\*\*\*" $R/label.txt >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
b() { # NAME CONFIG LAYER MS
  echo "=== $1 $3" >> $R/sweep.txt
  HUM_CACHE_DIR=/tmp/c2-$1 timeout 40 $H bench ${2:+--config $2} --layer $3 --m $4 --warmup 10 --reps 50 >> $R/sweep.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/sweep.txt
}
for l in n=8192,k=8192,w=uint2,a=float16 n=8192,k=8192,w=uint4,a=float16,group=128 n=8192,k=8192,w=uint4,a=bfloat16,group=128 \
    n=8192,k=8192,w=uint4,a=float16,group=128,zp=int n=8192,k=8192,w=uint8,a=float16 n=8192,k=8192,w=e4m3,a=e4m3 \
    n=4096,k=4096,w=uint4,a=float16,group=128 n=14336,k=4096,w=uint4,a=float16,group=128 n=4096,k=14336,w=uint4,a=float16,group=128 \
    n=8192,k=8192,w=uint4,a=float16,group=128,actorder=1 n=7168,k=2048,w=e4m3,a=e4m3,block=128x128,ascale=group128; do
  [ $(left) -gt 250 ] || break
  b old .exp/old.yaml $l 1,4,8,16
  b new "" $l 1,4,8,16
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/sweep.txt > $R/summary.txt
for only in quant dense llama; do
  t=$(($(left) - 5))
  [ $t -gt 20 ] || break
  PYTHONUNBUFFERED=1 timeout $t python3 tools-shared/bench-humming.py --only $only --out $R/humming-$only.json > $R/humming-$only.txt 2>&1
  echo "humming $only exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
