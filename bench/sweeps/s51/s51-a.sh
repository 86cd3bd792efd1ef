# timeout: 560
# Session 51's first call, on main's head 54fda5f (kernels and tables of 6a1dd51; here first:
# tools/pack-device.sh build .exp/build.tgz, the label cache built at 6a1dd51, cp
# bench/sweeps/s51/s51-a.sh bench/sweeps/run-call.sh .exp/):
# 1. the gpu label;
# 2. ncu of mma_direct at M = 1 on n = k = 8192 uint4 g128 (what bounds 22.5 us on the H100);
# 3. M 1 / 8 / 16 beside Humming, two rounds, with mma_direct variants whole: f (8 x 64 x 256 on
#    16 warps, 2 along N of 32 columns, 8 along K) and g (8 x 128 x 256, warps 8 x 64 x 64);
# 4. issue 8's and 9's other rows beside Humming, two rounds; W8A8 beside cuBLASLt fp8.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s51-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && timeout 170 ctest -L gpu -j16 --timeout 160 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
ncu1() { # NAME IMPL CASE M KERNELS COUNT
  [ $(left) -gt 60 ] || return
  HUM_CACHE_DIR=/tmp/ncu-cache timeout 90 ncu --set full --import-source no --nvtx \
    --nvtx-include "ncu/" -k regex:$5 -c $6 -o $R/$1 python3 bench/sweeps/side-by-side.py --ncu --impl $2 \
    --only $3 --m $4 --rounds 1 --floor '' --out $R/$1.json > $R/$1.log 2>&1
  echo "ncu $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/$1.ncu-rep --page details --print-units base > $R/$1.txt 2>&1
  ncu -i $R/$1.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $R/$1-sass.csv.gz
  python3 bench/sweeps/ncu-stalls.py $R/$1-sass.csv.gz 40 > $R/$1-stalls.txt 2>&1
  rm -f $R/$1.ncu-rep
}
ncu1 direct-m1 hum w4g128 1 hum_gemm 1
export HUM_CACHE_DIR=/tmp/cache
sbs() { # NAME CASES M [ARGS...]
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-$1.json --only $2 --m $3 \
    --rounds 2 --floor '' "${@:4}" > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
S=bench/sweeps/s51
sbs small w4g128,llama-4096x4096,llama-14336x4096,llama-4096x14336,w4g128zp,w8ch,w2ch,w4g128bf16 1,8,16 \
  --hum f=$S/f/hum.yaml:w4g128+w8ch+llama-4096x4096+llama-4096x14336 \
  --hum g=$S/g/hum.yaml:llama-14336x4096+llama-4096x4096
sbs w4g128 w4g128 32,64,128,256,512,1024,2048,4096,8192
sbs llama llama-4096x4096,llama-14336x4096,llama-4096x14336 128,1024
sbs quant w4g128bf16,w4g128zp,w8ch,w2ch 128,1024,8192
sbs a8 w8a8,w4a8mx 1,128,1024,8192
if [ $(left) -gt 30 ]; then
  timeout 40 build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024,2048,8192 \
    --out $R/w8a8.json --force > $R/w8a8.txt 2>&1
  echo "bench w8a8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
