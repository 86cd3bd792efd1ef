#!/bin/bash
# timeout: 90
# Session 9, moe10, device call 2: this branch's built-in MoE tiles (policies/sm90.lua) checked
# (test_expert_gemm's small bf16 and Qwen3 cases; hum bench --moe checks every M against float64)
# and timed beside main's tiles (site policy `main`, the same binary), then Humming's tiles above
# 32 rows and w16 at one row per expert as candidates, each checked in the layer at its M.
set -u
T0=$(date +%s)
END=$((T0 + 86))
export END
B=build
H=$B/runtime/hum
L=$R/call2.txt
el() { echo $(($(date +%s) - T0)); }
left() { echo $((END - $(date +%s))); }
bash bench/sweeps/moe10.sh policies
SPEC=e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128
for v in base main ws80 ws80w p96 big96 bigp80 w16one; do
  pol=/tmp/moe10-policies/$v; [ $v = base ] && pol=
  HUM_POLICY_PATH=$pol timeout 30 $H compile --arch sm_90a --moe $SPEC >$R/compile-$v.txt 2>&1 &
done
HUM_TEST_CASES="E=33 n=200 k=96 uint4 g32 zp bf16,qwen3 gate_up" timeout 40 stdbuf -oL \
  $B/tests/test_test_expert_gemm >$R/test_expert_gemm.txt 2>&1
echo "exit $?" >>$R/test_expert_gemm.txt
wait
echo "test+compiled t=$(el)" >>$L
RUNS="gemm:base:1,8,128,1024,4096 gemm:main:1,8,128,1024,4096" bash bench/sweeps/moe10.sh run $B $R
echo "rows t=$(el)" >>$L
t=$(left); [ $t -gt 12 ] && t=12
timeout $t $H bench --moe $SPEC --m 1,8,128,1024,4096 --warmup 10 --reps 50 >$R/layer-base.txt 2>&1
echo "exit $?" >>$R/layer-base.txt
echo "layer t=$(el)" >>$L
RUNS="gemm:p96:1024,4096 gemm:ws80:1024 gemm:big96:4096 gemm:w16one:1,8 gemm:bigp80:4096 gemm:ws80w:1024" \
  bash bench/sweeps/moe10.sh run $B $R
echo "candidates t=$(el)" >>$L
for c in p96:1024,4096 ws80:1024 big96:4096 w16one:1,8 bigp80:4096 ws80w:1024; do
  v=${c%%:*} m=${c#*:}
  t=$(left); [ $t -gt 6 ] && t=6
  [ $t -lt 3 ] && { echo "layer $v skipped (time)" >>$L; continue; }
  echo "=== layer $v $m t=$(el)" >>$R/layer-candidates.txt
  HUM_POLICY_PATH=/tmp/moe10-policies/$v timeout $t $H bench --moe $SPEC --m $m --warmup 10 --reps 50 \
    >>$R/layer-candidates.txt 2>&1
  echo "exit $?" >>$R/layer-candidates.txt
done
echo "done t=$(el)" >>$L
