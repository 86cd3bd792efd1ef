# timeout: 470
# Session 44's label request (s43-c.sh, which never got a machine, on session 44's head) (bench/sweeps/run-call.sh): the gpu label on main's head (-j16 on a
# cold NVRTC cache took 300-400 s in sessions 41-42; it gets the header's budget less 15 s), then
# in what is left the Llama rows that sm90.lua's whole M <= 8 tiles change beside Humming (M 1 / 8
# / 16, two rounds), then W4A8 MXFP4 and W8A8 at M 1024 / 8192.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s44-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout $(($(left) - 15)) ctest -L gpu -j16 \
  --timeout $(($(left) - 25)) --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
sbs() { # NAME M CASES
  [ $(left) -gt 30 ] || return
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/show-$1.json --only $3 --m $2 \
    --rounds 2 --floor '' > $R/show-$1.txt 2>&1
  echo "show $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs llama 1,8,16 llama-4096x4096,llama-14336x4096,llama-4096x14336
sbs a8 1024,8192 w4a8mx,w8a8
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
