# timeout: 200
# Session 50's last call, on main's head (mma_direct in policies/sm90.lua only where its tiles fill
# the SMs whole; here first: tools/label-cache/build.sh build .exp/label-cache.txz -j2,
# tools/pack-device.sh build .exp/build.tgz, cp bench/sweeps/s50/s50-c.sh bench/sweeps/run-call.sh .exp/):
# 1. the gpu label (test_gemm_direct's 16-column tile fixed: s50-b refused its warp K of 128 for
#    groups of 64, a test error; every GEMM it ran passed);
# 2. the M <= 8 cells the final table changed, beside Humming, two rounds, while time is left.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s50-c.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
export PYTHONPATH=$PWD/python:${PYTHONPATH:-} HUM_LIBRARY=$PWD/build/runtime/libhum.so
(cd build && timeout 150 ctest -L gpu -j16 --timeout 145 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
export HUM_CACHE_DIR=/tmp/cache
if [ $(left) -gt 25 ]; then
  timeout $(($(left) - 5)) python3 -u bench/sweeps/side-by-side.py --out $R/sbs-final.json \
    --only w4g128,w4g128zp,w8ch,w4g128bf16 --m 1,8 --rounds 2 --floor '' > $R/sbs-final.txt 2>&1
  echo "sbs final exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
