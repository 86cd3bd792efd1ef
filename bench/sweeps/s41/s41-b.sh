# timeout: 575
# Session 41: the GEMM quantizing its own A (quantize_a, kernels/gemm/quant_a.cuh) on a GPU for the
# first time. For bench/sweeps/run-call.sh (copy to .exp/; a Release build of the commit packed with
# tools/pack-device.sh build .exp/build.tgz). In order of need:
# 1. its tests: test_gemm_a8_quantize (the fused path at M 1100 / 2100 / 2300 in chunks, the
#    fallback for A of the other 16-bit type), test_quantize_a_gpu (the quantizer's bits through
#    encode.cuh's div_rn, which replaced the division);
# 2. compute-sanitizer memcheck of a fused forward (W4A8 MXFP4 M 2100, W8A8 M 1100);
# 3. beside Humming, two rounds: W8A8 and W4A8 MXFP4 at M 1024 / 2048 / 8192, hum (quantize_a
#    above M 1024 / 2048), hum-noq (bench/sweeps/s41/no-quantize-a: the quantizer kernel first),
#    hum-q (A quantized outside the call);
# 4. the gpu label with the time left.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s41-b.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 200 ctest -R "test_gemm_a8_quantize|test_quantize_a_gpu" \
  --timeout 190 --output-on-failure -j2) > $R/tests.txt 2>&1
echo "tests exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
for L in "n=256,k=2080,w=e2m1,group=32,scale=e8m0,a=e4m3,out=bfloat16 2100" "n=1000,k=2064,w=e4m3,a=e4m3,out=bfloat16 1100"; do
  set -- $L
  HUM_CACHE_DIR=/tmp/label-cache timeout 90 compute-sanitizer --tool memcheck --print-limit 20 build/runtime/hum bench \
    --layer $1 --m $2 --warmup 1 --reps 2 >> $R/memcheck.txt 2>&1
  echo "memcheck $1 M $2 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
if [ $(left) -gt 60 ]; then
  timeout $(($(left) - 20)) python3 bench/sweeps/side-by-side.py --out $R/ab.json --only w8a8,w4a8mx \
    --m 1024,2048,8192 --rounds 2 --floor '' --hum noq=bench/sweeps/s41/no-quantize-a/hum.yaml > $R/ab.txt 2>&1
  echo "side-by-side exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
if [ $(left) -gt 60 ]; then
  (cd build && HUM_CACHE_DIR=/tmp/label-cache timeout $(($(left) - 10)) ctest -L gpu -j12 --timeout 290 \
    --output-on-failure) > $R/label.txt 2>&1
  echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
