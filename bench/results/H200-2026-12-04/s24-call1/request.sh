# timeout: 560
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
# 1. test_expert_gemm with its new 8-row pass (4 shards)
(cd build && timeout 200 ctest -R test_expert_gemm -j4 --output-on-failure) > $R/expert.txt 2>&1
echo "expert exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
# 2. hum and Humming interleaved, three rounds; the protocol's floor
HUM_CACHE_DIR=/tmp/sbs-cache timeout 260 python3 bench/sweeps/side-by-side.py --out $R/sbs.json --rounds 3 > $R/sbs.txt 2>&1
echo "sbs exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
# 3. rows8-next's timing parts (no ncu)
sed -e '/^ao=/,$d' bench/sweeps/rows8-next.sh > /tmp/r8.sh
R=$R timeout 200 bash /tmp/r8.sh
echo "rows8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/sweep.txt > $R/summary.txt
