#!/bin/bash
# timeout: 60
# Issue 7, session 11 (engineer ao12): act-order n = k = 8192 uint4 g128 fp16 at M 1 / 16 against
# the same layer without act-order, kernel variants timed in one process (bench/sweeps/ao12-ab.c).
#   bash bench/sweeps/ao12.sh prep   (here, after the build: the variants' kernel trees and the
#                                     driver into build/xk/, which travels with the build)
#   R=out bash bench/sweeps/ao12.sh  (on the device, from the tree's root)
# Call 1 ran this script at 703b723 (variants base, main, wf, pf8, pf16, l2pf, allpf, st6: the
# L2 prefetch of later k-blocks before the wait, bench/NOTES.md session 11); call 2 (limit 60 s):
# Variants (HUM_KERNEL_PATH trees; the M <= 16 GEMM is gemm/gemm_mma.cu, the permutation
# prep/permute_a.cu):
#   base   main before bf354ea: the codes of the first kStages - 1 k-blocks prefetched into L2
#          before griddepcontrol.wait, A then the weights in each stage's copies, the
#          permutation's row staged one load per iteration
#   main   main (c993cf4; its kernels as bf354ea left them): those weights copied into the stages
#          before the wait (weights_first, a run-time flag), the weights then A in every stage's
#          copies, the permutation's row loads batched (stage_row)
#   bperm  base's GEMM with main's permutation
#   ctw    main with weights_first compiled only where a kernel writes A (kActOrder || kA8)
#   tree   this tree: ctw, and A then the weights again outside weights_first's prologue (its
#          16-bit plain kernel's SASS is base's, byte for byte)
# A site policy (build/xk/pol) runs every M on sm90.lua's M <= 16 tile, so each variant
# compiles one GEMM per layer. Then test_gemm's act-order cases and test_gemm_a8_quantize (8-bit A
# quantized in the forward: the other GEMM launched after the kernel that writes its A) on this
# tree's build, line-buffered so that a cut run still says which cases passed.
set -u
X=build/xk
SPEC=n=8192,k=8192,w=uint4,a=float16,group=128,actorder=1
if [ "${1:-}" = prep ]; then
    rm -rf $X && mkdir -p $X/pol
    git archive bf354ea^ kernels | (mkdir -p $X/base && tar x -C $X/base)
    git archive c993cf4 kernels | (mkdir -p $X/main && tar x -C $X/main)
    mkdir -p $X/bperm && cp -r $X/base/kernels $X/bperm/ && cp $X/main/kernels/prep/permute_a.cu $X/bperm/kernels/prep/
    mkdir -p $X/ctw && cp -r $X/main/kernels $X/ctw/
    sed -i 's/const bool weights_first = kGemmType == GemmType::kDense \&\& kGridDependency \&\& args.overlaps;/const bool weights_first = kGemmType == GemmType::kDense \&\& kGridDependency \&\& (kActOrder || kA8) \&\& args.overlaps;/' \
        $X/ctw/kernels/gemm/gemm_mma.cu
    grep -q 'kActOrder || kA8' $X/ctw/kernels/gemm/gemm_mma.cu || { echo "ctw: sed missed"; exit 1; }
    mkdir -p $X/tree && cp -r kernels $X/tree/
    cat >$X/pol/zz-ao12.lua <<'LUA'
-- ao12 sweep: every M on sm90.lua's M <= 16 tile (16 x 128 x 256, stream-K summed in the
-- workspace), so that each kernel variant compiles one GEMM per layer instead of five.
local policy = require("hum.policy")
return { name = "ao12-small", applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local t = policy.mma_tuning(16, 128, 256, 16, 32, 128, 4)
    t.stream_k_sum = "workspace"
    return policy.ranges({ { math.huge, t } })
  end }
LUA
    libs=$(sed 's/.*libhum_test_support.a//; s#\.\./runtime/libhum.a#build/runtime/libhum.a#' \
        build/tests/CMakeFiles/test_test_gemm.dir/link.txt)
    cc -O2 -Wall -Wextra -std=c11 -D_POSIX_C_SOURCE=200809L -Iruntime/include -Iruntime/cli -I/usr/local/cuda/include \
        bench/sweeps/ao12-ab.c build/tests/libhum_test_support.a $libs -o $X/ab -Wl,-rpath,/usr/local/cuda/lib
    # tools/pack-device.sh leaves the binaries of sharded ctests (test_gemm_0..2) behind
    cp build/tests/test_test_gemm $X/
    for v in base main bperm ctw tree; do # each variant's M <= 16 GEMM compiles for sm_90a
        HUM_POLICY_PATH=$PWD/$X/pol HUM_KERNEL_PATH=$PWD/$X/$v/kernels build/runtime/hum compile --arch sm_90a \
            --layer $SPEC | grep -E 'kernel\(s\)|rror' | sed "s/^/$v: /"
    done
    exit 0
fi
R=${R:-out}; mkdir -p "$R"
L=$R/ao12.txt
t0=$(date +%s); el() { echo $(($(date +%s) - t0)); }
BUDGET=${BUDGET:-58}
step() { # LABEL CAP COMMAND...: runs COMMAND (in build/) for at most CAP s within the budget, log to R/LABEL.log
    local label=$1 cap=$2; shift 2
    local lim=$((BUDGET - $(el))); [ $lim -gt $cap ] && lim=$cap
    if [ $lim -lt 3 ]; then echo "=== $label skipped t=$(el)" | tee -a $L; return; fi
    echo "=== $label t=$(el) limit $lim" | tee -a $L
    (cd build && timeout $lim "$@") >$R/$label.log 2>&1
    echo "$label exit $? t=$(el)" | tee -a $L
}
K=$PWD/$X
P=@$K/pol
SB=$(command -v stdbuf >/dev/null && echo "stdbuf -oL")
step ab 27 $K/ab 40 22 $SPEC base=$K/base/kernels$P main=$K/main/kernels$P bperm=$K/bperm/kernels$P \
    ctw=$K/ctw/kernels$P tree=$K/tree/kernels$P
grep -E '^check|FAIL|^median|^against|^[a-z0-9]+ +[-+0-9. ]+$|failed|ao12-ab' $R/ab.log >>$L
step test_gemm 17 env HUM_TEST_CASES=actorder $SB ./xk/test_test_gemm
tail -8 $R/test_gemm.log >>$L
step a8_quantize 12 $SB ./tests/test_test_gemm_a8_quantize
tail -8 $R/a8_quantize.log >>$L
echo "done t=$(el)" >>$L
cat $L
