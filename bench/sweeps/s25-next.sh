# timeout: 580
# Session 25's first request (bench/NOTES.md, "Session 25 (lead)"; no device was lent in session 25),
# for bench/sweeps/run-call.sh (copy it to .exp/NAME.sh; .exp/build.tgz of branch mcast-a, which holds
# branch c-tile): the correctness of both branches' kernels, none of which has run on a GPU yet.
# 1. the gpu label, every test cut at 260 s (a multicast hang would hold the GPU until then): c_tile
#    "stage" passes in test_gemm_wgmma (now four shards), test_gemm_a8 (c_tile), test_gemm_kgroup and
#    test_expert_gemm; A multicast passes in test_gemm_wgmma (last in each shard) and test_gemm_a8;
# 2. compute-sanitizer racecheck / synccheck of the wgmma_ws kernels with C staged in the last
#    stage's slot (site policy `all`: every wgmma_ws entry of the built-in tables; stream-K summed
#    through the output at M = 20, in the workspace at 100, whole 256-row tiles at 1024) and with A
#    multicast above M = 384 (site policy `mc`) and on every wgmma_ws entry (`mcall`: stream-K slices of
#    a cluster at M 20 / 100), beside the built-in ones;
# 3. hum bench (every M checked against float64) of tiles a table would take: uint8 channel 256 x
#    128 x 64 on five stages with C in the stage, with and without A multicast; uint4 g128 256 x 128 x
#    128 on three; uint4 g128 with multicast on every wgmma_ws entry at M 20 / 100 / 1024.
# Then bench/sweeps/s25-tiles.sh (C in the stage beside Humming) and s25-mcast.sh (A multicast).
set -u
t0=$(date +%s)
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && timeout 300 ctest -L gpu -j12 --timeout 260 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
. bench/sweeps/site-policy.sh /tmp/cand
BIG='e.m_min > 384'; S="t.c_tile = 'stage'"; MC='t.multicast_a = true'
pol all "if t.kernel == 'wgmma_ws' then $S end"
pol mc "if $BIG then $MC end"
pol mcall "if t.kernel == 'wgmma_ws' then $MC end"
pol u8s5 "if $BIG then $S; t.stages = 5 end"
pol mcs5 "if $BIG then $MC; $S; t.stages = 5 end"
pol s3 "if $BIG then $S; t.stages = 3 end"
H=build/runtime/hum
for cw in all:uint8 all:uint4,group=128 mc:uint8 u8s5:uint8 mcs5:uint8 s3:uint4,group=128; do
  echo "== $cw" >> $R/tables.txt
  $H info --config /tmp/cand/${cw%%:*}.yaml --arch sm_90a --layer n=8192,k=8192,w=${cw#*:} >> $R/tables.txt 2>&1
done
SAN=(python3 bench/sweeps/side-by-side.py --ncu --impl hum --only w4g128,w8ch --m 20,100,1024 --rounds 1 --floor ''
     --hum all=/tmp/cand/all.yaml --hum mc=/tmp/cand/mc.yaml:w8ch --hum mcall=/tmp/cand/mcall.yaml:w4g128)
HUM_CACHE_DIR=/tmp/san-cache timeout 45 "${SAN[@]}" --out $R/san-warm.json > $R/san-warm.txt 2>&1  # compiles the kernels
echo "warm exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
for tool in racecheck:50 synccheck:35; do
  HUM_CACHE_DIR=/tmp/san-cache timeout ${tool#*:} compute-sanitizer --tool ${tool%:*} --print-limit 20 "${SAN[@]}" \
    --out $R/san-${tool%:*}.json > $R/san-${tool%:*}.txt 2>&1
  echo "${tool%:*} exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
for cw in u8s5:uint8:512,8192 mcs5:uint8:512,8192 s3:uint4,group=128:512,8192 mcall:uint4,group=128:20,100,1024; do
  set -- ${cw//:/ }
  HUM_CACHE_DIR=/tmp/sbs-cache timeout 30 $H bench --config /tmp/cand/$1.yaml --layer n=8192,k=8192,w=$2 \
    --m $3 --warmup 5 --reps 20 --out $R/bench-$1.json > $R/bench-$1.txt 2>&1
  echo "bench $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
