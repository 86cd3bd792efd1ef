# timeout: 560
# Session 41's first request, for bench/sweeps/run-call.sh (copy to .exp/; build main's head in
# Release and tools/pack-device.sh build .exp/build.tgz). bench/NOTES.md, session 40, "Next":
# 1. the gpu label on main's head;
# 2. ncu --set full of W8A8 n = k = 8192 at M = 1024 (hum's GEMM beside cuBLASLt fp8's): what the
#    tensor pipe waits on now that the loop carries ~29 instructions a stage besides its QGMMAs
#    and FADDs (session 33 measured 742 cycles a stage against cuBLASLt's 609);
# 3. two rounds beside Humming of the cells that read 1.00-1.04 in one round (uint8 channel at
#    M = 8192, the Llama cells at M 1 / 16 / 1024).
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s41-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 300 ctest -L gpu -j12 --timeout 290 \
  --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
X=n=8192,k=8192,w=e4m3,a=e4m3
if [ $(left) -gt 90 ]; then
  HUM_CACHE_DIR=/tmp/ncu-cache timeout $(($(left) - 60)) ncu --set full --import-source no --nvtx \
    --nvtx-include "ncu/" -c 3 -o $R/hum-w8a8-1024 python3 bench/sweeps/side-by-side.py --ncu --impl hum \
    --only w8a8 --m 1024 --rounds 1 --floor '' --out $R/hum-w8a8-1024.json > $R/hum-w8a8-1024.log 2>&1
  echo "ncu hum exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/hum-w8a8-1024.ncu-rep --page details --print-units base > $R/hum-w8a8-1024.txt 2>&1
  ncu -i $R/hum-w8a8-1024.ncu-rep -k regex:hum_gemm --page source --csv --print-source sass 2>/dev/null \
    | gzip > $R/hum-w8a8-1024-sass.csv.gz
  python3 bench/sweeps/ncu-stalls.py $R/hum-w8a8-1024-sass.csv.gz 40 > $R/hum-w8a8-1024-stalls.txt 2>&1
  rm -f $R/hum-w8a8-1024.ncu-rep
fi
if [ $(left) -gt 60 ]; then
  HUM_CACHE_DIR=/tmp/ncu-cache timeout $(($(left) - 40)) ncu --set full --kernel-name-base demangled \
    -k 'regex:^(?!.*hum_)' -c 4 -o $R/cublaslt-w8a8-1024 build/runtime/hum bench --layer $X --m 1024 \
    --warmup 1 --reps 1 > $R/cublaslt-w8a8-1024.log 2>&1
  echo "ncu cublaslt exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/cublaslt-w8a8-1024.ncu-rep --page details --print-units base > $R/cublaslt-w8a8-1024.txt 2>&1
  rm -f $R/cublaslt-w8a8-1024.ncu-rep
fi
sbs() { # NAME M CASES
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 10)) python3 bench/sweeps/side-by-side.py --out $R/show-$1.json --only $3 --m $2 \
    --rounds 2 --floor '' > $R/show-$1.txt 2>&1
  echo "show $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs chan 1024,4096,8192 w8ch
sbs llama 1,16,1024 llama-4096x4096,llama-14336x4096,llama-4096x14336
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
