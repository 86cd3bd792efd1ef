# timeout: 560
# Session 43's label request (bench/sweeps/run-call.sh): the gpu label on main's head, alone in its
# call (-j16 on a cold NVRTC cache took 300-400 s in sessions 41-42), then the rows the head's
# policy changes touch beside Humming in what is left.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s43-c.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout $(($(left) - 60)) ctest -L gpu -j16 \
  --timeout $(($(left) - 70)) --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
SHOW=${SHOW:-}
[ -n "$SHOW" ] && [ $(left) -gt 40 ] && timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py \
  --out $R/show.json --only $SHOW --rounds 2 --floor '' > $R/show.txt 2>&1
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
