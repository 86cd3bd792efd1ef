# timeout: 590
# Session 37's second request, for bench/sweeps/run-call.sh, on main's Release build (block-wise's
# M 129..1024 entry of 6 stages with C in the last slot, s37-a's pick):
# 1. the gpu label;
# 2. FP8 block-wise beside Humming's block path, 7168 x 2048 and 8192 x 8192, M 1 / 128 / 1024 /
#    8192, two rounds, with hum-q (A quantized in 1 x 128 groups before the timed call, as
#    Humming's rows are): how much of hum's lag at M 1 / 128 on 7168 x 2048 is the quantizer;
# 3. block-wise candidates at M <= 128 (site policies): W8A8's 64-column tiles (8 / 16 rows on
#    mma.sync, eight stages; 32 x 64 x 256 / 6, 64 x 64 x 256 / 5, 128 x 64 x 128 / 6 on wgmma_ws
#    with weights by TMA) whole (fill64) or under stream-K summed in the workspace (sk64);
# 4. ncu --set full of hum and Humming, uint8 and uint2 channel fp16 at n = k = 8192, M = 8192
#    (issue 8's last cells; s36-a, H200: hum 1682 / 1472 against 1599 / 1434 us). ncu locks the
#    clock: compare cycles, tensor-pipe share and stalls, not the times.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s37-b.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
left() { echo $((B - ($(date +%s) - t0))); }
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 280 ctest -L gpu -j12 --timeout 240 \
  --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
timeout $(($(left) - 5)) python3 bench/sweeps/side-by-side.py --out $R/sbs-fp8blk.json --rounds 2 --floor '' \
  --only fp8blk7168,fp8blk8192 > $R/sbs-fp8blk.txt 2>&1
echo "side-by-side fp8 block exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
run() { # LABEL LAYER M [ARGS]
  [ $(left) -gt 40 ] || { echo "== $1 $2 skipped (time)" >> $R/ab.txt; return; }
  echo "== $1 $2" >> $R/ab.txt
  HUM_CACHE_DIR=/tmp/c-$1 timeout 60 build/runtime/hum bench --layer $2 --m $3 --warmup 10 --reps 50 ${4:-} 2>&1 \
    | grep -E '^ +[0-9]+ |FAIL|rror|check' >> $R/ab.txt
}
. bench/sweeps/site-policy.sh /tmp/sp
T="if e.m_max <= 8 then t = mma(8, 64, 256, 8, 32, 64, 8) elseif e.m_max <= 16 then t = mma(16, 64, 256, 16, 32, 64, 8)
  elseif e.m_max <= 32 then t = wg('wgmma_ws', 32, 64, 256, 6) elseif e.m_max <= 64 then t = wg('wgmma_ws', 64, 64, 256, 5)
  elseif e.m_max <= 128 then t = wg('wgmma_ws', 128, 64, 128, 6) end
  if e.m_max <= 128 and t.kernel == 'wgmma_ws' then t.weights_ss = true end"
pol sk64 "$T"
pol fill64 "$T; if e.m_max <= 128 then whole(t) end"
blk=w=e4m3,a=e4m3,block=128x128,ascale=group128
for l in n=7168,k=2048 n=8192,k=8192; do
  for c in base sk64 fill64; do
    run $c $l,$blk 1,8,16,32,64,128 "--config /tmp/sp/$c.yaml"
  done
done
echo "candidates done at $(($(date +%s) - t0)) s" >> $R/calls.txt
profile() { # IMPL CASE
  local name=$1-$2-8192
  [ $(left) -gt 90 ] || { echo "$name skipped (time)" >> $R/calls.txt; return; }
  HUM_CACHE_DIR=/tmp/ncu-cache timeout $(($(left) - 10)) ncu --set full --import-source no --nvtx \
    --nvtx-include "ncu/" -c 2 -o $R/$name python3 bench/sweeps/side-by-side.py --ncu --impl $1 --only $2 \
    --m 8192 --rounds 1 --floor '' --out $R/$name.json > $R/$name.log 2>&1
  echo "$name exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/$name.ncu-rep --page details --print-units base > $R/$name.txt 2>&1
  if [ $1 = hum ]; then
    ncu -i $R/$name.ncu-rep -k regex:hum_gemm --page source --csv --print-source sass 2>/dev/null \
      | gzip > $R/$name-sass.csv.gz
    python3 bench/sweeps/ncu-stalls.py $R/$name-sass.csv.gz 40 > $R/$name-stalls.txt 2>&1
  fi
  rm -f $R/$name.ncu-rep
}
for c in w8ch w2ch; do
  profile hum $c
  profile humming $c
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
