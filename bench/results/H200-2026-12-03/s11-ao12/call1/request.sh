#!/bin/bash
# timeout: 90
# Issue 7, session 11 (engineer ao12): act-order n = k = 8192 uint4 g128 fp16 at M 1 / 16 against
# the same layer without act-order, kernel variants timed in one process (bench/sweeps/ao12-ab.c).
#   bash bench/sweeps/ao12.sh prep   (here, after the build: the variants' kernel trees and the
#                                     driver into build/xk/, which travels with the build)
#   R=out bash bench/sweeps/ao12.sh  (on the device, from the tree's root)
# Variants (HUM_KERNEL_PATH trees; the M <= 16 GEMM is gemm/gemm_mma.cu, the permutation
# prep/permute_a.cu):
#   base   main before bf354ea: the codes of the first kStages - 1 k-blocks prefetched into L2
#          before griddepcontrol.wait, the permutation's row staged one load per iteration
#   main   main (c993cf4; its kernels as bf354ea left them): those weights copied into the stages before the wait (weights_first),
#          the permutation's row loads batched (stage_row); timed here for the first time
#   wf     main's GEMM with base's permutation (weights_first alone)
#   pfN    this tree with kPrefetchStages = N: weights_first plus the weights of the next N
#          k-blocks prefetched into L2 before the wait (pf8 is the tree's own)
#   st6    pf8 with six stages instead of four (the policy's: both layers)
#   l2pf   this tree without weights_first: the first kStages - 1 + 8 k-blocks into L2 only
#   allpf  pf16, and the plain layer (no kernel before it) prefetching its first kStages - 1 + 16
#          k-blocks into L2 at its start
# A site policy (build/xk/pol) runs every M on sm90.lua's M <= 16 tile, so each variant
# compiles one GEMM per layer (build/xk/pol6: the same with six stages). Then test_gemm's act-order cases, test_gemm_a8_quantize (8-bit A
# quantized in the forward: the other GEMM launched after the kernel that writes its A), and
# racecheck / memcheck of one small act-order case, on this tree's build.
set -u
X=build/xk
SPEC=n=8192,k=8192,w=uint4,a=float16,group=128,actorder=1
if [ "${1:-}" = prep ]; then
    rm -rf $X && mkdir -p $X/pol
    git archive bf354ea^ kernels | (mkdir -p $X/base && tar x -C $X/base)
    git archive c993cf4 kernels | (mkdir -p $X/main && tar x -C $X/main)
    mkdir -p $X/wf && cp -r $X/main/kernels $X/wf/ && cp $X/base/kernels/prep/permute_a.cu $X/wf/kernels/prep/
    for p in 8 16; do
        mkdir -p $X/pf$p && cp -r kernels $X/pf$p/
        sed -i "s/^constexpr int kPrefetchStages = [0-9]*;/constexpr int kPrefetchStages = $p;/" $X/pf$p/kernels/gemm/gemm_mma.cu
    done
    mkdir -p $X/l2pf && cp -r kernels $X/l2pf/
    sed -i 's/const bool weights_first = kGemmType == GemmType::kDense && kGridDependency && args.overlaps;/const bool weights_first = false;/' \
        $X/l2pf/kernels/gemm/gemm_mma.cu
    sed -i 's/prefetch_weights(args, rows, sch, 0, kStages - 1, tid);/prefetch_weights(args, rows, sch, 0, kStages - 1 + 8, tid);/' \
        $X/l2pf/kernels/gemm/entry.cuh
    mkdir -p $X/allpf && cp -r $X/pf16/kernels $X/allpf/
    sed -i 's/        if (args.overlaps)$/        \/\/ ao12 allpf: every launch/; s/prefetch_weights(args, rows, sch, 0, kStages - 1, tid);/prefetch_weights(args, rows, sch, 0, args.overlaps ? kStages - 1 : kStages - 1 + 16, tid);/' \
        $X/allpf/kernels/gemm/entry.cuh
    for st in 4 6; do
        d=$X/pol; [ $st = 4 ] || d=$X/pol$st
        mkdir -p $d && cat >$d/zz-ao12.lua <<LUA
-- ao12 sweep: every M on sm90.lua's M <= 16 tile (16 x 128 x 256, stream-K summed in the
-- workspace; $st stages), so that each kernel variant compiles one GEMM per layer instead of five.
local policy = require("hum.policy")
return { name = "ao12-small$st", applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local t = policy.mma_tuning(16, 128, 256, 16, 32, 128, $st)
    t.stream_k_sum = "workspace"
    return policy.ranges({ { math.huge, t } })
  end }
LUA
    done
    libs=$(sed 's/.*libhum_test_support.a//; s#\.\./runtime/libhum.a#build/runtime/libhum.a#' \
        build/tests/CMakeFiles/test_test_gemm.dir/link.txt)
    cc -O2 -Wall -Wextra -std=c11 -D_POSIX_C_SOURCE=200809L -Iruntime/include -Iruntime/cli -I/usr/local/cuda/include \
        bench/sweeps/ao12-ab.c build/tests/libhum_test_support.a $libs -o $X/ab -Wl,-rpath,/usr/local/cuda/lib
    # tools/pack-device.sh leaves the binaries of sharded ctests (test_gemm_0..2) behind
    cp build/tests/test_test_gemm $X/
    for v in base main wf pf8 pf16 l2pf allpf; do # each variant's M <= 16 GEMM compiles for sm_90a
        HUM_POLICY_PATH=$PWD/$X/pol HUM_KERNEL_PATH=$PWD/$X/$v/kernels build/runtime/hum compile --arch sm_90a \
            --layer $SPEC | grep -E 'kernel\(s\)|rror' | sed "s/^/$v: /"
    done
    exit 0
fi
R=${R:-out}; mkdir -p "$R"
L=$R/ao12.txt
t0=$(date +%s); el() { echo $(($(date +%s) - t0)); }
BUDGET=${BUDGET:-87}
step() { # LABEL CAP COMMAND...: runs COMMAND (in build/) for at most CAP s within the budget, log to R/LABEL.log
    local label=$1 cap=$2; shift 2
    local lim=$((BUDGET - $(el))); [ $lim -gt $cap ] && lim=$cap
    if [ $lim -lt 3 ]; then echo "=== $label skipped t=$(el)" | tee -a $L; return; fi
    echo "=== $label t=$(el) limit $lim" | tee -a $L
    (cd build && timeout $lim "$@") >$R/$label.log 2>&1
    echo "$label exit $? t=$(el)" | tee -a $L
}
K=$PWD/$X
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
P=@$K/pol
step ab 50 $K/ab 40 40 $SPEC base=$K/base/kernels$P main=$K/main/kernels$P wf=$K/wf/kernels$P pf8=$K/pf8/kernels$P \
    pf16=$K/pf16/kernels$P l2pf=$K/l2pf/kernels$P allpf=$K/allpf/kernels$P st6=$K/pf8/kernels@$K/pol6
grep -E '^check|FAIL|^median|^against|^[a-z0-9]+ +[-+0-9. ]+$|failed|ao12-ab' $R/ab.log >>$L
step test_gemm 14 env HUM_TEST_CASES=actorder ./xk/test_test_gemm
tail -4 $R/test_gemm.log >>$L
step a8_quantize 10 ./tests/test_test_gemm_a8_quantize
tail -4 $R/a8_quantize.log >>$L
step racecheck 7 env HUM_TEST_CASES=k=384 $CS --tool racecheck --error-exitcode 9 ./xk/test_test_gemm
tail -4 $R/racecheck.log >>$L
step memcheck 7 env HUM_TEST_CASES=k=384 $CS --tool memcheck --error-exitcode 9 ./xk/test_test_gemm
tail -4 $R/memcheck.log >>$L
echo "done t=$(el)" >>$L
cat $L
