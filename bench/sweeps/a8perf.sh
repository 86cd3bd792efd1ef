#!/bin/sh
# Issue 9 / 8 (engineer a8perf, session 4, written without a GPU): stream-K with its slices
# summed in the workspace (tuning field stream_k_sum = "workspace"; run in session 5) against
# the built-in tables, beside Humming's quantized rows, in one call (~90 s on the H200 host).
# What it decides:
#   1. 8-bit A: the built-in tables run without stream-K (its slices would round through the
#      16-bit C); with the workspace sums stream-K comes back. Faster at M = 1..128 (n = k =
#      8192: 64 tiles of 128 columns on 132 SMs)? Then policies/sm90.lua sets it for 8-bit A.
#   2. 16-bit A: the cost or gain of the workspace sums against the sums through C at small M
#      (one C rounding instead of one per slice; the fix-up no longer chains the slices).
#   3. ncu of W8A8 at M = 8192: L2 throughput against the tensor pipe (the tile-size argument).
# Everything under $OUT (default ./out): one `hum bench` log and JSON per row, Humming's JSON.
# Ran in session 5 (bench/results/H200-2026-12-02/, bench/NOTES.md "Session 5"): policies/sm90.lua
# now sums in the workspace at M <= 16 and on every 8-bit-A entry.
# usage: bench/sweeps/a8perf.sh [BUILD_DIR]   (from the repository root)
set -u
build=${1:-build}
out=${OUT:-out}
mkdir -p "$out"
hum="$build/runtime/hum"
HUM_CACHE_DIR=$(mktemp -d)
export HUM_CACHE_DIR
work=$(mktemp -d)
cat >"$work/workspace_sum.lua" <<'LUA'
local policy = require("hum.policy")
return {
  name = "stream-k-workspace-sum",
  applies = function(device) return true end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do e.tuning.stream_k_sum = "workspace" end
    return list
  end,
}
LUA
printf 'policy_paths: [%s/workspace_sum.lua]\n' "$work" >"$work/ws.yaml"

row() { # label spec m-list [config]
    label=$1 spec=$2 ms=$3
    shift 3
    echo "== $label: $spec" | tee -a "$out/a8perf.log"
    timeout 60 "$hum" "$@" bench --layer "$spec" --m "$ms" --warmup 10 --reps 50 --out "$out/$label.json" \
        >>"$out/a8perf.log" 2>&1
    echo "   exit $?" >>"$out/a8perf.log"
}
w8a8=n=8192,k=8192,w=e4m3,a=e4m3
w4a8=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
w4a16=n=8192,k=8192,w=uint4,a=bfloat16,group=128
row w8a8-builtin "$w8a8" 1,16,64,128,1024,8192
row w8a8-wssum "$w8a8" 1,16,64,128,1024,8192 --config "$work/ws.yaml"
row w4a8-builtin "$w4a8" 1,128,1024,8192
row w4a8-wssum "$w4a8" 1,128,1024,8192 --config "$work/ws.yaml"
row w4a16-builtin "$w4a16" 1,16,64,128
row w4a16-wssum "$w4a16" 1,16,64,128 --config "$work/ws.yaml"
# N = 4096 at small M: 32 tiles, each split over ~4 CTAs whose sums through C ran one after the
# other (bench/NOTES.md, perf-3); the workspace sums meet in parallel
row w4a16-4096-builtin n=4096,k=4096,w=uint4,a=float16,group=128 1,16
row w4a16-4096-wssum n=4096,k=4096,w=uint4,a=float16,group=128 1,16 --config "$work/ws.yaml"
# 3. is W8A8 e4m3 at M = 8192 bound by L2 bandwidth (bench/NOTES.md, "8-bit activations")?
if command -v ncu >/dev/null 2>&1; then
    timeout 90 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis -k regex:hum_gemm -c 1 \
        "$hum" bench --layer "$w8a8" --m 8192 --warmup 0 --reps 1 --out "$work/ncu.json" >"$out/ncu-w8a8-8192.txt" 2>&1
fi
if [ -f tools-shared/bench-humming.py ]; then
    timeout 120 python3 tools-shared/bench-humming.py --only quant --out "$out/humming-quant.json" \
        >>"$out/a8perf.log" 2>&1
fi
grep -E '^(==| *[0-9]+ )' "$out/a8perf.log"
rm -rf "$work" "$HUM_CACHE_DIR"
