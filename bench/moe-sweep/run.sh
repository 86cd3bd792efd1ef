#!/bin/bash
# The MoE expert GEMM tile sweep (README.md): run from the repository root on the H200 after a
# Release build, $OUT an empty folder for the logs (about 60 s with the kernels precompiled,
# see precompile_all in candidates.sh; compiling them there adds 1-2 s per kernel).
#  1. `hum bench --moe-gemm` gate_up and down at M = 1/8/128/1024/4096 under the built-in policy
#     and the seven candidate site policies c1..c7;
#  2. ncu (SOL, warp states, scheduler) of the gate_up GEMM at M = 1024 under the built-in
#     policy (64x128x256/4) and c1 (96x128x128/6).
set -u
. bench/moe-sweep/candidates.sh
P=${TMPDIR:-/tmp}/moe-sweep; mk_all $P
H=$PWD/build/runtime/hum
GU="n=1536,k=2048,w=uint4,a=bfloat16,group=128"
DN="n=2048,k=768,w=uint4,a=bfloat16,group=128"
for v in base c1 c2 c3 c4 c5 c6 c7; do
  pp=""; [ $v != base ] && pp=$P/$v
  HUM_POLICY_PATH=$pp timeout 20 $H bench --moe-gemm $GU --experts 128 --topk 8 --m 1,8,128,1024,4096 --warmup 5 --reps 30 > $OUT/gateup-$v.txt 2>&1
  HUM_POLICY_PATH=$pp timeout 20 $H bench --moe-gemm $DN --experts 128 --topk 8 --down --m 1,8,128,1024,4096 --warmup 5 --reps 30 > $OUT/down-$v.txt 2>&1
done
NCU="ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section LaunchStats -k regex:hum_gemm -c 1"
timeout 15 $NCU $H bench --moe-gemm $GU --experts 128 --topk 8 --m 1024 --warmup 1 --reps 1 > $OUT/ncu-base.txt 2>&1
HUM_POLICY_PATH=$P/c1 timeout 15 $NCU $H bench --moe-gemm $GU --experts 128 --topk 8 --m 1024 --warmup 1 --reps 1 > $OUT/ncu-c1.txt 2>&1
for f in $OUT/gateup-*.txt $OUT/down-*.txt; do echo "== $f"; cat $f; done
