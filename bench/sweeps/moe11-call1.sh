#!/bin/bash
# timeout: 90
# Session 10, moe11, device call 1 (bench/sweeps/moe11.sh): every candidate's kernels compiled at once
# (CPU) while Humming sets up (moe11-humming.py) and test_expert_gemm's small bf16 and Qwen3 cases run
# under `cand` (ws80w at 33..64 rows, big96 above); then the rows interleaved: built-in and candidates,
# Humming, the layer under `cand` checked against float64 at M = 1024 and 4096, the rows again (the
# built-in first, the candidates reversed).
set -u
T0=$(date +%s)
END=$((T0 + 86))
export END
B=build
H=$B/runtime/hum
L=$R/call1.txt
el() { echo $(($(date +%s) - T0)); }
left() { echo $((END - $(date +%s))); }
bash bench/sweeps/moe11.sh policies
SPEC=e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128
GO=/tmp/moe11-go
rm -f $GO
timeout 80 python3 bench/sweeps/moe11-humming.py $R/humming.json $GO >$R/humming.txt 2>&1 &
hpid=$!
pids=()
for v in base cand ws80s6 ws80x2 big96s6 ws96x2 ws144 ws128w sk8 n64x3 ws16 ws16k ws16x3; do
  pol=/tmp/moe11-policies/$v; [ $v = base ] && pol=
  HUM_POLICY_PATH=$pol timeout 40 $H compile --arch sm_90a --moe $SPEC >$R/compile-$v.txt 2>&1 &
  pids+=($!)
done
HUM_POLICY_PATH=/tmp/moe11-policies/cand HUM_TEST_EXPERT_GEMM=policy \
  HUM_TEST_CASES="E=33 n=200 k=96 uint4 g32 zp bf16,qwen3 gate_up" timeout 45 stdbuf -oL \
  $B/tests/test_test_expert_gemm >$R/test_expert_gemm-cand.txt 2>&1 &
tpid=$!
wait "${pids[@]}"
echo "compiled t=$(el)" >>$L
wait $tpid
echo "test exit $? t=$(el)" >>$L
while ! grep -q ready $R/humming.txt 2>/dev/null && kill -0 $hpid 2>/dev/null; do sleep 0.2; done
echo "humming ready t=$(el)" >>$L
ROWS="base:1,8,128,1024,4096 cand:1024,4096 ws16:1,8,128 ws16k:1,8 ws96x2:4096 ws80x2:1024 big96s6:4096
  ws80s6:1024 ws144:4096 ws128w:4096 sk8:1,8 n64x3:1,8 ws16x3:1,8"
RUNS="$ROWS" bash bench/sweeps/moe11.sh run $B $R
echo "round 1 t=$(el)" >>$L
touch $GO
wait $hpid
echo "humming exit $? t=$(el)" >>$L
t=$(left); [ $t -gt 14 ] && t=14
echo "=== layer cand 1024,4096 t=$(el)" >>$R/layer-cand.txt
HUM_POLICY_PATH=/tmp/moe11-policies/cand timeout $t $H bench --moe $SPEC --m 1024,4096 --warmup 10 --reps 50 \
  >>$R/layer-cand.txt 2>&1
echo "exit $?" >>$R/layer-cand.txt
echo "layer t=$(el)" >>$L
RUNS="base:1,8,128,1024,4096 $(echo $ROWS | tr ' ' '\n' | grep -v base | tac | tr '\n' ' ')" bash bench/sweeps/moe11.sh run $B $R
echo "round 2 t=$(el)" >>$L
