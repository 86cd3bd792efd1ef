# timeout: 180
# Session 34's last request (bench/sweeps/run-call.sh): per-token rows quantized by the fewest
# threads that hold them (64 / 128 / 256: eight rows an SM at K = 8192 where 256 threads left four)
# against the build before it (.exp/old-hum, 618419b: the hum CLI links libhum statically), hum
# bench's checks on, one round in turn; then the gpu label on the head; then, with time left,
# side-by-side.py (hum, hum with A already quantized, Humming 0.1.20, rounds in turn with the order
# flipped) on the cells closest to Humming: W4A8 MXFP4, W8A8, uint8 and uint2 channel at M = 1024
# and 8192. Cut to 180 s (refused starts took 560 s of the session's device budget): one round
# of W8A8 and MXFP4, the label's tests that launch the quantizer, the rest of it with time left.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s34-d.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
left() { echo $((B - ($(date +%s) - t0))); }
run() { # LABEL HUM CACHE LAYER M
  [ $(left) -gt 130 ] || { echo "== $1 $4 skipped (time)" >> $R/ab.txt; return; }
  echo "== $1 $4" >> $R/ab.txt
  HUM_CACHE_DIR=/tmp/c-$3 timeout 60 $2 bench --layer $4 --m $5 --warmup 10 --reps 50 2>&1 \
    | grep -E '^ +[0-9]+ |FAIL|rror|check' >> $R/ab.txt
}
for round in 1; do
  for c in "n=8192,k=8192,w=e4m3,a=e4m3 1,1024,8192" "n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0 1024"; do
    set -- $c
    run "old $round" .exp/old-hum old $1 $2
    run "new $round" build/runtime/hum new $1 $2
  done
  echo "round $round done at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
# the label's tests that launch the quantizer first, then the rest while time is left
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout $(($(left) - 5)) ctest -L gpu -R 'quantize|a8|moe|fp8|kgroup' -j12 \
  --timeout 120 --output-on-failure) > $R/label.txt 2>&1
echo "label (quantizer's tests) exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases-a8.log 2>/dev/null
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout $(($(left) - 5)) ctest -L gpu -E 'quantize|a8|moe|fp8|kgroup' -j12 \
  --timeout 120 --output-on-failure) > $R/label-rest.txt 2>&1
echo "label (the rest) exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
l=$(left)
if [ $l -gt 60 ]; then
  timeout $((l - 5)) python3 bench/sweeps/side-by-side.py --out $R/sbs.json --rounds 2 --floor '' \
    --only w4a8mx,w8a8,w8ch,w2ch --m 1024,8192 > $R/sbs.txt 2>&1
  echo "side-by-side exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
