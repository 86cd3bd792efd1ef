# timeout: 400
# Session 42's last request (device starts refused for ~1,100 s after s42-a; s42-b never ran), on
# 8df2782: quantize_a's first rows taken by every warp before setmaxnreg, 16 chunks a lane in
# flight (a producer warp held 2, and a CTA's first copies waited for its slowest row), producer
# rows 4 deep, the codes' cp.async copies on two warps; sm90.lua turns quantize_a on above M = 1024.
# 1. beside Humming, two rounds, W8A8 and W4A8 MXFP4 at M 2048 / 8192: hum (built-in, quantize_a
#    on), hum-off (bench/sweeps/s42/no-quantize-a: the quantizer kernel first, as before), their
#    -q rows (A quantized outside the call);
# 2. the fused path's tests, then the rest of the gpu label in the time left.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s42-c.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
timeout 120 python3 -u bench/sweeps/side-by-side.py --out $R/ab.json --only w8a8,w4a8mx \
  --m 8192,2048 --rounds 2 --floor '' --hum off=bench/sweeps/s42/no-quantize-a/hum.yaml > $R/ab.txt 2>&1
echo "side-by-side exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
Q="test_gemm_a8_quantize|test_quantize_a_gpu"
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 100 ctest -R "$Q" --timeout 95 --output-on-failure \
  -j2) > $R/tests.txt 2>&1
echo "tests exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout $(($(left) - 5)) ctest -L gpu -E "$Q" -j14 \
  --timeout $(($(left) - 10)) --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
