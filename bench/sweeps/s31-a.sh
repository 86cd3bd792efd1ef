# timeout: 560
# The next session's first request (bench/NOTES.md, "Session 30 (lead)", Next 2), for
# bench/sweeps/run-call.sh; .exp/build.tgz of main's head (Release build, tools/pack-device.sh).
# 1. the gpu label on the head;
# 2. show.sh without the label: the rows whose cells were closest to Humming (w4a8mx: M = 1024 read
#    1.028x in s29-e; w2ch: M = 8192 1.010x in s29-d) and W8A8 beside cuBLASLt fp8 (w8a8), then
#    Humming 0.1.20 and cuBLAS on the dense and quant rows, in the same call;
# 3. where time is left, uint2 and W4A8 at their close M again, for a second round.
# Issue 8's other rows (uint4 g128 fp16 / bf16 / zp, uint8, Llama) have not been rerun beside
# Humming since s27-show (H100); their kernels and tables are unchanged: a later call's show.sh.
set -u
t0=$(date +%s)
# the budget: the header's timeout less 10 s for the archive
B=$(( $(head -1 .exp/s31-a.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 300 ctest -L gpu -j12 --timeout 280 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
OUT=$R LABEL=0 BUDGET=$((B - 40 - ($(date +%s) - t0))) HUMMING="dense quant" ROWS="w4a8mx w2ch w8a8" \
    bash bench/sweeps/show.sh build
echo "show done at $(($(date +%s) - t0)) s" >> $R/calls.txt
X=n=8192,k=8192
for spec in "$X,w=e2m1,group=32,scale=e8m0,a=e4m3 1024" "$X,w=uint2 8192"; do
  left=$((B - ($(date +%s) - t0))); [ $left -lt 15 ] && break
  set -- $spec
  echo "== $1" >> $R/again.txt
  HUM_CACHE_DIR=/tmp/again timeout $left build/runtime/hum bench --layer $1 --m $2 --warmup 10 --reps 50 2>&1 \
    | grep -E '^ +[0-9]+ |check' >> $R/again.txt
done
# 4. where time is left: whole_fill's launch-time choice against the kernels compiled whole, again
#    (s30-a read it 1.2-1.3 % slower at W8A8 M 768 / 1024 and MXFP4 M 1024 / 2048, inside its
#    rounds' spread; bench/NOTES.md, "Session 30 (lead)")
. bench/sweeps/site-policy.sh /tmp/cand
pol whole "if (t.whole_fill or 0) > 0 then t = whole(t); t.whole_fill = 0 end"
for round in 1 2; do
  for c in base whole; do
    for spec in "$X,w=e4m3,a=e4m3 768,1024" "$X,w=e2m1,group=32,scale=e8m0,a=e4m3 1024,2048"; do
      left=$((B - ($(date +%s) - t0))); [ $left -lt 15 ] && break 3
      set -- $spec
      echo "== $c $1" >> $R/fill.txt
      HUM_CACHE_DIR=/tmp/fill-$c timeout $left build/runtime/hum bench --config /tmp/cand/$c.yaml --layer $1 \
        --m $2 --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check' >> $R/fill.txt
    done
  done
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
