#!/bin/bash
# bench/sweeps/w4a8.sh: session 6's first device call of engineer w4a8 (<= 90 s on the H200, run from the
# repository root after a Release build, OUT=out bash bench/sweeps/w4a8.sh; results in
# bench/results/H200-2026-12-02/w4a8/). Without build/w4a8-kc every kernel compiles on the device.
# engineer w4a8, issue 9: W4A8 MXFP4 x e4m3 with the e2m1 -> e4m3 byte tables (kernels/gemm/dequant.cuh:
# an IMAD table per column group, one prmt per register; float16 products only for groups >= 12
# binades below their column's largest) and the table-order repack (a8 = 2); policies/sm90.lua:
# 8-bit A above M = 128 on 128 x 128 x 128 with 4 stages (W4A8 ran 3).
#  1. test_gemm_a8, built-in pass, MXFP4 cases only (HUM_TEST_CASES=e2m1: g32 e8m0 bf16 and fp16+bias,
#     channel-scaled e2m1, and groups 12..14 binades below their column's top = the float16 path),
#     M 1/7 (mma.sync), 48/200/520 (wgmma_ws), per token and per tensor, against float64;
#  2. test_gemm_repack: the repack kernel (a8 = 0, 1, 2) bit for bit against its C twin;
#  3. hum bench n=k=8192 e2m1 g32 e8m0 x e4m3, built-in, M 1/128/1024/8192;
#  4. the M > 128 entry at 5 and 7 stages (site policies), M 1024/8192, as the time allows.
# Kernels precompiled for sm_90a in build/w4a8-kc (NVRTC 13.0; a miss compiles on the device).
set -u
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
out=${OUT:-out}
mkdir -p "$out/json"
S=$out/summary.txt
export HUM_CACHE_DIR=$PWD/build/w4a8-kc
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader >"$S" 2>&1
lb=$(command -v stdbuf >/dev/null && echo "stdbuf -oL")  # the cases finished before a timeout still logged
HUM_TEST_CASES=e2m1 timeout 34 $lb build/tests/test_test_gemm_a8 built-in >"$out/test_gemm_a8.log" 2>&1
echo "test_gemm_a8 built-in e2m1: exit $? at $(el) s" >>"$S"
grep -E " (ok  |FAIL) |check failed" "$out/test_gemm_a8.log" | head -12 >>"$S"
timeout 12 $lb build/tests/test_test_gemm_repack >"$out/test_gemm_repack.log" 2>&1
echo "test_gemm_repack: exit $? at $(el) s" >>"$S"
grep -E "check failed|passed" "$out/test_gemm_repack.log" | head -5 >>"$S"
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
P=$(mktemp -d)
pol() { # NAME STAGES: the M > 128 entry (the last) at STAGES
    mkdir -p "$P/$1"
    cat >"$P/$1/zz-w4a8.lua" <<LUA
local policy = require('hum.policy')
return { name = 'w4a8-$1', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    list[#list].tuning.stages = $2
    return list
  end }
LUA
}
pol s5 5
pol s7 7
row() { # NAME MLIST TIMEOUT [POLICY-DIR]
    [ $((88 - $(el))) -gt "$3" ] || { echo "bench $1: skipped at $(el) s" >>"$S"; return; }
    HUM_POLICY_PATH=${4:-} timeout "$3" build/runtime/hum bench --layer "$W4" --m "$2" --warmup 10 --reps 50 \
        --out "$out/json/$1.json" >"$out/bench-$1.txt" 2>&1
    echo "bench $1: exit $? at $(el) s" >>"$S"
    grep -E "M [0-9]+\.\.inf|^ +[0-9]+ +[0-9.]+ |check:" "$out/bench-$1.txt" >>"$S"
}
row builtin 1,128,1024,8192 20
row s5 1024,8192 12 "$P/s5"
row s7 1024,8192 12 "$P/s7"
rm -rf "$P"
echo "end at $(el) s" >>"$S"
