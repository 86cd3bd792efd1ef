# timeout: 150
# Session 13, w4a8z (issue 9): MXFP4 W4A8 kernels specialised to the byte tables' window when the
# layer's scales allow it (LayerConfig fold_window, read from the weights at prepare). One binary;
# main's kernels through HUM_KERNEL_PATH=base-kernels (their config.cuh ignores kFoldWindow) against
# this tree's, interleaved, each twice; hum bench's float64 check on every row. Then test_gemm_a8's
# e2m1 cases (HUM_TEST_CASES=e2m1): the built-in pass (the generated weights: fold_window 1, the
# specialised kernels; spread_groups' two cases: 0, the tested kernels, groups 12..14 below), then
# the wgmma_ws pass, then the whole ctest -R gemm_a8 if time is left.
# Step 2 (optional, after the built-in pass): the accumulators promoted every 256 of K (a site policy,
# req-w4a8z/p256) at M 1024 and 8192, both warpgroups at the same stage ends (step 1's kernels,
# req-w4a8z/kernels-s1) and the second warpgroup half a period later (kernels/: promote_phase).
set -u
T0=$(date +%s)
END=$((T0 + 145))
H=build/runtime/hum
SPEC=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
left() { echo $((END - $(date +%s))); }
el() { echo $(($(date +%s) - T0)); }
b() { # b NAME MS [ENV...]
  local n=$1 ms=$2; shift 2
  echo "== $n t=$(el)" >> $R/bench.txt
  env "$@" timeout 30 $H bench --layer $SPEC --m $ms --warmup 10 --reps 50 --out $R/$n.json --force >> $R/bench.txt 2>&1
  echo "rc=$? t=$(el)" >> $R/bench.txt
}
MS=1,128,1024,8192
P256=HUM_CONFIG=$PWD/req-w4a8z/p256/hum.yaml
b base1 $MS HUM_KERNEL_PATH=base-kernels
b new1 $MS HUM_KERNEL_PATH=req-w4a8z/kernels-s1
b base2 $MS HUM_KERNEL_PATH=base-kernels
b new2 $MS HUM_KERNEL_PATH=req-w4a8z/kernels-s1
echo "== test_gemm_a8 e2m1 built-in t=$(el)" >> $R/test.txt
t=$(left); [ $t -gt 50 ] && t=50
HUM_KERNEL_PATH=req-w4a8z/kernels-s1 HUM_TEST_CASES=e2m1 timeout $(( t > 5 ? t : 5 )) build/tests/test_test_gemm_a8 built-in >> $R/test.txt 2>&1
echo "rc=$? t=$(el)" >> $R/test.txt
if [ $(left) -gt 25 ]; then
  b p256same 1024,8192 HUM_KERNEL_PATH=req-w4a8z/kernels-s1 $P256
  b p256stag 1024,8192 HUM_KERNEL_PATH=kernels $P256
fi
echo "== test_gemm_a8 e2m1 wgmma_ws t=$(el)" >> $R/test.txt
HUM_KERNEL_PATH=req-w4a8z/kernels-s1 HUM_TEST_CASES=e2m1 timeout $(( $(left) > 5 ? $(left) : 5 )) build/tests/test_test_gemm_a8 wgmma_ws >> $R/test.txt 2>&1
echo "rc=$? t=$(el)" >> $R/test.txt
if [ $(left) -gt 20 ]; then
  echo "== ctest -R gemm_a8 t=$(el)" >> $R/test.txt
  (cd build && HUM_KERNEL_PATH=$PWD/../req-w4a8z/kernels-s1 timeout $(( $(left) )) ctest -R gemm_a8 --output-on-failure) >> $R/test.txt 2>&1
  echo "rc=$? t=$(el)" >> $R/test.txt
fi
