# timeout: 560
# Session 32's first request (bench/NOTES.md, "Session 31 (lead)", Next 1), for bench/sweeps/run-call.sh
# with main's head in .exp/build.tgz. Branch ss-batch did not reach this session's checkout, so the
# A/B against it waits for its rebuild; this call runs:
# 1. W8A8 n = k = 8192 beside cuBLASLt fp8 on main (weights_ss), and 256-row tiles above M = 1024
#    (site policy r256);
# 2. hum with A already quantized (hum-q), Humming's quant rows in the same call;
# 3. the gpu label on main's head (test_gemm_a8 now pools M < 4 over ceil(4 / M) forwards);
# 4. where time is left, ncu of main's weights_ss GEMM at M = 1024 (s30-a.sh's commands).
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s32-a.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
X=n=8192,k=8192,w=e4m3,a=e4m3
HUM_CACHE_DIR=/tmp/ab-main timeout 60 build/runtime/hum bench --layer $X \
  --m 256,384,512,768,1024,2048,4096,8192 --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check' >> $R/ab.txt
# 256-row tiles above M = 1024 on main (half the promoted totals in shared memory, as W4A8 MXFP4's;
# the weights no longer hold registers beside the accumulators), one round
. bench/sweeps/site-policy.sh /tmp/cand
pol r256 "if e.m_min > 1024 then t = wg('wgmma_ws', 256, 128, 128, 3); t.weights_ss = true end"
echo "== r256" >> $R/ab.txt
HUM_CACHE_DIR=/tmp/ab-r256 timeout 60 build/runtime/hum bench --config /tmp/cand/r256.yaml --layer $X \
  --m 2048,4096,8192 --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check|M 1025' >> $R/ab.txt
echo "ab done at $(($(date +%s) - t0)) s" >> $R/calls.txt
# hum with A already quantized (impl hum-q: no quantization kernel), cuBLASLt's own terms
PYTHONUNBUFFERED=1 timeout 60 python3 bench/sweeps/side-by-side.py --impl hum --only w8a8 --m 1024,8192 --rounds 2 \
  --floor '' --out $R/hum-q.json > $R/hum-q.txt 2>&1
# Humming 0.1.20's W8A8 and W4A8 rows beside those, in the same call (s31-b lacked --out and ran none)
PYTHONUNBUFFERED=1 timeout 60 python3 tools-shared/bench-humming.py --only quant --out $R/humming-quant.json \
  > $R/humming-quant.txt 2>&1
echo "humming done at $(($(date +%s) - t0)) s" >> $R/calls.txt
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 320 ctest -L gpu -j12 --timeout 310 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
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
