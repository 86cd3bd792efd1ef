# timeout: 200
# Session 49's third call (bench/sweeps/run-call.sh), profiles s49-a had no time left for, on
# main's final code (build e1748b9, as s49-b): ncu of Humming's Llama 4096 x 14336 at M = 1 (hum's
# is in s49-a), of hum's W8A8 GEMM at M = 1024, and of what hum bench's cuBLAS / cuBLASLt fp8 run on
# that shape (session 33's comparison, before sessions 34-48's changes).
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s49-c.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
ncu1() { # NAME IMPL CASE M KERNELS COUNT
  [ $(left) -gt 30 ] || return
  HUM_CACHE_DIR=/tmp/ncu-cache timeout $(($(left) - 10)) ncu --set full --import-source no --nvtx \
    --nvtx-include "ncu/" -k regex:$5 -c $6 -o $R/$1 python3 bench/sweeps/side-by-side.py --ncu --impl $2 \
    --only $3 --m $4 --rounds 1 --floor '' --out $R/$1.json > $R/$1.log 2>&1
  echo "ncu $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/$1.ncu-rep --page details --print-units base > $R/$1.txt 2>&1
  ncu -i $R/$1.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $R/$1-sass.csv.gz
  python3 bench/sweeps/ncu-stalls.py $R/$1-sass.csv.gz 40 > $R/$1-stalls.txt 2>&1
  rm -f $R/$1.ncu-rep
}
ncu1 w8a8-1024-hum hum w8a8 1024 hum_gemm 1
ncu1 l14336-humming humming llama-4096x14336 1 . 2
if [ $(left) -gt 30 ]; then
  # cuBLASLt's fp8 kernels by name (nvjet_...): the recorded run filtered demangled names with
  # '^(?!hum_)', which "void hum_..." passed, and profiled hum's repack and selfcheck kernels
  HUM_CACHE_DIR=/tmp/ncu-cache timeout $(($(left) - 10)) ncu --set full \
    -k 'regex:nvjet' -c 2 -o $R/cublaslt-w8a8-1024 build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 \
    --m 1024 --warmup 1 --reps 1 > $R/cublaslt-w8a8-1024.log 2>&1
  echo "ncu cublaslt exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/cublaslt-w8a8-1024.ncu-rep --page details --print-units base > $R/cublaslt-w8a8-1024.txt 2>&1
  rm -f $R/cublaslt-w8a8-1024.ncu-rep
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
