# timeout: 560
# weights_ss (W8A8 e4m3 weights by TMA as wgmma's shared-memory operand) on the branch weights-ss,
# for bench/sweeps/run-call.sh; .exp/build.tgz of its head (Release build, tools/pack-device.sh).
# 1. W8A8 n = k = 8192 beside cuBLASLt fp8: the built-in table (every wgmma_ws entry weights_ss)
#    against the same table with the weights as register fragments (site policy `rs`), two rounds;
# 2. Humming 0.1.20's quant rows (W8A8 fp8, W4A8 MXFP4) in the same call;
# 3. the gpu label (the new plane layout of 8-bit codes for 8-bit A runs in every W8A8 and int8
#    kernel, mma.sync and expert GEMMs included), in the time left.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s31-b.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
. bench/sweeps/site-policy.sh /tmp/cand
pol rs "t.weights_ss = false"
X=n=8192,k=8192,w=e4m3,a=e4m3
for round in 1 2; do
  for c in base rs; do
    echo "== $c round $round" >> $R/ab.txt
    HUM_CACHE_DIR=/tmp/ab-$c timeout 60 build/runtime/hum bench --config /tmp/cand/$c.yaml --layer $X \
      --m 1,16,32,64,128,256,384,512,768,1024,2048,4096,8192 --warmup 10 --reps 50 2>&1 \
      | grep -E '^ +[0-9]+ |check|M [0-9]' >> $R/ab.txt
  done
done
echo "ab done at $(($(date +%s) - t0)) s" >> $R/calls.txt
PYTHONUNBUFFERED=1 timeout 60 python3 tools-shared/bench-humming.py --only quant > $R/humming-quant.txt 2>&1
echo "humming done at $(($(date +%s) - t0)) s" >> $R/calls.txt
left=$((B - ($(date +%s) - t0) - 15))
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout $left ctest -L gpu -j12 --timeout $((left - 5)) --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
