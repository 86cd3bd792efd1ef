#!/bin/bash
# timeout: 90
# Session 11, moe12 (issue 10), device call 1: this tree's built-in MoE tiles (policies/sm90.lua,
# 16-bit A and 4-bit weights: one row per expert block M 8, 8 x 128 x 256 / 4, two CTAs, plain
# wgmma on gate/up and wgmma_ws on down; 2..16 rows wgmma_ws 16 x 256 x 128 / 4, warp n 64, two
# CTAs; 65.. rows wgmma_ws 144 x 256 x 64 / 4; all whole) against main's (main's policies/sm90.lua
# as a site file replacing the built-in one: MAIN_POLICY, a directory holding it, on the same
# binary; req-moe12/main by default, untracked: `git show main:policies/sm90.lua` before packing).
# Checks first, while every kernel compiles and Humming sets up: test_expert_gemm on the
# built-in policies only (HUM_TEST_EXPERT_GEMM=policy: the small f16 and bf16 cases, Qwen3 gate/up,
# the large one). Then, interleaved, the gate/up and down GEMMs alone (hum bench --moe-gemm) and the
# whole layer (hum bench --moe, each M checked against float64 before it is timed) at M 1 / 8 /
# 128 / 1024 / 4096, this tree's then main's; the GEMMs again, main's first; Humming 0.1.20's GEMMs
# (bench/sweeps/moe11-humming.py, set up meanwhile); s6 (below); the layer again if time is left.
set -u
T0=$(date +%s)
END=$((T0 + 86))
B=build
H=$B/runtime/hum
L=$R/call1.txt
MAIN_POLICY=${MAIN_POLICY:-req-moe12/main}
SPEC=e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128
GATEUP="n=1536,k=2048,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8"
DOWN="n=2048,k=768,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8 --down"
MS=1,8,128,1024,4096
el() { echo $(($(date +%s) - T0)); }
left() { echo $((END - $(date +%s))); }
log() { echo "$* t=$(el)" | tee -a $L; }
# pol NAME: the environment of one policy set (mine: the built-in; main: main's sm90.lua; s6 below)
pol() { case $1 in main) echo "HUM_POLICY_PATH=$MAIN_POLICY" ;; s6) echo "HUM_POLICY_PATH=$S6" ;; *) echo "-u HUM_POLICY_PATH" ;; esac; }
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
gemms() { # ORDER...: both GEMMs alone under each policy in that order
  for v in "$@"; do
    run $R/gemm-$v.txt 8 env $(pol $v) $H bench --moe-gemm $GATEUP --m $MS --warmup 10 --reps 50
    run $R/gemm-$v.txt 8 env $(pol $v) $H bench --moe-gemm $DOWN --m $MS --warmup 10 --reps 50
  done
}
layer() { run $R/layer-$1.txt 20 env $(pol $1) $H bench --moe $SPEC --m $MS --warmup 10 --reps 50; log "layer $1"; }

# s6: a candidate for the next session, timed (not checked) at M = 1024 beside this tree's tiles
# once Humming is done: those tiles with six stages at 33..64 rows (session 10's ws80s6: down at
# M = 1024 82.19, 82.82 against 86.58, 85.97)
S6=/tmp/moe12-s6
mkdir -p $S6
cat >$S6/zz_moe12.lua <<'LUA'
local policy = require("hum.policy")
return { name = "moe12-s6", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer, overrides, compute)
    if not compute or compute.gemm_type == "dense" then return nil end
    local function ws(bm, bn, bk, wn, st, ctas)
      local t = policy.mma_tuning(bm, bn, bk, bm, wn, bk, st, ctas); t.kernel = "wgmma_ws"; t.stream_k = false
      return t
    end
    local one = ws(8, 128, 256, 32, 4, 2)
    if layer.padded_k >= 2048 then one.kernel = "wgmma" end
    local t32 = policy.mma_tuning(32, 128, 256, 32, 16, 256, 5); t32.kernel = "wgmma"
    return policy.ranges({ { 1, one }, { 16, ws(16, 256, 128, 64, 4, 2) }, { 32, t32 },
      { 64, ws(80, 256, 64, 32, 6) }, { math.huge, ws(144, 256, 64, 32, 4) } })
  end }
LUA
log "start"
[ -f $MAIN_POLICY/sm90.lua ] || log "no $MAIN_POLICY/sm90.lua"
export ROOT=$PWD
GO=/tmp/moe12-go
rm -f $GO
timeout 84 python3 bench/sweeps/moe11-humming.py $R/humming.json $GO >$R/humming.txt 2>&1 &
hpid=$!
HUM_TEST_EXPERT_GEMM=policy HUM_TEST_CASES="g32 zp,qwen3,large" timeout 45 stdbuf -oL \
  $B/tests/test_test_expert_gemm >$R/test_expert_gemm.txt 2>&1 &
tpid=$!
pids=()
for v in mine main s6; do
  env $(pol $v) timeout 30 $H compile --arch sm_90a --moe $SPEC >$R/compile-$v.txt 2>&1 &
  pids+=($!)
  env $(pol $v) $H info --moe $SPEC >$R/info-$v.txt 2>&1
done
wait "${pids[@]}"
log "compiled"
wait $tpid
log "test exit $?"
gemms mine main
log "gemms round 1"
layer mine
layer main
gemms main mine
log "gemms round 2"
while ! grep -q ready $R/humming.txt 2>/dev/null && kill -0 $hpid 2>/dev/null && [ $(left) -gt 8 ]; do sleep 0.2; done
log "humming ready"
touch $GO
while kill -0 $hpid 2>/dev/null && [ $(left) -gt 2 ]; do sleep 0.2; done
log "humming done"
for g in "$GATEUP" "$DOWN"; do
  run $R/gemm-s6.txt 4 env $(pol s6) $H bench --moe-gemm $g --m 1024 --warmup 10 --reps 50
  run $R/gemm-s6.txt 4 env $(pol mine) $H bench --moe-gemm $g --m 1024 --warmup 10 --reps 50
done
if [ $(left) -ge 30 ]; then layer main; layer mine; fi
log "end"
