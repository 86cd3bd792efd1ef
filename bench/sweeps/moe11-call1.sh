#!/bin/bash
# timeout: 90
# Session 10, moe11, device call 1 (bench/sweeps/moe11.sh): every candidate's kernels compiled at once
# (CPU) while Humming sets up (moe11-humming.py) and test_expert_gemm's small bf16 and Qwen3 cases run
# under `cand8` (w8 at one row per expert: block M 8, new in this tree; ws80w at 33..64 rows, big96
# above); then the rows interleaved: built-in and candidates (`cand8` times w8 at M = 1, 8 and `cand`
# at 1024, 4096), Humming, the layer under `cand8` checked against float64 at M = 1, 8, 1024 and 4096,
# the rows again (the built-in and cand8 first, the other candidates reversed).
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
for v in base cand8 ws80s6 ws80x2 big96s6 ws96x2 ws144 sk8 ws16 w8n ws8; do
  pol=/tmp/moe11-policies/$v; [ $v = base ] && pol=
  HUM_POLICY_PATH=$pol timeout 40 $H compile --arch sm_90a --moe $SPEC >$R/compile-$v.txt 2>&1 &
  pids+=($!)
done
HUM_POLICY_PATH=/tmp/moe11-policies/cand8 HUM_TEST_EXPERT_GEMM=policy \
  HUM_TEST_CASES="E=33 n=200 k=96 uint4 g32 zp bf16,qwen3 gate_up" timeout 45 stdbuf -oL \
  $B/tests/test_test_expert_gemm >$R/test_expert_gemm-cand.txt 2>&1 &
tpid=$!
wait "${pids[@]}"
echo "compiled t=$(el)" >>$L
wait $tpid
echo "test exit $? t=$(el)" >>$L
while ! grep -q ready $R/humming.txt 2>/dev/null && kill -0 $hpid 2>/dev/null; do sleep 0.2; done
echo "humming ready t=$(el)" >>$L
BASE="base:1,8,128,1024,4096 cand8:1,8,1024,4096"
ROWS="ws16:1,8,128 w8n:1,8 ws8:1,8 ws96x2:4096 ws80x2:1024 big96s6:4096 ws80s6:1024 ws144:4096 sk8:1,8"
RUNS="$BASE $ROWS" bash bench/sweeps/moe11.sh run $B $R
echo "round 1 t=$(el)" >>$L
touch $GO
wait $hpid
echo "humming exit $? t=$(el)" >>$L
t=$(left); [ $t -gt 16 ] && t=16
echo "=== layer cand8 1,8,1024,4096 t=$(el)" >>$R/layer-cand8.txt
HUM_POLICY_PATH=/tmp/moe11-policies/cand8 timeout $t $H bench --moe $SPEC --m 1,8,1024,4096 --warmup 10 --reps 50 \
  >>$R/layer-cand8.txt 2>&1
echo "exit $?" >>$R/layer-cand8.txt
echo "layer t=$(el)" >>$L
RUNS="$BASE $(echo $ROWS | tr ' ' '\n' | tac | tr '\n' ' ')" bash bench/sweeps/moe11.sh run $B $R
echo "round 2 t=$(el)" >>$L
