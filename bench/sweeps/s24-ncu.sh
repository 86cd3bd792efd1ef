# timeout: 420
# Session 24's second request (bench/NOTES.md, "Session 24 (lead)"), for bench/sweeps/run-call.sh
# (copy it to .exp/NAME.sh): ncu --set full of hum's and Humming's kernels on the cells where hum
# is furthest behind, side by side (each one call inside the NVTX range "ncu" of
# bench/sweeps/side-by-side.py --ncu; hum's 8-bit runs hold its quantizer too): uint8 channel
# fp16 8192 x 8192 at M = 8192 (1.06x Humming in s24-call2) and W4A8 MXFP4 at M = 256 (1.27x).
# Compare tensor-pipe activity, issue slots and stalls; hum's source-level stalls too.
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
for run in "w8ch 8192" "w4a8mx 256"; do
  set -- $run
  for impl in hum humming; do
    name=$impl-$1-$2
    HUM_CACHE_DIR=/tmp/ncu-cache timeout 150 ncu --set full --import-source no --nvtx --nvtx-include "ncu/" -c 3 \
      -o $R/$name python3 bench/sweeps/side-by-side.py --ncu --impl $impl --only $1 --m $2 --rounds 1 --floor '' \
      --out $R/$name.json > $R/$name.log 2>&1
    echo "$name exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
    ncu -i $R/$name.ncu-rep --page details --print-units base > $R/$name.txt 2>&1
    [ $impl = hum ] && ncu -i $R/$name.ncu-rep -k regex:hum_gemm --page source --csv --print-source sass 2>/dev/null | gzip > $R/$name-sass.csv.gz
    [ $impl = hum ] && python3 bench/sweeps/ncu-stalls.py $R/$name-sass.csv.gz 40 > $R/$name-stalls.txt 2>&1
    rm -f $R/$name.ncu-rep
  done
done
