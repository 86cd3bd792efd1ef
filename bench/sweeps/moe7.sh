#!/bin/bash
# Session 7 (engineer "moe7", issue 10): the Qwen3-30B-A3B expert GEMMs (E = 128, top-8, uint4 g128
# bf16, random routing, indexed) on the warp-specialised kernel, now that its producer reads each
# block's gathered rows from a shared-memory row table (gemm/rows.cuh) instead of looking every
# chunk's row up again at every stage (session 5, moews: the producer was the bottleneck, 2x).
# Candidate site policies, ranges of rows per expert 1 | 2..16 | 17..32 | 33..64 | 65..inf (M = 1
# and 8 -> 1, 128 -> 8, 1024 -> 64, 4096 -> 256), one block M per range for both GEMMs:
#   ws1  the built-in tiles, every wgmma entry on wgmma_ws (same tiles, same CTAs per SM)
#   ws2  one CTA per SM, Humming's shapes: 2..16 ws 16x128x256/4, 17..32 ws 32x128x256/4,
#        33..64 ws 96x256x64/4, 65..inf ws 128x256x64/4
#   ws3  ws2 with 33..64 ws 96x128x128/4 and 65..inf ws 160x128x128/3 (fewer padded rows at M = 4096)
#   ws5  ws2 with block K 128 above 32 rows: 96x256x128/3, 128x256x128/3 (half the stages per tile)
#   ws7  ws1 with 65..inf on its 33..64 tile, ws 96x128x64/4 two CTAs per SM (M = 4096: ~340 blocks
#        of 96 rows pad about as many rows as 318 of 128)
#   p96  the built-in with 65..inf on its 33..64 tile, plain wgmma 96x128x64/4 two CTAs per SM
#   ws4  up to 16 rows ws 16x128x256/4 two CTAs per SM (M = 1, 8, 128: mma.sync's latency)
#   sk   up to 16 rows the built-in mma.sync tiles, stream-K slices summed in the workspace (dense
#        M <= 16 gained 1-2 us from it, bench/NOTES.md session 5)
#   n256 up to 16 rows mma.sync 16x256x256/4 (half the tiles of 16x128: the down GEMM at M = 8 runs
#        960 tiles of three k-blocks each, so the epilogues weigh as much as the loads)
#   sk2  sk with two CTAs per SM at one row per expert too (session 5's c2: M = 8 51.02 -> 47.68 but
#        M = 1 17.89 -> 20.82 when 2.9 k-blocks per CTA meant three slices taking turns through C)
#   dp   up to 16 rows the built-in mma.sync tiles without stream-K (M = 1: 96 tiles of 8 k-blocks,
#        one per CTA, instead of slices that meet through C)
# Each candidate runs only the M whose range it changes (the built-in runs them all); last, the
# whole MoE layer under moe.activation = mxfp8 (built-in tables: 8-bit A reads the math row table).
#   bench/sweeps/moe7.sh policies                     (only writes them, under /tmp/moe7-policies)
#   bench/sweeps/moe7.sh precompile BUILD_DIR CACHE   (CPU host: NVRTC for sm_90a into CACHE)
#   bench/sweeps/moe7.sh run BUILD_DIR CACHE OUT      (GPU host; END: the epoch second to stop by)
set -u
what=$1 build=${2:-build} cache=${3:-}
root=/tmp/moe7-policies
down="n=2048,k=768,w=uint4,a=bfloat16,group=128 --down"
gateup=n=1536,k=2048,w=uint4,a=bfloat16,group=128
mk() { # NAME R1 R16 R32 R64 RBIG
  mkdir -p "$root/$1"
  cat >"$root/$1/zz_moe7.lua" <<LUA
local policy = require("hum.policy")
local ranges, mma = policy.ranges, policy.mma_tuning
local function wg(kernel, bm, bn, bk, wn, st, ctas)
  local t = mma(bm, bn, bk, bm, wn, bk, st, ctas); t.kernel = kernel; return t
end
local function ws(...) return wg("wgmma_ws", ...) end
local function summed(t) t.stream_k_sum = "workspace"; return t end
local function whole(t) t.stream_k = false; return t end
return { name = "moe7-$1", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer, overrides, compute)
    if not compute or compute.gemm_type == "dense" then return nil end
    return ranges({ { 1, $2 }, { 16, $3 }, { 32, $4 }, { 64, $5 }, { math.huge, $6 } })
  end }
LUA
}
b1="mma(16, 128, 256, 16, 32, 128, 4)" b16="mma(16, 128, 256, 16, 32, 128, 4, 2)"
mk ws1 "$b1" "$b16" "ws(32, 128, 256, 16, 5)" "ws(96, 128, 64, 16, 4, 2)" "ws(128, 256, 64, 32, 4)"
mk ws2 "$b1" "ws(16, 128, 256, 16, 4)" "ws(32, 128, 256, 16, 4)" "ws(96, 256, 64, 32, 4)" "ws(128, 256, 64, 32, 4)"
mk ws3 "$b1" "ws(16, 128, 256, 16, 4)" "ws(32, 128, 256, 16, 4)" "ws(96, 128, 128, 16, 4)" "ws(160, 128, 128, 16, 3)"
mk ws5 "$b1" "ws(16, 128, 256, 16, 4)" "ws(32, 128, 256, 16, 4)" "ws(96, 256, 128, 32, 3)" "ws(128, 256, 128, 32, 3)"
mk ws7 "$b1" "$b16" "ws(32, 128, 256, 16, 5)" "ws(96, 128, 64, 16, 4, 2)" "ws(96, 128, 64, 16, 4, 2)"
mk p96 "$b1" "$b16" "wg('wgmma', 32, 128, 256, 16, 5)" "wg('wgmma', 96, 128, 64, 16, 4, 2)" \
   "wg('wgmma', 96, 128, 64, 16, 4, 2)"
mk ws4 "ws(16, 128, 256, 16, 4, 2)" "ws(16, 128, 256, 16, 4, 2)" "ws(32, 128, 256, 16, 5)" \
   "wg('wgmma', 96, 128, 64, 16, 4, 2)" "wg('wgmma', 128, 256, 64, 32, 4)"
mk sk "summed($b1)" "summed($b16)" "wg('wgmma', 32, 128, 256, 16, 5)" "wg('wgmma', 96, 128, 64, 16, 4, 2)" \
   "wg('wgmma', 128, 256, 64, 32, 4)"
mk n256 "mma(16, 256, 256, 16, 64, 128, 4)" "mma(16, 256, 256, 16, 64, 128, 4)" "wg('wgmma', 32, 128, 256, 16, 5)" \
   "wg('wgmma', 96, 128, 64, 16, 4, 2)" "wg('wgmma', 128, 256, 64, 32, 4)"
mk sk2 "summed($b16)" "summed($b16)" "wg('wgmma', 32, 128, 256, 16, 5)" "wg('wgmma', 96, 128, 64, 16, 4, 2)" \
   "wg('wgmma', 128, 256, 64, 32, 4)"
mk dp "whole($b1)" "whole($b16)" "wg('wgmma', 32, 128, 256, 16, 5)" "wg('wgmma', 96, 128, 64, 16, 4, 2)" \
   "wg('wgmma', 128, 256, 64, 32, 4)"
vs="sk2 n256 dp ws1 ws2 ws3 ws5 ws7 p96 ws4 sk"
# variant:M list (the rows per expert it changes)
runs="base:1,8,128,1024,4096 ws2:128,1024,4096 ws1:1024,4096 ws7:4096 sk:1,8,128 sk2:1,8 dp:1,8,128 ws5:1024,4096 n256:1,8,128 ws4:1,8,128 p96:4096 ws3:1024,4096"
case $what in
precompile)
  for v in base $vs; do
    pol=(env HUM_POLICY_PATH="$root/$v")
    [ $v = base ] && pol=(env -u HUM_POLICY_PATH)
    "${pol[@]}" HUM_CACHE_DIR=$cache "$build/runtime/hum" compile --arch sm_90a \
      --moe e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128 | grep -E "rows/expert|kernel"
  done ;;
run)
  out=$4
  for r in $runs; do
    v=${r%:*} m=${r#*:}
    for g in gateup down; do
      spec=$down
      [ $g = gateup ] && spec=$gateup
      t=$((${END:-$(($(date +%s) + 90))} - $(date +%s)))
      [ $t -gt 12 ] && t=12
      if [ $t -lt 4 ]; then echo "=== $g $v: skipped (time)" >>"$out/moe7.txt"; continue; fi
      echo "=== $g $v" >>"$out/moe7.txt"
      pol=(env HUM_POLICY_PATH="$root/$v")
      [ $v = base ] && pol=(env -u HUM_POLICY_PATH)
      "${pol[@]}" HUM_CACHE_DIR="$cache" timeout $t "$build/runtime/hum" bench --moe-gemm $spec \
        --experts 128 --topk 8 --m $m --warmup 10 --reps 50 >>"$out/moe7.txt" 2>&1
      echo "exit $?" >>"$out/moe7.txt"
    done
    if [ $v = ws3 ]; then # the MXFP8 layer (moe.activation = mxfp8) on the row tables, last
      t=$((${END:-$(($(date +%s) + 90))} - $(date +%s)))
      [ $t -gt 15 ] && t=15
      printf 'overrides:\n  moe:\n    activation: mxfp8\n' >/tmp/moe7-mxfp8.yaml
      echo "=== layer mxfp8" >>"$out/moe7.txt"
      [ $t -ge 6 ] && env -u HUM_POLICY_PATH HUM_CACHE_DIR="$cache" timeout $t "$build/runtime/hum" bench \
        --config /tmp/moe7-mxfp8.yaml --moe e=128,topk=8,$gateup --m 1,128,1024 --warmup 5 --reps 30 >>"$out/moe7.txt" 2>&1
      echo "exit $?" >>"$out/moe7.txt"
    fi
  done ;;
esac
