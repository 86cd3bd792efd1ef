#!/bin/sh
# Issue 8, session 5 (call 3, ~45 s on the H200): dense wgmma_ws candidates the first sweeps
# left open, each the only entry of a site policy, beside the built-in table ("base"):
#   128 x 128 x 128/4 (and x 256/3) at M = 256 / 384 on 8192 x 8192 (the 256-row tiles: 64 tiles
#   for 132 SMs); 64-row tiles (64 x 128 x 256/4, 64 x 64 x 256/5) at M 64 / 128 on the N = 4096
#   layers; 128-row tiles at M 256 / 1024 on 4096 x 4096. Results: bench/results/H200-2026-12-02/
#   candidates.txt; what policies/sm90.lua took: bench/NOTES.md, "Session 5".
#   OUT=out sh bench/sweeps/perf-mid.sh   (repository root, Release build in build/)
set -u
OUT=${OUT:-out}
mkdir -p "$OUT"
H=build/runtime/hum; L=$OUT/cand.txt
mk() { mkdir -p /tmp/c/$1; cat > /tmp/c/$1/zz.lua <<LUA
local policy = require("hum.policy")
local mma = policy.mma_tuning
local function ws(bm, bn, bk, wn, st) local t = mma(bm, bn, bk, bm, wn, bk, st); t.kernel = "wgmma_ws"; return t end
local function wg(bm, bn, bk, wn, st) local t = mma(bm, bn, bk, bm, wn, bk, st); t.kernel = "wgmma"; return t end
return { name = "c-$1", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer) return policy.ranges({ $2 }) end }
LUA
}
mk m256ws128 "{ math.huge, ws(128, 128, 128, 16, 4) }"
mk m256ws128k256 "{ math.huge, ws(128, 128, 256, 16, 3) }"
mk ws64k256 "{ math.huge, ws(64, 128, 256, 16, 4) }"
mk ws64n64 "{ math.huge, ws(64, 64, 256, 16, 5) }"
run() { echo "=== $1 $2 m=$3" >> $L
  HUM_POLICY_PATH=${1#base} timeout 25 $H bench --layer "$2,w=uint4,a=float16,group=128" --m "$3" --warmup 10 --reps 50 2>&1 |
    grep -E "^ +[0-9]+ +[0-9.]+ |check|error|fail|refus|M [0-9]" >> $L; }
run base n=8192,k=8192 1,16,256,384
run /tmp/c/m256ws128 n=8192,k=8192 256,384
run /tmp/c/m256ws128k256 n=8192,k=8192 256
run /tmp/c/ws64k256 n=4096,k=4096 64,128
run /tmp/c/ws64n64 n=4096,k=4096 64,128
run /tmp/c/ws64k256 n=4096,k=14336 128
run /tmp/c/m256ws128 n=4096,k=4096 256,1024
run base n=4096,k=4096 1,16,64,128
cat $L
