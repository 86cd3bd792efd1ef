# timeout: 590
# The next session's second request (bench/NOTES.md, "Session 36 (lead)", Next 3), for
# bench/sweeps/run-call.sh, on the build s37-a.sh ran (or main's head): what bounds uint8 and uint2
# channel fp16 at n = k = 8192, M = 8192, the last cells of issue 8 (s36-a, H200: hum 1682 / 1472
# against Humming's 1599 / 1434 us). ncu --set full of each side's GEMM (hum: the 256 x 128 x 64
# five-stage / 256 x 128 x 128 three-stage whole tiles with C in the last slot and A multicast;
# Humming: its kernel for the same layer), with hum's source-level stalls. ncu locks the clock:
# compare cycles, tensor-pipe share and stalls, not the times.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s37-b.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
left() { echo $((B - ($(date +%s) - t0))); }
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
