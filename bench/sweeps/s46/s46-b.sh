# timeout: 570
# Session 46's second call (bench/sweeps/run-call.sh), on the build of s46-a (main's head kernels
# and tables, the gpu label passed there on an H200):
# 1. `hum tune` of Llama 4096 x 4096 uint4 g128 at M 9 / 16 (hum.candidates' M <= 16 grid): on
#    the H200 the built-in 16 x 64 x 256 summed tile (session 45's pick on an H100) read 14.08 /
#    14.21 against Humming's 13.47 / 13.57 in s46-a; the tuned file beside the built-in and
#    Humming at M 9 / 16, two rounds;
# 2. quantize_a from M = 385 (bench/sweeps/s46/quantize-a-385/: W8A8's multicast entry and W4A8
#    MXFP4's from 385 fused too) against the built-in, W8A8 and W4A8 MXFP4 n = k = 8192 at M 512 /
#    1024, beside Humming, two rounds (s46-a: MXFP4 at 1024 1.043 behind Humming with its
#    quantizer kernel in the call, 0.95 without);
# 3. issue 8's tables beside Humming on the head, two rounds: n = k = 8192 uint4 g128 fp16 at its
#    eleven M, the Llama shapes at M 1 / 16 / 128 / 1024, uint4 g128 bf16, uint4 g128 with int
#    zero points, uint8 and uint2 channel at M 1 / 128 / 1024 / 8192;
# 4. while time is left, ncu --set full of W4A8 MXFP4's fused GEMM (quantize_a, through
#    HUM_CONFIG=bench/sweeps/s41/quantize-a/hum.yaml) at M = 8192, then of the same kernel on
#    A given quantized, each with its SASS stalls (bench/sweeps/ncu-stalls.py): in s46-a its rows
#    cost ~85 us of the call where the quantizer kernel costs ~55.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s46-b.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
export HUM_CACHE_DIR=/tmp/cache
mkdir -p $R/site && echo "policy_paths: [site]" > $R/tuned.yaml
timeout 100 build/runtime/hum tune --layer n=4096,k=4096,w=uint4,a=float16,group=128 --m 9,16 --budget 70 \
  --out $R/site/tuned-l4096.lua > $R/tune-l4096.txt 2>&1
echo "tune l4096 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
sbs() { # NAME CASES M [ARGS...]
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-$1.json --only $2 --m $3 \
    --rounds 2 --floor '' "${@:4}" > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs l4096-tuned llama-4096x4096 9,16 --hum tuned=$R/tuned.yaml
sbs qa385 w8a8,w4a8mx 512,1024 --hum qa385=bench/sweeps/s46/quantize-a-385/hum.yaml
sbs w4g128 w4g128 1,16,32,64,128,256,512,1024,2048,4096,8192
sbs llama llama-4096x4096,llama-14336x4096,llama-4096x14336 1,16,128,1024
sbs quant w4g128bf16,w4g128zp,w8ch,w2ch 1,128,1024,8192
ncu1() { # NAME SKIP
  [ $(left) -gt 60 ] || return
  HUM_CONFIG=$PWD/bench/sweeps/s41/quantize-a/hum.yaml HUM_CACHE_DIR=/tmp/ncu-cache timeout $(($(left) - 10)) \
    ncu --set full --import-source no --nvtx --nvtx-include "ncu/" -k regex:hum_gemm --launch-skip $2 -c 1 \
    -o $R/$1 python3 bench/sweeps/side-by-side.py --ncu --impl hum --only w4a8mx --m 8192 --rounds 1 --floor '' \
    --out $R/$1.json > $R/$1.log 2>&1
  echo "ncu $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/$1.ncu-rep --page details --print-units base > $R/$1.txt 2>&1
  ncu -i $R/$1.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $R/$1-sass.csv.gz
  python3 bench/sweeps/ncu-stalls.py $R/$1-sass.csv.gz 40 > $R/$1-stalls.txt 2>&1
  rm -f $R/$1.ncu-rep
}
ncu1 ncu-mx-qa 0
ncu1 ncu-mx-qa-q 1
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
