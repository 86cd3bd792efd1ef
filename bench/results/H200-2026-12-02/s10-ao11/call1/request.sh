#!/bin/bash
# timeout: 95
# Issue 7, session 10 (engineer ao11): act-order 8192 x 8192 uint4 g128 fp16 against the plain layer.
#   R=out bash bench/sweeps/ao11.sh     (on the device, from the tree's root, build/ built)
# SET=1 (call 1): the M <= 16 GEMM copying its first stages' weights to shared memory before it waits
#   for the permutation and the permutation's row loads batched (this tree) beside main's kernels
#   (xk/base, HUM_KERNEL_PATH), plain and act-order interleaved, two rounds; each change alone (xk/bperm:
#   main's GEMM with the batched permutation, xk/wf: the weights first with main's permutation); a
#   microbenchmark of the hand-off (xk/mb/pdl.cu: griddepcontrol.wait against a counter); main's kernels with an L2 prefetch of one stage (xk/pf1) and none (xk/pf0);
#   the permutation with one block per row (HUM_X_SLICE=8192), let in at its end (HUM_X_EARLY=0), without
#   staging the row (xk/nost); the GEMM let in once the permutation's first row is read, on this tree's
#   GEMM (xk/mid) and main's (xk/basemid); test_gemm's act-order cases; act-order above M = 384 on main's stream-K
#   entry (256 x 128 x 128, two stages) at M - 1 beside whole tiles at M in one process (a site policy);
#   W8A8 at M 1 / 16 (its quantization overlaps the GEMM too); ncu durations of the permutation and GEMM.
set -u
H=build/runtime/hum
R=${R:-out}; mkdir -p "$R"
L=$R/ao.txt
t0=$(date +%s); el() { echo $(($(date +%s) - t0)); }
BUDGET=${BUDGET:-88}
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
  for r in 1 2; do
    row new-plainM$r 10 $P 16,32,64,128,256
    row new-aoM$r 10 $P,actorder=1 16,32,64,128,256
  done
  row aowhole 20 $P,actorder=1 511,512,1023,1024,2047,2048,8191,8192 pe
  row pf1-ao 8 $P,actorder=1 1,16 "" pf1
  row pf0-ao 8 $P,actorder=1 1,16 "" pf0
  X=slice8192; HUM_X_SLICE=8192 row new-ao-s8192 8 $P,actorder=1 1,16
  X=late; HUM_X_EARLY=0 row new-ao-late 8 $P,actorder=1 1,16
  X=; row nost-ao 8 $P,actorder=1 1,16 "" nost
  row mid-ao 8 $P,actorder=1 1,16 "" mid
  row basemid-ao 8 $P,actorder=1 1,16 "" basemid
  W8=n=8192,k=8192,w=e4m3,a=e4m3
  row new-w8a8 8 $W8 1,16
  row base-w8a8 8 $W8 1,16 "" base
  echo "=== test_gemm actorder t=$(el)" >>$L
  lim=$((BUDGET - 8 - $(el))); [ $lim -gt 20 ] && lim=20
  [ $lim -gt 3 ] && (cd build && HUM_TEST_CASES=actorder timeout $lim ./tests/test_test_gemm) >$R/test_gemm.log 2>&1
  echo "test_gemm exit $?" >>$L; tail -3 $R/test_gemm.log >>$L
  echo "=== ncu t=$(el)" >>$L
  lim=$((BUDGET + 5 - $(el)))
  [ $lim -gt 5 ] && timeout $lim ncu --clock-control none -k regex:hum_ -c 6 --metrics gpu__time_duration.sum,dram__bytes_read.sum \
    $H bench --layer $P,actorder=1 --m 16 --warmup 0 --reps 1 >$R/ncu16.txt 2>&1
  grep -E 'hum_|duration|bytes' $R/ncu16.txt | head -24 >>$L
  ;;
esac
echo "done t=$(el)" >>$L
cat $L
