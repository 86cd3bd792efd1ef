#!/bin/bash
# Issue 10, first run of wgmma_ws on the MoE expert GEMMs (its producer gathers A's rows by
# cp.async) on an H200, ~40 s. Run from the repository root after a Release build:
#   OUT=out bash bench/sweeps/moews.sh
#  1. correctness: test_expert_gemm with HUM_TEST_EXPERT_GEMM=ws (the bf16 small case on the
#     built-in policy, then the small, Qwen3 and e4m3 cases on wgmma_ws over the wgmma test
#     policy's six tiles);
#  2. Qwen3-30B-A3B expert GEMMs (E=128 top8 uint4 g128 bf16) with 2..inf rows per expert on
#     wgmma_ws: p1 = the sm90 MoE tiles of 4d2f36c, p2 = two CTAs per SM for 2..64 rows (96-row
#     blocks at 33..64); base = the built-in policy, last, for the same call's comparison.
# Ran in session 5, call 3 (bench/results/H200-2026-12-02/moews/): correct, and slower than
# plain wgmma from 128 tokens (bench/NOTES.md, "wgmma_ws on the expert GEMMs").
set -u
H=$PWD/build/runtime/hum
# a kernel cache of its own, which `hum compile --arch sm_90a --moe e=128,topk=8,n=1536,k=2048,
# w=uint4,a=bfloat16,group=128` under p1, p2 and the built-in policy fills without a GPU
export HUM_CACHE_DIR=$PWD/build/moews-cache
# the CI compile test's sm_90a kernels (the small case's wgmma_ws tables among them) seed the GPU
# test's cache: whatever keys match are not compiled again here
mkdir -p build/tests/cache-test_expert_gemm && cp -rn build/tests/cache-test_expert_gemm_compile/kernels build/tests/cache-test_expert_gemm/ 2>/dev/null
(cd build && HUM_TEST_EXPERT_GEMM=ws timeout 38 ctest -V -R '^test_expert_gemm$' --output-on-failure) > $OUT/test.txt 2>&1
echo "ctest rc $?" >> $OUT/test.txt
P=${TMPDIR:-/tmp}/moews; mkdir -p $P/p1 $P/p2
pol() { # name ranges: a site policy in $P/name
  cat > $P/$1/zz_moews.lua <<LUA
local policy = require("hum.policy")
local ranges, mma = policy.ranges, policy.mma_tuning
local function ws(bm, bn, bk, wn, st, ctas)
  local t = mma(bm, bn, bk, bm, wn, bk, st, ctas); t.kernel = "wgmma_ws"; return t
end
return { name = "$1", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer, overrides, compute)
    return ranges({ { 1, mma(16, 128, 256, 16, 32, 128, 4) }, { 16, ws(16, 128, 256, 16, 4, 2) }, $2 })
  end }
LUA
}
pol p1 "{ 32, ws(32, 128, 256, 16, 5) }, { 64, ws(64, 128, 256, 16, 4) }, { math.huge, ws(128, 256, 64, 32, 4) }"
pol p2 "{ 32, ws(32, 128, 128, 16, 4, 2) }, { 64, ws(96, 128, 64, 16, 4, 2) }, { math.huge, ws(128, 256, 64, 32, 4) }"
for p in p1 p2 base; do
  pp=$P/$p; [ $p = base ] && pp=""
  HUM_POLICY_PATH=$pp timeout 7 $H bench --moe-gemm n=1536,k=2048,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8 --m 1,8,128,1024,4096 --warmup 5 --reps 30 > $OUT/gateup-$p.txt 2>&1
  HUM_POLICY_PATH=$pp timeout 7 $H bench --moe-gemm n=2048,k=768,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8 --down --m 1,8,128,1024,4096 --warmup 5 --reps 30 > $OUT/down-$p.txt 2>&1
done
for f in $OUT/test.txt $OUT/gateup-*.txt $OUT/down-*.txt; do echo "== $f"; cat $f; done | tail -c 11000
