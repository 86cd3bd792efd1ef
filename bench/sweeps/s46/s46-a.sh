# timeout: 575
# Session 46's first call (bench/sweeps/run-call.sh), on main's head with the label's kernels
# compiled here (tools/label-cache/build.sh, from 5c6fc8d, whose kernels are the head's):
# 1. the gpu label (quantize_a on in sm90.lua for W8A8 above M = 1024; the M 9..16 tiles), which
#    session 45's s45-b never got a machine for;
# 2. quantize_a's rows claimed a row ahead and bulk-prefetched into L2 (bench/sweeps/s46/
#    quant-prefetch.patch: the producer's quantizing warps hold 4 chunks a lane, so a K = 8192 row
#    waits on DRAM 8 times a pass; s45-a's MXFP4 fused kernel spent ~54 us on its rows, the whole
#    quantizer kernel's cost) against the head's kernels, alternating, one round each twice: W8A8
#    and W4A8 MXFP4 n = k = 8192 at M 2048 / 8192, the built-in (W8A8 fused, MXFP4 not), qa (both
#    fused, bench/sweeps/s41/quantize-a/) and off (neither, bench/sweeps/s42/no-quantize-a/);
#    the head's runs beside Humming;
# 3. the Llama cells at M 1 / 8 / 16 beside Humming, two rounds;
# 4. W8A8 and W4A8 MXFP4 at M 1 / 128 / 1024 beside Humming, two rounds;
# 5. hum bench of W8A8 at M 1024 / 2048 / 8192 (its cuBLASLt fp8 column);
# 6. the fused path's tests on the patched kernels.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s46-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
echo "CUDA_HOME=${CUDA_HOME:-unset}; cached kernels: $(find build/tests -name '*.hum' | wc -l)" >> $R/calls.txt
(cd build && timeout 200 ctest -L gpu -j16 --timeout 190 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s; kernels now: $(find build/tests -name '*.hum' | wc -l)" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
export HUM_CACHE_DIR=/tmp/cache
V=/tmp/v2 && rm -rf $V && mkdir -p $V && cp -r kernels $V/ && patch -s -d $V -p1 < bench/sweeps/s46/quant-prefetch.patch
echo "patch exit $?" >> $R/calls.txt
QA="--hum qa=bench/sweeps/s41/quantize-a/hum.yaml --hum off=bench/sweeps/s42/no-quantize-a/hum.yaml"
ab() { # NAME IMPL [KERNELS]
  [ $(left) -gt 60 ] || return
  env ${3:+HUM_KERNEL_PATH=$3} timeout $(($(left) - 5)) python3 -u \
    bench/sweeps/side-by-side.py $2 --out $R/ab-$1.json --only w8a8,w4a8mx --m 8192,2048 \
    --rounds 1 --floor '' $QA > $R/ab-$1.txt 2>&1
  echo "ab $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
ab head1 ""
ab v2-1 "--impl hum" $V/kernels
ab v2-2 "--impl hum" $V/kernels
ab head2 ""
sbs() { # NAME CASES M [ARGS...]
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-$1.json --only $2 --m $3 \
    --rounds 2 --floor '' "${@:4}" > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs llama llama-4096x4096,llama-14336x4096,llama-4096x14336 1,8,16
sbs small-a8 w8a8,w4a8mx 1,128,1024
[ $(left) -gt 30 ] && timeout $(($(left) - 5)) build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 \
  --m 1024,2048,8192 --out $R/bench-w8a8.json > $R/bench-w8a8.txt 2>&1
echo "bench w8a8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
[ $(left) -gt 40 ] && (cd build && HUM_KERNEL_PATH=$V/kernels timeout $(($(left) - 5)) \
  ctest -R "test_gemm_a8_quantize|test_quantize_a_gpu" -j4 --timeout $(($(left) - 10)) --output-on-failure) \
  > $R/tests-v2.txt 2>&1
echo "tests on v2 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
