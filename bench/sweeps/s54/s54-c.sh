# timeout: 570
# Session 54's first call (session 53's s54-a plan, which no device was lent for, on main at the
# W4A8 int8-groups commit 5c6946e and later): here first tools/pack-device.sh build
# .exp/build.tgz and tools/label-cache/build.sh build .exp/label-cache.txz -j2 (every kernel's
# source changed), cp bench/sweeps/s54/s54-c.sh bench/sweeps/run-call.sh bench/sweeps/call-lib.sh
# .exp/; then OUT=$OUT bash .exp/run-call.sh s54-c with .gpu-libs, .whl, .exp and tools-shared carried.
# 1. the gpu label (test_gemm_a8: int8 A over uint4 / uint8 weight groups of 32, 64, 128;
#    test_expert_gemm: int8 x uint4 g128 experts; moe_forward: host-quantized hidden a stride
#    apart under chunking);
# 2. issue 8's small-M rows beside Humming, three rounds (4096 x 14336 also on s51/g's 8 x 128 x 256
#    mma_direct tiles), and the 8192 x 8192 sweep;
# 3. issue 9's rows beside Humming: W8A8, W4A8 MXFP4, W4A8 int8 x uint4 g128 (new), FP8 block-wise;
#    W8A8 beside cuBLASLt fp8;
# 4. FP8 block-wise experts on their default (A per 1 x 128 group) against 16-bit A, hum bench --moe.
set -u
CALL=s54-c ROUNDS=3
. .exp/call-lib.sh
(cd build && timeout 200 ctest -L gpu -j16 --timeout 190 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
export HUM_CACHE_DIR=/tmp/cache
sbs small w4g128,w4g128zp,w4g128bf16,w8ch,w2ch,llama-4096x4096,llama-14336x4096,llama-4096x14336 1,8,16 \
  --hum g=bench/sweeps/s51/g/hum.yaml:llama-4096x14336
sbs a8 w8a8,w4a8mx,w4a8int,fp8blk7168,fp8blk8192 1,128,1024,8192
sbs w4g128 w4g128 32,64,128,256,512,1024,2048,4096,8192
if [ $(left) -gt 50 ]; then
  timeout 45 build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024,2048,8192 \
    --out $R/w8a8.json --force > $R/w8a8.txt 2>&1
  echo "bench w8a8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
for a in e4m3,ascale=group128 bfloat16; do
  [ $(left) -gt 40 ] || break
  timeout $(($(left) - 5)) build/runtime/hum bench --moe e=128,topk=8,n=1536,k=2048,w=e4m3,a=$a,block=128x128 \
    --m 1,128,1024 --out $R/moe-fp8blk-${a%%,*}.json --force > $R/moe-fp8blk-${a%%,*}.txt 2>&1
  echo "bench moe a=$a exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
