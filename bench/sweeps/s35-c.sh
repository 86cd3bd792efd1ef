# timeout: 190
# Session 35's short call (device time left after refused starts): FP8 block-wise stage sets, old
# (.exp/old-hum, 0cee527) against new, one round; then test_gemm_kgroup (the new path) and the rest
# of the gpu label with the time left.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s35-c.sh | sed "s/# timeout: //") - 8 ))
left() { echo $((B - ($(date +%s) - t0))); }
run() { # LABEL HUM CACHE LAYER M
  [ $(left) -gt 30 ] || { echo "== $1 $4 skipped (time)" >> $R/ab.txt; return; }
  echo "== $1 $4" >> $R/ab.txt
  HUM_CACHE_DIR=/tmp/c-$3 timeout 40 $2 bench --layer $4 --m $5 --warmup 10 --reps 50 2>&1 \
    | grep -E '^ +[0-9]+ |FAIL|rror|check' >> $R/ab.txt
}
for l in n=7168,k=2048 n=8192,k=8192; do
  spec=$l,w=e4m3,a=e4m3,block=128x128,ascale=group128
  run old .exp/old-hum old $spec 1024,8192
  run new build/runtime/hum new $spec 1024,8192
done
echo "A/B done at $(($(date +%s) - t0)) s" >> $R/calls.txt
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout $(($(left) - 3)) ctest -L gpu -R kgroup --timeout 200 \
  --output-on-failure) > $R/label-kgroup.txt 2>&1
echo "kgroup exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-kgroup.log 2>/dev/null
l=$(left)
if [ $l -gt 20 ]; then
  (cd build && HUM_CACHE_DIR=/tmp/label-cache timeout $((l - 3)) ctest -L gpu -E kgroup -j12 --timeout 200 \
    --output-on-failure) > $R/label-rest.txt 2>&1
  echo "label rest exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
