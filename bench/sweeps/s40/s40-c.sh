# timeout: 300
# Session 40's third request, for bench/sweeps/run-call.sh (copy to .exp/; build main's head in
# Release and tools/pack-device.sh build .exp/build.tgz):
# 1. tests/gpu/cli_tune.c (hum tune of a layer that quantizes its A: refused before 5b0a0e6);
# 2. hum tune on issue 9's mid-M cells (W4A8 MXFP4 at M = 1024 behind Humming with the quantizer
#    in the call; W8A8 1.2x cuBLASLt fp8 there): the tables' own tunings against their
#    neighbours, checked against float64, the winners as policy files;
# 3. those files against the built-in tables and Humming in one process (side-by-side.py --hum),
#    two rounds.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s40-c.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so HUM_CACHE_DIR=/tmp/c
(cd build && timeout 150 ctest -R '^cli_tune$' --output-on-failure) > $R/cli-tune.txt 2>&1
echo "cli_tune exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
T=/tmp/tuned; mkdir -p $T/mx $T/w8
tune() { # NAME SPEC MLIST BUDGET
  timeout $(($4 + 60)) build/runtime/hum tune --layer $2 --m $3 --budget $4 --out $T/$1/tuned-$1.lua \
    > $R/tune-$1.txt 2>&1
  echo "tune $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  cp $T/$1/tuned-$1.lua $R/ 2>/dev/null
  printf 'policy_paths: [%s]\n' $T/$1 > $T/$1.yaml
}
tune mx n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0,out=bfloat16 1024,2048 70
tune w8 n=8192,k=8192,w=e4m3,a=e4m3 512,1024 55
[ $(left) -gt 60 ] && timeout $(($(left) - 20)) python3 bench/sweeps/side-by-side.py --out $R/show-tuned.json \
  --only w4a8mx,w8a8 --m 512,1024,2048 --floor '' --rounds 2 --hum mx=$T/mx.yaml:w4a8mx \
  --hum w8=$T/w8.yaml:w8a8 > $R/show-tuned.txt 2>&1
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
