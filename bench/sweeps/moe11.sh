#!/bin/bash
# Session 10 (engineer moe11, issue 10): the Qwen3-30B-A3B expert GEMMs (E = 128, top-8, uint4
# g128 bf16, random routing, indexed) against Humming 0.1.20. Ranges of rows per expert
# 1 | 2..16 | 17..32 | 33..64 | 65..inf (M = 1 and 8 -> 1, 128 -> 8, 1024 -> 64, 4096 -> 256); each
# candidate is the built-in table (policies/sm90.lua at 7629405) with one or two ranges changed:
#   ws80w   33..64: wgmma_ws 80 x 256 x 64 / 4, warp n 32, one CTA, whole (moe10's, unchecked)
#   big96   65..:   wgmma_ws 96 x 256 x 64 / 4, whole (Humming's M = 4096 tile; moe10's, unchecked)
#   cand    ws80w and big96 together (what the checks run)
#   ws80s6  ws80w with six stages (more copies in flight: the 12-warp SM is latency-bound)
#   ws80x2  33..64: wgmma_ws 80 x 128 x 64 / 4, warp n 16, two CTAs per SM (24 warps), whole
#   big96s6 big96 with six stages
#   ws96x2  65..: wgmma_ws 96 x 128 x 64 / 4, warp n 16, two CTAs per SM, whole
#   ws144   65..: wgmma_ws 144 x 256 x 64 / 4 (256 +- 16 rows per expert: two blocks, as three of 96)
#   ws128w  65..: wgmma_ws 128 x 256 x 64 / 4, whole
#   sk8     1 row per expert (M = 1, 8): the built-in mma.sync 16 x 128 x 256 / 4, two CTAs, with
#           stream-K summed in the workspace (M = 8: ~620 gate_up tiles on 264 slots, 2.35 rounds)
#   n64x3   1 row: mma.sync 16 x 64 x 256 / 4, three CTAs per SM, whole
#   ws16    1 row and 2..16: wgmma_ws 16 x 256 x 128 / 4, warp n 64, two CTAs, whole (the producer
#           runs into the next tile while the math warps write C: M = 8's tiles are 3 .. 8 k-blocks)
#   ws16k   1 row: wgmma_ws 16 x 128 x 256 / 4, warp n 32, two CTAs, whole (M = 1's 96 tiles kept)
#   ws16x3  1 row: wgmma_ws 16 x 128 x 128 / 5, warp n 32, three CTAs, whole
#   cand8   cand with w8 at one row per expert (what the checks run from call 1 on)
#   w8      1 row: wgmma 8 x 256 x 128 / 4, warp n 64, two CTAs, whole (Humming's M = 8 tile; block
#           M 8: one n8 wgmma per k16 step and slab, half the padded rows of 16)
#   w8n     1 row: wgmma 8 x 128 x 256 / 4, warp n 32, two CTAs, whole (M = 1's 96 tiles)
#   ws8     1 row: wgmma_ws 8 x 128 x 256 / 4, warp n 32, two CTAs, whole
# Call 2: this branch's built-in (policies/sm90.lua: w8n / ws8 at one row per expert, ws16, ws80w,
# ws144) against main's tiles (`main`, as a site policy on the same binary), and candidates beside
# the new built-in:
#   ws80s6n / ws80s8  33..64: ws80w with six / eight stages
#   ws80k   33..64: wgmma_ws 80 x 256 x 128 / 4
#   ws144s5 65..: ws144 with five stages
#   ws8all  1 row: wgmma_ws 8 x 128 x 256 / 4, two CTAs, on both GEMMs
#   ws8x3   1 row: the same at three CTAs per SM (three stages fit)
#   w8all   1 row: plain wgmma 8 x 128 x 256 / 4, two CTAs, on both GEMMs
#   bench/sweeps/moe11.sh policies                (writes them under /tmp/moe11-policies)
#   bench/sweeps/moe11.sh run BUILD_DIR OUT       (GPU host; RUNS: "NAME:M,..." list; END: epoch second)
set -u
what=$1 build=${2:-build}
root=/tmp/moe11-policies
gateup=n=1536,k=2048,w=uint4,a=bfloat16,group=128
down="n=2048,k=768,w=uint4,a=bfloat16,group=128 --down"
mk() { # NAME R1 R16 R32 R64 RBIG (Lua expressions)
  mkdir -p "$root/$1"
  cat >"$root/$1/zz_moe11.lua" <<LUA
local policy = require("hum.policy")
local ranges, mma = policy.ranges, policy.mma_tuning
local function wg(kernel, bm, bn, bk, wn, st, ctas)
  local t = mma(bm, bn, bk, bm, wn, bk, st, ctas); t.kernel = kernel; return t
end
local function ws(...) return wg("wgmma_ws", ...) end
local function whole(t) t.stream_k = false; return t end
local function summed(t) t.stream_k_sum = "workspace"; return t end
return { name = "moe11-$1", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer, overrides, compute)
    if not compute or compute.gemm_type == "dense" then return nil end
    return ranges({ { 1, $2 }, { 16, $3 }, { 32, $4 }, { 64, $5 }, { math.huge, $6 } })
  end }
LUA
}
# the built-in ranges (policies/sm90.lua, 16-bit A, 4-bit weights, group 128)
b1="whole(mma(16, 128, 256, 16, 32, 128, 4, 2))" b16="whole(wg('wgmma', 16, 256, 128, 64, 4, 2))"
b32="wg('wgmma', 32, 128, 256, 16, 5)" b64="whole(wg('wgmma', 80, 256, 64, 32, 4, 2))"
bbig="ws(128, 256, 128, 32, 3)"
ws80w="whole(ws(80, 256, 64, 32, 4))" big96="whole(ws(96, 256, 64, 32, 4))"
mk ws80w "$b1" "$b16" "$b32" "$ws80w" "$bbig"
mk big96 "$b1" "$b16" "$b32" "$b64" "$big96"
mk cand "$b1" "$b16" "$b32" "$ws80w" "$big96"
mk cand8 "whole(wg('wgmma', 8, 256, 128, 64, 4, 2))" "$b16" "$b32" "$ws80w" "$big96"
mk ws80s6 "$b1" "$b16" "$b32" "whole(ws(80, 256, 64, 32, 6))" "$bbig"
mk ws80x2 "$b1" "$b16" "$b32" "whole(ws(80, 128, 64, 16, 4, 2))" "$bbig"
mk big96s6 "$b1" "$b16" "$b32" "$b64" "whole(ws(96, 256, 64, 32, 6))"
mk ws96x2 "$b1" "$b16" "$b32" "$b64" "whole(ws(96, 128, 64, 16, 4, 2))"
mk ws144 "$b1" "$b16" "$b32" "$b64" "whole(ws(144, 256, 64, 32, 4))"
mk ws128w "$b1" "$b16" "$b32" "$b64" "whole(ws(128, 256, 64, 32, 4))"
mk sk8 "summed(mma(16, 128, 256, 16, 32, 128, 4, 2))" "$b16" "$b32" "$b64" "$bbig"
mk ws16 "whole(ws(16, 256, 128, 64, 4, 2))" "whole(ws(16, 256, 128, 64, 4, 2))" "$b32" "$b64" "$bbig"
mk ws16k "whole(ws(16, 128, 256, 32, 4, 2))" "$b16" "$b32" "$b64" "$bbig"
mk ws16x3 "whole(ws(16, 128, 128, 32, 5, 3))" "$b16" "$b32" "$b64" "$bbig"
mk w8 "whole(wg('wgmma', 8, 256, 128, 64, 4, 2))" "$b16" "$b32" "$b64" "$bbig"
mk w8n "whole(wg('wgmma', 8, 128, 256, 32, 4, 2))" "$b16" "$b32" "$b64" "$bbig"
mk ws8 "whole(ws(8, 128, 256, 32, 4, 2))" "$b16" "$b32" "$b64" "$bbig"
mk n64x3 "whole(mma(16, 64, 256, 16, 16, 128, 4, 3))" "$b16" "$b32" "$b64" "$bbig"
# this branch's built-in ranges
n1="whole(wg(layer.padded_k < 2048 and 'wgmma_ws' or 'wgmma', 8, 128, 256, 32, 4, 2))"
n16="whole(ws(16, 256, 128, 64, 4, 2))" n64="whole(ws(80, 256, 64, 32, 4))" nbig="whole(ws(144, 256, 64, 32, 4))"
mk main "$b1" "$b16" "$b32" "$b64" "$bbig"
mk ws80s8 "$n1" "$n16" "$b32" "whole(ws(80, 256, 64, 32, 8))" "$nbig"
mk ws80k "$n1" "$n16" "$b32" "whole(ws(80, 256, 128, 32, 4))" "$nbig"
mk ws144s5 "$n1" "$n16" "$b32" "$n64" "whole(ws(144, 256, 64, 32, 5))"
mk ws8all "whole(ws(8, 128, 256, 32, 4, 2))" "$n16" "$b32" "$n64" "$nbig"
mk ws8x3 "whole(ws(8, 128, 256, 32, 4, 3))" "$n16" "$b32" "$n64" "$nbig"
mk w8all "whole(wg('wgmma', 8, 128, 256, 32, 4, 2))" "$n16" "$b32" "$n64" "$nbig"
mk ws80s6n "$n1" "$n16" "$b32" "whole(ws(80, 256, 64, 32, 6))" "$nbig"
case $what in
policies) ;;
run)
  out=$3
  for r in ${RUNS:-}; do
    v=${r%%:*} m=${r#*:}
    for g in gateup down; do
      t=$((${END:-$(($(date +%s) + 90))} - $(date +%s)))
      [ $t -gt 15 ] && t=15
      if [ $t -lt 4 ]; then echo "=== $g $v $m: skipped (time)" >>"$out/moe11.txt"; continue; fi
      echo "=== $g $v $m" >>"$out/moe11.txt"
      case $g in
      gateup) args=(--moe-gemm $gateup --experts 128 --topk 8) ;;
      down) args=(--moe-gemm $down --experts 128 --topk 8) ;;
      esac
      pol=(env HUM_POLICY_PATH="$root/$v")
      [ $v = base ] && pol=(env -u HUM_POLICY_PATH) # the built-in policies/sm90.lua
      s=$(date +%s%N)
      "${pol[@]}" timeout $t "$build/runtime/hum" bench "${args[@]}" --m $m --warmup 10 --reps 50 >>"$out/moe11.txt" 2>&1
      echo "exit $? in $((($(date +%s%N) - s) / 1000000)) ms" >>"$out/moe11.txt"
    done
  done ;;
esac
