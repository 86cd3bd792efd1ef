# timeout: 585
# Session 33's last request, for bench/sweeps/run-call.sh, on main's head (b6453cc's policies: uint8
# with 16-bit A on 192-row tiles at M 129..192 and 257..384, W4A8 MXFP4 on 192-row tiles at M
# 513..768): 1. the gpu label; 2. the new entries' M ranges with hum bench's checks; 3. the open
# issues' rows that changed or sat above Humming in s32-c (uint8 and uint2 channel, W4A8 MXFP4,
# W8A8) beside Humming 0.1.20 and cuBLAS (bench/sweeps/show.sh without its label), in the time left.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s33-e.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 335 ctest -L gpu -j12 --timeout 325 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
run() { # LAYER M
  echo "== $1" >> $R/ab.txt
  HUM_CACHE_DIR=/tmp/c-head timeout 40 build/runtime/hum bench --layer $1 --m $2 --warmup 10 --reps 50 2>&1 \
    | grep -E '^ +[0-9]+ |check|rror' >> $R/ab.txt
}
run n=8192,k=8192,w=uint8,a=float16 160,192,224,256,288,320,352,384
run n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0 544,576,640,704,768,832,1024
echo "ab done at $(($(date +%s) - t0)) s" >> $R/calls.txt
left=$((B - ($(date +%s) - t0)))
OUT=$R/show LABEL=0 BUDGET=$left HUMMING="dense quant" ROWS="w8ch w2ch w4a8mx w8a8" \
  bash bench/sweeps/show.sh build > $R/show.log 2>&1
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
