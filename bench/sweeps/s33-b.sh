# timeout: 200
# For bench/sweeps/run-call.sh after s33-a (main's head in .exp/build.tgz; no other build needed):
# kernel variants of W8A8's stage-set runs as patches of kernels/ (bench/sweeps/s33/*.patch), each
# applied to a copy of the checkout's kernels and timed through HUM_KERNEL_PATH (NVRTC compiles them
# at run time), two rounds in turn, with hum bench's float64 checks. Session 32 wrote them without a
# GPU; ptxas compiles each for sm_90a without new spills or serialized wgmmas.
#   run8:        runs of 8 stages between drains instead of 4 (kStageRun)
#   offset:      warpgroup 1's first run half as long, so the two warpgroups' drains fall apart
#   run8-offset: both
# A variant that wins lands by applying its patch to main (then the label).
set -u
t0=$(date +%s)
X=n=8192,k=8192,w=e4m3,a=e4m3
for v in run8 offset run8-offset; do
  mkdir -p /tmp/v-$v && cp -r kernels /tmp/v-$v/ && patch -s -p1 -d /tmp/v-$v < bench/sweeps/s33/$v.patch \
    || echo "$v: the patch did not apply" >> $R/calls.txt
done
run() { # LABEL KERNEL_PATH(empty: built in) CACHE
  echo "== $1" >> $R/ab.txt
  env ${2:+HUM_KERNEL_PATH=$2} HUM_CACHE_DIR=/tmp/c-$3 timeout 30 build/runtime/hum bench --layer $X --m 256,512,768,1024 \
    --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check|FAIL|error' >> $R/ab.txt
}
for round in 1 2; do
  run "head $round" "" head
  for v in run8 offset run8-offset; do run "$v $round" /tmp/v-$v/kernels $v; done
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
