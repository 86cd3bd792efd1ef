# timeout: 150
# Session 47's spare call (bench/sweeps/run-call.sh), build c44750f (main's head's code): Llama
# 4096 x 14336 uint4 g128 at M = 1, the one issue-8 cell behind Humming in s47-d (H100, 23.79
# against 23.42): `hum tune` at M 1 / 8, then the tuned file beside the built-in and Humming, two
# rounds.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s47-e.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
export HUM_CACHE_DIR=/tmp/cache
mkdir -p $R/site && echo "policy_paths: [site]" > $R/tuned.yaml
timeout 60 build/runtime/hum tune --layer n=4096,k=14336,w=uint4,a=float16,group=128 --m 1,8 --budget 40 \
  --out $R/site/tuned-l4096x14336.lua > $R/tune.txt 2>&1
echo "tune exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs.json --only llama-4096x14336 \
  --m 1,8 --rounds 2 --floor '' --hum tuned=$R/tuned.yaml > $R/sbs.txt 2>&1
echo "sbs exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
