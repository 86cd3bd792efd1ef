# timeout: 560
# Session 44's second request (bench/sweeps/run-call.sh): `hum tune` with 4cb7c49's grid at
# M <= 16 (35 small tiles several fields from the built-in's, whole or summed) on the Llama cells
# still behind or level with Humming (s43-a on an H100, s43-b on an H200): 4096 x 4096 and
# 4096 x 14336 at M 1 / 8 / 16, 14336 x 4096 at M 8 / 16; W8A8 e4m3 n = k = 8192 at M 1024 (1.2x
# cuBLASLt fp8, issue 9's bar 1.1x); then the tuned files beside the built-in and Humming, two
# rounds.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s44-b.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
export HUM_CACHE_DIR=/tmp/cache
mkdir -p $R/site && echo "policy_paths: [site]" > $R/tuned.yaml
tune() { # NAME SPEC M BUDGET
  timeout $(($4 + 40)) build/runtime/hum tune --layer $2 --m $3 --budget $4 \
    --out $R/site/tuned-$1.lua > $R/tune-$1.txt 2>&1
  echo "tune $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
tune l4096 n=4096,k=4096,w=uint4,a=float16,group=128 1,8,16 75
tune l14336x4096 n=14336,k=4096,w=uint4,a=float16,group=128 8,16 50
tune l4096x14336 n=4096,k=14336,w=uint4,a=float16,group=128 1,8,16 75
tune w8a8 n=8192,k=8192,w=e4m3,a=e4m3 1024 50
sbs() { # NAME M CASES
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-$1.json --only $3 --m $2 \
    --rounds 2 --floor '' --hum tuned=$R/tuned.yaml > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs small 1,8,16 llama-4096x4096,llama-14336x4096,llama-4096x14336
sbs a8 1024 w8a8
# hum bench's cuBLASLt fp8 column beside the built-in and the tuned file
lt() { # NAME CONFIG...
  [ $(left) -gt 30 ] || return
  timeout $(($(left) - 5)) build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024,2048 \
    --out $R/bench-w8a8-$1.json "${@:2}" > $R/bench-w8a8-$1.txt 2>&1
  echo "bench w8a8 $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
lt builtin
lt tuned --config $R/tuned.yaml
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
