# timeout: 590
# Session 42's first request (bench/sweeps/run-call.sh; session 41's s41-a and s41-c never got a
# machine). Label first, then what decides whether sm90.lua turns quantize_a on:
# 1. the gpu label on main's head (9750c40: quantize_a's kernel changes since c08c54b ran on none);
# 2. beside Humming, two rounds, W8A8 and W4A8 MXFP4 at M 2048 / 8192: hum (quantizer kernel
#    first), hum-qa (the GEMM quantizes its own A: bench/sweeps/s41/quantize-a), hum-q / hum-qa-q
#    (A quantized outside the call);
# 3. with what is left, issue 8's close cells in two rounds (uint8 channel 1024 / 4096 / 8192, the
#    Llama cells at M 1 / 16 / 1024).
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s42-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 290 ctest -L gpu -j12 --timeout 280 \
  --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/ab.json --only w8a8,w4a8mx \
  --m 8192,2048 --rounds 2 --floor '' --hum qa=bench/sweeps/s41/quantize-a/hum.yaml > $R/ab.txt 2>&1
echo "side-by-side exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
sbs() { # NAME M CASES
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 bench/sweeps/side-by-side.py --out $R/show-$1.json --only $3 --m $2 \
    --rounds 2 --floor '' > $R/show-$1.txt 2>&1
  echo "show $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs llama 1,16,1024 llama-4096x4096,llama-14336x4096,llama-4096x14336
sbs chan 1024,4096,8192 w8ch
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
