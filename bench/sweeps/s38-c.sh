# timeout: 530
# Session 38's last request, for bench/sweeps/run-call.sh, on main's head (.exp/build.tgz):
# 1. the gpu label;
# 2. the rows group_m changed (sm90.lua: groups of four m-blocks on the last wgmma entry where
#    K > 4096) beside Humming, side-by-side.py, two rounds in turn: uint4 g128 fp16, uint8 and uint2
#    channel, W8A8, W4A8 MXFP4, FP8 block-wise 8192 x 8192 at M 1024 / 4096 / 8192;
# 3. MXFP8 activations (a dense e4m3 layer under a=mxfp8, and the Qwen3-30B-A3B MoE layer under
#    moe.activation = mxfp8 beside it in bfloat16), M 1 / 128 / 1024; W8A8 beside cuBLASLt fp8.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s38-c.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
left() { echo $((B - ($(date +%s) - t0))); }
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 300 ctest -L gpu -j12 --timeout 290 \
  --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
bench() { # NAME TIMEOUT ARGS...
  n=$1 to=$2; shift 2
  [ $(left) -gt $((to + 10)) ] || { echo "=== $n skipped (time)" >> $R/bench.txt; return; }
  echo "=== $n: $*" >> $R/bench.txt
  HUM_CACHE_DIR=/tmp/c-$n timeout $to build/runtime/hum bench "$@" --warmup 10 --reps 50 >> $R/bench.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/bench.txt
}
printf 'overrides:\n  moe:\n    activation: mxfp8\n' > /tmp/mxfp8.yaml
moe=e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128
bench mxfp8-dense 40 --layer n=8192,k=8192,w=e4m3,a=mxfp8 --m 1,128,1024
bench moe-mxfp8 40 --config /tmp/mxfp8.yaml --moe $moe --m 1,128,1024
bench moe-bf16 40 --moe $moe --m 1,128,1024
bench w8a8 40 --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024,8192
echo "bench done at $(($(date +%s) - t0)) s" >> $R/calls.txt
t=$(($(left) - 5))
[ $t -gt 30 ] && PYTHONUNBUFFERED=1 timeout $t python3 bench/sweeps/side-by-side.py --out $R/side.json --rounds 2 \
  --only w4g128,w8ch,w2ch,w8a8,w4a8mx,fp8blk8192 --m 1024,4096,8192 --floor '' > $R/side.txt 2>&1
echo "side-by-side exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
