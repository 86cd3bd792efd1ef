# timeout: 265
# Ready for the next session (session 41's device time went to refused starts before it ran).
# After s41-b (quantize_a's tests and memcheck passed on c08c54b; its side-by-side did not start:
# tools-shared was a link that did not travel; test_gemm_workspace still had the old lock area):
# 1. the fused path's tests again (test_gemm_a8_quantize, test_quantize_a_gpu: the release add,
#    div_rn of infinities, the rounds as loops changed since);
# 2. beside Humming, two rounds: W8A8 and W4A8 MXFP4 at M 2048 / 8192, hum (the built-in tables:
#    the quantizer kernel first), hum-qa (bench/sweeps/s41/quantize-a: the GEMM quantizes its own A
#    above M 1024 / 2048), hum-q and hum-qa-q (A quantized outside the call: the quantize_a kernel's
#    cost where it does not quantize, its copies on one warp).
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s41-c.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 75 ctest -R "test_gemm_a8_quantize|test_quantize_a_gpu" \
  --timeout 70 --output-on-failure -j2) > $R/tests.txt 2>&1
echo "tests exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/ab.json --only w8a8,w4a8mx \
  --m 8192,2048 --rounds 2 --floor '' --hum qa=bench/sweeps/s41/quantize-a/hum.yaml > $R/ab.txt 2>&1
echo "side-by-side exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
