# timeout: 120
# Does fp8 wgmma with A from registers (RS, hum's W4A8 MXFP4 form: m64n128k32.f32.e4m3.e4m3, the
# decoded weight fragment in 4 registers, B through a 128B-swizzle descriptor) sustain a lower
# tensor rate than SS (both operands in shared memory), or need more groups in flight, with no
# decode, loads or barriers at all? (ncu: hum's tensor pipe at 71 % at M = 1024 with math warps not
# issue-bound, a deeper queue no help.) bench/sweeps/wgmma-rate.cu, one CTA per SM, 2 and 3 math
# warpgroups: RS vs SS at N = 128, 2 x 128 a group (hum's shape) and 256, wait_group depth 0/1/2,
# A fragment reused or fresh, and 32 dependent IMAD/SHF a group standing in for the decode. Per row:
# TFLOP/s (events), cycles per m64n128k32-equivalent per SM (clock64; 64 at peak) and % of peak.
# Compiles here (~50 s on 2 cores; -split-compile spreads it). Writes $R/wgmma-rate.txt.
set -u
t0=$(date +%s)
out=$R/wgmma-rate.txt
nvcc -O3 -arch=sm_90a -std=c++17 -split-compile=0 -Xptxas -v -o /tmp/wgmma-rate bench/sweeps/wgmma-rate.cu \
  > $R/ptxas.txt 2>&1 || { echo "nvcc failed" >> $out; tail -30 $R/ptxas.txt >> $out; exit 1; }
echo "# compiled in $(($(date +%s) - t0)) s; ptxas C7512 (wgmmas serialized: those rows measure that):" >> $out
# wgmma_rate<RS, N, PG, DEPTH, ALU, FRESH, WG>, demangled where c++filt is there
grep C7512 $R/ptxas.txt | grep -oE "_Z[A-Za-z0-9_]+" | if command -v c++filt > /dev/null; then c++filt; else cat; fi >> $out
grep -q "bytes spill stores" $R/ptxas.txt && grep "spill" $R/ptxas.txt | grep -v " 0 bytes spill stores, 0 bytes spill loads" >> $out
timeout 90 /tmp/wgmma-rate >> $out 2>&1
echo "# run exit $? at $(($(date +%s) - t0)) s" >> $out
if command -v cuobjdump > /dev/null; then
  echo "# SASS: QGMMA count, then the shapes and waits" >> $out
  cuobjdump -sass /tmp/wgmma-rate | grep -c QGMMA >> $out
  cuobjdump -sass /tmp/wgmma-rate | grep -oE "QGMMA\.[0-9x]+\.[A-Z0-9.]+|WARPGROUP\.DEPBAR\.LE gsb0, 0x[0-9]" \
    | sort | uniq -c >> $out
fi
