# timeout: 420
# Session 51's second call: mma_direct's loader with the lane's addresses set once per tile (each
# item one step per source; rows past M read row 0, which write_c skips), on a build of the
# working tree (kernels/gemm/gemm_mma.cu changed; .exp/label-cache.txz holds test_gemm_direct's
# kernels only, tools/label-cache/build.sh ... -R 'test_gemm_direct$'):
# 1. test_gemm_direct; compute-sanitizer memcheck of an M = 1 forward on it;
# 2. M 1 / 8 beside Humming, two rounds: the built-in (rings of 8), rings of 4 and 6, and the staged
#    tiles before mma_direct (bench/sweeps/s50/staged), on the n = k = 8192 cells it runs.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s51-b.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && timeout 150 ctest -R 'test_gemm_direct$' --timeout 145 --output-on-failure) > $R/direct-test.txt 2>&1
echo "test_gemm_direct exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
export HUM_CACHE_DIR=/tmp/cache
timeout 90 compute-sanitizer --tool memcheck build/runtime/hum bench \
  --layer n=8192,k=8192,w=uint4,a=float16,group=128,zp=int --m 1,3 --warmup 1 --reps 2 --out /tmp/memcheck.json --force \
  > $R/memcheck.txt 2>&1
echo "memcheck exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
S=bench/sweeps
timeout $(($(left) - 5)) python3 -u $S/side-by-side.py --out $R/sbs-ring.json --only w4g128,w4g128zp,w4g128bf16,w8ch \
  --m 1,8 --rounds 2 --floor '' --hum staged=$S/s50/staged/hum.yaml --hum ring4=$S/s51/ring4/hum.yaml \
  --hum ring6=$S/s51/ring6/hum.yaml > $R/sbs-ring.txt 2>&1
echo "sbs ring exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
