# timeout: 560
# Session 40's first request, for bench/sweeps/run-call.sh (copy to .exp/). Build here first:
#   main's head, Release: cmake --build build -j8 && tools/pack-device.sh build .exp/old.tgz
#   then git apply bench/sweeps/s40/channel-scale-epilogue.patch, rebuild, and
#   tools/pack-device.sh build .exp/build.tgz (git stash the patch again if it is not to land).
# 1. the gpu label on the patch (session 39's label of its first version failed every 16-bit
#    channel-scaled wgmma layer: the scale index, fixed here);
# 2. main (old/) against the patch in turn: uint8 and uint2 channel float16, uint8 channel
#    bfloat16, hum bench, M 1 .. 8192;
# 3. issue 8 and 9's rows beside Humming 0.1.20 (side-by-side.py, one round, the patch);
# 4. bench/sweeps/s39/timeline.py (the quantizer and the GEMM of 8-bit-A forwards on a timeline),
#    the quant and dense rows, a second A/B round, where time is left.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s40-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
mkdir -p old && tar xzf .exp/old.tgz -C old
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 300 ctest -L gpu -j12 --timeout 290 \
  --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
ab() { # ROUND
  for v in old new; do
    d=build; [ $v = old ] && d=old
    for spec in n=8192,k=8192,w=uint8,a=float16 n=8192,k=8192,w=uint2,a=float16 n=8192,k=8192,w=uint8,a=bfloat16; do
      [ $(left) -gt 30 ] || return
      echo "=== $v round $1 $spec" >> $R/ab.txt
      HUM_CACHE_DIR=/tmp/c-$v timeout 30 $d/runtime/hum bench --layer $spec --m 1,128,1024,4096,8192 \
        --warmup 10 --reps 50 2>&1 | grep -E "^ +[0-9]+ |check" >> $R/ab.txt
    done
    echo "$v round $1 done at $(($(date +%s) - t0)) s" >> $R/calls.txt
  done
}
ab 1
sbs() { # NAME M CASES
  [ $(left) -gt 40 ] || return
  timeout $(($(left) - 30)) python3 bench/sweeps/side-by-side.py --out $R/show-$1.json --rounds 1 --only $3 --m $2 \
    --floor '' > $R/show-$1.txt 2>&1
  echo "show $1 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
}
sbs chan 1,128,1024,4096,8192 w8ch,w2ch
[ $(left) -gt 60 ] && timeout 90 python3 bench/sweeps/s39/timeline.py > $R/timeline.txt 2>&1
echo "timeline exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
sbs quant 1,128,1024,8192 w8a8,w4a8mx
sbs dense 1,16,32,64,128,256,512,1024,2048,4096,8192 w4g128
ab 2
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
