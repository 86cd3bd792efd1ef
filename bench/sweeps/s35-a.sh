# timeout: 590
# The next session's first request (bench/NOTES.md, "Session 34 (lead)", Next), for
# bench/sweeps/run-call.sh with a Release build of main's head packed as .exp/build.tgz
# (tools/pack-device.sh) and Humming's wheel in .whl:
# 1. the gpu label in full (s34-d ran its quantizer tests and 11 of the other 21 only);
# 2. bench/sweeps/wgmma-rate.sh: fp8 wgmma's sustained rate with A from registers (RS, W4A8
#    MXFP4's form) against both operands in shared memory (SS, W8A8's), no decode, no loads;
# 3. side-by-side.py, three rounds in turn with the order flipped: hum, hum with A already
#    quantized (-q, like against like: bench-humming.py quantizes Humming's x outside its timed
#    call) and Humming 0.1.20 on the cells closest to it (W4A8 MXFP4, W8A8, uint8 and uint2
#    channel at M = 1024 and 8192), with the time left;
# 4. FP8 block-wise 7168 x 2048 and 8192 x 8192 beside Humming's BLOCK scales (side-by-side.py's
#    humming_block_rows), with the time left.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s35-a.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
left() { echo $((B - ($(date +%s) - t0))); }
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 300 ctest -L gpu -j12 --timeout 280 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
timeout 120 bash bench/sweeps/wgmma-rate.sh
echo "wgmma-rate exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
l=$(left)
if [ $l -gt 60 ]; then
  timeout $((l - 5)) python3 bench/sweeps/side-by-side.py --out $R/sbs.json --rounds 3 --floor '' \
    --only w4a8mx,w8a8,w8ch,w2ch --m 1024,8192 > $R/sbs.txt 2>&1
  echo "side-by-side exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
# 4. FP8 block-wise beside Humming's BLOCK scales (issue 9's report; never timed before)
l=$(left)
if [ $l -gt 40 ]; then
  timeout $((l - 5)) python3 bench/sweeps/side-by-side.py --out $R/sbs-fp8blk.json --rounds 2 --floor '' \
    --only fp8blk7168,fp8blk8192 > $R/sbs-fp8blk.txt 2>&1
  echo "side-by-side fp8 block exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
