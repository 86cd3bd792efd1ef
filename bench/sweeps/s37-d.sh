# timeout: 420
# Session 37's last request, for bench/sweeps/run-call.sh: the gpu label in full on main's head
# (s37-c's label ran out of its 280 s with test_gemm_wgmma_2 / _3 unfinished on a slower machine).
set -u
t0=$(date +%s)
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 400 ctest -L gpu -j12 --timeout 380 \
  --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
