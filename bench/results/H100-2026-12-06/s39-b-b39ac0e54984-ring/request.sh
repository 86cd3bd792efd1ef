# timeout: 560
# Session 39's second request (bench/sweeps/run-call.sh; .exp/build.tgz the ring quantizer,
# .exp/old.tgz main's head b39ac0e, extracted into old/):
# 1. the gpu label on the new build;
# 2. old against new in turn, two rounds: side-by-side.py's hum and hum-q rows (the quantizer's
#    cost in the call) for W8A8 and W4A8 MXFP4 at M 1024 / 4096 / 8192; hum bench of W8A8 and of
#    the Qwen3-30B-A3B MoE layer under moe.activation = e4m3;
# 3. ncu of the quantizer alone, old and new, W8A8 M = 8192 and 1024.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s39-b.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
mkdir -p old && tar xzf .exp/old.tgz -C old
export PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 300 ctest -L gpu -j12 --timeout 290 \
  --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
printf 'overrides:\n  moe:\n    activation: e4m3\n' > /tmp/e4m3.yaml
moe=e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128
for round in 1 2; do
  for v in old new; do
    d=build; [ $v = old ] && d=old
    [ $(left) -gt 60 ] || break
    HUM_LIBRARY=$PWD/$d/runtime/libhum.so HUM_CACHE_DIR=/tmp/c-$v timeout 60 python3 bench/sweeps/side-by-side.py \
      --out $R/sbs-$v-$round.json --rounds 1 --impl hum --only w8a8,w4a8mx --m 1024,4096,8192 --floor '' \
      > $R/sbs-$v-$round.txt 2>&1
    echo "=== $v round $round" >> $R/bench.txt
    HUM_CACHE_DIR=/tmp/c-$v timeout 40 $d/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1024,4096,8192 \
      --warmup 10 --reps 50 2>&1 | grep -E "^ +[0-9]+ |check" >> $R/bench.txt
    HUM_CACHE_DIR=/tmp/c-$v timeout 40 $d/runtime/hum bench --config /tmp/e4m3.yaml --moe $moe --m 1024,4096 \
      --warmup 10 --reps 50 2>&1 | grep -E "^ +[0-9]+ |check" >> $R/bench.txt
    echo "$v round $round done at $(($(date +%s) - t0)) s" >> $R/calls.txt
  done
done
for v in old new; do
  d=build; [ $v = old ] && d=old
  [ $(left) -gt 40 ] || break
  for m in 8192 1024; do
    HUM_CACHE_DIR=/tmp/c-$v timeout 40 ncu -k regex:hum_quantize_a -s 3 -c 1 \
      --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
      $d/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 --m $m --warmup 2 --reps 3 > $R/ncu-$v-$m.txt 2>&1
  done
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
