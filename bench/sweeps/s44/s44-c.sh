# timeout: 330
# Session 44's third request (bench/sweeps/run-call.sh): s42-e.sh without its moe_forward cases
# (s43-a ran them). quantize_a's first rows before setmaxnreg (8df2782) made W8A8's K = 8192 fused
# kernel spill (44 B stored, 188 B loaded); bench/sweeps/s42/first-rows-after-setmaxnreg.patch
# spills nothing. Does it close the fused kernel's 5 % where it quantizes nothing (s42-c: hum-q
# 959 / 1011 against off-q 911 / 952 µs at W8A8 8192)?
# 1. the fused path's tests on the patched kernels (HUM_KERNEL_PATH);
# 2. hum / hum-q / qa / qa-q, W8A8 and W4A8 MXFP4 at M 8192 / 2048, two rounds: the head's
#    kernels, then the patched ones.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s44-c.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
V=/tmp/v2 && rm -rf $V && mkdir -p $V && cp -r kernels $V/ && patch -s -d $V -p1 \
  < bench/sweeps/s42/first-rows-after-setmaxnreg.patch
echo "patch exit $?" >> $R/calls.txt
(cd build && HUM_KERNEL_PATH=$V/kernels HUM_CACHE_DIR=/tmp/v2-cache timeout 100 ctest \
  -R "test_gemm_a8_quantize|test_quantize_a_gpu" --timeout 95 --output-on-failure -j2) > $R/tests-v2.txt 2>&1
echo "tests on v2 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
ab() { # NAME [KERNELS]
  [ $(left) -gt 40 ] || return
  env ${2:+HUM_KERNEL_PATH=$2} HUM_CACHE_DIR=/tmp/$1-cache timeout $(($(left) - 5)) python3 -u \
    bench/sweeps/side-by-side.py --impl hum --out $R/ab-$1.json --only w8a8,w4a8mx --m 8192,2048 \
    --rounds 2 --floor '' --hum qa=bench/sweeps/s41/quantize-a/hum.yaml > $R/ab-$1.txt 2>&1
  echo "ab $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
ab head
ab v2 $V/kernels
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
