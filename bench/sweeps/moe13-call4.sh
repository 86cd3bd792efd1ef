#!/bin/bash
# timeout: 150
# Session 12, moe13t (issue 10), device call 4: expert tiles for the cells still behind Humming
# 0.1.20 (Qwen3-30B-A3B, E = 128, top-8, uint4 g128 bf16, indexed; gate_up M 8 / 1024 / 4096, down
# M 4096), candidates as site policies (HUM_POLICY_PATH: this tree's MoE table with some entries
# replaced, gate/up (K 2048) and down (K 768) apart), each against the built-in (`mine`).
# Checks first: every candidate's layer against float64 at M 1 / 8 / 1024 / 4096 (hum bench --moe
# checks each M before it times it; one replay). Then, twice, the gate/up and down GEMMs alone at
# M 1 / 8 / 1024 / 4096 under the built-in then each candidate (round 2 in reverse order); then
# test_expert_gemm's Qwen3 and small cases on the policies (HUM_TEST_EXPERT_GEMM=policy) under each
# candidate while time is left.
set -u
T0=$(date +%s)
END=$((T0 + 145))
B=build
H=$B/runtime/hum
L=$R/call4.txt
SPEC=e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128
GATEUP="n=1536,k=2048,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8"
DOWN="n=2048,k=768,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8 --down"
MS=1,8,1024,4096
el() { echo $(($(date +%s) - T0)); }
left() { echo $((END - $(date +%s))); }
log() { echo "$* t=$(el)" | tee -a $L; }
P=${POLICIES:-/tmp/moe13t}
pol() { case $1 in mine) echo "-u HUM_POLICY_PATH" ;; *) echo "HUM_POLICY_PATH=$P/$1" ;; esac; }
# run FILE CAP CMD...: CMD bounded by CAP seconds and the time left, output appended to FILE
run() {
  local f=$1 cap=$2 t; shift 2
  t=$(left); [ $t -gt $cap ] && t=$cap
  if [ $t -lt 3 ]; then echo "=== skipped (time): $*" >>$f; log "skipped $f"; return; fi
  echo "=== $* (limit $t s, t=$(el))" >>$f
  local s=$(date +%s%N)
  timeout $t "$@" >>$f 2>&1
  echo "exit $? in $((($(date +%s%N) - s) / 1000000)) ms" >>$f
}

# Candidate tables. Each entry: gate/up and down tuning at 1 row per expert (M 1, 8), 33..64 rows
# (M 1024) and 96.. rows (M 4096); `base` the built-in's. w(kernel, block M, N, K, warp N,
# stages, CTAs per SM), whole tiles.
BASE_G1='w("wgmma", 8, 128, 256, 32, 4, 2)'
BASE_D1='w("wgmma_ws", 8, 128, 256, 32, 4, 2)'
BASE_64='w("wgmma_ws", 80, 256, 64, 32, 6, 1)'
BASE_BIG='w("wgmma_ws", 144, 256, 64, 32, 4, 1)'
# cand NAME G1 D1 G64 D64 GBIG DBIG
cand() {
  mkdir -p $P/$1
  cat >$P/$1/zz_moe13t.lua <<LUA
local policy = require("hum.policy")
local function w(kernel, bm, bn, bk, wn, stages, ctas)
  local t = policy.mma_tuning(bm, bn, bk, bm, wn, bk, stages, ctas)
  t.kernel = kernel
  t.stream_k = false
  return t
end
-- \`t\` with stream-K, its slices summed through C ("output") or in the workspace
local function sk(t, sum)
  t.stream_k = true
  t.stream_k_sum = sum
  return t
end
return { name = "moe13t-$1", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer, overrides, compute)
    if not compute or compute.gemm_type == "dense" then return nil end
    local g = layer.padded_k >= 2048
    local t32 = policy.mma_tuning(32, 128, 256, 32, 16, 256, 5)
    t32.kernel = "wgmma"
    return policy.ranges({
      { 1, g and $2 or $3 },
      { 16, w("wgmma_ws", 16, 256, 128, 64, 4, 2) },
      { 32, t32 },
      { 64, g and $4 or $5 },
      { 95, w("wgmma_ws", 96, 256, 64, 32, 4, 1) },
      { math.huge, g and $6 or $7 },
    })
  end }
LUA
}
# base: the built-in table as a site file (the same kernels; the site-file path timed beside it)
cand base "$BASE_G1" "$BASE_D1" "$BASE_64" "$BASE_64" "$BASE_BIG" "$BASE_BIG"
# c1: wgmma_ws at one row on gate/up too (session 11's ws8all); eight stages of 80 rows; five of 144
cand c1 'w("wgmma_ws", 8, 128, 256, 32, 4, 2)' "$BASE_D1" 'w("wgmma_ws", 80, 256, 64, 32, 8, 1)' \
  'w("wgmma_ws", 80, 256, 64, 32, 8, 1)' 'w("wgmma_ws", 144, 256, 64, 32, 5, 1)' 'w("wgmma_ws", 144, 256, 64, 32, 5, 1)'
# c2: Humming's one-row shape (8 x 256 x 128, four slabs) on wgmma_ws; block K 128 at 80 rows; three
# stages of 144 (the producer's lead over the math warps' epilogue against the ring's depth)
cand c2 'w("wgmma_ws", 8, 256, 128, 64, 4, 2)' 'w("wgmma_ws", 8, 256, 128, 64, 4, 2)' \
  'w("wgmma_ws", 80, 256, 128, 32, 4, 1)' 'w("wgmma_ws", 80, 256, 128, 32, 4, 1)' \
  'w("wgmma_ws", 144, 256, 64, 32, 3, 1)' 'w("wgmma_ws", 144, 256, 64, 32, 3, 1)'
# c3: five stages at one row (plain); 144 x 128 x 64, one math warpgroup of two slabs (twice the
# tiles: a shorter tail wave)
cand c3 'w("wgmma", 8, 128, 256, 32, 5, 2)' 'w("wgmma_ws", 8, 128, 256, 32, 5, 2)' "$BASE_64" "$BASE_64" \
  'w("wgmma_ws", 144, 128, 64, 32, 6, 1)' 'w("wgmma_ws", 144, 128, 64, 32, 6, 1)'
# c4: three CTAs per SM at one row; two CTAs of 96 x 128 x 64 (one math warpgroup each: one CTA's
# epilogue under the other's main loop)
cand c4 'w("wgmma", 8, 128, 256, 32, 3, 3)' 'w("wgmma_ws", 8, 128, 256, 32, 3, 3)' "$BASE_64" "$BASE_64" \
  'w("wgmma_ws", 96, 128, 64, 32, 5, 2)' 'w("wgmma_ws", 96, 128, 64, 32, 5, 2)'
# c5: four CTAs of 8 x 128 x 128 at one row; two CTAs of 80 x 128 x 64, one math warpgroup each;
# 128 x 256 x 128 / 3 (half the k-blocks per tile, more padded rows: 256 +- 16 rows take two or three)
cand c5 'w("wgmma", 8, 128, 128, 32, 4, 4)' 'w("wgmma_ws", 8, 128, 128, 32, 4, 4)' \
  'w("wgmma_ws", 80, 128, 64, 32, 6, 2)' 'w("wgmma_ws", 80, 128, 64, 32, 6, 2)' \
  'w("wgmma_ws", 128, 256, 128, 32, 3, 1)' 'w("wgmma_ws", 128, 256, 128, 32, 3, 1)'
# c6: block K 128 and six stages at one row on gate/up, three CTAs on down; five stages of 80;
# stream-K on the 144-row tiles (gate/up: 1536 tiles are 11.6 waves of 132, down 2048 15.5), the
# slices summed in the workspace
cand c6 'w("wgmma_ws", 8, 128, 128, 32, 6, 2)' 'w("wgmma_ws", 8, 128, 256, 32, 4, 3)' \
  'w("wgmma_ws", 80, 256, 64, 32, 5, 1)' 'w("wgmma_ws", 80, 256, 64, 32, 5, 1)' \
  'sk(w("wgmma_ws", 144, 256, 64, 32, 4, 1), "workspace")' 'sk(w("wgmma_ws", 144, 256, 64, 32, 4, 1), "workspace")'
# c7: three CTAs of wgmma_ws at one row on gate/up; stream-K on the 144-row tiles summed through C
cand c7 'w("wgmma_ws", 8, 128, 256, 32, 3, 3)' "$BASE_D1" "$BASE_64" "$BASE_64" \
  'sk(w("wgmma_ws", 144, 256, 64, 32, 4, 1), "output")' 'sk(w("wgmma_ws", 144, 256, 64, 32, 4, 1), "output")'
CANDS="c1 c2 c3 c4 c5 c6 c7"
[ -n "${ONLY_WRITE:-}" ] && exit 0
cp -r $P $R/policies

log "start"
pids=()
for v in mine base $CANDS; do
  env $(pol $v) $H info --moe $SPEC >$R/info-$v.txt 2>&1
  env $(pol $v) timeout 40 $H compile --arch sm_90a --moe $SPEC >$R/compile-$v.txt 2>&1 &
  pids+=($!)
done
wait "${pids[@]}"
log "compiled"
# checks: three at a time (the float64 references share the CPUs)
i=0
for v in $CANDS; do
  run $R/check-$v.txt 30 env $(pol $v) $H bench --moe $SPEC --m $MS --warmup 1 --reps 2 &
  i=$((i + 1)); [ $((i % 3)) -eq 0 ] && wait
done
wait
log "checked"
gemm() { # POLICY: both GEMMs alone
  run $R/gemm-$1.txt 8 env $(pol $1) $H bench --moe-gemm $GATEUP --m $MS --warmup 10 --reps 50
  run $R/gemm-$1.txt 8 env $(pol $1) $H bench --moe-gemm $DOWN --m $MS --warmup 10 --reps 50
}
# the built-in before every two site tables, round 2 in reverse order
round() { while [ $# -gt 0 ]; do gemm mine; gemm $1; [ $# -gt 1 ] && gemm $2; shift; [ $# -gt 0 ] && shift; done; }
round base $CANDS
log "round 1"
round $(echo base $CANDS | tr ' ' '\n' | tac)
gemm mine
log "round 2"
for v in $CANDS; do
  [ $(left) -lt 15 ] && break
  run $R/test_expert_gemm-$v.txt 40 env $(pol $v) HUM_TEST_EXPERT_GEMM=policy HUM_TEST_CASES="g32 zp,qwen3" \
    $B/tests/test_test_expert_gemm
  log "test $v"
done
log "end"
