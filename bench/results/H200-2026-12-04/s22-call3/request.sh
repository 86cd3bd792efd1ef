# timeout: 300
# Session 22, call 3 (main 1ce4153 + HUM_EXP_GRID, a throwaway cap on the persistent grid): W4A8 MXFP4
# at M = 256 on 128 x 256 x 128 / 3 never promoted under stream-K with 132 CTAs (3 slices for most
# tiles), 128 (two halves of every tile: split-K 2) and 64 (whole); bench, two rounds, and ncu kernel
# time at the locked clock.
set -u
H=build/runtime/hum
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/c3pol
e256='e.m_min > 128 and e.m_max <= 256'
pol n256s "if $e256 then t = wg('wgmma_ws', 128, 256, 128, 3); t.warp_n = 32; t.promote_k = layer.padded_k end"
pol nopro "t.promote_k = layer.padded_k"
W4L=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
b() { # NAME GRID CONFIG
  echo "=== $1 grid ${2:-default}" >> $R/sweep.txt
  HUM_EXP_GRID=$2 HUM_CACHE_DIR=/tmp/c3-$1 timeout 40 $H bench --config /tmp/c3pol/$3.yaml --layer $W4L --m 256 --warmup 10 --reps 50 >> $R/sweep.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >> $R/sweep.txt
}
for r in 1 2; do
  b base "" base; b nopro "" nopro
  b n256s "" n256s; b n256s128 128 n256s; b n256s64 64 n256s; b n256s120 120 n256s
done
q() { # NAME GRID CONFIG
  HUM_EXP_GRID=$2 HUM_CACHE_DIR=/tmp/c3-$1 timeout 45 ncu --metrics gpu__time_duration.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed -k regex:hum_gemm -c 1 --page raw $H bench --config /tmp/c3pol/$3.yaml --layer $W4L --m 256 --warmup 0 --reps 1 > $R/ncu-$1.txt 2>&1
  echo "$1 exit $? at $(($(date +%s) - t0)) s: $(grep -E 'gpu__time_duration.sum|gmma_cycles_active.avg' $R/ncu-$1.txt | awk '{print $NF}' | tr '\n' ' ')" >> $R/calls.txt
}
q base "" base; q nopro "" nopro; q n256s "" n256s; q n256s128 128 n256s; q n256s64 64 n256s
grep -E "^===|^ +[0-9]+ +[0-9.]+ |M 129|rror|exit" $R/sweep.txt > $R/summary.txt
