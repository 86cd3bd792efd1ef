# timeout: 330
# Session 53's closing call, on main's head (no patch): here first, build (Release),
# tools/label-cache/build.sh build .exp/label-cache.txz -j2 (the default H100 tiles; an H200 compiles
# its few other M <= 8 kernels there), tools/pack-device.sh build .exp/build.tgz, cp
# bench/sweeps/s53/s53-b.sh bench/sweeps/run-call.sh .exp/, then OUT=$OUT bash .exp/run-call.sh s53-b
# with .gpu-libs, .whl, .exp and tools-shared carried:
# 1. the gpu label (FP8 block-wise experts by default, host-quantized MoE hidden: moe_forward,
#    test_expert_gemm);
# 2. the binding's GPU tests of MoE layers (pytest -k moe: host-quantized hidden among them);
# 3. issue 8's and 9's rows beside Humming, three rounds, while time is left (the device time
#    left: 330 s): M 1 / 8 / 16 of the small cases, the 8192 x 8192 uint4 g128 sweep, W8A8, W4A8
#    MXFP4 and FP8 block-wise (7168 x 2048, 8192 x 8192), the other weight types, Llama shapes;
# 4. hum bench of W8A8 beside cuBLASLt fp8; hum bench --moe of FP8 block-wise experts (the new
#    default, A per 1 x 128 group) beside the same experts on 16-bit A.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s53-b.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && timeout 180 ctest -L gpu -j16 --timeout 170 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
HUM_CACHE_DIR=/tmp/pycache timeout 60 python3 -m pytest -q -p no:cacheprovider -rs python/tests/test_gpu.py -k moe \
  > $R/pytest-moe.txt 2>&1
echo "pytest moe exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
export HUM_CACHE_DIR=/tmp/cache
sbs() { # NAME CASES M [ARGS...]
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-$1.json --only $2 --m $3 \
    --rounds 3 --floor '' "${@:4}" > $R/sbs-$1.txt 2>&1
  echo "sbs $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs small w4g128,w4g128zp,w4g128bf16,w8ch,w2ch,llama-4096x4096,llama-14336x4096,llama-4096x14336 1,8,16
sbs w4g128 w4g128 32,64,128,256,512,1024,2048,4096,8192
sbs a8 w8a8,w4a8mx,fp8blk7168,fp8blk8192 1,128,1024,8192
if [ $(left) -gt 50 ]; then
  timeout 45 build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024,2048,8192 \
    --out $R/w8a8.json --force > $R/w8a8.txt 2>&1
  echo "bench w8a8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
sbs quant w4g128bf16,w4g128zp,w8ch,w2ch 128,1024,8192
sbs llama llama-4096x4096,llama-14336x4096,llama-4096x14336 128,1024
for a in e4m3,ascale=group128 bfloat16; do
  [ $(left) -gt 40 ] || break
  timeout $(($(left) - 5)) build/runtime/hum bench --moe e=128,topk=8,n=1536,k=2048,w=e4m3,a=$a,block=128x128 \
    --m 1,128,1024 --out $R/moe-fp8blk-${a%%,*}.json --force > $R/moe-fp8blk-${a%%,*}.txt 2>&1
  echo "bench moe a=$a exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
