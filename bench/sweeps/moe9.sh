#!/bin/bash
# Session 8 (engineer "moe9", issue 10): the Qwen3-30B-A3B expert GEMMs (E = 128, top-8, uint4 g128
# bf16, random routing, indexed). Ranges of rows per expert 1 | 2..16 | 17..32 | 33..64 | 65..inf
# (M = 1 and 8 -> 1, 128 -> 8, 1024 -> 64, 4096 -> 256), one block M per range for both GEMMs.
# Candidate site policies (the built-in tiles where a candidate names none):
#   ws5   moe7's ws5: wgmma_ws at block K 128 above 32 rows, 96x256x128/3 and 128x256x128/3, on both
#         GEMMs (s7-call2: gate_up 183.01 / 510.24 at M 1024 / 4096, its Qwen3 check cut)
#   g5    ws5's tiles for the gate/up GEMM only (K >= 2048: 16 k-blocks of 128 or more), down on the
#         built-in plain wgmma (the candidate for policies/sm90.lua)
#   w54   g5 with four stages of 96x256x128 at 33..64 (C's fit trims them if they do not fit)
#   dp2   one row per expert (M = 1, 8): the whole 16x128x256/4 tiles at two CTAs per SM (M = 8: ~600
#         gate_up tiles over 264 slots instead of 132)
#   n64   one row per expert: whole 16x64x256/6 tiles, one CTA (twice the tiles, more loads in flight)
#   k128  2..16 rows (M = 128): whole 16x128x128/6 tiles, two CTAs (half the bytes per stage)
#   n64b  2..16 rows: whole 16x64x256/6 tiles, two CTAs
#   w16p  up to 16 rows plain wgmma 16x128x256/4, whole tiles (one CTA at one row, two above): its
#         weights now copied in 16-byte chunks
#   w16s  w16p on wgmma_ws (session 7's ws4 with stream-K: 92.59 / 58.66 at M = 128)
# Correctness: `hum bench --moe` checks one forward of the whole layer at its first M against the
# float64 reference (32 tokens), so ws5 runs there at M = 1024 and at M = 4096 on their own.
#   bench/sweeps/moe9.sh policies                 (only writes them, under /tmp/moe9-policies)
#   bench/sweeps/moe9.sh run BUILD_DIR OUT        (GPU host; END: the epoch second to stop by; RUNS:
#                                                 the runs, below; OLD_HUM: main's hum for "old")
set -u
what=$1 build=${2:-build}
root=/tmp/moe9-policies
gateup=n=1536,k=2048,w=uint4,a=bfloat16,group=128
down="n=2048,k=768,w=uint4,a=bfloat16,group=128 --down"
mk() { # NAME R1 R16 R32 R64 RBIG (Lua expressions; `deep` is true on the gate/up GEMM)
  mkdir -p "$root/$1"
  cat >"$root/$1/zz_moe9.lua" <<LUA
local policy = require("hum.policy")
local ranges, mma = policy.ranges, policy.mma_tuning
local function wg(kernel, bm, bn, bk, wn, st, ctas)
  local t = mma(bm, bn, bk, bm, wn, bk, st, ctas); t.kernel = kernel; return t
end
local function ws(...) return wg("wgmma_ws", ...) end
local function whole(t) t.stream_k = false; return t end
return { name = "moe9-$1", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer, overrides, compute)
    if not compute or compute.gemm_type == "dense" then return nil end
    local deep = layer.padded_k >= 2048
    return ranges({ { 1, $2 }, { 16, $3 }, { 32, $4 }, { 64, $5 }, { math.huge, $6 } })
  end }
LUA
}
b1="whole(mma(16, 128, 256, 16, 32, 128, 4))" b16="whole(mma(16, 128, 256, 16, 32, 128, 4, 2))"
b32="wg('wgmma', 32, 128, 256, 16, 5)" b64="wg('wgmma', 96, 128, 64, 16, 4, 2)" bbig="wg('wgmma', 128, 256, 64, 32, 4)"
mk ws5 "$b1" "$b16" "$b32" "ws(96, 256, 128, 32, 3)" "ws(128, 256, 128, 32, 3)"
mk g5 "$b1" "$b16" "$b32" "deep and ws(96, 256, 128, 32, 3) or $b64" "deep and ws(128, 256, 128, 32, 3) or $bbig"
mk w54 "$b1" "$b16" "$b32" "deep and ws(96, 256, 128, 32, 4) or $b64" "deep and ws(128, 256, 128, 32, 3) or $bbig"
mk dp2 "$b16" "$b16" "$b32" "$b64" "$bbig"
mk n64 "whole(mma(16, 64, 256, 16, 16, 128, 6))" "$b16" "$b32" "$b64" "$bbig"
mk k128 "$b1" "whole(mma(16, 128, 128, 16, 32, 64, 6, 2))" "$b32" "$b64" "$bbig"
mk n64b "$b1" "whole(mma(16, 64, 256, 16, 16, 128, 6, 2))" "$b32" "$b64" "$bbig"
mk w16p "whole(wg('wgmma', 16, 128, 256, 16, 4))" "whole(wg('wgmma', 16, 128, 256, 16, 4, 2))" "$b32" "$b64" "$bbig"
mk w16s "whole(ws(16, 128, 256, 16, 4))" "whole(ws(16, 128, 256, 16, 4, 2))" "$b32" "$b64" "$bbig"
# what (gemm: gate/up and down; layer: the MoE layer; dense: 8192 x 8192 uint4 g128 fp16):binary:variant:M, in the order of what matters most (a run skipped for time says so); binary
# "new" is BUILD_DIR's hum, "old" $OLD_HUM (main's, for the same call's figures before a kernel change)
runs=${RUNS:-"layer:new:base:128 layer:new:base:1024,4096 layer:new:ws5:1024 layer:new:ws5:4096
      gemm:old:base:1,8,128,1024,4096 gemm:new:base:1,8,128,1024,4096 gemm:new:ws5:1024,4096
      gemm:old:ws5:1024,4096 layer:new:g5:1024,4096 gemm:new:w54:1024 gemm:new:dp2:1,8 gemm:new:n64:1,8
      gemm:new:k128:128 gemm:new:n64b:128"}
case $what in
policies) ;;
run)
  out=$3
  for r in $runs; do
    IFS=: read -r kind bin v m <<<"$r"
    hum=$build/runtime/hum cache=${HUM_CACHE_DIR:-/tmp/cache}
    [ $bin = old ] && hum=$OLD_HUM cache=$cache-old
    gs="gateup down"
    [ $kind = gemm ] || gs=$kind
    for g in $gs; do
      t=$((${END:-$(($(date +%s) + 90))} - $(date +%s)))
      [ $t -gt 15 ] && t=15
      if [ $t -lt 4 ]; then echo "=== $g $bin $v $m: skipped (time)" >>"$out/moe9.txt"; continue; fi
      echo "=== $g $bin $v $m" >>"$out/moe9.txt"
      case $g in
      layer) args=(--moe e=128,topk=8,$gateup) ;;
      dense) args=(--layer n=8192,k=8192,w=uint4,a=float16,group=128) ;;
      gateup) args=(--moe-gemm $gateup --experts 128 --topk 8) ;;
      down) args=(--moe-gemm $down --experts 128 --topk 8) ;;
      esac
      pol=(env HUM_POLICY_PATH="$root/$v")
      [ $v = base ] && pol=(env -u HUM_POLICY_PATH) # the built-in policies/sm90.lua
      s=$(date +%s%N)
      "${pol[@]}" HUM_CACHE_DIR=$cache timeout $t "$hum" bench "${args[@]}" --m $m --warmup 10 --reps 50 \
        >>"$out/moe9.txt" 2>&1
      echo "exit $? in $((($(date +%s%N) - s) / 1000000)) ms" >>"$out/moe9.txt"
    done
  done ;;
esac
