# timeout: 300
# The call session 51 had no device time left for (s51-b, c: no machine), for the next session:
# mma_direct's lean loader on the GPU. Here first: git apply bench/sweeps/s51/direct-lean-loader.patch,
# build, tools/label-cache/build.sh build .exp/label-cache.txz -j2 (~26 min; HUM_FAKE_DEVICE_NAME
# "NVIDIA H200" fills it with the H200's tiles, the default with the H100's), tools/pack-device.sh
# build .exp/build.tgz, cp bench/sweeps/s51/s51-c.sh bench/sweeps/run-call.sh .exp/:
# 1. the gpu label on the patch;
# 2. M 1 / 8 beside Humming, two rounds: the built-in (since 6427004: staged tiles for 4-bit codes
#    off the H100, mma_direct for 8-bit with the ring the fit leaves, 5), mma_direct with rings
#    of 8 (bench/sweeps/s50/d) and 4 (bench/sweeps/s51/ring4), and the staged tiles everywhere
#    (bench/sweeps/s50/staged);
# 3. compute-sanitizer memcheck of an M = 1 / 3 forward on mma_direct;
# 4. while time is left, issue 8's and 9's other rows beside Humming, two rounds.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s51-c.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && timeout 140 ctest -L gpu -j16 --timeout 135 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
export HUM_CACHE_DIR=/tmp/cache
sbs() { # NAME CASES M [ARGS...]
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-$1.json --only $2 --m $3 \
    --rounds 2 --floor '' "${@:4}" > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
S=bench/sweeps
sbs ring w4g128,w4g128zp,w8ch 1,8 --hum staged=$S/s50/staged/hum.yaml --hum ring8=$S/s50/d/hum.yaml \
  --hum ring4=$S/s51/ring4/hum.yaml
if [ $(left) -gt 45 ]; then
  timeout 40 compute-sanitizer --tool memcheck build/runtime/hum bench --config $S/s50/d/hum.yaml \
    --layer n=8192,k=8192,w=uint4,a=float16,group=128,zp=int --m 1,3 --warmup 1 --reps 2 --out /tmp/memcheck.json \
    --force > $R/memcheck.txt 2>&1
  echo "memcheck exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
sbs small llama-4096x4096,llama-14336x4096,llama-4096x14336,w2ch,w4g128,w4g128zp,w4g128bf16,w8ch 1,8,16
sbs w4g128 w4g128 32,64,128,256,512,1024,2048,4096,8192
sbs llama llama-4096x4096,llama-14336x4096,llama-4096x14336 128,1024
sbs quant w4g128bf16,w4g128zp,w8ch,w2ch 128,1024,8192
sbs a8 w8a8,w4a8mx 1,128,1024,8192
if [ $(left) -gt 30 ]; then
  timeout 40 build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024,2048,8192 \
    --out $R/w8a8.json --force > $R/w8a8.txt 2>&1
  echo "bench w8a8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
