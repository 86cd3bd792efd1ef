#!/bin/bash
# Issue 8, session 8 (engineer "dense9"): the dense rows still behind Humming at main 3f07dfb
# (bench/NOTES.md "Session 7 (lead)", final call), one device call of <= 90 s on an H200 with a
# cold kernel cache. Each candidate is a site policy (HUM_POLICY_PATH) of one range, so that a row
# compiles one kernel; the built-in table runs first on each layer as the same call's baseline.
# Rows run in order of what they decide and are skipped when the time left (BUDGET seconds from
# the start, default 84) cannot hold them.
#   OUT=out bash bench/sweeps/dense9.sh [BUILD_DIR]     (DRY=1: `hum info --arch sm_90a` of each
#   row's table instead of timing it: the fitted stages and shared memory, no GPU needed)
# What the rows decide (policies/sm90.lua), µs at 3f07dfb hum / Humming:
#  l14*  n = 4096, k = 14336 uint4 g128 fp16 M = 128 (39.55 / 34.24, 64 x 128 x 256 / 4): 128-row
#        tiles (32 column tiles, K split over ~4 CTAs) with stream-K summed in the workspace,
#        128 x 256 x 64 (Humming's sm90 tile here, humming-digest.md 6.3; 16 tiles, half the reads of A
#        from L2) and 64 x 256 x 128;
#  w8*   uint8 channel fp16 8192 x 8192 M 128 / 1024 / 8192 (45.10 / 205.44 / 1691.44 against
#        42.34 / 202.30 / 1593.25): 128 x 256 x 64 / 4 (session 6's `w8b`, never timed), workspace
#        sums at M = 128, 176 x 256 x 64 (Humming's block M at 1024; its SASS issues every wgmma
#        as a group of its own, waited at once: ptxas serialized them, so call 2 dropped it);
#  ebf, e16  8192 x 8192 uint4 g128 bf16 M 128 / 1024 (37.73 / 198.61 against 36.90 / 196.29) and
#        fp16 M = 128 (38.18 / 37.47): 128 x 256 x 64, the 128 x 128 x 128 tile with workspace sums;
#  ew2   uint2 channel M = 1024 (186.83 / 182.51): 128 x 256 x 64, 256 x 128 x 128 with workspace sums;
#  l4k   4096 x 4096 M = 1 (13.39 / 12.90): the wide 16 x 128 x 256 / 4 tile against the narrow rule.
# SET=2 (call 2): M 65..384 summed in the workspace as policies/sm90.lua now has it, on the layers
# call 1 did not time (8192 x 8192 fp16, n = 14336, k = 4096, zp=int, uint2), against main's entry
# there (c128), M = 256 included; 128 x 256 x 128 / 3 summed at M = 128 (w256: A read from L2 by
# half as many column tiles, block K 128 unlike call 1's 128 x 256 x 64); 4096 x 4096 at M = 1
# (the wide tile).
set -u
build=${1:-build}
out=${OUT:-out}
mkdir -p "$out"
H=$build/runtime/hum
L=$out/dense9.txt
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
HUM_CACHE_DIR=${HUM_CACHE_DIR:-$(mktemp -d)}
export HUM_CACHE_DIR
P=$(mktemp -d)
# A site policy NAME whose table is one range (all M): TUNING, a Lua expression of
# ws(bm, bn, bk, warp_n, stages[, sum]) (a wgmma_ws tile) or sk(bn, warp_n, warp_k, stages[, ctas])
# (an mma.sync 16-row tile), with sum = W: stream-K slices summed in the workspace (sk always).
pol() {
    mkdir -p "$P/$1"
    cat >"$P/$1/zz-dense9.lua" <<LUA
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
return { name = "dense9-$1", applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer) return policy.ranges({ { math.huge, $2 } }) end }
LUA
}
W=true
pol m128s "ws(128, 128, 128, 16, 4, $W)"
pol c128 "ws(128, 128, 128, 16, 4)"
pol w256 "ws(128, 256, 128, 32, 3, $W)"
pol n256s "ws(128, 256, 64, 32, 6, $W)"
pol w8m128s "ws(128, 128, 128, 16, 3, $W)"
pol w8n256 "ws(128, 256, 64, 32, 4)"
pol w8m176 "ws(176, 256, 64, 32, 3)"
pol m256s "ws(256, 128, 128, 16, 2, $W)"
pol m64n256s "ws(64, 256, 128, 32, 5, $W)"
pol wide "sk(128, 32, 128, 4)"
row() { # POLICY|- LABEL SPEC M-LIST: one hum bench, skipped when the time left cannot hold it
    local pdir=$P/$1 name=$1-$2
    [ "$1" = - ] && pdir= name=builtin-$2
    if [ -n "${DRY:-}" ]; then
        echo "== $name $3" >>"$L"
        HUM_POLICY_PATH=$pdir "$H" info --arch sm_90a --layer "$3" 2>&1 | grep -E "^ +M [0-9]|rror" >>"$L"
        return
    fi
    local lim=$((${BUDGET:-84} - $(el)))
    [ $lim -gt 15 ] && lim=15
    if [ $lim -lt 5 ]; then
        echo "== $name $3 m=$4: skipped (time) t=$(el)" >>"$L"
        return
    fi
    echo "== $name $3 m=$4 t=$(el)" >>"$L"
    HUM_POLICY_PATH=$pdir timeout $lim "$H" bench --layer "$3" --m "$4" --warmup 10 \
        --reps 50 --out "$out/$name.json" >"$out/$name.log" 2>&1
    echo "exit $?" >>"$out/$name.log"
    grep -E "^ +[0-9]+ +[0-9.]+ |check|rror|fail|refus|  M [0-9]|overhead|exit [1-9]" "$out/$name.log" >>"$L"
}
L14=n=4096,k=14336,w=uint4,a=float16,group=128
W8=n=8192,k=8192,w=uint8,a=float16
E16=n=8192,k=8192,w=uint4,a=float16,group=128
EBF=n=8192,k=8192,w=uint4,a=bfloat16,group=128
EW2=n=8192,k=8192,w=uint2,a=float16
L4K=n=4096,k=4096,w=uint4,a=float16,group=128
N14=n=14336,k=4096,w=uint4,a=float16,group=128
EZP=n=8192,k=8192,w=uint4,a=float16,group=128,zp=int
# in the order of what they decide; the last ones only where time is left (~8 s a row)
case ${SET:-1} in
1)  # call 1 (s8-dense9/call1/)
    for p in - m128s n256s; do row $p l14 $L14 128; done
    row - w8 $W8 128,1024,8192
    row w8n256 w8 $W8 128,1024,8192
    row w8m128s w8 $W8 128
    row - ebf $EBF 1,128,1024
    row n256s ebf $EBF 128,1024
    row m128s ebf $EBF 128,1024
    row - l4k $L4K 1
    row wide l4k $L4K 1
    row m64n256s l14 $L14 128
    row - e16 $E16 128
    row n256s e16 $E16 128
    row - ew2 $EW2 1024
    row n256s ew2 $EW2 1024
    row m256s ew2 $EW2 1024
    row w8m176 w8 $W8 1024,8192
    ;;
2)  # call 2: this tree's table (M 65..384 summed in the workspace) against main's entry there
    # (c128: through C) on the layers call 1 did not time, then what call 1 skipped
    row - e16 $E16 128,256
    row c128 e16 $E16 128,256
    row - n14 $N14 128
    row c128 n14 $N14 128
    row - l14 $L14 128,256
    row - ezp $EZP 128
    row w256 e16 $E16 128
    row - l4k $L4K 1,128
    row wide l4k $L4K 1
    row - ew2 $EW2 128,1024
    row c128 ew2 $EW2 128
    ;;
esac
echo "== end t=$(el)" >>"$L"
rm -rf "$P"
