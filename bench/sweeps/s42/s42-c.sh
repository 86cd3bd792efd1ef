# timeout: 590
# Session 42's last request (device starts refused for ~900 s after s42-a; s42-b never ran), on
# 8df2782: quantize_a's first rows taken by every warp before setmaxnreg, 16 chunks a lane in
# flight (a producer warp held 2, and a CTA's first copies waited for its slowest row), producer
# rows 4 deep, the codes' cp.async copies on two warps; sm90.lua turns quantize_a on above M = 1024.
# 1. the gpu label on it (the fused path's tests among them);
# 2. beside Humming, two rounds, W8A8 and W4A8 MXFP4 at M 2048 / 8192: hum (built-in, quantize_a
#    on), hum-off (bench/sweeps/s42/no-quantize-a: the quantizer kernel first, as before), their
#    -q rows (A quantized outside the call).
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s42-c.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 450 ctest -L gpu -j14 --timeout 440 \
  --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/ab.json --only w8a8,w4a8mx \
  --m 8192,2048 --rounds 2 --floor '' --hum off=bench/sweeps/s42/no-quantize-a/hum.yaml > $R/ab.txt 2>&1
echo "side-by-side exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
