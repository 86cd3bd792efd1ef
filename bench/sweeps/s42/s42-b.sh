# timeout: 330
# quantize_a did not pay in s42-a (H100, 2 rounds; W8A8 M 2048 hum 263.0 / 268.6 against hum-qa
# 263.6 / 263.7, M 8192 975 / 1040 against 993 / 1035; MXFP4 M 8192 934 / 1009 against 1016 /
# 1039): the rows quantized inside cost about what the quantizer kernel does. Variants, with
# HUM_KERNEL_PATH (the build's embedded kernels are 9750c40's):
# - K2 (this tree's kernels/): every warp takes the first rows before setmaxnreg, 16 chunks a lane
#   in flight (a producer warp held 2: its CTA's first copies waited for the slowest row), the
#   producer's quantizing warps 4 chunks (raw 16-bit words, converted as used), and the codes'
#   cp.async copies on two warps, not one (MXFP4 hum-qa-q 968 / 986 against hum-q 910 / 929);
# - K1 (.exp/k1/kernels): K2 with the copies on one warp, as before (MXFP4 only: W8A8's are
#   thread 0's TMAs in both).
# 1. the fused tests on K2; 2. hum / hum-q / hum-qa / hum-qa-q on K2 (both) and K1 (MXFP4), M 2048
# and 8192, two rounds; 3. ncu of the four GEMMs of W8A8 M 2048 on K2.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s42-b.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
K2=$PWD/kernels K1=$PWD/.exp/k1/kernels
(cd build && HUM_KERNEL_PATH=$K2 HUM_CACHE_DIR=/tmp/k2-cache timeout 100 ctest \
  -R "test_gemm_a8_quantize|test_quantize_a_gpu" --timeout 95 --output-on-failure -j2) > $R/tests.txt 2>&1
echo "tests exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
ab() { # NAME KERNELS CASES
  [ $(left) -gt 40 ] || return
  HUM_KERNEL_PATH=$2 HUM_CACHE_DIR=/tmp/$1-cache timeout $(($(left) - 5)) python3 -u \
    bench/sweeps/side-by-side.py --impl hum --out $R/ab-$1.json --only $3 --m 8192,2048 --rounds 2 \
    --floor '' --hum qa=bench/sweeps/s41/quantize-a/hum.yaml > $R/ab-$1.txt 2>&1
  echo "ab $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
ab k2 $K2 w8a8,w4a8mx
ab k1 $K1 w4a8mx
if [ $(left) -gt 60 ]; then
  HUM_KERNEL_PATH=$K2 HUM_CACHE_DIR=/tmp/k2-cache timeout $(($(left) - 15)) ncu --set full \
    --import-source no --nvtx --nvtx-include "ncu/" -k regex:hum_gemm -c 4 -o $R/w8a8-2048 python3 \
    bench/sweeps/side-by-side.py --ncu --impl hum --only w8a8 --m 2048 --rounds 1 --floor '' \
    --hum qa=bench/sweeps/s41/quantize-a/hum.yaml --out $R/w8a8-2048.json > $R/ncu.log 2>&1
  echo "ncu exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/w8a8-2048.ncu-rep --page details --print-units base > $R/w8a8-2048.txt 2>&1
  ncu -i $R/w8a8-2048.ncu-rep --page source --csv --print-source sass 2>/dev/null \
    | gzip > $R/w8a8-2048-sass.csv.gz
  rm -f $R/w8a8-2048.ncu-rep
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
