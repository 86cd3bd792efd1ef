#!/bin/bash
# timeout: 60
# Session 11, moe12 (issue 10), device call 2: call 1's tiles again, away from Humming's setup (call 1
# timed the layer while Humming compiled on the GPU: at M = 1024, whose tiles main and this tree
# share, the layer's gate/up read 140.69 under main's and 162.37 under this tree's), with six stages
# at 33..64 rows in this tree's built-in (call 1's s6: M = 1024 gate_up 135.95, down 82.72 against
# 138.48, 85.07), and:
#   ws8all  the built-in with wgmma_ws 8 x 128 x 256 on the gate/up GEMM too at one row per expert
#           (call 1, M = 8 gate/up: plain 40.50, 42.94 against main's 40.46, 39.92)
# and the 144-row blocks at 69 and 96 rows per expert (M = 1100, 1536), where they pad more than
# main's 96. Checks first, while the kernels compile: test_expert_gemm's Qwen3 gate/up cases on the
# built-in and on ws8all (HUM_TEST_EXPERT_GEMM=policy; test 0 and 1), and the layer under ws8all
# checked at M 1, 8; then the GEMMs alone, this tree's, main's (main's sm90.lua as a site file,
# MAIN_POLICY) and ws8all's, interleaved, and the layer (checked against float64 at each M) under
# this tree's and main's; the GEMMs again in reverse order.
set -u
T0=$(date +%s)
END=$((T0 + 57))
B=build
H=$B/runtime/hum
L=$R/call2.txt
MAIN_POLICY=${MAIN_POLICY:-req-moe12/main}
WS8=/tmp/moe12-ws8all
SPEC=e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128
GATEUP="n=1536,k=2048,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8"
DOWN="n=2048,k=768,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8 --down"
MS=1,8,128,1024,1100,1536,4096
el() { echo $(($(date +%s) - T0)); }
left() { echo $((END - $(date +%s))); }
log() { echo "$* t=$(el)" | tee -a $L; }
pol() { case $1 in main) echo "HUM_POLICY_PATH=$MAIN_POLICY" ;; ws8all) echo "HUM_POLICY_PATH=$WS8" ;; *) echo "-u HUM_POLICY_PATH" ;; esac; }
run() { # FILE CAP CMD...: CMD bounded by CAP seconds and the time left, output appended to FILE
  local f=$1 cap=$2 t; shift 2
  t=$(left); [ $t -gt $cap ] && t=$cap
  if [ $t -lt 2 ]; then echo "=== skipped (time): $*" >>$f; log "skipped $f"; return; fi
  echo "=== $* (limit $t s, t=$(el))" >>$f
  local s=$(date +%s%N)
  timeout $t "$@" >>$f 2>&1
  echo "exit $? in $((($(date +%s%N) - s) / 1000000)) ms" >>$f
}
gemms() { # ORDER...: both GEMMs alone under each policy in that order (ws8all at one row per expert only)
  for v in "$@"; do
    local ms=$MS; [ $v = ws8all ] && ms=1,8
    run $R/gemm-$v.txt 6 env $(pol $v) $H bench --moe-gemm $GATEUP --m $ms --warmup 10 --reps 50
    run $R/gemm-$v.txt 6 env $(pol $v) $H bench --moe-gemm $DOWN --m $ms --warmup 10 --reps 50
  done
}
layer() { run $R/layer-$1.txt 15 env $(pol $1) $H bench --moe $SPEC --m $2 --warmup 10 --reps 50; log "layer $1"; }

# ws8all: policies/sm90.lua's expert table of this tree, wgmma_ws at one row per expert on both GEMMs
mkdir -p $WS8
cat >$WS8/zz_moe12.lua <<'LUA'
local policy = require("hum.policy")
return { name = "moe12-ws8all", applies = function(d) return d.sm >= 90 end,
  tunings = function(device, layer, overrides, compute)
    if not compute or compute.gemm_type == "dense" then return nil end
    local function ws(bm, bn, bk, wn, st, ctas)
      local t = policy.mma_tuning(bm, bn, bk, bm, wn, bk, st, ctas); t.kernel = "wgmma_ws"; t.stream_k = false
      return t
    end
    local t32 = policy.mma_tuning(32, 128, 256, 32, 16, 256, 5); t32.kernel = "wgmma"
    return policy.ranges({ { 1, ws(8, 128, 256, 32, 4, 2) }, { 16, ws(16, 256, 128, 64, 4, 2) }, { 32, t32 },
      { 64, ws(80, 256, 64, 32, 6) }, { math.huge, ws(144, 256, 64, 32, 4) } })
  end }
LUA
log "start"
[ -f $MAIN_POLICY/sm90.lua ] || log "no $MAIN_POLICY/sm90.lua"
pids=()
for v in mine main ws8all; do
  env $(pol $v) timeout 25 $H compile --arch sm_90a --moe $SPEC >$R/compile-$v.txt 2>&1 &
  pids+=($!)
done
tpids=()
for v in mine ws8all; do
  env $(pol $v) HUM_TEST_EXPERT_GEMM=policy HUM_TEST_CASES=qwen3 timeout 30 stdbuf -oL \
    $B/tests/test_test_expert_gemm >$R/test_expert_gemm-$v.txt 2>&1 &
  tpids+=($!)
done
for v in mine main ws8all; do env $(pol $v) $H info --moe $SPEC >$R/info-$v.txt 2>&1; done
wait "${pids[@]}"
log "compiled"
# ws8all's layer checked against float64 at M 1, 8 beside the tests (its times under load: no figures)
run $R/layer-ws8all-check.txt 20 env $(pol ws8all) $H bench --moe $SPEC --m 1,8 --warmup 2 --reps 5 &
cpid=$!
for i in 0 1; do wait ${tpids[$i]}; log "test ${i} exit $?"; done
wait $cpid
log "ws8all layer check done"
gemms mine main ws8all
log "gemms round 1"
layer mine 1,8,128,1024,4096
layer main 1,8,128,1024,4096
gemms ws8all main mine
log "gemms round 2"
log "end"
