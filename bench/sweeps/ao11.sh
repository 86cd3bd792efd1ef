#!/bin/bash
# timeout: 70
# Issue 7, session 10 (engineer ao11): act-order 8192 x 8192 uint4 g128 fp16 against the plain layer.
#   R=out bash bench/sweeps/ao11.sh     (on the device, from the tree's root, build/ built)
# The candidates (branch ao11-unlanded, not on main): the M <= 16 GEMM (mma.sync) copying its first stages' weights to shared memory before
# it waits for the permutation (kernels/gemm/gemm_mma.cu, weights_first), the permutation's row loads
# batched (kernels/prep/permute_a.cu, stage_row); main's kernels beside them through HUM_KERNEL_PATH
# (xk/base: `git archive main kernels`), each change alone (xk/bperm: main's GEMM with the batched
# permutation; xk/wf: the weights first with main's permutation). Every hum bench row checks each M
# against float64.
# SET=1 (call 1): plain and act-order at M 1 / 16, this tree and main's kernels interleaved, two rounds;
#   a microbenchmark of the hand-off (bench/sweeps/ao11-pdl.cu, built as xk/mb/pdl with nvcc -O3 -arch=sm_90a: a permutation-like
#   kernel of 64 blocks, then 132 CTAs that wait with griddepcontrol.wait or spin on a counter).
#   (Call 1 ran a hum CLI older than these kernels: its "new" rows are main's kernels too.)
# SET=2 (call 2): the plain layer and the act-order layer at M 1..8192 (this tree: kernels, and
#   policies/sm90.lua with act-order's whole tiles above M = 384); main's kernels at M 1 / 16 / 1024 /
#   8192; act-order above M = 384 on main's stream-K entry (256 x 128 x 128, two stages) at M - 1 beside
#   whole tiles at M in one process (a site policy); test_gemm's act-order cases; each change alone.
set -u
H=build/runtime/hum
R=${R:-out}; mkdir -p "$R"
L=$R/ao.txt
t0=$(date +%s); el() { echo $(($(date +%s) - t0)); }
BUDGET=${BUDGET:-66}
P=n=8192,k=8192,w=uint4,a=float16,group=128
PO=$(mktemp -d)
pol() { # NAME RANGES: a site policy of wgmma_ws tiles (ws(bm, bn, bk, warp_n, stages[, sum[, whole]]))
  mkdir -p "$PO/$1"
  cat >"$PO/$1/zz-ao11.lua" <<LUA
local policy = require("hum.policy")
local function ws(bm, bn, bk, wn, st, sum, whole)
  local t = policy.mma_tuning(bm, bn, bk, bm, wn, bk, st)
  t.kernel = "wgmma_ws"
  if sum then t.stream_k_sum = "workspace" end
  if whole then t.stream_k = false end
  return t
end
return { name = "ao11-$1", applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer) return policy.ranges({ $2 }) end }
LUA
}
row() { # LABEL LIMIT SPEC MLIST [policy] [kernels]: one hum bench, skipped when the time left cannot hold it
  local lim=$((BUDGET - $(el))); [ $lim -gt $2 ] && lim=$2
  if [ $lim -lt 4 ]; then echo "=== $1 skipped t=$(el)" >>$L; return; fi
  echo "=== $1 $3 m=$4 t=$(el) ${X:-}" >>$L
  HUM_POLICY_PATH=${5:+$PO/$5} HUM_KERNEL_PATH=${6:+$PWD/xk/$6/kernels} timeout $lim $H bench --layer $3 --m $4 \
    --warmup 10 --reps 50 --out $R/$1.json --force >$R/$1.log 2>&1
  echo "exit $?" >>$R/$1.log
  grep -E '^ +[0-9]+ +[0-9.]+ |^check|rror|fail|HUM_KERNEL|exit [1-9]' $R/$1.log >>$L
}
case ${SET:-1} in
1)
  MSK="ws(256, 128, 128, 16, 2)"; WHL="ws(256, 128, 128, 16, 2, false, true)"
  pol pe "{ 511, $MSK }, { 512, $WHL }, { 1023, $MSK }, { 1024, $WHL }, { 2047, $MSK }, { 2048, $WHL }, { 8191, $MSK }, { math.huge, $WHL }"
  echo "=== pdl microbenchmark t=$(el)" >>$L
  timeout 10 xk/mb/pdl >>$L 2>&1
  for r in 1 2; do
    row new-plain$r 10 $P 1,16
    row new-ao$r 10 $P,actorder=1 1,16
    row base-plain$r 10 $P 1,16 "" base
    row base-ao$r 10 $P,actorder=1 1,16 "" base
  done
  row bperm-ao 8 $P,actorder=1 1,16 "" bperm
  row wf-ao 8 $P,actorder=1 1,16 "" wf
  ;;
2)
  MSK="ws(256, 128, 128, 16, 2)"; WHL="ws(256, 128, 128, 16, 2, false, true)"
  pol pe "{ 511, $MSK }, { 512, $WHL }, { 1023, $MSK }, { 1024, $WHL }, { 2047, $MSK }, { 2048, $WHL }, { 8191, $MSK }, { math.huge, $WHL }"
  ML=1,16,32,64,128,256,512,1024,8192
  row new-plain 16 $P $ML
  row new-ao 16 $P,actorder=1 $ML
  row base-ao 10 $P,actorder=1 1,16,1024,8192 "" base
  row aowhole 14 $P,actorder=1 511,512,1023,1024,2047,2048,8191,8192 pe
  echo "=== test_gemm actorder t=$(el)" >>$L
  lim=$((BUDGET - $(el))); [ $lim -gt 20 ] && lim=20
  if [ $lim -gt 3 ]; then
    (cd build && HUM_TEST_CASES=actorder timeout $lim ./tests/test_test_gemm) >$R/test_gemm.log 2>&1
    echo "test_gemm exit $?" >>$L
  fi
  grep -E ' ok | FAIL|failed|passed' $R/test_gemm.log | tail -12 >>$L
  row wf-ao 8 $P,actorder=1 1,16 "" wf
  row bperm-ao 8 $P,actorder=1 1,16 "" bperm
  ;;
esac
echo "done t=$(el)" >>$L
cat $L
