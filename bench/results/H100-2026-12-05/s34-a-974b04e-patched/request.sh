# timeout: 570
# The next session's first request (bench/NOTES.md, "Session 33 (lead)", Next), for
# bench/sweeps/run-call.sh. Here first: apply bench/sweeps/s34/ring-epilogue.patch (the math warps'
# ring position counted along, a slot's descriptors as slot 0's plus its offset, the cluster rank and
# mapa pure; the epilogue's factors loaded once a tile: session 33's ae97e52 and 66c6277, taken off
# main because no GPU had run them) to a worktree of main, build it in Release, pack it as
# .exp/build.tgz (tools/pack-device.sh), and put main's own kernels in .exp/old
# (git archive HEAD kernels | tar -x -C .exp/old). Then:
# 1. the gpu label on the patched build;
# 2. main's kernels (HUM_KERNEL_PATH=.exp/old's) against the patched build's, with hum bench's
#    checks, n = k = 8192: W8A8 (474 -> 406 instructions a run of four stages in its M = 1024
#    kernel) two rounds in turn; uint4 g128 fp16, W4A8 MXFP4, uint8 and uint2 channel one round;
# 3. W8A8 at M 385..1024 with a C tile of its own (six stages and the tile fit 227 KiB: the
#    producer then never waits for the epilogue's slot), a site policy, two rounds;
# 4. the kernel cache's file names of one table compiled there (keys.txt): where they equal those
#    `hum compile` gives here for the same build, caches compiled here (NVRTC needs no GPU) would hit
#    there, and the label's compiles (most of its ~300 s) could travel with the checkout;
# 5. with the time left, ncu of the patched W8A8 GEMM at M = 1024.
# The patch lands on main (git apply, then its commit) where the label passes and no layer loses.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s34-a.sh | sed "s/# timeout: //") - 10 ))
export HUM_LIBRARY=$PWD/build/runtime/libhum.so PYTHONPATH=$PWD/python:${PYTHONPATH:-}
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 350 ctest -L gpu -j12 --timeout 340 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
HUM_CACHE_DIR=/tmp/keytest build/runtime/hum compile --arch sm_90a --layer n=8192,k=8192,w=uint4,a=float16,group=128 \
  > $R/keys.txt 2>&1; ls /tmp/keytest/kernels | sort >> $R/keys.txt
mkdir -p /tmp/old && cp -r .exp/old/kernels /tmp/old/ || echo "no .exp/old/kernels" >> $R/calls.txt
. bench/sweeps/site-policy.sh /tmp/cand
pol own "if e.m_min == 385 then t.c_tile = 'own' end"
run() { # LABEL KERNEL_PATH(empty: built in) CACHE LAYER M [CONFIG]
  [ $((B - ($(date +%s) - t0))) -gt 30 ] || { echo "== $1 $4 skipped (time)" >> $R/ab.txt; return; }
  echo "== $1 $4" >> $R/ab.txt
  env ${2:+HUM_KERNEL_PATH=$2} HUM_CACHE_DIR=/tmp/c-$3 timeout 40 build/runtime/hum bench ${6:+--config $6} --layer $4 --m $5 \
    --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check|FAIL|rror' >> $R/ab.txt
}
X=n=8192,k=8192,w=e4m3,a=e4m3
for round in 1 2; do
  run "main $round" /tmp/old/kernels old $X 512,1024,8192
  run "patched $round" "" head $X 512,1024,8192
  run "own $round" "" own $X 768,1024 /tmp/cand/own.yaml
  [ $round = 1 ] || continue
  for spec in n=8192,k=8192,w=uint4,a=float16,group=128 n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0 \
    n=8192,k=8192,w=uint8,a=float16 n=8192,k=8192,w=uint2,a=float16; do
    run "main $round" /tmp/old/kernels old $spec 128,1024,8192
    run "patched $round" "" head $spec 128,1024,8192
  done
  echo "round $round done at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
# with the time left: ncu of the patched W8A8 GEMM at M = 1024 (s33-a's profile of f18d6cc beside it)
left=$((B - ($(date +%s) - t0)))
if [ $left -gt 70 ]; then
  HUM_CACHE_DIR=/tmp/ncu-cache timeout $((left - 10)) ncu --set full --import-source no --nvtx --nvtx-include "ncu/" \
    -c 3 -o $R/hum-w8a8-1024 python3 bench/sweeps/side-by-side.py --ncu --impl hum --only w8a8 --m 1024 --rounds 1 \
    --floor '' --out $R/hum-w8a8-1024.json > $R/hum-w8a8-1024.log 2>&1
  ncu -i $R/hum-w8a8-1024.ncu-rep --page details --print-units base > $R/hum-w8a8-1024.txt 2>&1
  ncu -i $R/hum-w8a8-1024.ncu-rep -k regex:hum_gemm --page source --csv --print-source sass 2>/dev/null | gzip > $R/hum-w8a8-1024-sass.csv.gz
  python3 bench/sweeps/ncu-stalls.py $R/hum-w8a8-1024-sass.csv.gz 40 > $R/hum-w8a8-1024-stalls.txt 2>&1
  rm -f $R/hum-w8a8-1024.ncu-rep
fi
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
