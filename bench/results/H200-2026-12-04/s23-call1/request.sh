# timeout: 570
# Session 23 call 1: mma.sync warps of 8 rows (kSwapAB). The gpu label on this tree (with test_gemm's
# new 8-row pass), test_gemm_a8's rows8 pass, compute-sanitizer on 8-row kernels, then candidates at
# M 1 / 4 / 8 / 16 as site policies beside the built-in tables (hum bench checks every M).
set -u
H=build/runtime/hum
t0=$(date +%s)
(cd build && HUM_CACHE_DIR=$(mktemp -d) timeout 300 ctest -L gpu -j12 --timeout 280 --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
grep -E "tests passed|Failed|\*\*\*" $R/label.txt >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
HUM_CACHE_DIR=/tmp/c1-a8 timeout 60 build/tests/test_test_gemm_a8 rows8 > $R/a8-rows8.txt 2>&1
echo "a8 rows8 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
. bench/sweeps/site-policy.sh /tmp/c1p
P8='if (t.kernel == nil or t.kernel == "mma") and e.m_max <= 16 then t.block_m, t.warp_m = 8, 8 '
pol r8 "$P8 end"
pol r8c2 "$P8 t.ctas_per_sm = 2 end"
pol r8k64 "$P8 t.warp_k = 64 end"
pol hm "$P8 t.block_k, t.warp_n, t.warp_k, t.ctas_per_sm = 128, 64, 32, 2 end"
HUM_CACHE_DIR=/tmp/c1-san timeout 60 compute-sanitizer --tool memcheck $H bench --config /tmp/c1p/r8.yaml --layer n=1000,k=1096,w=uint3,a=float16,group=32,zp=int --m 3,16 --warmup 1 --reps 2 > $R/sanitizer.txt 2>&1
echo "sanitizer exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
HUM_CACHE_DIR=/tmp/c1-san2 timeout 60 compute-sanitizer --tool memcheck $H bench --config /tmp/c1p/r8c2.yaml --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1,8 --warmup 1 --reps 2 >> $R/sanitizer.txt 2>&1
echo "sanitizer2 exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
b() { # CAND LAYER
  echo "=== $1 $2" >> $R/sweep.txt
  HUM_CACHE_DIR=/tmp/c1-$1 timeout 40 $H bench --config /tmp/c1p/$1.yaml --layer $2 --m 1,4,8,16 --warmup 10 --reps 50 >> $R/sweep.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/sweep.txt
}
L="n=8192,k=8192,w=uint2,a=float16 n=8192,k=8192,w=uint4,a=float16,group=128 n=4096,k=4096,w=uint4,a=float16,group=128 n=8192,k=8192,w=uint8,a=float16 n=8192,k=8192,w=e4m3,a=e4m3 n=4096,k=14336,w=uint4,a=float16,group=128 n=8192,k=8192,w=uint4,a=bfloat16,group=128 n=8192,k=8192,w=uint4,a=float16,group=128,zp=int"
for r in 1 2; do
  for l in $L; do
    for c in base r8 r8c2 r8k64 hm; do
      [ $(($(date +%s) - t0)) -gt 540 ] && break 3
      b $c $l
    done
  done
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |rror|exit" $R/sweep.txt > $R/summary.txt
