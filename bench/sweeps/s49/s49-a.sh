# timeout: 570
# Session 49's first call (bench/sweeps/run-call.sh), on main's head 3e0ea99 (bench/sweeps/s48/s49-a.sh
# reordered: the issues' rows move to the session's last call, on its final code, and the
# profiles come before them). Here first: tools/label-cache/build.sh build .exp/label-cache.txz -j2,
# tools/pack-device.sh build .exp/build.tgz, cp bench/sweeps/s49/s49-a.sh bench/sweeps/run-call.sh .exp/.
# 1. the gpu label;
# 2. bench/sweeps/s48/h2d-probe.py: W8A8's warm prepare (21.5-22 ms on the H100, bar 20) against
#    its 67 MB pageable upload (17 ms);
# 3. session 48's C-in-the-slot entries against their own-C-tile "before" (bench/sweeps/s48/own-c/),
#    uint4 fp16 / bf16 / zero points at M 1024 / 4096 / 8192 and W8A8 at 2048 / 8192, three
#    rounds, the order alternating per round;
# 4. ncu of Llama 4096 x 14336 at M = 1 (hum, Humming) and of hum's 14336 x 4096 at M = 1 (same
#    weight bytes, 23.4 against 20.5 us in s48-b); of hum's W8A8 GEMM at M = 1024 (A given
#    quantized), last profiled in session 34.
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
export HUM_CACHE_DIR=/tmp/cache
bench() { # TAG SPEC M [CONFIG]
  [ $(left) -gt 40 ] || return
  timeout 60 build/runtime/hum bench --layer $2 --m $3 --warmup 10 --reps 50 \
    ${4:+--config $4} --out $R/$1.json --force >> $R/ab.txt 2>&1
  echo "bench $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
for r in 1 2 3; do
  order="builtin own-c"; [ $r = 2 ] && order="own-c builtin"
  for c in $order; do
    cfg=""; [ $c = builtin ] || cfg=bench/sweeps/s48/own-c/hum.yaml
    echo "=== round $r $c" >> $R/ab.txt
    bench w4-$c-r$r n=8192,k=8192,w=uint4,a=float16,group=128 1024,4096,8192 $cfg
    bench w4bf-$c-r$r n=8192,k=8192,w=uint4,a=bfloat16,group=128 1024,8192 $cfg
    bench w4zp-$c-r$r n=8192,k=8192,w=uint4,a=float16,group=128,zp=int 1024,8192 $cfg
    bench w8a8-$c-r$r n=8192,k=8192,w=e4m3,a=e4m3 2048,8192 $cfg
  done
done
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
ncu1 l14336-humming humming llama-4096x14336 1 . 2
ncu1 l4096n-hum hum llama-14336x4096 1 hum_gemm 1
ncu1 w8a8-1024-hum hum w8a8 1024 hum_gemm 1
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
