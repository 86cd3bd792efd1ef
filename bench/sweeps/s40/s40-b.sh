# timeout: 470
# Session 40's second request, for bench/sweeps/run-call.sh (copy to .exp/; build main's head in
# Release and tools/pack-device.sh build .exp/build.tgz):
# 1. hum tune on issue 9's two layers behind their bar at mid M (W4A8 MXFP4 at M = 1024 behind
#    Humming with the quantizer in the call; W8A8 1.2x cuBLASLt fp8 there): the tables' own
#    tunings against their neighbours, checked against float64, the winners as policy files;
# 2. those files against the built-in tables and Humming in one process, in turn (side-by-side.py
#    --hum), two rounds;
# 3. issue 8's rows not timed since session 38: uint4 g128 bfloat16, with integer zero points, and
#    the Llama-3-8B shapes, beside Humming.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s40-b.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so HUM_CACHE_DIR=/tmp/c
T=/tmp/tuned; mkdir -p $T/mx $T/w8
tune() { # NAME SPEC MLIST BUDGET
  timeout $(($4 + 60)) build/runtime/hum tune --layer $2 --m $3 --budget $4 --out $T/$1/tuned-$1.lua \
    > $R/tune-$1.txt 2>&1
  echo "tune $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  cp $T/$1/tuned-$1.lua $R/ 2>/dev/null
  printf 'policy_paths: [%s]\n' $T/$1 > $T/$1.yaml
}
tune mx n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0,out=bfloat16 512,1024,2048 120
tune w8 n=8192,k=8192,w=e4m3,a=e4m3 512,1024,2048 100
sbs() { # NAME M CASES [side-by-side args]
  [ $(left) -gt 40 ] || return
  local n=$1 m=$2 c=$3; shift 3
  timeout $(($(left) - 20)) python3 bench/sweeps/side-by-side.py --out $R/show-$n.json --only $c --m $m \
    --floor '' "$@" > $R/show-$n.txt 2>&1
  echo "show $n exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs tuned 512,1024,2048 w4a8mx,w8a8 --rounds 2 --hum mx=$T/mx.yaml:w4a8mx --hum w8=$T/w8.yaml:w8a8
sbs var 1,128,1024,8192 w4g128bf16,w4g128zp --rounds 1
sbs llama 1,16,128,1024 llama-4096x4096,llama-14336x4096,llama-4096x14336 --rounds 1
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
