# timeout: 300
# weights_ss's second call (bench/sweeps/run-call.sh; .exp/build.tgz of the branch's head): s31-b's
# label failed two MXFP4 cases of test_gemm_a8's plain-wgmma pass at M = 1 (bfloat16 out, errors
# 1.06e-03 / 1.08e-03 against the 1e-3 bar, whose kernels weights_ss leaves as they were; main read
# 9.83e-04 on that pass in s31-a): the label again, Humming's quant rows, then ncu of the SS kernel
# at M = 1024 (bench/sweeps/s30-a.sh's commands) where time is left.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s31-c.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 285 ctest -L gpu -j12 --timeout 280 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
PYTHONUNBUFFERED=1 timeout 60 python3 tools-shared/bench-humming.py --only quant --out $R/humming-quant.json \
  > $R/humming-quant.txt 2>&1
echo "humming done at $(($(date +%s) - t0)) s" >> $R/calls.txt
name=hum-w8a8-1024-ss; left=$((B - ($(date +%s) - t0)))
if [ $left -gt 80 ]; then
  HUM_CACHE_DIR=/tmp/ncu-cache timeout $((left - 10)) ncu --set full --import-source no --nvtx --nvtx-include "ncu/" \
    -c 3 -o $R/$name python3 bench/sweeps/side-by-side.py --ncu --impl hum --only w8a8 --m 1024 --rounds 1 \
    --floor '' --out $R/$name.json > $R/$name.log 2>&1
  echo "$name exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/$name.ncu-rep --page details --print-units base > $R/$name.txt 2>&1
  ncu -i $R/$name.ncu-rep -k regex:hum_gemm --page source --csv --print-source sass 2>/dev/null | gzip > $R/$name-sass.csv.gz
  python3 bench/sweeps/ncu-stalls.py $R/$name-sass.csv.gz 40 > $R/$name-stalls.txt 2>&1
  rm -f $R/$name.ncu-rep
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
