#!/bin/bash
# Issue 8, session 6 (engineer "dense"): the dense rows where hum still trailed Humming at
# a099d0a (bench/NOTES.md "Session 6"), one device call of ~90 s on an H200 with a cold kernel
# cache. Every candidate is a site policy (HUM_POLICY_PATH) whose table puts one candidate tile
# on each M range timed, so that a row compiles few kernels (NVRTC runs on the device, in
# parallel over a table's entries); the built-in table runs first on each layer as the baseline
# of the same call. Rows run in order of what they decide and are skipped when the time left
# (BUDGET seconds from the start, default 84) cannot hold them.
#   OUT=out bash bench/sweeps/dense6.sh [BUILD_DIR]     (DRY=1: `hum info --arch sm_90a` of
#   each row's table instead of timing it: the fitted stages and shared memory, no GPU needed)
# What the rows decide (policies/sm90.lua):
#  w8*  uint8 channel fp16, M 128 / 1024 / 8192: the "deep" rule is 4-bit only, so 8-bit weights
#       ran plain wgmma 256 x 128 x 64 above M = 128; warp-specialised tiles that fit them;
#  l*   n = 4096, k = 14336 (32 column tiles, K split over ~4 CTAs per tile): M <= 16 with the
#       workspace sums (the narrow 64-column rule was timed with fix-ups through C), and
#       stream-K summed in the workspace on the wgmma_ws entries (a parallel fix-up);
#  e*   n = k = 8192 uint4 g128 (fp16, bf16) and uint2 channel: M = 1 / 16 tiles (16 warps, two
#       CTAs per SM) and workspace sums at M 128 / 1024;
#  ezp  uint4 g128 zp=int with this tree's kernels against BASE's (HUM_KERNEL_PATH, optional).
# Session 6's call 1 ran it whole, but only builtin-w8 and the two ezp rows came back
# (bench/results/H200-2026-12-02/dense6/): the candidate rows are the next call's.
set -u
build=${1:-build}
out=${OUT:-out}
mkdir -p "$out"
H=$build/runtime/hum
L=$out/dense6.txt
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
HUM_CACHE_DIR=$(mktemp -d)
export HUM_CACHE_DIR
P=$(mktemp -d)
# A site policy NAME whose table is the Lua rows given ({ upper M, tuning }, the last math.huge):
# ws(bm, bn, bk, warp_n, stages[, sum]) a wgmma_ws tile, sk(bn, warp_n, warp_k, stages[, ctas])
# an mma.sync 16-row tile, both with sum = "workspace" stream-K sums where asked (sk always).
pol() {
    mkdir -p "$P/$1"
    cat >"$P/$1/zz-dense6.lua" <<LUA
local policy = require("hum.policy")
local mma = policy.mma_tuning
local function ws(bm, bn, bk, wn, st, sum)
  local t = mma(bm, bn, bk, bm, wn, bk, st)
  t.kernel = "wgmma_ws"
  if sum then t.stream_k_sum = "workspace" end
  return t
end
local function sk(bn, wn, wk, st, ctas)
  local t = mma(16, bn, 256, 16, wn, wk, st, ctas)
  t.stream_k_sum = "workspace"
  return t
end
return { name = "dense6-$1", applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer) return policy.ranges({ $2 }) end }
LUA
}
W=true # workspace sums
# uint8 channel: M 65..128 / 129..2048 / 2049..inf
pol w8a "{ 16, sk(128, 32, 128, 4) }, { 128, ws(128, 128, 64, 16, 6) }, { 2048, ws(256, 128, 64, 16, 3) }, { math.huge, ws(256, 128, 64, 16, 3) }"
pol w8b "{ 16, sk(128, 32, 128, 4) }, { 128, ws(64, 128, 256, 16, 3) }, { 2048, ws(128, 256, 64, 32, 4) }, { math.huge, ws(128, 256, 64, 32, 4) }"
pol w8c "{ 16, sk(128, 32, 128, 4) }, { 128, ws(128, 128, 128, 16, 3, $W) }, { 2048, ws(128, 256, 128, 32, 2) }, { math.huge, ws(128, 128, 128, 16, 3) }"
# n = 4096, k = 14336: M 1..16 / 17..128 / 129..inf
pol la "{ 16, sk(128, 32, 128, 4) }, { 128, ws(64, 128, 256, 16, 4, $W) }, { math.huge, ws(256, 128, 128, 16, 2, $W) }"
pol lb "{ 16, sk(64, 16, 64, 6) }, { 128, ws(128, 128, 128, 16, 4, $W) }, { math.huge, ws(128, 128, 128, 16, 4, $W) }"
pol lc "{ 16, sk(128, 16, 128, 4) }, { 128, ws(64, 64, 256, 16, 5, $W) }, { math.huge, ws(128, 128, 128, 16, 4) }"
# n = k = 8192 (4-bit g128, uint2 channel): M 1..16 / 17..384 / 385..inf
pol ea "{ 16, sk(64, 16, 128, 6) }, { 384, ws(128, 128, 128, 16, 4, $W) }, { math.huge, ws(256, 128, 128, 16, 2, $W) }"
pol eb "{ 16, sk(128, 16, 128, 4) }, { 384, ws(64, 128, 256, 16, 4, $W) }, { math.huge, ws(128, 256, 128, 32, 3) }"
pol ec "{ 16, sk(128, 32, 128, 3, 2) }, { 384, ws(128, 128, 64, 16, 6, $W) }, { math.huge, ws(256, 128, 64, 16, 4, $W) }"
row() { # POLICY|- LABEL SPEC M-LIST: one hum bench (~5 s on the H200 host: the random 8192 x 8192
    # weights, the compiles, cuBLAS beside), skipped when the time left cannot hold it
    local pdir=$P/$1 name=$1-$2
    [ "$1" = - ] && pdir= name=builtin-$2
    if [ -n "${DRY:-}" ]; then
        echo "== $name $3" >>"$L"
        HUM_POLICY_PATH=$pdir "$H" info --arch sm_90a --layer "$3" 2>&1 | grep -E "^ +M [0-9]|rror" >>"$L"
        return
    fi
    if [ $(($(el) + 5)) -gt "${BUDGET:-84}" ]; then
        echo "== $name $3 m=$4: skipped (time) t=$(el)" >>"$L"
        return
    fi
    echo "== $name $3 m=$4 t=$(el)" >>"$L"
    HUM_POLICY_PATH=$pdir HUM_KERNEL_PATH=${KP:-} timeout 15 "$H" bench --layer "$3" --m "$4" --warmup 10 \
        --reps 50 --out "$out/$name.json" >"$out/$name.log" 2>&1
    echo "exit $?" >>"$out/$name.log"
    grep -E "^ +[0-9]+ +[0-9.]+ |check|rror|fail|refus|  M [0-9]|exit [1-9]" "$out/$name.log" >>"$L"
}
W8=n=8192,k=8192,w=uint8,a=float16
L14=n=4096,k=14336,w=uint4,a=float16,group=128
E16=n=8192,k=8192,w=uint4,a=float16,group=128
EBF=n=8192,k=8192,w=uint4,a=bfloat16,group=128
EZP=n=8192,k=8192,w=uint4,a=float16,group=128,zp=int
EW2=n=8192,k=8192,w=uint2,a=float16
# in the order of what they decide; the last ones only where time is left
for p in - w8a w8b w8c; do row $p w8 $W8 128,1024,8192; done
# the zero point folded into the decode's fma, against the kernels before it (BASE: a kernels/
# directory of them, as HUM_KERNEL_PATH takes)
row - ezp $EZP 1,16,128,1024
[ -n "${BASE:-}" ] && KP=$BASE row - ezp-base $EZP 1,16,128,1024
for p in - la lb lc; do row $p l14 $L14 1,16,128,1024; done
for p in - ea eb ec; do row $p e16 $E16 1,16,128,1024; done
for p in - ea; do row $p ebf $EBF 1,128,1024; done
for p in - ea; do row $p ew2 $EW2 1024; done
echo "== end t=$(el)" >>"$L"
rm -rf "$P" "$HUM_CACHE_DIR"
