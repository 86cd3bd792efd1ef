# timeout: 570
# The call session 52 prepared and no machine was lent for: main with
# bench/sweeps/s51/direct-smem-ring.patch applied (mma_direct's ring in shared memory). Here first:
# git apply the patch, build (Release), HUM_FAKE_DEVICE_NAME="NVIDIA H200" tools/label-cache/build.sh
# build .exp/label-cache.txz -j2 (~26 min; an H100 compiles its few other M <= 8 kernels there),
# tools/pack-device.sh build .exp/build.tgz, cp bench/sweeps/s52/s52-a.sh bench/sweeps/run-call.sh
# .exp/, then OUT=$OUT bash .exp/run-call.sh s52-a with .gpu-libs, .whl, .exp and tools-shared carried:
# 0. in the background while the label runs: every kernel of the cases below compiled into the
#    sbs cache, built-in and site tables, for this GPU (hum compile, 10 at a time);
# 1. the gpu label on the patch;
# 2. M 1 / 8 beside Humming, two rounds: the built-in (H100: mma_direct ring 8 for codes >= 3
#    bits; elsewhere staged tiles for 4-bit, mma_direct for 8-bit), mma_direct with rings of 8
#    (s50/d), 4 (s51/ring4), 4 at two CTAs an SM (s52/ring4x2), and the staged tiles (s50/staged);
#    M 16 beside Humming on 16-row mma_direct tiles (s52/d16) against the built-in;
# 3. compute-sanitizer memcheck of M = 1 / 3 forwards on mma_direct, whole (ring 8, zero points)
#    and stream-K in the workspace (ring4x2), and of M = 12 / 16 on d16;
# 4. ncu of the ring of 8 at M = 1 (n = k = 8192 uint4 g128);
# 5. while time is left, issue 8's and 9's other rows beside Humming, two rounds.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s52-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
S=bench/sweeps
CFGS="- $S/s50/staged/hum.yaml $S/s50/d/hum.yaml $S/s51/ring4/hum.yaml $S/s52/ring4x2/hum.yaml $S/s52/d16/hum.yaml"
SPECS="n=8192,k=8192,w=uint4,a=float16,group=128 n=8192,k=8192,w=uint4,a=float16,group=128,zp=int
n=8192,k=8192,w=uint4,a=bfloat16,group=128 n=8192,k=8192,w=uint8,a=float16
n=4096,k=4096,w=uint4,a=float16,group=128 n=14336,k=4096,w=uint4,a=float16,group=128
n=4096,k=14336,w=uint4,a=float16,group=128"
(for c in $CFGS; do for s in $SPECS; do echo "$c $s"; done; done |
  HUM_CACHE_DIR=/tmp/cache timeout 300 xargs -P 10 -L 1 sh -c \
    'if [ "$0" = - ]; then build/runtime/hum compile --layer "$1"; else build/runtime/hum compile --config "$0" --layer "$1"; fi' \
  > $R/precompile.txt 2>&1; echo "precompile exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt) &
pre=$!
(cd build && timeout 170 ctest -L gpu -j16 --timeout 160 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
wait $pre
export HUM_CACHE_DIR=/tmp/cache
sbs() { # NAME CASES M [ARGS...]
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 -u $S/side-by-side.py --out $R/sbs-$1.json --only $2 --m $3 \
    --rounds 2 --floor '' "${@:4}" > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs ring w4g128,w4g128zp,w4g128bf16,w8ch,llama-4096x4096,llama-14336x4096,llama-4096x14336 1,8 \
  --hum staged=$S/s50/staged/hum.yaml --hum ring8=$S/s50/d/hum.yaml --hum ring4=$S/s51/ring4/hum.yaml \
  --hum ring4x2=$S/s52/ring4x2/hum.yaml
sbs d16 w4g128,w4g128bf16,w8ch,llama-4096x4096,llama-14336x4096 16 --hum d16=$S/s52/d16/hum.yaml
memcheck() { # NAME CONFIG SPEC M
  [ $(left) -gt 45 ] || return
  timeout 40 compute-sanitizer --tool memcheck build/runtime/hum bench --config $2 --layer $3 --m $4 \
    --warmup 1 --reps 2 --out /tmp/memcheck-$1.json --force > $R/memcheck-$1.txt 2>&1
  echo "memcheck $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
memcheck ring8 $S/s50/d/hum.yaml n=8192,k=8192,w=uint4,a=float16,group=128,zp=int 1,3
memcheck ring4x2 $S/s52/ring4x2/hum.yaml n=4096,k=4096,w=uint4,a=float16,group=128 1,3
memcheck d16 $S/s52/d16/hum.yaml n=4096,k=4096,w=uint4,a=float16,group=128 12,16
if [ $(left) -gt 60 ]; then
  HUM_CONFIG=$S/s50/d/hum.yaml timeout 90 ncu --set full --import-source no --nvtx --nvtx-include "ncu/" \
    -k regex:hum_gemm -c 1 -o $R/ring8-m1 python3 $S/side-by-side.py --ncu --impl hum --only w4g128 --m 1 \
    --rounds 1 --floor '' --out $R/ring8-m1.json > $R/ring8-m1.log 2>&1
  echo "ncu ring8-m1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/ring8-m1.ncu-rep --page details --print-units base > $R/ring8-m1.txt 2>&1
  ncu -i $R/ring8-m1.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $R/ring8-m1-sass.csv.gz
  python3 $S/ncu-stalls.py $R/ring8-m1-sass.csv.gz 40 > $R/ring8-m1-stalls.txt 2>&1
  rm -f $R/ring8-m1.ncu-rep
fi
sbs w4g128 w4g128 16,32,64,128,256,512,1024,2048,4096,8192
sbs llama llama-4096x4096,llama-14336x4096,llama-4096x14336 16,128,1024
sbs quant w4g128bf16,w4g128zp,w8ch,w2ch 16,128,1024,8192
sbs a8 w8a8,w4a8mx 1,128,1024,8192
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
