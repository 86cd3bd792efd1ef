# timeout: 570
# Session 25's request (bench/NOTES.md, "Session 25 (lead)"; no device was lent in session 25), for
# bench/sweeps/run-call.sh (copy it to .exp/NAME.sh, build .exp/build.tgz from branch c-tile):
# 1. the gpu label, with its new c_tile "stage" passes (test_gemm_wgmma, test_expert_gemm);
# 2. compute-sanitizer racecheck / synccheck / memcheck of the wgmma_ws kernels with C staged in the
#    last stage's slot (every wgmma_ws entry of the built-in tables, site policy `all`: stream-K
#    summed through the output at M = 20, in the workspace at 100, whole 256-row tiles at 1024) and
#    the built-in ones beside;
# 3. hum bench (every M checked against float64) of the tiles a table would take: uint8 channel
#    256 x 128 x 64 on five stages, uint4 g128 256 x 128 x 128 on three;
# Then bench/sweeps/s25-tiles.sh times the candidates beside Humming, and s24-ncu.sh profiles.
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && timeout 290 ctest -L gpu -j12 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
. bench/sweeps/site-policy.sh /tmp/cand
BIG='e.m_min > 384'
pol all "if t.kernel == 'wgmma_ws' then t.c_tile = 'stage' end"
pol u8s5 "if $BIG then t.c_tile = 'stage'; t.stages = 5 end"
pol s3 "if $BIG then t.c_tile = 'stage'; t.stages = 3 end"
H=build/runtime/hum
for spec in n=8192,k=8192,w=uint8 n=8192,k=8192,w=uint4,group=128; do
  $H info --config /tmp/cand/all.yaml --arch sm_90a --layer $spec >> $R/tables.txt 2>&1
done
SAN=(python3 bench/sweeps/side-by-side.py --ncu --impl hum --only w4g128,w8ch --m 20,100,1024 --rounds 1 --floor ''
     --hum all=/tmp/cand/all.yaml)
HUM_CACHE_DIR=/tmp/san-cache timeout 50 "${SAN[@]}" --out $R/san-warm.json > $R/san-warm.txt 2>&1  # compiles the kernels
echo "warm exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
for tool in racecheck:60 synccheck:40 memcheck:40; do
  HUM_CACHE_DIR=/tmp/san-cache timeout ${tool#*:} compute-sanitizer --tool ${tool%:*} --print-limit 20 "${SAN[@]}" \
    --out $R/san-${tool%:*}.json > $R/san-${tool%:*}.txt 2>&1
  echo "${tool%:*} exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
HUM_CACHE_DIR=/tmp/sbs-cache timeout 35 $H bench --config /tmp/cand/u8s5.yaml --layer n=8192,k=8192,w=uint8 \
  --m 512,8192 --warmup 5 --reps 20 --out $R/bench-u8s5.json > $R/bench-u8s5.txt 2>&1
echo "bench u8s5 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
HUM_CACHE_DIR=/tmp/sbs-cache timeout 35 $H bench --config /tmp/cand/s3.yaml --layer n=8192,k=8192,w=uint4,group=128 \
  --m 512,8192 --warmup 5 --reps 20 --out $R/bench-s3.json > $R/bench-s3.txt 2>&1
echo "bench s3 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
