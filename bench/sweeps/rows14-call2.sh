#!/bin/bash
# timeout: 150
# Session 13, rows14 (issue 10), device call 2: the indexed GEMM type's per-tile global loads off
# the critical path of wgmma_ws (kernels/gemm/rows.cuh BlockIds: the producer fetches the next
# segment's block ids while it issues the current one's stages; the math warps' rows of C read
# before the main loop, stored to a shared table after it). Baseline: main's kernels
# (HUM_KERNEL_PATH=base-kernels, an untracked copy) on this binary, interleaved with this tree's
# and v2's (v2-kernels, an untracked copy: two source tables taking turns, one producer barrier
# per segment instead of two; the binary counts both tables' static shared memory),
# twice each: the Qwen3-30B-A3B down and gate/up GEMMs and the whole layer at M 1 / 8 / 128 /
# 1024 / 4096 (hum bench --moe checks the layer against float64 at each M), after the MoE GPU
# tests.
set -u
T0=$(date +%s)
END=$((T0 + 146))
H=build/runtime/hum
L=$R/call2.txt
SPEC=e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128
MS=1,8,128,1024,4096
DOWN="--moe-gemm n=2048,k=768,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8 --down --m $MS --warmup 10 --reps 50"
GATEUP="--moe-gemm n=1536,k=2048,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8 --m $MS --warmup 10 --reps 50"
LAYER="--moe $SPEC --m $MS"
el() { echo $(($(date +%s) - T0)); }
left() { echo $((END - $(date +%s))); }
log() { echo "$* t=$(el)" | tee -a $L; }
kp() { case $1 in base) echo base-kernels ;; v2) echo v2-kernels ;; *) echo kernels ;; esac; }
# run VARIANT FILE CAP ARGS...: hum under the variant's kernels and cache, bounded by CAP seconds
run() {
  local v=$1 f=$2 cap=$3 t; shift 3
  t=$(left); [ $t -gt $cap ] && t=$cap
  if [ $t -lt 3 ]; then echo "=== skipped (time): $*" >>$f; log "skipped $f"; return; fi
  echo "=== $v: $* (limit $t s, t=$(el))" >>$f
  local s=$(date +%s%N)
  HUM_KERNEL_PATH=$(kp $v) HUM_CACHE_DIR=$HUM_CACHE_DIR-$v timeout $t $H "$@" >>$f 2>&1
  echo "exit $? in $((($(date +%s%N) - s) / 1000000)) ms" >>$f
}
# the MoE GPU tests first (their kernels compile beside the variants' compiles; nothing is timed
# until they end), then the timings on warm caches
# (moe_forward on this tree's kernels, test_expert_gemm_2 on v2's, which hold them too)
(cd build && timeout 86 ctest -R "^moe_forward$" --timeout 84 --output-on-failure) >$R/ctest.txt 2>&1 &
ct=$!
(cd build && HUM_KERNEL_PATH=$PWD/../v2-kernels timeout 86 ctest -R "^test_expert_gemm_2$" --timeout 84 --output-on-failure) >$R/ctest-v2.txt 2>&1 &
ct2=$!
for v in base mine v2; do
  run $v $R/compile-$v.txt 40 compile --moe $SPEC &
done
wait $ct
log "ctest exit $?"
wait $ct2
log "ctest v2 exit $?"
wait
log compiled
for v in base mine v2 base mine v2; do
  run $v $R/down-$v.txt 8 bench $DOWN
done
for v in base mine v2 base mine v2; do
  run $v $R/gateup-$v.txt 8 bench $GATEUP
done
log "gemms timed"
for rep in 1 2; do
  for v in base mine v2; do
    run $v $R/layer-$v.txt 16 bench $LAYER --warmup 10 --reps 50
  done
done
log done
