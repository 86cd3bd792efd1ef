# timeout: 450
# Session 50's call on main's head, mma_direct in policies/sm90.lua at M <= 8 (here first:
# tools/label-cache/build.sh build .exp/label-cache.txz -j2, tools/pack-device.sh build
# .exp/build.tgz, cp bench/sweeps/s50/s50-b.sh bench/sweeps/run-call.sh .exp/):
# 1. the gpu label (tests/gpu/test_gemm_direct.c among it);
# 2. M 1 / 8 / 16 beside Humming, two rounds: the built-in table (mma_direct 8 x 64 x 256 at M <= 8)
#    against the staged mma.sync tiles it replaced (bench/sweeps/s50/staged) and mma_direct tiles
#    c, d, e (bench/sweeps/s50/{c,d,e});
# 3. issue 8's and 9's other rows beside Humming, two rounds;
# 4. W8A8 beside cuBLASLt fp8 (hum bench);
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s50-b.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && timeout 230 ctest -L gpu -j16 --timeout 220 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
export HUM_CACHE_DIR=/tmp/cache
sbs() { # NAME CASES M [ARGS...]
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-$1.json --only $2 --m $3 \
    --rounds 2 --floor '' "${@:4}" > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
S=bench/sweeps/s50
sbs small w4g128,llama-4096x4096,llama-14336x4096,llama-4096x14336,w4g128zp,w8ch,w2ch 1,8,16 \
  --hum staged=$S/staged/hum.yaml --hum c=$S/c/hum.yaml --hum d=$S/d/hum.yaml --hum e=$S/e/hum.yaml
sbs w4g128 w4g128 32,64,128,256,512,1024,2048,4096,8192
sbs llama llama-4096x4096,llama-14336x4096,llama-4096x14336 128,1024
sbs quant w4g128bf16,w4g128zp,w8ch,w2ch,w8a8,w4a8mx 1,128,1024,8192
if [ $(left) -gt 30 ]; then
  timeout 40 build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024,2048,8192 \
    --out $R/w8a8.json --force > $R/w8a8.txt 2>&1
  echo "bench w8a8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
