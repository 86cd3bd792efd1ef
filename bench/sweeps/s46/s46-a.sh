# timeout: 570
# Session 46's first call (bench/sweeps/run-call.sh): session 45's s45-b, which never got a machine,
# on main's head with the label's kernels compiled here (tools/label-cache/build.sh, from 5c6fc8d,
# whose kernels are the head's), then issue 8's n = k = 8192 uint4 g128 fp16 row:
# 1. the gpu label (quantize_a now on in sm90.lua for W8A8 above M = 1024; the M 9..16 tiles);
# 2. W8A8 n = k = 8192 at M 2048 / 4096 / 8192: the built-in (quantize_a) against the quantizer
#    kernel first (bench/sweeps/s42/no-quantize-a/), beside Humming, two rounds; W4A8 MXFP4 at
#    2048 / 8192 beside Humming;
# 3. the Llama cells at M 1 / 8 / 16 beside Humming, two rounds;
# 4. issue 9's other rows: W8A8 and W4A8 MXFP4 at M 1 / 128 / 1024 beside Humming, two rounds;
# 5. hum bench of W8A8 at M 1024 / 2048 / 8192 (its cuBLASLt fp8 column);
# 6. n = k = 8192 uint4 g128 fp16 at issue 8's eleven M beside Humming, two rounds, while time is left.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s46-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
echo "CUDA_HOME=${CUDA_HOME:-unset}; cached kernels: $(find build/tests -name '*.hum' | wc -l)" >> $R/calls.txt
(cd build && timeout 220 ctest -L gpu -j16 --timeout 210 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s; kernels now: $(find build/tests -name '*.hum' | wc -l)" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
export HUM_CACHE_DIR=/tmp/cache
sbs() { # NAME CASES M [ARGS...]
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-$1.json --only $2 --m $3 \
    --rounds 2 --floor '' "${@:4}" > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs qa w8a8 2048,4096,8192 --hum off=bench/sweeps/s42/no-quantize-a/hum.yaml
sbs mx w4a8mx 2048,8192
sbs llama llama-4096x4096,llama-14336x4096,llama-4096x14336 1,8,16
sbs small-a8 w8a8,w4a8mx 1,128,1024
[ $(left) -gt 30 ] && timeout $(($(left) - 5)) build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 \
  --m 1024,2048,8192 --out $R/bench-w8a8.json > $R/bench-w8a8.txt 2>&1
echo "bench w8a8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
sbs w4g128 w4g128 1,16,32,64,128,256,512,1024,2048,4096,8192
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
