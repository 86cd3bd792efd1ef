# timeout: 560
# For the next session (bench/sweeps/run-call.sh), with the label's kernels compiled here first,
# from the same build:
#   tools/pack-device.sh build .exp/build.tgz && tools/label-cache/build.sh build .exp/label-cache.txz -j2
#   cp bench/sweeps/run-call.sh .exp/   # the copy that extracts the archive and sets CUDA_HOME
# (NOTES.md, session 44: how long it takes on 2 cores), so the label loads its kernels instead of
# compiling them on a cold machine (s44-a: 20 of 34 tests in 230 s).
# 1. the gpu label on main's head; calls.txt counts the cached kernels before and after it (the
#    difference: what missed and compiled there);
# 2. what s44-a did not reach: quantize_a's first rows after setmaxnreg
#    (bench/sweeps/s42/first-rows-after-setmaxnreg.patch) beside the head's kernels, W8A8 and
#    W4A8 MXFP4 at M 8192 / 2048, two rounds, then the fused path's tests on the patched kernels;
# 3. the Llama rows at M 1 / 8 / 16 beside Humming, two rounds.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s44-c.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
echo "CUDA_HOME=${CUDA_HOME:-unset}; cached kernels: $(find build/tests -name '*.hum' | wc -l)" >> $R/calls.txt
(cd build && timeout 300 ctest -L gpu -j16 --timeout 290 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s; kernels now: $(find build/tests -name '*.hum' | wc -l)" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
V=/tmp/v2 && rm -rf $V && mkdir -p $V && cp -r kernels $V/ && patch -s -d $V -p1 \
  < bench/sweeps/s42/first-rows-after-setmaxnreg.patch
echo "patch exit $?" >> $R/calls.txt
ab() { # NAME IMPL [KERNELS]
  [ $(left) -gt 30 ] || return
  env ${3:+HUM_KERNEL_PATH=$3} timeout $(($(left) - 5)) python3 -u \
    bench/sweeps/side-by-side.py $2 --out $R/ab-$1.json --only w8a8,w4a8mx --m 8192,2048 \
    --rounds 2 --floor '' --hum qa=bench/sweeps/s41/quantize-a/hum.yaml > $R/ab-$1.txt 2>&1
  echo "ab $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
ab head ""
ab v2 "--impl hum" $V/kernels
[ $(left) -gt 30 ] && (cd build && HUM_KERNEL_PATH=$V/kernels timeout $(($(left) - 5)) \
  ctest -R "test_gemm_a8_quantize|test_quantize_a_gpu" -j2 --timeout $(($(left) - 10)) --output-on-failure) \
  > $R/tests-v2.txt 2>&1
echo "tests on v2 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
[ $(left) -gt 30 ] && timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py \
  --out $R/show-llama.json --only llama-4096x4096,llama-14336x4096,llama-4096x14336 --m 1,8,16 \
  --rounds 2 --floor '' > $R/show-llama.txt 2>&1
echo "show llama exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
