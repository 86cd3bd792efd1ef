# timeout: 420
# Session 49's second call (bench/sweeps/run-call.sh), on main's final code (3e0ea99's kernels,
# policies and runtime: s49-a's page-locked copy reverted). Here first: tools/pack-device.sh build
# .exp/build.tgz, cp bench/sweeps/s49/s49-b.sh bench/sweeps/run-call.sh .exp/ (the label cache of
# 3e0ea99's kernels holds).
# 1. the gpu label on the final code;
# 2. W8A8 beside cuBLASLt fp8 (hum bench), before and after the A/B, for the clocks' drift;
# 3. session 48's C-in-the-slot entries against their own C tile (bench/sweeps/s48/own-c/): uint4
#    g128 fp16 at M 4096 / 8192 and bf16 at 8192, four rounds, the order alternating (s49-a's one
#    round read fp16 8192 1627 built-in against 1554 / 1545 on its own tile, bf16 1353 against
#    1380).
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s49-b.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && timeout 200 ctest -L gpu -j16 --timeout 190 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
export HUM_CACHE_DIR=/tmp/cache
w8a8() {
  timeout 40 build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024,2048,8192 \
    --out $R/w8a8-$1.json --force > $R/w8a8-$1.txt 2>&1
  echo "bench w8a8-$1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
w8a8 a
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
    bench w4-$c-r$r n=8192,k=8192,w=uint4,a=float16,group=128 4096,8192 $cfg
    bench w4bf-$c-r$r n=8192,k=8192,w=uint4,a=bfloat16,group=128 8192 $cfg
  done
done
[ $(left) -gt 40 ] && w8a8 b
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
