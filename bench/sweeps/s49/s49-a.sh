# timeout: 575
# Session 49's call (bench/sweeps/run-call.sh), perhaps its only one (two starts failed by 12:53):
# the build is main's head with hum_memcpy_htod page-locking its source (runtime/src/cuda/memory.c);
# .exp/hum-3e0ea99 is the CLI before it. Here first: tools/pack-device.sh build .exp/build.tgz,
# cp bench/sweeps/s49/s49-a.sh bench/sweeps/run-call.sh .exp/ (the label cache of 3e0ea99's kernels
# still holds: no kernel changed).
# 1. the gpu label (memcpy_pinned is new);
# 2. bench/sweeps/s48/h2d-probe.py: 67 MB host to device, pageable / registered / staged;
# 3. prepare, warm, of W8A8 and uint4 g128 n = k = 8192 with the CLI before and after, two
#    rounds alternating (hum bench prints the phases);
# 4. issues 8 and 9's rows beside Humming 0.1.20, two rounds;
# 5. ncu of hum's Llama 4096 x 14336 and 14336 x 4096 at M = 1 (same weight bytes, 23.4 against
#    20.5 us in s48-b);
# 6. session 48's C-in-the-slot entries against their own C tile (bench/sweeps/s48/own-c/) at
#    M 4096 / 8192, three rounds, the order alternating;
# 7. ncu while time is left: Humming's Llama 4096 x 14336 at M = 1, hum's W8A8 GEMM at M = 1024.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s49-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && timeout 220 ctest -L gpu -j16 --timeout 210 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
timeout 60 python3 bench/sweeps/s48/h2d-probe.py 67 > $R/h2d.txt 2>&1
echo "h2d exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
for r in 1 2; do
  order="new old"; [ $r = 2 ] && order="old new"
  for v in $order; do
    cli=build/runtime/hum; [ $v = new ] || cli=.exp/hum-3e0ea99
    for l in n=8192,k=8192,w=e4m3,a=e4m3 n=8192,k=8192,w=uint4,a=float16,group=128; do
      echo "=== round $r $v $l" >> $R/prepare.txt
      timeout 40 $cli bench --layer $l --m 1 --warmup 3 --reps 5 >> $R/prepare.txt 2>&1
    done
  done
done
echo "prepare exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
export HUM_CACHE_DIR=/tmp/cache
sbs() { # NAME CASES M [ARGS...]
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-$1.json --only $2 --m $3 \
    --rounds 2 --floor '' "${@:4}" > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs w4g128 w4g128 1,16,32,64,128,256,512,1024,2048,4096,8192
sbs llama llama-4096x4096,llama-14336x4096,llama-4096x14336 1,16,128,1024
sbs quant w4g128bf16,w4g128zp,w8ch,w2ch,w8a8,w4a8mx 1,128,1024,8192
if [ $(left) -gt 30 ]; then
  timeout 40 build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024,2048,8192 \
    --out $R/w8a8.json --force > $R/w8a8.txt 2>&1
  echo "bench w8a8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
ncu1() { # NAME IMPL CASE M KERNELS COUNT
  [ $(left) -gt 50 ] || return
  HUM_CACHE_DIR=/tmp/ncu-cache timeout $(($(left) - 10)) ncu --set full --import-source no --nvtx \
    --nvtx-include "ncu/" -k regex:$5 -c $6 -o $R/$1 python3 bench/sweeps/side-by-side.py --ncu --impl $2 \
    --only $3 --m $4 --rounds 1 --floor '' --out $R/$1.json > $R/$1.log 2>&1
  echo "ncu $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/$1.ncu-rep --page details --print-units base > $R/$1.txt 2>&1
  ncu -i $R/$1.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $R/$1-sass.csv.gz
  python3 bench/sweeps/ncu-stalls.py $R/$1-sass.csv.gz 40 > $R/$1-stalls.txt 2>&1
  rm -f $R/$1.ncu-rep
}
ncu1 l14336-hum hum llama-4096x14336 1 hum_gemm 1
ncu1 l4096n-hum hum llama-14336x4096 1 hum_gemm 1
bench() { # TAG SPEC M [CONFIG]
  [ $(left) -gt 40 ] || return
  timeout 40 build/runtime/hum bench --layer $2 --m $3 --warmup 10 --reps 50 \
    ${4:+--config $4} --out $R/$1.json --force >> $R/ab.txt 2>&1
  echo "bench $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
for r in 1 2 3; do
  order="builtin own-c"; [ $r = 2 ] && order="own-c builtin"
  for c in $order; do
    cfg=""; [ $c = builtin ] || cfg=bench/sweeps/s48/own-c/hum.yaml
    echo "=== round $r $c" >> $R/ab.txt
    bench w4-$c-r$r n=8192,k=8192,w=uint4,a=float16,group=128 4096,8192 $cfg
    bench w4bf-$c-r$r n=8192,k=8192,w=uint4,a=bfloat16,group=128 8192 $cfg
    bench w8a8-$c-r$r n=8192,k=8192,w=e4m3,a=e4m3 8192 $cfg
  done
done
ncu1 l14336-humming humming llama-4096x14336 1 . 2
ncu1 w8a8-1024-hum hum w8a8 1024 hum_gemm 1
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
