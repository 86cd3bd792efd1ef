# timeout: 570
# The next session's first request (bench/NOTES.md, "Session 32 (lead)", Next), for
# bench/sweeps/run-call.sh, with main's head in .exp/build.tgz and 20f2fce's build (the code s32-d
# labelled; tools/pack-device.sh of a build of `git worktree add /tmp/w 20f2fce`) in .exp/main.tgz:
# 1. the gpu label on main's head (6669342's SS descriptors once a stage and a5005e0's uniform warp
#    indices, in every wgmma kernel, have not run on a GPU);
# 2. 20f2fce against the head, with hum bench's float64 checks: W8A8 n = k = 8192 across its SS
#    entries (a second round at M 1024 / 8192), uint4 g128 fp16, W4A8 MXFP4, uint8 and uint2
#    channel (every wgmma family: fewer instructions a stage, bench/NOTES.md "Session 32"); FP8
#    block-wise 7168 x 2048 on the head;
# 3. ncu --set full at M = 1024: hum's W8A8 GEMM (kBatch, uniform descriptors), cuBLASLt fp8's
#    kernel on the same card, and hum's W4A8 MXFP4 GEMM (1.083x Humming in s32-c; its 256-row
#    stream-K kernel reloads a spilled register at the top of every stage).
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s33-a.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 350 ctest -L gpu -j12 --timeout 340 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
mkdir -p /tmp/mainb && tar xzf .exp/main.tgz -C /tmp/mainb
X=n=8192,k=8192,w=e4m3,a=e4m3
run() { # LABEL HUM CACHE ARGS...
  echo "== $1" >> $R/ab.txt
  local h=$2 c=$3; shift 3
  HUM_CACHE_DIR=/tmp/c-$c timeout 40 $h bench "$@" --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check|FAIL|error' >> $R/ab.txt
}
for spec in $X n=8192,k=8192,w=uint4,a=float16,group=128 n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0 \
  n=8192,k=8192,w=uint8,a=float16 n=8192,k=8192,w=uint2,a=float16; do
  run "20f2fce $spec" /tmp/mainb/runtime/hum main --layer $spec --m 32,64,128,256,384,512,1024,8192
  run "head $spec" build/runtime/hum head --layer $spec --m 32,64,128,256,384,512,1024,8192
done
run "20f2fce round 2" /tmp/mainb/runtime/hum main --layer $X --m 1024,8192
run "head round 2" build/runtime/hum head --layer $X --m 1024,8192
run "head fp8blk" build/runtime/hum head --layer n=7168,k=2048,w=e4m3,a=e4m3,block=128x128,ascale=group128 --m 32,128,1024
echo "ab done at $(($(date +%s) - t0)) s" >> $R/calls.txt
profile() { # NAME CASE: side-by-side.py's hum GEMM at M = 1024 under ncu
  local name=$1 left=$((B - ($(date +%s) - t0)))
  [ $left -gt 70 ] || return
  HUM_CACHE_DIR=/tmp/ncu-cache timeout $((left - 10)) ncu --set full --import-source no --nvtx --nvtx-include "ncu/" \
    -c 3 -o $R/$name python3 bench/sweeps/side-by-side.py --ncu --impl hum --only $2 --m 1024 --rounds 1 \
    --floor '' --out $R/$name.json > $R/$name.log 2>&1
  echo "$name exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/$name.ncu-rep --page details --print-units base > $R/$name.txt 2>&1
  ncu -i $R/$name.ncu-rep -k regex:hum_gemm --page source --csv --print-source sass 2>/dev/null | gzip > $R/$name-sass.csv.gz
  python3 bench/sweeps/ncu-stalls.py $R/$name-sass.csv.gz 40 > $R/$name-stalls.txt 2>&1
  rm -f $R/$name.ncu-rep
}
profile hum-w8a8-1024 w8a8
name=cublaslt-w8a8-1024; left=$((B - ($(date +%s) - t0)))
if [ $left -gt 60 ]; then
  HUM_CACHE_DIR=/tmp/ncu-cache timeout $((left - 10)) ncu --set full --kernel-name-base demangled \
    -k 'regex:^(?!.*hum_)' -c 4 -o $R/$name build/runtime/hum bench --layer $X --m 1024 --warmup 1 --reps 1 \
    > $R/$name.log 2>&1
  echo "$name exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/$name.ncu-rep --page details --print-units base > $R/$name.txt 2>&1
  rm -f $R/$name.ncu-rep
fi
profile hum-w4a8-1024 w4a8mx
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
