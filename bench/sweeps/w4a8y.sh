#!/bin/bash
# timeout: 60
# Session 11, engineer w4a8y (issue 9): W4A8 MXFP4 (e2m1, e8m0 groups of 32) x e4m3, n = k = 8192, the
# byte tables' path chosen once per stage and warpgroup (kernels/gemm/gemm_wgmma.cu, compute_stage: the
# IMADs when every group of the warpgroup's columns lies in their window, else the float16 products,
# agreed by bar.red.or) instead of a compare and branch per k32 step. One build (this tree's), the
# kernels switched by HUM_KERNEL_PATH (made by `prep` under build/xk/, packed with the build):
#   new   this tree's kernels/ (the four warps of a warpgroup agree at a named barrier, bar.red.or)
#   ld    branch w4a8y-ld's (4efd93a): each warp reads all its warpgroup's scales of the stage
#         (LDS.128 a lane) and finds the same answer alone (vote.all), no barrier
#   main  main c993cf4's
# A site policy (build/xk/pol) gives M <= 64 the M 65..1024 entry's tile, so that a bench compiles the
# two kernels it times (128 x 128 x 128 / 4 at M 128 / 1024, 192 x 128 x 128 / 4 at 8192), not five.
# Then test_gemm_a8's k = 2080 MXFP4 cases on this tree's build (built-in tables, then the wgmma_ws,
# workspace (plain wgmma) and 192-row passes as time allows): groups 12..14 binades below their
# column's top in every stage (the products path), in odd 64-column units' odd 128-column stages only
# (the two warpgroups of a tile on different paths, changing from stage to stage), and a bias case
# whose last stage is partial.
#   bash bench/sweeps/w4a8y.sh prep   (here, after the build)
#   R=out bash bench/sweeps/w4a8y.sh  (on the device, from the tree's root)
set -u
X=build/xk
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
if [ "${1:-}" = prep ]; then
    rm -rf $X && mkdir -p $X/pol $X/main $X/ld
    git archive c993cf4 kernels | tar x -C $X/main
    git archive 4efd93a kernels | tar x -C $X/ld
    cp build/tests/test_test_gemm_a8 $X/  # ctest's test_gemm_a8_N: tools/pack-device.sh left it before 77cd715
    cat >$X/pol/zz-w4a8y.lua <<'LUA'
-- w4a8y sweep: the built-in tables with M <= 64 on the M 65..1024 entry's tuning (one kernel fewer
-- to compile for each of those ranges); M > 64 as built in.
local policy = require("hum.policy")
return { name = "w4a8y-bench", applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    local mid
    for _, e in ipairs(list) do
      if e.m_min <= 128 and e.m_max >= 128 then mid = e.tuning end
    end
    for _, e in ipairs(list) do
      if e.m_max <= 64 then e.tuning = mid end
    end
    return list
  end }
LUA
    for v in new ld main; do
        k=$PWD/kernels; [ $v = new ] || k=$PWD/$X/$v/kernels
        HUM_CACHE_DIR=$(mktemp -d) HUM_POLICY_PATH=$PWD/$X/pol HUM_KERNEL_PATH=$k build/runtime/hum compile \
            --arch sm_90a --layer $W4 | grep -E 'kernel\(s\)|rror|M ' | sed "s/^/$v: /"
    done
    exit 0
fi
R=${R:-out}; mkdir -p "$R"
L=$R/summary.txt
t0=$(date +%s); el() { echo $(($(date +%s) - t0)); }
BUDGET=${BUDGET:-58}
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader >>$L 2>&1
step() { # LABEL CAP MIN COMMAND...: COMMAND for at most CAP s within the budget (skipped under MIN s), log R/LABEL.log
    local label=$1 cap=$2 min=$3; shift 3
    local lim=$((BUDGET - $(el))); [ $lim -gt $cap ] && lim=$cap
    if [ $lim -lt $min ]; then echo "=== $label skipped t=$(el)" | tee -a $L; return; fi
    echo "=== $label t=$(el) limit $lim" | tee -a $L
    timeout $lim "$@" >$R/$label.log 2>&1
    echo "$label exit $? t=$(el)" | tee -a $L
}
bench() { # NAME KERNELS MLIST CAP
    local k=$PWD/kernels; [ $2 = new ] || k=$PWD/$X/$2/kernels
    step $1 $4 9 env HUM_POLICY_PATH=$PWD/$X/pol HUM_KERNEL_PATH=$k stdbuf -oL build/runtime/hum bench --layer $W4 --m $3 \
        --warmup 10 --reps 50 --out $R/$1.json
    grep -sE "^ +[0-9]+ +[0-9.]+ |check|rror|prepare" $R/$1.log | tee -a $L
}
a8() { # PASS KERNELS CAP: the pass on the kernels of new (this tree's) or ld
    local k=$PWD/kernels; [ $2 = new ] || k=$PWD/$X/$2/kernels
    step a8-$1-$2 $3 6 env HUM_KERNEL_PATH=$k HUM_TEST_CASES=k=2080 stdbuf -oL $X/test_test_gemm_a8 $1
    grep -sE " (ok  |FAIL) |check failed|passed|failed|rror" $R/a8-$1-$2.log | head -20 | tee -a $L
}
bench new-a new 128,1024,8192 15
bench main-a main 128,1024,8192 15
a8 built-in new 14
bench ld-a ld 128,1024 13
a8 wgmma_ws new 10
a8 workspace new 10
a8 rows192 new 10
echo "end t=$(el)" | tee -a $L
