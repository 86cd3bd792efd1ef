# timeout: 570
# The next session's first call (prepared in session 53), on main's head with
# bench/sweeps/s54/moe-strided-hidden.patch applied (tests/gpu/moe_forward.c: host-quantized hidden
# with rows of codes and scales a stride apart under chunking; compiled here, not yet run on a
# GPU: commit it once the label passes). Here first: git apply it, build (Release); the label
# cache .exp/label-cache.txz built in session 53 at 0e3912c still matches if no kernel source,
# policy or test changed since (else tools/label-cache/build.sh build .exp/label-cache.txz -j2,
# ~31 min on 2 cores); tools/pack-device.sh build .exp/build.tgz; cp bench/sweeps/s54/s54-a.sh
# bench/sweeps/run-call.sh bench/sweeps/call-lib.sh .exp/; then OUT=$OUT bash .exp/run-call.sh
# s54-a with .gpu-libs, .whl, .exp and tools-shared carried. Ask for nvidia-h200: issue 8's and
# 9's rows have no H200 figures since session 51.
# 1. the gpu label;
# 2. issue 8's small-M rows and the 8192 x 8192 sweep beside Humming, three rounds; the 4096 x 14336
#    layer at M 1 / 8 on s51/g's 8 x 128 x 256 mma_direct tiles (s50-b on an H100: 23.42 against the
#    staged tiles' 23.65, Humming 23.49 .. 23.58);
# 3. issue 9's rows (W8A8, W4A8 MXFP4, FP8 block-wise) beside Humming, and W8A8 beside cuBLASLt fp8;
# 4. FP8 block-wise experts (their default since 1afc20e: A per 1 x 128 group) against the same
#    experts on 16-bit A, hum bench --moe.
set -u
CALL=s54-a ROUNDS=3
. .exp/call-lib.sh
(cd build && timeout 180 ctest -L gpu -j16 --timeout 170 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
export HUM_CACHE_DIR=/tmp/cache
sbs small w4g128,w4g128zp,w4g128bf16,w8ch,w2ch,llama-4096x4096,llama-14336x4096,llama-4096x14336 1,8,16 \
  --hum g=bench/sweeps/s51/g/hum.yaml:llama-4096x14336
sbs w4g128 w4g128 32,64,128,256,512,1024,2048,4096,8192
sbs a8 w8a8,w4a8mx,fp8blk7168,fp8blk8192 1,128,1024,8192
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
