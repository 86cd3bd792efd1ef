# timeout: 580
# Session 34's third request (bench/sweeps/run-call.sh): four wgmma fragment buffers
# (bench/sweeps/s34/frag-bufs.patch, in .exp/fb/kernels: step kk decodes into buffer kk % 4 and
# waits for all but three groups, so three stay queued on the tensor cores while the next fragment
# is decoded, where the fragments fit beside the accumulators: the 16-bit A kernels, MXFP4's block
# K 256 tiles, MoE) against the head's kernels (the build, 3b51682), through HUM_KERNEL_PATH, two
# rounds in turn; .exp/fb4/kernels the same without the register condition (MXFP4's 192- and
# 256-row tiles then spill ~100 bytes in their loop: does the queue pay for that?). Then the gpu
# label with HUM_KERNEL_PATH=.exp/fb/kernels (the patch's kernels; libhum is the head's).
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s34-c.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
FB=$PWD/.exp/fb/kernels FB4=$PWD/.exp/fb4/kernels
run() { # LABEL KERNEL_PATH(empty: built in) CACHE --layer|--moe SPEC M
  [ $((B - 200 - ($(date +%s) - t0))) -gt 20 ] || { echo "== $1 $5 skipped (time)" >> $R/ab.txt; return; }
  echo "== $1 $5" >> $R/ab.txt
  env ${2:+HUM_KERNEL_PATH=$2} HUM_CACHE_DIR=/tmp/c-$3 timeout 60 build/runtime/hum bench $4 $5 --m $6 \
    --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |FAIL|rror|check' >> $R/ab.txt
}
for round in 1 2; do
  for c in "--layer n=8192,k=8192,w=uint4,a=float16,group=128 32,64,128,256,512,1024,8192" \
    "--layer n=8192,k=8192,w=uint8,a=float16 128,1024,8192" "--layer n=8192,k=8192,w=uint2,a=float16 128,1024" \
    "--layer n=8192,k=8192,w=uint4,a=bfloat16,group=128 128,1024" "--layer n=4096,k=4096,w=uint4,a=float16,group=128 128,1024" \
    "--layer n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0 16,64,128" \
    "--moe e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128 128,1024"; do
    set -- $c
    run "head $round" "" head $1 $2 $3
    run "fb $round" $FB fb $1 $2 $3
  done
  mx=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
  run "head $round" "" head --layer $mx 1024,8192
  run "fb4 $round" $FB4 fb4 --layer $mx 1024,8192
  echo "round $round done at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
left=$((B - ($(date +%s) - t0)))
(cd build && HUM_KERNEL_PATH=$FB HUM_CACHE_DIR=/tmp/label-cache timeout $((left - 5)) ctest -L gpu -j12 --timeout 300 --output-on-failure) > $R/label.txt 2>&1
echo "label (HUM_KERNEL_PATH=.exp/fb/kernels) exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
