# timeout: 420
# Session 22, call 4 (main 1ce4153 + stage sets for K-group scales, uncommitted): FP8 block-wise
# (128 x 128 weight blocks, 1 x 128 A groups) on 112- and 96-row tiles, whose three accumulator sets
# fit (site policies r112 / r96 at M > 64), against main's hum (.exp/hum-main: 128 rows drained at every
# stage end) and the tree's built-in (the same 128 rows); test_gemm_kgroup under r112 and r96.
set -u
H=build/runtime/hum
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/c4pol
pol r112 "if layer.kgroup_k > 0 and e.m_min > 64 then t = wg('wgmma_ws', 112, 128, 128, 4) end"
pol r96 "if layer.kgroup_k > 0 and e.m_min > 64 then t = wg('wgmma_ws', 96, 128, 128, 4) end"
for v in r112 r96; do
  HUM_CONFIG=/tmp/c4pol/$v.yaml HUM_CACHE_DIR=/tmp/c4t-$v timeout 150 build/tests/test_test_gemm_kgroup > $R/kgroup-$v.txt 2>&1
  echo "kgroup $v exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
b() { # NAME BIN CONFIG LAYER MS
  echo "=== $1 $4" >> $R/sweep.txt
  HUM_CACHE_DIR=/tmp/c4-$1 timeout 60 $2 bench --config /tmp/c4pol/$3.yaml --layer $4 --m $5 --warmup 10 --reps 50 >> $R/sweep.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/sweep.txt
}
L1=n=7168,k=2048,w=e4m3,a=e4m3,block=128x128,ascale=group128
L2=n=8192,k=8192,w=e4m3,a=e4m3,block=128x128,ascale=group128
for r in 1 2; do
  for v in main base r112 r96; do
    bin=$H; cfg=$v; [ $v = main ] && { bin=.exp/hum-main; cfg=base; }
    b $v $bin $cfg $L1 128,256,512,1024,2048,8192
    b $v $bin $cfg $L2 128,1024,8192
  done
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |M 65|M 129|M 385|M 1025|rror|exit" $R/sweep.txt > $R/summary.txt
