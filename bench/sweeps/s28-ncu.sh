# timeout: 480
# Session 28's second request (bench/NOTES.md, "Session 28 (lead)"), for bench/sweeps/run-call.sh
# (copy it to .exp/NAME.sh; .exp/build.tgz of the build the first request timed): what bounds W8A8
# e4m3 n = k = 8192, the cell furthest from issue 9's bar (1.34x cuBLASLt fp8 at M = 8192, 1.39x
# at 1024), beside what cuBLASLt runs on the same shape. ncu --set full of:
# 1. hum's GEMM (its quantizer in the range too) and Humming's at M 1024 / 8192, one call each
#    inside the NVTX range "ncu" of bench/sweeps/side-by-side.py --ncu; hum's source-level stalls;
# 2. cuBLASLt fp8's kernel at M 1024 / 8192 from hum bench's cuBLASLt row (every kernel whose name
#    does not start with hum_; hum bench checks and times hum first, so the first ones profiled
#    are cuBLASLt's heuristic trials and timed calls).
# Compare tensor-pipe activity, issue slots, shared-memory and L2 throughput, stalls, registers.
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
for m in 1024 8192; do
  for impl in hum humming; do
    name=$impl-w8a8-$m
    HUM_CACHE_DIR=/tmp/ncu-cache timeout 100 ncu --set full --import-source no --nvtx --nvtx-include "ncu/" -c 3 \
      -o $R/$name python3 bench/sweeps/side-by-side.py --ncu --impl $impl --only w8a8 --m $m --rounds 1 --floor '' \
      --out $R/$name.json > $R/$name.log 2>&1
    echo "$name exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
    ncu -i $R/$name.ncu-rep --page details --print-units base > $R/$name.txt 2>&1
    [ $impl = hum ] && ncu -i $R/$name.ncu-rep -k regex:hum_gemm --page source --csv --print-source sass 2>/dev/null | gzip > $R/$name-sass.csv.gz
    [ $impl = hum ] && python3 bench/sweeps/ncu-stalls.py $R/$name-sass.csv.gz 40 > $R/$name-stalls.txt 2>&1
    rm -f $R/$name.ncu-rep
  done
  name=cublaslt-w8a8-$m
  HUM_CACHE_DIR=/tmp/ncu-cache timeout 120 ncu --set full --kernel-name-base demangled -k 'regex:^(?!hum_)' -c 4 \
    -o $R/$name build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 --m $m --warmup 1 --reps 1 \
    > $R/$name.log 2>&1
  echo "$name exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/$name.ncu-rep --page details --print-units base > $R/$name.txt 2>&1
  rm -f $R/$name.ncu-rep
done
