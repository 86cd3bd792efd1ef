#!/bin/bash
# timeout: 70
# Session 10, moe11, device call 2 (bench/sweeps/moe11.sh): this branch's built-in MoE tiles checked
# (test_expert_gemm's small bf16 and Qwen3 cases on the built-in policies; hum bench --moe checks the
# layer against float64 at every M, and each candidate's layer at its M: run beside the test, so their
# layer times are under load and not figures) while every policy compiles and Humming sets up; then
# the rows: built-in, main's tiles (`main`, same binary) and candidates, Humming, the rows again.
set -u
T0=$(date +%s)
END=$((T0 + 66))
export END
B=build
H=$B/runtime/hum
L=$R/call2.txt
el() { echo $(($(date +%s) - T0)); }
bash bench/sweeps/moe11.sh policies
SPEC=e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128
GO=/tmp/moe11-go
rm -f $GO
timeout 66 python3 bench/sweeps/moe11-humming.py $R/humming.json $GO >$R/humming.txt 2>&1 &
hpid=$!
HUM_TEST_EXPERT_GEMM=policy HUM_TEST_CASES="E=33 n=200 k=96 uint4 g32 zp bf16,qwen3 gate_up" timeout 40 stdbuf -oL \
  $B/tests/test_test_expert_gemm >$R/test_expert_gemm.txt 2>&1 &
tpid=$!
pids=()
for v in base main ws80s6n ws80s8 ws80k ws144s5 ws8all ws8x3 w8all; do
  pol=/tmp/moe11-policies/$v; [ $v = base ] && pol=
  HUM_POLICY_PATH=$pol timeout 30 $H compile --arch sm_90a --moe $SPEC >$R/compile-$v.txt 2>&1 &
  pids+=($!)
done
wait "${pids[@]}"
echo "compiled t=$(el)" >>$L
cpids=()
timeout 35 $H bench --moe $SPEC --m 1,8,128,1024,4096 --warmup 2 --reps 5 >$R/layer-base.txt 2>&1 &
cpids+=($!)
for c in ws80s6n:1024 ws80s8:1024 ws80k:1024 ws144s5:4096 ws8all:1,8 ws8x3:1,8 w8all:1,8; do
  v=${c%%:*} m=${c#*:}
  HUM_POLICY_PATH=/tmp/moe11-policies/$v timeout 35 $H bench --moe $SPEC --m $m --warmup 2 --reps 5 \
    >$R/layer-$v.txt 2>&1 &
  cpids+=($!)
done
wait $tpid
echo "test exit $? t=$(el)" >>$L
wait "${cpids[@]}"
echo "layer checks t=$(el)" >>$L
while ! grep -q ready $R/humming.txt 2>/dev/null && kill -0 $hpid 2>/dev/null; do sleep 0.2; done
echo "humming ready t=$(el)" >>$L
BASE="base:1,8,128,1024,4096 main:1,8,128,1024,4096"
ROWS="ws80s6n:1024 ws144s5:4096 ws8all:1,8 ws80s8:1024 ws80k:1024 ws8x3:1,8 w8all:1,8"
RUNS="$BASE $ROWS" bash bench/sweeps/moe11.sh run $B $R
echo "round 1 t=$(el)" >>$L
touch $GO
wait $hpid
echo "humming exit $? t=$(el)" >>$L
RUNS="$BASE $(echo $ROWS | tr ' ' '\n' | tac | tr '\n' ' ')" bash bench/sweeps/moe11.sh run $B $R
echo "round 2 t=$(el)" >>$L
