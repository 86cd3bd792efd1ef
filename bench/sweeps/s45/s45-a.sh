# timeout: 570
# Session 45's one call (bench/sweeps/run-call.sh), with the label's kernels compiled here
# (tools/label-cache/build.sh; the archive in .exp/label-cache.txz):
# 1. the gpu label on main's head (special_rows now counts each forward's kernels in a captured
#    graph); calls.txt counts the cached kernels before and after it (the difference: what missed);
# 2. s44-b's `hum tune` of the Llama cells at M <= 16, then those cells with the built-in and the
#    tuned tables beside Humming, two rounds;
# 3. quantize_a's first rows after setmaxnreg (bench/sweeps/s42/first-rows-after-setmaxnreg.patch)
#    beside the head's kernels, W8A8 and W4A8 MXFP4 at M 8192 / 2048, one round, and the fused
#    path's tests on the patched kernels;
# 4. W8A8 n = k = 8192 at M 1024 / 2048 in hum bench (its cuBLASLt fp8 column), after a tune at
#    M 1024.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s45-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
echo "CUDA_HOME=${CUDA_HOME:-unset}; cached kernels: $(find build/tests -name '*.hum' | wc -l)" >> $R/calls.txt
(cd build && timeout 240 ctest -L gpu -j16 --timeout 230 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s; kernels now: $(find build/tests -name '*.hum' | wc -l)" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
export HUM_CACHE_DIR=/tmp/cache
mkdir -p $R/site && echo "policy_paths: [site]" > $R/tuned.yaml
tune() { # NAME SPEC M BUDGET
  [ $(left) -gt $(($4 + 60)) ] || return
  timeout $(($4 + 30)) build/runtime/hum tune --layer $2 --m $3 --budget $4 \
    --out $R/site/tuned-$1.lua > $R/tune-$1.txt 2>&1
  echo "tune $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
tune l4096 n=4096,k=4096,w=uint4,a=float16,group=128 1,8,16 40
tune l14336x4096 n=14336,k=4096,w=uint4,a=float16,group=128 8,16 30
tune l4096x14336 n=4096,k=14336,w=uint4,a=float16,group=128 1,8,16 40
[ $(left) -gt 40 ] && timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-small.json \
  --only llama-4096x4096,llama-14336x4096,llama-4096x14336 --m 1,8,16 --rounds 2 --floor '' \
  --hum tuned=$R/tuned.yaml > $R/sbs-small.txt 2>&1
echo "sbs small exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
V=/tmp/v2 && rm -rf $V && mkdir -p $V && cp -r kernels $V/ && patch -s -d $V -p1 \
  < bench/sweeps/s42/first-rows-after-setmaxnreg.patch
echo "patch exit $?" >> $R/calls.txt
ab() { # NAME IMPL [KERNELS]
  [ $(left) -gt 40 ] || return
  env ${3:+HUM_KERNEL_PATH=$3} timeout $(($(left) - 5)) python3 -u \
    bench/sweeps/side-by-side.py $2 --out $R/ab-$1.json --only w8a8,w4a8mx --m 8192,2048 \
    --rounds 1 --floor '' --hum qa=bench/sweeps/s41/quantize-a/hum.yaml > $R/ab-$1.txt 2>&1
  echo "ab $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
ab head ""
ab v2 "--impl hum" $V/kernels
[ $(left) -gt 40 ] && (cd build && HUM_KERNEL_PATH=$V/kernels timeout $(($(left) - 5)) \
  ctest -R "test_gemm_a8_quantize|test_quantize_a_gpu" -j2 --timeout $(($(left) - 10)) --output-on-failure) \
  > $R/tests-v2.txt 2>&1
echo "tests on v2 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
tune w8a8 n=8192,k=8192,w=e4m3,a=e4m3 1024 30
for cfg in builtin tuned; do
  [ $(left) -gt 30 ] || break
  timeout $(($(left) - 5)) build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024,2048 \
    --out $R/bench-w8a8-$cfg.json $([ $cfg = tuned ] && echo --config $R/tuned.yaml) > $R/bench-w8a8-$cfg.txt 2>&1
  echo "bench w8a8 $cfg exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
