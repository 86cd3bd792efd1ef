# timeout: 420
# Session 17 call 1 (main 5016260 + bench/sweeps/quant-split.py): the gpu label on main as it stands, then
# how much of W8A8 / W4A8 MXFP4 at M <= 16 is the quantizer's (16-bit x against x already quantized).
set -u
t0=$(date +%s)
OUT=$R/show ROWS=none HUMMING= BUDGET=300 bash bench/sweeps/show.sh build > $R/show.txt 2>&1
echo "label done at $(($(date +%s) - t0)) s" >> $R/show.txt
HUM_LIBRARY=build/runtime/libhum.so PYTHONPATH=python:${PYTHONPATH:-} HUM_CACHE_DIR=/tmp/qs timeout 150 python3 bench/sweeps/quant-split.py \
  --m 1,2,4,8,16,64 n=8192,k=8192,w=e4m3,a=e4m3 n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0 > $R/split.txt 2>&1
echo "split exit $? at $(($(date +%s) - t0)) s" >> $R/split.txt
