# timeout: 430
# Session 41, after s41-b (quantize_a's tests and memcheck passed; its side-by-side did not start:
# tools-shared was a link that did not travel; test_gemm_workspace still had the old lock area):
# 1. the tests of what changed since: test_gemm_a8_quantize, test_quantize_a_gpu,
#    test_gemm_workspace;
# 2. beside Humming, two rounds: W8A8 and W4A8 MXFP4 at M 2048 / 8192, hum (quantize_a above M
#    1024 / 2048), hum-noq (bench/sweeps/s41/no-quantize-a: the quantizer kernel first), hum-q (A
#    quantized outside the call);
# 3. the rest of the gpu label with the time left.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s41-c.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 120 ctest -R "test_gemm_a8_quantize|test_quantize_a_gpu|test_gemm_workspace" \
  --timeout 110 --output-on-failure -j3) > $R/tests.txt 2>&1
echo "tests exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
timeout $(($(left) - 30)) python3 -u bench/sweeps/side-by-side.py --out $R/ab.json --only w8a8,w4a8mx \
  --m 2048,8192 --rounds 2 --floor '' --hum noq=bench/sweeps/s41/no-quantize-a/hum.yaml > $R/ab.txt 2>&1
echo "side-by-side exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
if [ $(left) -gt 40 ]; then
  (cd build && HUM_CACHE_DIR=/tmp/label-cache timeout $(($(left) - 5)) ctest -L gpu -j12 --timeout 290 \
    -E "test_gemm_a8_quantize|test_quantize_a_gpu|test_gemm_workspace" --output-on-failure) > $R/label.txt 2>&1
  echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
