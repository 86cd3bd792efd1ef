#!/bin/bash
# Issue 8, session 7 (engineer "small"): the dense rows at M = 1 and 16, one device call on an
# H200 with a cold kernel cache. Each row is one `hum bench --m 1,16`: this tree's kernels with
# the built-in table, the kernels before this session's change (BASE: a directory that
# HUM_KERNEL_PATH searches before the embedded kernels, optional) with the same table, and
# candidate M <= 16 tiles as site policies of one range (so a row compiles one kernel). Rows run
# in order of what they decide and are skipped when the time left (BUDGET seconds from the
# start, default 60) cannot hold them.
#   OUT=out [BASE=dir] bash bench/sweeps/small.sh [BUILD_DIR]
# What the rows decide:
#  base / builtin  the group scales applied to the accumulators once per group (gemm_mma.cu,
#                  kScaleAcc) against the B-side multiply, on every layer of issue 8's small-M rows;
#  c2, w16, k64    M <= 16: two CTAs per SM (4 stages each; also on the Llama layers), 16 warps of
#                  16 columns, 16 warps of 64 of K, against the built-in 16 x 128 x 256 warp
#                  16 x 32 x 128 / 4 (ncu, call 1: 2 warps per scheduler, 0.43 issued per cycle);
#  wide, c2n       4096 x 4096 at M <= 16: the 128-column tile with workspace sums, and the narrow
#                  64-column tile two CTAs per SM, against the narrow rule (one CTA per SM);
#  bk64            block K 64 (groups of 128 span two k-blocks, stream-K segments start inside
#                  them): the check at M = 1 of that path of kScaleAcc, and its time.
set -u
build=${1:-build}
out=${OUT:-out}
mkdir -p "$out"
H=$build/runtime/hum
L=$out/small.txt
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
HUM_CACHE_DIR=$(mktemp -d)
export HUM_CACHE_DIR
P=$(mktemp -d)
# A site policy NAME whose one range (all M) is the mma.sync 16-row tile given:
# sk(block_n, warp_n, warp_k, stages[, ctas per SM]), block K 256, stream-K summed in the workspace.
pol() {
    mkdir -p "$P/$1"
    cat >"$P/$1/zz-small.lua" <<LUA
local policy = require("hum.policy")
local mma = policy.mma_tuning
local function sk(bn, wn, wk, st, ctas)
  local t = mma(16, bn, 256, 16, wn, wk, st, ctas)
  t.stream_k_sum = "workspace"
  return t
end
return { name = "small-$1", applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer) return policy.ranges({ { math.huge, $2 } }) end }
LUA
}
pol c2 "sk(128, 32, 128, 4, 2)"
pol c2n "sk(64, 16, 128, 6, 2)"
pol w16 "sk(128, 16, 128, 4)"
pol k64 "sk(128, 32, 64, 4)"
pol wide "sk(128, 32, 128, 4)"
# block K 64: a group of 128 spans two k-blocks (kScaleStages 2; sm75's small-M tile is 64 deep)
pol bk64 "(function() local t = mma(16, 128, 64, 16, 32, 64, 4); t.stream_k_sum = 'workspace'; return t end)()"
row() { # POLICY|-|base LABEL SPEC: one hum bench at M = 1, 16
    local pdir=$P/$1 kp= name=$1-$2
    [ "$1" = - ] && pdir= name=builtin-$2
    if [ "$1" = base ]; then
        [ -n "${BASE:-}" ] || return
        pdir= kp=$BASE
    fi
    local lim=$((${BUDGET:-60} - $(el) + 2))
    [ $lim -gt 12 ] && lim=12
    if [ $lim -lt 6 ]; then
        echo "== $name $3: skipped (time) t=$(el)" >>"$L"
        return
    fi
    echo "== $name $3 t=$(el)" >>"$L"
    HUM_POLICY_PATH=$pdir HUM_KERNEL_PATH=$kp timeout $lim "$H" bench --layer "$3" --m 1,16 --warmup 10 \
        --reps 100 --out "$out/$name.json" >"$out/$name.log" 2>&1
    echo "exit $?" >>"$out/$name.log"
    grep -E "^ +[0-9]+ +[0-9.]+ |check|rror|fail|refus|  M [0-9]|exit [1-9]" "$out/$name.log" >>"$L"
}
E16=n=8192,k=8192,w=uint4,a=float16,group=128
L4K=n=4096,k=4096,w=uint4,a=float16,group=128
L14=n=4096,k=14336,w=uint4,a=float16,group=128
N14=n=14336,k=4096,w=uint4,a=float16,group=128
EBF=n=8192,k=8192,w=uint4,a=bfloat16,group=128
EZP=n=8192,k=8192,w=uint4,a=float16,group=128,zp=int
W8=n=8192,k=8192,w=uint8,a=float16
for r in "- e16 $E16" "base e16 $E16" "c2 e16 $E16" "- l4k $L4K" "c2n l4k $L4K" "base l4k $L4K" "- l14 $L14" \
    "c2 l14 $L14" "w16 e16 $E16" "base l14 $L14" "wide l4k $L4K" "- n14 $N14" "c2 n14 $N14" "bk64 e16 $E16" \
    "- ebf $EBF" "- ezp $EZP" "- w8 $W8" "k64 e16 $E16" "base n14 $N14" "base ebf $EBF" "base ezp $EZP" "base w8 $W8"; do
    # shellcheck disable=SC2086
    row $r
done
echo "== end t=$(el)" >>"$L"
rm -rf "$P" "$HUM_CACHE_DIR"
