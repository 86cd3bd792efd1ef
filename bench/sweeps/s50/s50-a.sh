# timeout: 250
# Session 50's first call (bench/sweeps/run-call.sh), short: is mma_direct (kernels/gemm/gemm_mma.cu,
# kDirectB; policies/sm90.lua at M <= 8) right, and is it faster than the staged tiles it replaced?
# 1. its GPU test (tests/gpu/test_gemm_direct.c), compiled here;
# 2. n = k = 8192 and 4096 x 4096 uint4 g128 fp16 at M 1 / 8, the built-in against the staged table
#    (bench/sweeps/s50/staged) and Humming, two rounds.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s50-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
export HUM_CACHE_DIR=/tmp/cache HUM_PTXAS_REPORT=1
(cd build && timeout 150 ctest -R test_gemm_direct --timeout 145 --output-on-failure) > $R/direct-test.txt 2>&1
echo "direct test exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/direct-test.log 2>/dev/null
S=bench/sweeps/s50
timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-direct.json \
  --only w4g128,llama-4096x4096 --m 1,8 --rounds 2 --floor '' --hum staged=$S/staged/hum.yaml \
  > $R/sbs-direct.txt 2>&1
echo "sbs exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
mkdir -p $R/ptxas
for f in $(grep -l "kDirectB = true" /tmp/cache/logs/*.log 2>/dev/null); do cp $f $R/ptxas/; done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
