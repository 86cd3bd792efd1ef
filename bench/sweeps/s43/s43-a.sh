# timeout: 580
# Session 43's first request (bench/sweeps/run-call.sh): `hum tune` on the cells still behind
# Humming (s42-a / s42-c, H100), then each tuned file beside the built-in and Humming in two rounds,
# then moe_forward's mxfp8 cases on 13a135d's reference (s42-d, never run on a GPU).
# 1. W4A8 MXFP4 and uint8 channel n = k = 8192 at M 8192 (1.02-1.05 / 1.02-1.03 behind);
# 2. Llama 4096 x 4096 at M 1 / 16 (1.01-1.04) and 4096 x 14336 at M 1 (1.01);
# 3. side-by-side.py with the tuned files as a site policy (`tuned`), two rounds;
# 4. moe_forward's mxfp8 cases.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s43-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
export HUM_CACHE_DIR=/tmp/cache
mkdir -p $R/site && echo "policy_paths: [site]" > $R/tuned.yaml
tune() { # NAME SPEC M BUDGET
  timeout $(($4 + 40)) build/runtime/hum tune --layer $2 --m $3 --budget $4 \
    --out $R/site/tuned-$1.lua > $R/tune-$1.txt 2>&1
  echo "tune $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
tune mx8192 n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0,out=bfloat16 8192 90
tune w8ch8192 n=8192,k=8192,w=uint8,a=float16 8192 90
tune l4096 n=4096,k=4096,w=uint4,a=float16,group=128 1,16 70
tune l4096x14336 n=4096,k=14336,w=uint4,a=float16,group=128 1 40
sbs() { # NAME M CASES
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-$1.json --only $3 --m $2 \
    --rounds 2 --floor '' --hum tuned=$R/tuned.yaml > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs big 8192 w4a8mx,w8ch
sbs small 1,16 llama-4096x4096,llama-4096x14336
[ $(left) -gt 30 ] && (cd build && HUM_TEST_CASES=mxfp8 timeout $(($(left) - 5)) ./tests/test_moe_forward) \
  > $R/moe-mxfp8.txt 2>&1
echo "moe_forward mxfp8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
