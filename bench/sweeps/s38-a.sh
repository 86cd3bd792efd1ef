# timeout: 590
# For bench/sweeps/run-call.sh, the next session's first request, on main's head (.exp/build.tgz):
# 1. the gpu label (session 37's last two commits, 4af4975: the quantizer's 64-bit row indices and
#    test_gemm_kgroup's M = 96, ran on no GPU);
# 2. the tile order's group of m-blocks (kernels/gemm/config.cuh kGroupM, 8 for every kernel) at
#    4 and 16 against 8, through HUM_KERNEL_PATH copies of kernels/, on issue 8's last cells and
#    their neighbours: uint8 / uint2 channel, uint4 g128 fp16 and W8A8 e4m3, n = k = 8192, M 2048 /
#    8192, two rounds in turn. s37-b's ncu (M = 8192, uint2) read ~840 MB of DRAM against
#    Humming's ~485 (A re-read: eight 256-row blocks hold 33.5 MB of A beside the weights
#    streaming through L2); under the power limit DRAM traffic costs clock. A group that wins
#    becomes a tuning field (hum.h HUM_TUNING_FIELDS, "kGroupM") set by policies/sm90.lua.
set -u
t0=$(date +%s)
B=$(( $(head -1 .exp/s38-a.sh | sed "s/# timeout: //") - 10 ))
left() { echo $((B - ($(date +%s) - t0))); }
(cd build && HUM_CACHE_DIR=/tmp/label-cache timeout 300 ctest -L gpu -j12 --timeout 280 \
  --output-on-failure) > $R/label.txt 2>&1
echo "label exit $? at $(($(date +%s) - t0)) s" >> $R/calls.txt
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
for g in 4 16; do
  mkdir -p /tmp/g$g && cp -r kernels /tmp/g$g/ &&
    sed -i "s/^constexpr int kGroupM = 8;/constexpr int kGroupM = $g;/" /tmp/g$g/kernels/gemm/config.cuh
  grep -q "^constexpr int kGroupM = $g;" /tmp/g$g/kernels/gemm/config.cuh || echo "g$g: kGroupM not set" >> $R/calls.txt
done
run() { # LABEL KERNEL_PATH(empty: built in) CACHE LAYER M
  [ $(left) -gt 30 ] || { echo "== $1 $4 skipped (time)" >> $R/ab.txt; return; }
  echo "== $1 $4" >> $R/ab.txt
  env ${2:+HUM_KERNEL_PATH=$2} HUM_CACHE_DIR=/tmp/c-$3 timeout 40 build/runtime/hum bench --layer $4 --m $5 \
    --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check|FAIL|rror' >> $R/ab.txt
}
layers="n=8192,k=8192,w=uint8,a=float16:2048,8192 n=8192,k=8192,w=uint2,a=float16:2048,8192
  n=8192,k=8192,w=uint4,a=float16,group=128:8192 n=8192,k=8192,w=e4m3,a=e4m3:8192"
for round in 1 2; do
  for lm in $layers; do
    l=${lm%%:*} m=${lm##*:}
    if [ $round = 1 ]; then order="8 4 16"; else order="16 4 8"; fi
    for g in $order; do
      if [ $g = 8 ]; then run "g8 $round" "" g8 $l $m; else run "g$g $round" /tmp/g$g/kernels g$g $l $m; fi
    done
  done
  echo "round $round done at $(($(date +%s) - t0)) s" >> $R/calls.txt
done
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
