# timeout: 490
# Session 29's closing call (bench/NOTES.md, "Session 29 (lead)"), for bench/sweeps/run-call.sh; .exp/build.tgz
# of main after the policy change (W8A8 M 385..1024 and W4A8 MXFP4 M 513..2048 whole where their row
# blocks fill the waves, stream-K elsewhere; uint2 above M = 384 with C in the last stage's slot and
# A multicast; HUM_LAYER_MAX_ENTRIES 16):
# 1. show.sh: the gpu label, then the rows the change touches (W8A8, W4A8 MXFP4, uint2 channel) and
#    Humming 0.1.20 and cuBLAS on the dense and quant rows (bench-humming.py) in the same call;
# 2. uint2 at M 512 / 2048 / 4096 (the rows' M list skips them);
# 3. for the next session, untimed so far, where time is left: W4A8 MXFP4 above M = 2048 and W8A8's
#    192-row entry above M = 1024 with every tile whole (site policies), M 2048 / 4096 / 8192.
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 300 ctest -L gpu -j12 --timeout 280 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
OUT=$R LABEL=0 BUDGET=$((470 - ($(date +%s) - t0))) HUMMING="dense quant" ROWS="w8a8 w4a8mx w2ch" bash bench/sweeps/show.sh build
echo "show done at $(($(date +%s) - t0)) s" >> $R/calls.txt
. bench/sweeps/site-policy.sh /tmp/cand
pol mxw "if e.m_min > 2048 then t = whole(t) end"
pol w8w "if e.m_min > 1024 then t = whole(t) end"
X=n=8192,k=8192
bench() { # CONFIG SPEC M
  left=$((480 - ($(date +%s) - t0))); [ $left -lt 15 ] && return
  echo "== $1 $2" >> $R/extra.txt
  HUM_CACHE_DIR=/tmp/x-$1-${2##*w=} timeout $left build/runtime/hum bench --config /tmp/cand/$1.yaml \
    --layer $2 --m $3 --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check|M 385|M 513|M 1025|M 2049' >> $R/extra.txt
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/extra.txt
}
bench base $X,w=uint2 512,2048,4096
for c in base mxw; do bench $c $X,w=e2m1,group=32,scale=e8m0,a=e4m3 4096,8192; done
for c in base w8w; do bench $c $X,w=e4m3,a=e4m3 2048,4096,8192; done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
