# timeout: 460
# Session 50's first call (bench/sweeps/run-call.sh): mma_direct, the mma.sync kernel whose 8-row warps
# read their weights, scales and A straight into registers (kernels/gemm/gemm_mma.cu, kDirectB).
# 1. its GPU test (tests/gpu/test_gemm_direct.c: every layer kind it takes at M 1 / 3 / 8 against
#    the float64 reference, three tiles);
# 2. issue 8's M <= 16 cells beside Humming, two rounds: the built-in table against mma_direct
#    tiles (bench/sweeps/s50/{a,c,d,e}; b, untimed: 8 x 64 x 256 on 8 warps along K with rings of 4 and 8, on
#    4 warps with 6, 8 x 128 x 256 on 2 x 4 warps with 4; e: a's, and M 9..16 on 16 x 64 x 256,
#    2 x 4 warps);
# 3. what ptxas made of them (HUM_PTXAS_REPORT logs of the cache, the direct ones).
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s50-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
export HUM_CACHE_DIR=/tmp/cache HUM_PTXAS_REPORT=1
(cd build && timeout 180 ctest -R test_gemm_direct --timeout 175 --output-on-failure) > $R/direct-test.txt 2>&1
echo "direct test exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/direct-test.log 2>/dev/null
S=bench/sweeps/s50
timeout $(($(left) - 15)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-direct.json \
  --only w4g128,llama-4096x4096,llama-14336x4096,llama-4096x14336,w4g128zp,w8ch,w2ch --m 1,8,16 \
  --rounds 2 --floor '' --hum a=$S/a/hum.yaml --hum c=$S/c/hum.yaml --hum d=$S/d/hum.yaml --hum e=$S/e/hum.yaml \
  > $R/sbs-direct.txt 2>&1
echo "sbs exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
mkdir -p $R/ptxas
for f in $(grep -l "kDirectB = true" /tmp/cache/logs/*.log 2>/dev/null); do cp $f $R/ptxas/; done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
