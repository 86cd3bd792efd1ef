# timeout: 520
# Session 47's last call (bench/sweeps/run-call.sh), on main's head (kernels of 11085a6, tables of
# 4c84668) with the label's kernels compiled without a GPU (tools/label-cache/build.sh, from the
# head):
# 1. the gpu label;
# 2. hum bench, two rounds in turn: the built-in tables against bench/sweeps/s47/c-stage/ (C in
#    the last stage's slot, one stage more, with A multicast and, HUM_C_STAGE_MULTICAST=0, without) on
#    uint4 g128 fp16 n = k = 8192 M 512 / 1024 / 2048 / 8192 and W8A8 M 2048 / 8192;
# 3. issues 8 and 9's rows beside Humming 0.1.20, two rounds (as s47-c);
# 4. hum bench of W8A8 at M 1024 / 2048 / 8192 beside cuBLASLt fp8.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s47-d.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && timeout 200 ctest -L gpu -j16 --timeout 190 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s; kernels now: $(find build/tests -name '*.hum' | wc -l)" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
export HUM_CACHE_DIR=/tmp/cache
bench() { # TAG SPEC M [CONFIG]
  [ $(left) -gt 60 ] || return
  HUM_C_STAGE_MULTICAST=$mc timeout 60 build/runtime/hum bench --layer $2 --m $3 --warmup 10 --reps 50 ${4:+--config $4} \
    --out $R/$1.json --force >> $R/ab.txt 2>&1
  echo "bench $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
for r in 1 2; do
  for c in builtin c-stage c-stage-nomc; do
    cfg=""; [ $c = builtin ] || cfg=bench/sweeps/s47/c-stage/hum.yaml
    mc=1; [ $c = c-stage-nomc ] && mc=0
    echo "=== round $r $c" >> $R/ab.txt
    bench w4-$c-r$r n=8192,k=8192,w=uint4,a=float16,group=128 512,1024,2048,8192 $cfg
    bench w8a8-$c-r$r n=8192,k=8192,w=e4m3,a=e4m3 2048,8192 $cfg
  done
done
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
  timeout $(($(left) - 5)) build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024,2048,8192 \
    --out $R/w8a8.json --force > $R/w8a8.txt 2>&1
  echo "bench w8a8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
