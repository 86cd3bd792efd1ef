# timeout: 500
# Session 22, call 1 (main 1ce4153): bench/sweeps/w4a8-256.sh, then ncu full-set source stalls of W4A8 MXFP4 M = 256 on the built-in tile, promoted (main) and never (nopro)
# timeout: 240
# Issue 9, W4A8 MXFP4 at M = 256 (hum 42.6 against Humming's 34.9 µs, session 21): which of the
# causes session 21's probes left open holds it. A request for bench/sweeps/run-call.sh (copy it to
# .exp/NAME.sh; it writes under $R), or run from the repository root after a Release build with R set.
#   tiles  hum bench n = k = 8192 at M = 256, two rounds, site policies on the M 129..256 entry:
#     base    the built-in 256 x 64 x 128 / 4 whole, promoted every 1024 of K
#     p2048   the same promoted every 2048 (half the promotions, each a drain of the one math
#             warpgroup and 128 FADDs with half the totals in shared memory: -13 % never promoted)
#     n256s   Humming's tile, 128 x 256 x 128 / 3 (two warpgroups of two slabs) never promoted,
#             under stream-K (session 20: 46.85)
#     n256w   the same whole: 64 CTAs on 132 SMs. Its time over n256s's says whether stream-K's
#             fix-up or the tile's own rate keeps hum's Humming tile at 46.85
#   error  test_gemm_a8's built-in pass on its MXFP4 cases with every entry promoted every 2048
#          (HUM_CONFIG): the n = 1024, K = 8192 case against the 1e-3 bar (every 1024: 8.66e-04)
#   short  W8A8 with channel scales on FP8 block-wise's 7168 x 2048 (M 128 / 1024 / 8192) beside the
#          block-scaled layer: whether the short K or the block scales keep the latter at 2.2x cuBLASLt
set -u
H=build/runtime/hum
T=build/tests/test_test_gemm_a8
t0=$(date +%s)
. bench/sweeps/site-policy.sh /tmp/w4a8-256
e256='e.m_min > 128 and e.m_max <= 256'
pol p2048 "if $e256 then t.promote_k = 2048 end"
pol n256s "if $e256 then t = wg('wgmma_ws', 128, 256, 128, 3); t.warp_n = 32; t.promote_k = layer.padded_k end"
pol n256w "if $e256 then t = whole(wg('wgmma_ws', 128, 256, 128, 3)); t.warp_n = 32; t.promote_k = layer.padded_k end"
pol all2048 "t.promote_k = 2048"
W4L=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
b() { # CONFIG
    echo "=== $1" >>"$R/sweep.txt"
    HUM_CACHE_DIR=/tmp/w4a8-256-$1 timeout 40 "$H" bench --config "/tmp/w4a8-256/$1.yaml" --layer $W4L --m 256 \
        --warmup 10 --reps 50 >>"$R/sweep.txt" 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>"$R/sweep.txt"
}
for r in 1 2; do for v in base p2048 n256s n256w; do b $v; done; done
for l in n=7168,k=2048,w=e4m3,a=e4m3 n=7168,k=2048,w=e4m3,a=e4m3,block=128x128,ascale=group128; do
    echo "=== $l" >>"$R/sweep.txt"
    HUM_CACHE_DIR=/tmp/w4a8-256-short timeout 40 "$H" bench --layer $l --m 128,1024,8192 --warmup 10 --reps 50 \
        >>"$R/sweep.txt" 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>"$R/sweep.txt"
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |M 129|rror|exit" "$R/sweep.txt" >"$R/summary.txt"
HUM_CONFIG=/tmp/w4a8-256/all2048.yaml HUM_TEST_CASES=e2m1 HUM_CACHE_DIR=/tmp/w4a8-256-t timeout 150 "$T" built-in \
    >"$R/error.txt" 2>&1
echo "test_gemm_a8 exit $? at $(($(date +%s) - t0)) s" >>"$R/summary.txt"
echo "w4a8-256 done at $(($(date +%s) - t0)) s" >> $R/calls.txt
pol nopro "t.promote_k = layer.padded_k"
export HUM_CACHE_DIR=/tmp/prof-cache
p() { # NAME hum-bench-args...
  local name=$1; shift
  timeout 90 ncu --set full --import-source no -k regex:hum_gemm -c 1 -o $R/$name "$H" bench "$@" --warmup 0 --reps 1 >$R/$name.log 2>&1
  echo "$name exit $? at $(($(date +%s) - t0)) s" >>$R/calls.txt
  ncu -i $R/$name.ncu-rep --page source --csv --print-source sass 2>$R/$name-sass.err | gzip >$R/$name-sass.csv.gz
  ncu -i $R/$name.ncu-rep --page details --print-units base >$R/$name.txt 2>&1
  python3 bench/sweeps/ncu-stalls.py $R/$name-sass.csv.gz 60 > $R/$name-stalls.txt 2>&1
  rm -f $R/$name.ncu-rep
}
p w4a8-256-main --layer $W4L --m 256
p w4a8-256-nopro --config /tmp/w4a8-256/nopro.yaml --layer $W4L --m 256
