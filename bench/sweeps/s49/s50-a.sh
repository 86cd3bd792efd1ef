# timeout: 570
# For the next session's first call (bench/sweeps/run-call.sh), on main's head. Here first:
# tools/label-cache/build.sh build .exp/label-cache.txz -j2 (~23 min on 2 cores; skip it when no
# kernel or policy changed since e1748b9 and .exp/label-cache.txz is that build's),
# tools/pack-device.sh build .exp/build.tgz, cp bench/sweeps/s49/s50-a.sh bench/sweeps/run-call.sh .exp/.
# Ask for nvidia-h200: sessions 47-49 were lent H100s only, whose clocks at M >= 4096 move the
# cells more than their gaps (bench/NOTES.md, "Session 49 (lead)").
# 1. the gpu label;
# 2. issues 8 and 9's rows beside Humming 0.1.20, two rounds;
# 3. W8A8 beside cuBLASLt fp8 (hum bench);
# 4. the C-slot rule's bf16 M 8192 cell against its own C tile (bench/sweeps/s48/own-c/), four
#    rounds alternating (2-4 % on the H100's medians, within the spread).
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s50-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && timeout 220 ctest -L gpu -j16 --timeout 210 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
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
bench() { # TAG SPEC M [CONFIG]
  [ $(left) -gt 40 ] || return
  timeout 40 build/runtime/hum bench --layer $2 --m $3 --warmup 10 --reps 50 \
    ${4:+--config $4} --out $R/$1.json --force >> $R/ab.txt 2>&1
  echo "bench $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
for r in 1 2 3 4; do
  order="builtin own-c"; [ $((r % 2)) = 0 ] && order="own-c builtin"
  for c in $order; do
    cfg=""; [ $c = builtin ] || cfg=bench/sweeps/s48/own-c/hum.yaml
    echo "=== round $r $c" >> $R/ab.txt
    bench w4bf-$c-r$r n=8192,k=8192,w=uint4,a=bfloat16,group=128 8192 $cfg
  done
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
