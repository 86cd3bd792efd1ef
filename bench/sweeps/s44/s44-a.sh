# timeout: 280
# Session 44's first request (bench/sweeps/run-call.sh), all of s43-c.sh (which never got a
# machine) and of s44-c.sh in one call, as device starts were refused most of the session:
# 1. the gpu label on main's head (-j16 on a cold NVRTC cache took 300-400 s in sessions 41-42;
#    at most 230 s here: s41-b ran the whole label in 196 s at -j12);
# 2. quantize_a's first rows after setmaxnreg (bench/sweeps/s42/first-rows-after-setmaxnreg.patch,
#    which spills nothing where 8df2782's placement spilled 44 / 188 B at W8A8 K = 8192): hum /
#    hum-q / qa / qa-q of W8A8 and W4A8 MXFP4 at M 8192 / 2048, two rounds, the head's kernels
#    beside Humming, then the patched ones; the fused path's tests on the patched kernels;
# 3. the Llama rows at M 1 / 8 / 16 beside Humming (sm90.lua's whole M <= 8 tiles, untimed on an
#    H100), two rounds.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s44-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 230 ctest -L gpu -j16 --timeout 220 \
  --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
V=/tmp/v2 && rm -rf $V && mkdir -p $V && cp -r kernels $V/ && patch -s -d $V -p1 \
  < bench/sweeps/s42/first-rows-after-setmaxnreg.patch
echo "patch exit $?" >> $R/calls.txt
ab() { # NAME IMPL [KERNELS]
  [ $(left) -gt 30 ] || return
  env ${3:+HUM_KERNEL_PATH=$3} HUM_CACHE_DIR=/tmp/label-cache timeout $(($(left) - 5)) python3 -u \
    bench/sweeps/side-by-side.py $2 --out $R/ab-$1.json --only w8a8,w4a8mx --m 8192,2048 \
    --rounds 2 --floor '' --hum qa=bench/sweeps/s41/quantize-a/hum.yaml > $R/ab-$1.txt 2>&1
  echo "ab $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
ab head ""
ab v2 "--impl hum" $V/kernels
[ $(left) -gt 30 ] && (cd build && HUM_KERNEL_PATH=$V/kernels HUM_CACHE_DIR=/tmp/label-cache \
  timeout $(($(left) - 5)) ctest -R "test_gemm_a8_quantize|test_quantize_a_gpu" -j2 \
  --timeout $(($(left) - 10)) --output-on-failure) > $R/tests-v2.txt 2>&1
echo "tests on v2 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
[ $(left) -gt 30 ] && timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py \
  --out $R/show-llama.json --only llama-4096x4096,llama-14336x4096,llama-4096x14336 --m 1,8,16 \
  --rounds 2 --floor '' > $R/show-llama.txt 2>&1
echo "show llama exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
