# timeout: 470
# Branch launch-fill's request (bench/NOTES.md, "Session 29 (lead)", Next 1), for bench/sweeps/run-call.sh;
# .exp/build.tgz of branch launch-fill (`git checkout launch-fill`, Release build, tools/pack-device.sh).
# The branch replaces main's by_waves (an entry, and a kernel, per row-block count: whole or stream-K)
# by the tuning field whole_fill: one stream-K entry whose launches run the tiles whole where they fill
# the waves to 95 % (hum_gemm_runs_whole; the workspace-summed kernel launched without partials).
# 1. the gpu label on the branch;
# 2. hum bench, two rounds: W8A8 e4m3 8192 x 8192 at M 512 / 640 / 768 / 896 / 1024 and W4A8 MXFP4 at
#    M 768 / 1024 / 1536 / 2048: the branch's table (built-in) against the same entries compiled whole
#    (whole: main's whole-tile kernels at the 97 % fills) and never whole (wf0: whole_fill 0, main's
#    stream-K rows). Lands if built-in matches `whole` at 512 / 768 / 1024 (W8A8; main s29-c: 73.2 /
#    107.0 / 138.9 on an H100) and 1024 / 1536 / 2048 (MXFP4) and `wf0` elsewhere.
# 3. the 192-row W8A8 entry above M = 1024 with whole_fill 95 (w8wf) at M 1152 / 1536 / 1920 (6, 8,
#    10 row blocks of 64 tiles: 97 % fills of 132 SMs) against the built-in, and W4A8 above 2048
#    (mxwf) at 3072 / 4096 / 8192.
set -u
t0=$(date +%s)
# the budget: the header's timeout less 10 s for the archive
B=$(( $(head -1 .exp/s30-a.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 300 ctest -L gpu -j12 --timeout 280 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
. bench/sweeps/site-policy.sh /tmp/cand
FILL='(t.whole_fill or 0) > 0'
pol whole "if $FILL then t = whole(t); t.whole_fill = 0 end"
pol wf0 "if $FILL then t.whole_fill = 0 end"
pol w8wf "if e.m_min > 1024 then t.whole_fill = 95 end"
pol mxwf "if e.m_min > 2048 then t.whole_fill = 95 end"
X=n=8192,k=8192
bench() { # CONFIG SPEC M
  left=$((B - ($(date +%s) - t0))); [ $left -lt 15 ] && return
  echo "== $1 $2" >> $R/ab.txt
  HUM_CACHE_DIR=/tmp/ab-$1-${2##*w=} timeout $left build/runtime/hum bench --config /tmp/cand/$1.yaml \
    --layer $2 --m $3 --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check|M 385|M 513|M 1025|M 2049' >> $R/ab.txt
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/ab.txt
}
for round in 1 2; do
  for c in base whole wf0; do
    bench $c $X,w=e4m3,a=e4m3 512,640,768,896,1024
    bench $c $X,w=e2m1,group=32,scale=e8m0,a=e4m3 768,1024,1536,2048
  done
done
for c in base w8wf; do bench $c $X,w=e4m3,a=e4m3 1152,1536,1920; done
for c in base mxwf; do bench $c $X,w=e2m1,group=32,scale=e8m0,a=e4m3 3072,4096,8192; done
# 4. where time is left: ncu --set full of hum's W8A8 GEMM at M = 1024 (the 128 x 128 x 128 / 6 tile,
#    whole, multicast) with its source-level stalls, then cuBLASLt fp8's kernel on the same shape
#    (bench/sweeps/s28-ncu.sh's commands): issue 9's furthest cell, 1.37x cuBLASLt on the H200.
name=hum-w8a8-1024; left=$((B - ($(date +%s) - t0)))
if [ $left -gt 90 ]; then
  HUM_CACHE_DIR=/tmp/ncu-cache timeout $((left - 10)) ncu --set full --import-source no --nvtx --nvtx-include "ncu/" \
    -c 3 -o $R/$name python3 bench/sweeps/side-by-side.py --ncu --impl hum --only w8a8 --m 1024 --rounds 1 \
    --floor '' --out $R/$name.json > $R/$name.log 2>&1
  echo "$name exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/$name.ncu-rep --page details --print-units base > $R/$name.txt 2>&1
  ncu -i $R/$name.ncu-rep -k regex:hum_gemm --page source --csv --print-source sass 2>/dev/null | gzip > $R/$name-sass.csv.gz
  python3 bench/sweeps/ncu-stalls.py $R/$name-sass.csv.gz 40 > $R/$name-stalls.txt 2>&1
  rm -f $R/$name.ncu-rep
fi
name=cublaslt-w8a8-1024; left=$((B - ($(date +%s) - t0)))
if [ $left -gt 60 ]; then
  HUM_CACHE_DIR=/tmp/ncu-cache timeout $((left - 10)) ncu --set full --kernel-name-base demangled \
    -k 'regex:^(?!.*hum_)' -c 4 -o $R/$name build/runtime/hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 \
    --m 1024 --warmup 1 --reps 1 > $R/$name.log 2>&1
  echo "$name exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
  ncu -i $R/$name.ncu-rep --page details --print-units base > $R/$name.txt 2>&1
  rm -f $R/$name.ncu-rep
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
