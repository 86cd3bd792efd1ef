# timeout: 300
# For the next session's first call (session 46 had too little device time left to start a third
# machine; bench/sweeps/run-call.sh), on main's head, whose kernels are s46-a's (the gpu label
# passed there on an H200): issue 8's cells still behind Humming on the H200 in s46-b (two rounds):
# 1. `hum tune` of Llama 4096 x 4096 at M 9 / 16 with wgmma_ws 16-row and whole 8-row mma.sync
#    tiles added to the grid (bench/sweeps/s46/wgmma16-candidates.lua; s46-b's tune over the
#    mma.sync grid kept the table's tile, 1.02 behind Humming); of uint2 channel 8192 x 8192 at
#    M 1 (1.025 behind, within a round's spread);
# 2. those cells with the tuned files beside the built-in and Humming, three rounds;
# 3. uint8 and uint2 channel at M = 8192 (1.006 / 1.013 behind in s46-b), three rounds.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s47-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
export HUM_CACHE_DIR=/tmp/cache
mkdir -p $R/site && echo "policy_paths: [site]" > $R/tuned.yaml
tune() { # NAME SPEC M BUDGET [ARGS...]
  timeout $(($4 + 30)) build/runtime/hum tune --layer $2 --m $3 --budget $4 --out $R/site/tuned-$1.lua "${@:5}" \
    > $R/tune-$1.txt 2>&1
  echo "tune $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
tune l4096 n=4096,k=4096,w=uint4,a=float16,group=128 9,16 45 --candidates bench/sweeps/s46/wgmma16-candidates.lua
tune w2ch n=8192,k=8192,w=uint2,a=float16 1 30
sbs() { # NAME CASES M ROUNDS [ARGS...]
  [ $(left) -gt 30 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-$1.json --only $2 --m $3 \
    --rounds $4 --floor '' "${@:5}" > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs l4096 llama-4096x4096 9,16 3 --hum tuned=$R/tuned.yaml
sbs w2ch1 w2ch 1 3 --hum tuned=$R/tuned.yaml
sbs ch8192 w8ch,w2ch 8192 3
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
