# timeout: 520
# For bench/sweeps/run-call.sh, on main 6d5f824 (.exp/build.tgz; group_m, the tile order's group of
# m-blocks, a tuning field):
# 1. group_m 8 (built in) against 4 and 2 by site policies on every entry, three rounds in turn, at
#    M 4096 / 8192 of uint2 and uint8 channel, uint4 g128 fp16, W8A8 e4m3 and W4A8 MXFP4 (n = k =
#    8192). s38-a (HUM_KERNEL_PATH copies, two rounds, H100): uint2 M 8192 g4 1420.9 / 1409.4 against
#    g8 1468.8 / 1442.4; the others within the spread; g16 lost (uint4 g128 1582 / 1577, W8A8 955 / 946).
# 2. ncu (its locked clock) of uint2 and uint8 at M = 8192, g8 and g4: DRAM bytes, L2 hit rate,
#    cycles, tensor pipe: does the smaller group read less, and cost fewer cycles?
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s38-b.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
. bench/sweeps/site-policy.sh /tmp/sp
pol g4 't.group_m = 4'
pol g2 't.group_m = 2'
run() { # LABEL CONFIG LAYER
  [ $(left) -gt 120 ] || { echo "== $1 $3 skipped (time)" >> $R/ab.txt; return; }
  echo "== $1 $3" >> $R/ab.txt
  HUM_CACHE_DIR=/tmp/c-${1%% *} timeout 60 build/runtime/hum bench --config /tmp/sp/$2.yaml --layer $3 \
    --m 4096,8192 --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check|FAIL|rror|groups of' >> $R/ab.txt
}
layers="n=8192,k=8192,w=uint2,a=float16 n=8192,k=8192,w=uint8,a=float16 n=8192,k=8192,w=uint4,a=float16,group=128
  n=8192,k=8192,w=e4m3,a=e4m3 n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0,out=bfloat16"
for round in 1 2 3; do
  case $round in 1) order="base g4 g2";; 2) order="g2 base g4";; 3) order="g4 g2 base";; esac
  for l in $layers; do
    for g in $order; do run "$g $round" $g $l; done
  done
  echo "round $round done at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
HUM_CACHE_DIR=/tmp/c-g4 build/runtime/hum info --config /tmp/sp/g4.yaml --layer n=8192,k=8192,w=uint2,a=float16 \
  > $R/info-g4.txt 2>&1
for l in n=8192,k=8192,w=uint2,a=float16 n=8192,k=8192,w=uint8,a=float16; do
  for g in base g4; do
    [ $(left) -gt 40 ] || { echo "ncu $g $l skipped (time)" >> $R/calls.txt; continue; }
    HUM_CACHE_DIR=/tmp/c-$g timeout $(($(left) - 20)) ncu -k regex:hum_gemm -c 1 --metrics \
gpu__time_duration.sum,gpc__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_elapsed \
      build/runtime/hum bench --config /tmp/sp/$g.yaml --layer $l --m 8192 --warmup 1 --reps 1 \
      > $R/ncu-$g-$(echo $l | cut -d, -f3).txt 2>&1
  done
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
