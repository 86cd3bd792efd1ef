# timeout: 560
# Session 34's second request (bench/sweeps/run-call.sh): the gpu label on db80b94 (the ring
# position counted along and the epilogue's factors once a tile, bench/sweeps/s34/ring-epilogue.patch
# as committed; s34-a could not run it: its build was packed from another folder), then main's old
# kernels (974b04e, .exp/old) against the head where s34-a had one round: M = 8192 of uint8, uint2,
# MXFP4 and uint4, three rounds in turn, and MXFP4 at M = 1024.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s34-b.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 320 ctest -L gpu -j12 --timeout 300 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
mkdir -p /tmp/old && cp -r .exp/old/kernels /tmp/old/ || echo "no .exp/old/kernels" >> $R/calls.txt
run() { # LABEL KERNEL_PATH(empty: built in) CACHE LAYER M
  [ $((B - ($(date +%s) - t0))) -gt 25 ] || { echo "== $1 $4 skipped (time)" >> $R/ab.txt; return; }
  echo "== $1 $4" >> $R/ab.txt
  env ${2:+HUM_KERNEL_PATH=$2} HUM_CACHE_DIR=/tmp/c-$3 timeout 40 build/runtime/hum bench --layer $4 --m $5 \
    --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |FAIL|rror' >> $R/ab.txt
}
for round in 1 2 3; do
  for spec in n=8192,k=8192,w=uint8,a=float16 n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0 \
    n=8192,k=8192,w=uint2,a=float16 n=8192,k=8192,w=uint4,a=float16,group=128; do
    m=8192; case $spec in *e2m1*) m=1024,8192;; esac
    run "main $round" /tmp/old/kernels old $spec $m
    run "head $round" "" head $spec $m
  done
  echo "round $round done at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
