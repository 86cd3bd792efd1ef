# timeout: 330
# For the next session (bench/sweeps/run-call.sh; build main's head in Release and pack it).
# quantize_a's first rows before setmaxnreg (8df2782) made W8A8's K = 8192 fused kernel spill
# (HUM_PTXAS_REPORT=1: 44 B stored, 188 B loaded in its per-tile code, against 16 / 0 at
# 9750c40); first-rows-after-setmaxnreg.patch (the math warps' first rows after
# warpgroup_regs_inc at depth 16, the producer's after warpgroup_regs_dec at depth 4) spills
# nothing there (16 / 0 at K = 2064). Does it close the fused kernel's 5 % where it quantizes
# nothing (s42-c: hum-q 959 / 1011 against off-q 911 / 952 µs at W8A8 8192)?
# 1. moe_forward's mxfp8 cases on the reference of 13a135d / 49720df (s42-d);
# 2. the fused path's tests on the patched kernels (HUM_KERNEL_PATH);
# 3. hum / hum-q / hum-qa / hum-qa-q, W8A8 and W4A8 MXFP4 at M 2048 / 8192, two rounds: the head's
#    kernels, then the patched ones.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s42-e.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && HUM_CACHE_DIR=/tmp/head-cache HUM_TEST_CASES=mxfp8 timeout 70 ./tests/test_moe_forward) \
  > $R/moe-mxfp8.txt 2>&1
echo "moe_forward mxfp8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
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
