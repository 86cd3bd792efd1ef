# timeout: 560
# Session 43's second request (bench/sweeps/run-call.sh). s43-a's `hum tune` found nothing faster
# than the built-in at M = 1 on Llama 4096 x 4096 / 4096 x 14336 (one field changed at a time),
# and the whole 256 x 128 x 128 tiles for W4A8 MXFP4 at M 2049..8192 (1014.78 -> 901.07 µs in the
# tune; 970 / 1030 -> 968 / 975 beside Humming's 937 / 975 in its side-by-side).
# 1. `hum tune --candidates bench/sweeps/s43/gemv-candidates.lua` (mma.sync tiles several fields
#    from the built-in's, whole or summed, one or two CTAs an SM) on the Llama shapes and
#    8192 x 8192 uint4 g128 at M 1 / 16;
# 2. those files beside the built-in and Humming, two rounds;
# 3. W4A8 MXFP4 at M 4096 / 8192: the built-in against bench/sweeps/s43/mx-whole (that entry
#    whole), three rounds, -q rows too.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s43-b.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
export HUM_CACHE_DIR=/tmp/cache
mkdir -p $R/site && echo "policy_paths: [site]" > $R/tuned.yaml
tune() { # NAME SPEC M BUDGET
  timeout $(($4 + 40)) build/runtime/hum tune --layer $2 --m $3 --budget $4 \
    --candidates bench/sweeps/s43/gemv-candidates.lua --out $R/site/tuned-$1.lua > $R/tune-$1.txt 2>&1
  echo "tune $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
tune l4096 n=4096,k=4096,w=uint4,a=float16,group=128 1,16 60
tune l4096x14336 n=4096,k=14336,w=uint4,a=float16,group=128 1,16 60
tune l14336x4096 n=14336,k=4096,w=uint4,a=float16,group=128 1 35
tune w4g128 n=8192,k=8192,w=uint4,a=float16,group=128 1 35
sbs() { # NAME M CASES ROUNDS CONFIG
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-$1.json --only $3 --m $2 \
    --rounds $4 --floor '' --hum $5 > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs small 1,16 llama-4096x4096,llama-4096x14336,llama-14336x4096,w4g128 2 tuned=$R/tuned.yaml
sbs mx 4096,8192 w4a8mx 3 whole=bench/sweeps/s43/mx-whole/hum.yaml
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
