#!/bin/bash
# timeout: 80
# Session 9, moe10, device call 1 (bench/sweeps/moe10.sh): every candidate's kernels compiled at
# once (CPU) while Humming's tiles are printed, then the candidates at M = 1024 (also with the
# kernels of .exp/kv/moe10-nofence: no proxy fence per stage, as Humming; measurement only), ncu of the
# built-in expert GEMMs at M = 1024, the hm layer checked against float64, the rest as time allows.
set -u
T0=$(date +%s)
END=$((T0 + 77))
export END
B=build
H=$B/runtime/hum
L=$R/call1.txt
left() { echo $((END - $(date +%s))); }
bash bench/sweeps/moe10.sh policies
SPEC=e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128
timeout 30 python3 bench/sweeps/moe10-humming.py >$R/humming-tiles.txt 2>&1 &
for v in base hm hm2 hm80 hws hmk hmsk w16; do
  pol=/tmp/moe10-policies/$v; [ $v = base ] && pol=
  HUM_POLICY_PATH=$pol timeout 30 $H compile --arch sm_90a --moe $SPEC >$R/compile-$v.txt 2>&1 &
done
for v in base hm; do
  pol=/tmp/moe10-policies/$v; [ $v = base ] && pol=
  HUM_KERNEL_PATH=$ROOT/.exp/kv/moe10-nofence/kernels HUM_POLICY_PATH=$pol timeout 30 $H compile --arch sm_90a \
    --moe $SPEC >$R/compile-$v-nofence.txt 2>&1 &
done
wait
echo "compiled t=$(($(date +%s) - T0))" >>$L
RUNS="gemm:base:1024 gemm:hm:1024 gemm:hm:1024:nofence gemm:hm2:1024 gemm:hm80:1024 gemm:base:1024:nofence
  gemm:hws:1024" bash bench/sweeps/moe10.sh run $B $R
echo "sweep1 t=$(($(date +%s) - T0))" >>$L
# ncu of the built-in kernels at M = 1024 (the GEMM launch only)
for g in gateup down; do
  t=$(left); [ $t -gt 14 ] && t=14
  [ $t -lt 6 ] && { echo "ncu $g skipped (time)" >>$L; continue; }
  spec=n=1536,k=2048,w=uint4,a=bfloat16,group=128; [ $g = down ] && spec="n=2048,k=768,w=uint4,a=bfloat16,group=128 --down"
  echo "=== ncu $g 1024 t=$(($(date +%s) - T0))" >>$L
  timeout $t ncu --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy \
    --section MemoryWorkloadAnalysis -k regex:hum_gemm -c 1 "$H" bench --moe-gemm $spec --experts 128 --topk 8 \
    --m 1024 --warmup 0 --reps 1 >$R/ncu-$g-1024.txt 2>&1
  echo "exit $?" >>$R/ncu-$g-1024.txt
done
# the hm tiles on the whole layer at M = 1024 (checked against the float64 reference first)
t=$(left); [ $t -gt 10 ] && t=10
if [ $t -ge 5 ]; then
  echo "=== layer hm 1024 t=$(($(date +%s) - T0))" >>$L
  HUM_POLICY_PATH=/tmp/moe10-policies/hm timeout $t $H bench --moe $SPEC \
    --m 1024 --warmup 10 --reps 50 >$R/layer-hm-1024.txt 2>&1; echo "exit $?" >>$R/layer-hm-1024.txt
fi
RUNS="gemm:base:4096 gemm:hm:4096 gemm:w16:128 gemm:base:128 gemm:dp2:8 gemm:base:8 gemm:hmk:1024 gemm:hmsk:1024" \
  bash bench/sweeps/moe10.sh run $B $R
echo "done t=$(($(date +%s) - T0))" >>$L
