# timeout: 150
# Session 48's third call (bench/sweeps/run-call.sh), on main's head (9c9ac72's kernels and
# tables, labelled 34 / 34 on an H100 in s48-b): profiles for the next steps, nothing timed.
# 1. ncu --set full of Llama 4096 x 14336 uint4 g128 fp16 at M = 1, hum's GEMM and Humming's
#    kernels, and of hum's 14336 x 4096 at M = 1: the same weight bytes, hum 23.4 against 20.5 µs
#    (s48-b), level with Humming on the first, 0.89 on the second;
# 2. ncu --set full of the quantizer and GEMM kernels of W4A8 MXFP4 and W8A8 at M = 1024, where
#    the quantizer in the call costs MXFP4 12.4 µs and W8A8 8.5 (s48-b, hum - hum-q);
# first, bench/sweeps/s48/h2d-probe.py: W8A8's warm prepare (21.5-22 ms, bar 20) is its 67 MB
# upload (17 ms, a pageable cuMemcpyHtoD) beside module loads that take 15 ms only then.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s48-c.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
export HUM_CACHE_DIR=/tmp/ncu-cache
timeout 60 python3 bench/sweeps/s48/h2d-probe.py 67 > $R/h2d.txt 2>&1
echo "h2d exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
ncu1() { # NAME IMPL CASE M KERNELS COUNT
  [ $(left) -gt 50 ] || return
  timeout $(($(left) - 10)) ncu --set full --import-source no --nvtx --nvtx-include "ncu/" -k regex:$5 -c $6 \
    -o $R/$1 python3 bench/sweeps/side-by-side.py --ncu --impl $2 --only $3 --m $4 --rounds 1 --floor '' \
    --out $R/$1.json > $R/$1.log 2>&1
  echo "ncu $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/$1.ncu-rep --page details --print-units base > $R/$1.txt 2>&1
  ncu -i $R/$1.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $R/$1-sass.csv.gz
  python3 bench/sweeps/ncu-stalls.py $R/$1-sass.csv.gz 40 > $R/$1-stalls.txt 2>&1
  rm -f $R/$1.ncu-rep
}
ncu1 l14336-hum hum llama-4096x14336 1 hum_gemm 1
ncu1 l14336-humming humming llama-4096x14336 1 . 2
ncu1 l4096n-hum hum llama-14336x4096 1 hum_gemm 1
ncu1 mx1024-hum hum w4a8mx 1024 hum_ 2
ncu1 w8a8-1024-hum hum w8a8 1024 hum_ 2
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
