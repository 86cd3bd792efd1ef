# timeout: 560
# Session 48's second call (bench/sweeps/run-call.sh), on 9c9ac72: sm90.lua stages C in the last
# stage's slot for 3- and 4-bit codes above M = 384 and for W8A8's 192-row tiles (s48-a's A/B).
# 1. the gpu label on it;
# 2. `hum tune` of the cells s48-a read behind or level with Humming (H100): Llama 4096 x 14336
#    at M 1 / 16 / 128 / 256 (1.015 / 1.000 / 1.005), uint8 and uint2 channel 8192 x 8192 at
#    M 1024 / 8192 (1.002 / 1.011 at 8192);
# 3. issue 8's tables and issue 9's rows beside Humming 0.1.20, two rounds, the tuned files as
#    a column of their own.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s48-b.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && timeout 220 ctest -L gpu -j16 --timeout 210 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
export HUM_CACHE_DIR=/tmp/cache
mkdir -p $R/site && echo "policy_paths: [site]" > $R/tuned.yaml
tune() { # NAME SPEC M BUDGET
  timeout $(($4 + 30)) build/runtime/hum tune --layer $2 --m $3 --budget $4 --out $R/site/tuned-$1.lua \
    > $R/tune-$1.txt 2>&1
  echo "tune $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
tune l14336 n=4096,k=14336,w=uint4,a=float16,group=128 1,16,128,256 50
tune w8ch n=8192,k=8192,w=uint8,a=float16 1024,8192 40
tune w2ch n=8192,k=8192,w=uint2,a=float16 1024,8192 40
sbs() { # NAME CASES M [ARGS...]
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-$1.json --only $2 --m $3 \
    --rounds 2 --floor '' "${@:4}" > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs llama llama-4096x4096,llama-14336x4096,llama-4096x14336 1,16,128,1024 --hum tuned=$R/tuned.yaml
sbs quant w8ch,w2ch,w4g128bf16,w4g128zp,w8a8,w4a8mx 1,128,1024,8192 --hum tuned=$R/tuned.yaml
sbs w4g128 w4g128 1,16,32,64,128,256,512,1024,2048,4096,8192
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
