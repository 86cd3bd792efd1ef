#!/bin/bash
# Session 9 (engineer "moe10", issue 10): the Qwen3-30B-A3B expert GEMMs (E = 128, top-8, uint4
# g128 bf16, random routing, indexed) against Humming 0.1.20's indexed tiles. Ranges of rows per
# expert 1 | 2..16 | 17..32 | 33..64 | 65..inf (M = 1 and 8 -> 1, 128 -> 8, 1024 -> 64, 4096 -> 256),
# one block M per range for both GEMMs. Humming's MoE A16 policy (humming/tune/sm90_policies.py,
# select_moe_a16) caps block M at 64, widens N to 256 with 64 columns per warp (four 64-row
# slabs, one warpgroup, the transposed wgmma as hum's), halves block K to 64 where that makes two
# CTAs per SM resident, runs the plain (not warp-specialised) kernel with cp.async gathers, and
# drops stream-K once the tiles outnumber the SMs. Candidates (the built-in tiles elsewhere):
#   hm     33..64 and 65..: plain wgmma 64 x 256 x 64, warp n 64, 4 stages, two CTAs, whole tiles
#   hmsk   hm with stream-K
#   hm2    hm with two warpgroups of two slabs (warp n 32: the widest warp main allows)
#   hm80   80-row blocks at 33..64 (fewer padded rows at 64 per expert on average), warp n 32 (four
#          slabs of 80 rows would hold 160 accumulators)
#   hmk    hm at block K 128, one CTA (Humming's base before halving K)
#   hws    hm's tile on wgmma_ws (two CTAs of 128 math + 128 producer threads)
#   w16    2..16: plain wgmma 16 x 256 x 128, warp n 64, 4 stages, two CTAs, whole tiles
#   dp2    moe9's dp2 again (the built-in 1..16 tile as one site entry): M = 8 ran 46.6 built in,
#          40.1 as dp2 in other calls
#   bench/sweeps/moe10.sh policies                (only writes them, under /tmp/moe10-policies)
#   bench/sweeps/moe10.sh run BUILD_DIR OUT       (GPU host; END: the epoch second to stop by; RUNS)
set -u
what=$1 build=${2:-build}
root=/tmp/moe10-policies
gateup=n=1536,k=2048,w=uint4,a=bfloat16,group=128
down="n=2048,k=768,w=uint4,a=bfloat16,group=128 --down"
mk() { # NAME R1 R16 R32 R64 RBIG (Lua expressions; `deep` is true on the gate/up GEMM)
  mkdir -p "$root/$1"
  cat >"$root/$1/zz_moe10.lua" <<LUA
local policy = require("hum.policy")
local ranges, mma = policy.ranges, policy.mma_tuning
local function wg(kernel, bm, bn, bk, wn, st, ctas)
  local t = mma(bm, bn, bk, bm, wn, bk, st, ctas); t.kernel = kernel; return t
end
local function ws(...) return wg("wgmma_ws", ...) end
local function whole(t) t.stream_k = false; return t end
return { name = "moe10-$1", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer, overrides, compute)
    if not compute or compute.gemm_type == "dense" then return nil end
    local deep = layer.padded_k >= 2048
    return ranges({ { 1, $2 }, { 16, $3 }, { 32, $4 }, { 64, $5 }, { math.huge, $6 } })
  end }
LUA
}
b1="whole(mma(16, 128, 256, 16, 32, 128, 4, 2))" b16="$b1"
b32="wg('wgmma', 32, 128, 256, 16, 5)" b64="ws(96, 256, 128, 32, 3)" bbig="ws(128, 256, 128, 32, 3)"
hm="whole(wg('wgmma', 64, 256, 64, 64, 4, 2))" hm2="whole(wg('wgmma', 64, 256, 64, 32, 4, 2))"
mk hm2 "$b1" "$b16" "$b32" "$hm2" "$hm2"
mk hm "$b1" "$b16" "$b32" "$hm" "$hm"
mk hmsk "$b1" "$b16" "$b32" "wg('wgmma', 64, 256, 64, 64, 4, 2)" "wg('wgmma', 64, 256, 64, 64, 4, 2)"
mk hm80 "$b1" "$b16" "$b32" "whole(wg('wgmma', 80, 256, 64, 32, 4, 2))" "$hm"
mk hmk "$b1" "$b16" "$b32" "whole(wg('wgmma', 64, 256, 128, 64, 4))" "whole(wg('wgmma', 64, 256, 128, 64, 4))"
mk hws "$b1" "$b16" "$b32" "whole(ws(64, 256, 64, 64, 4, 2))" "whole(ws(64, 256, 64, 64, 4, 2))"
mk w16 "$b1" "whole(wg('wgmma', 16, 256, 128, 64, 4, 2))" "$b32" "$b64" "$bbig"
mk dp2 "$b1" "$b16" "$b32" "$b64" "$bbig"
# Call 2: the built-in of this branch (policies/sm90.lua: w16 at 2..16, hm80 at 33..64) against main's
# tiles (`main`, the same kernels: main's built-in MoE ranges as a site policy) and Humming's tiles
# above 32 rows (moe10-humming.py on the H200: 80 x 256 x 64 warp-specialised, four stages, one CTA,
# stream-K at M = 1024; 96 x 256 x 64 the same, whole, at M = 4096):
#   ws80 / ws80w  33..64: wgmma_ws 80 x 256 x 64 / 4, stream-K / whole
#   p96           33..64 and 65..: plain 96 x 256 x 64 / 4, two CTAs of two warpgroups, whole
#   big96         65..: wgmma_ws 96 x 256 x 64 / 4, whole
#   bigp80        65..: the 33..64 tile (plain 80 x 256 x 64, two CTAs, whole)
#   w16one        1 row per expert too (M = 1, 8): wgmma 16 x 256 x 128 / 4, warp n 64, two CTAs
mk main "$b1" "$b16" "$b32" "$b64" "$bbig"
n16="whole(wg('wgmma', 16, 256, 128, 64, 4, 2))" n64="whole(wg('wgmma', 80, 256, 64, 32, 4, 2))"
p96="whole(wg('wgmma', 96, 256, 64, 32, 4, 2))"
mk ws80 "$b1" "$n16" "$b32" "ws(80, 256, 64, 32, 4)" "$bbig"
mk ws80w "$b1" "$n16" "$b32" "whole(ws(80, 256, 64, 32, 4))" "$bbig"
mk p96 "$b1" "$n16" "$b32" "$p96" "$p96"
mk big96 "$b1" "$n16" "$b32" "$n64" "whole(ws(96, 256, 64, 32, 4))"
mk bigp80 "$b1" "$n16" "$b32" "$n64" "$n64"
mk w16one "$n16" "$n16" "$b32" "$n64" "$bbig"
# what (gateup, down: the GEMM alone; gemm: both):variant:M[:KV], in the order of what matters
# most (a run skipped for time says so); KV names a kernel directory of measurement variants
runs=${RUNS:-"gemm:base:1024,4096 gemm:hm:1024,4096 gemm:hm80:1024 gemm:hmk:1024 gemm:hws:1024
      gemm:hmsk:1024 gemm:w16:128 gemm:base:128 gemm:dp2:8 gemm:base:8"}
case $what in
policies) ;;
run)
  out=$3
  for r in $runs; do
    IFS=: read -r kind v m kv <<<"$r"
    hum=$build/runtime/hum cache=${HUM_CACHE_DIR:-/tmp/cache}
    gs="gateup down"
    [ $kind = gemm ] || gs=$kind
    for g in $gs; do
      t=$((${END:-$(($(date +%s) + 90))} - $(date +%s)))
      [ $t -gt 15 ] && t=15
      if [ $t -lt 4 ]; then echo "=== $g $v $m: skipped (time)" >>"$out/moe10.txt"; continue; fi
      echo "=== $g $v $m ${kv:-}" >>"$out/moe10.txt"
      case $g in
      layer) args=(--moe e=128,topk=8,$gateup) ;;
      gateup) args=(--moe-gemm $gateup --experts 128 --topk 8) ;;
      down) args=(--moe-gemm $down --experts 128 --topk 8) ;;
      esac
      pol=(env HUM_POLICY_PATH="$root/$v")
      [ $v = base ] && pol=(env -u HUM_POLICY_PATH) # the built-in policies/sm90.lua
      # KV: kernels from $ROOT/.exp/kv/moe10-KV/kernels (a measurement variant, not this tree's)
      [ -n "${kv:-}" ] && pol+=(HUM_KERNEL_PATH="$ROOT/.exp/kv/moe10-$kv/kernels")
      s=$(date +%s%N)
      "${pol[@]}" HUM_CACHE_DIR=$cache timeout $t "$hum" bench "${args[@]}" --m $m --warmup 10 --reps 50 \
        >>"$out/moe10.txt" 2>&1
      echo "exit $? in $((($(date +%s%N) - s) / 1000000)) ms" >>"$out/moe10.txt"
    done
  done ;;
esac
