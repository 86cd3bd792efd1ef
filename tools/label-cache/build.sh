#!/bin/bash
# Fills the kernel caches of the gpu-labelled tests on a machine without a GPU, for a device call
# to carry: the label runs under tools/label-cache/fake_cuda.c (one sm_90 GPU of 132 SMs, shaped as
# the H100 / H200 the device tool lends, that runs nothing), so each hum_layer_prepare compiles its
# table with NVRTC into the test's cache (BUILD/tests/cache-TEST, tests/CMakeLists.txt) as it would
# there; the label on the device then loads them instead of compiling (sessions 41-44: NVRTC on a
# cold cache was most of the label's 200-400 s). The tests' checks fail here by design (nothing
# runs); a test that stops early leaves the rest of its kernels to the device. The cache keys
# hold NVRTC's major.minor and the toolkit's include folder (runtime/src/jit/jit_key.c): fill them
# with the NVRTC the device runs (13.0 in 2026-12), in the build tools/pack-device.sh packs, with
# the headers at tools/label-cache/cuda-home.sh's path, which run-call.sh names there too.
# Usage: tools/label-cache/build.sh BUILD_DIR OUT.txz [ctest arguments, e.g. -j2 -R test_gemm]
# HUM_FAKE_DEVICE_NAME="NVIDIA H200" fills it for an H200 (policies pick some tiles by the card's
# name; the default is an H100's): kernels of the other card's tiles compile on the device.
# ctest's output goes to OUT.txz.log. On the device, after extracting the build: extract OUT.txz
# into BUILD_DIR and export CUDA_HOME=$(tools/label-cache/cuda-home.sh) before the label (what
# bench/sweeps/run-call.sh does when .exp/label-cache.txz is there). Clear HUM_KERNEL_PATH,
# HUM_POLICY_PATH, HUM_LUA_PATH, HUM_CONFIG and HUM_PTXAS_REPORT on both machines: they change the
# kernels or their options.
set -eu
build=${1:?usage: build.sh BUILD_DIR OUT.txz [ctest arguments]}
out=$(realpath -m "${2:?usage: build.sh BUILD_DIR OUT.txz [ctest arguments]}")
shift 2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -std=c11 -D_GNU_SOURCE -O1 -Werror=incompatible-pointer-types -shared -fPIC -I "$root/runtime/include" \
  -I "$root/runtime/src/cuda" -I "$cuda/include" -o "$work/libcuda.so.1" "$here/fake_cuda.c" -lpthread
unset HUM_KERNEL_PATH HUM_POLICY_PATH HUM_LUA_PATH HUM_CONFIG HUM_PTXAS_REPORT
# the toolkit's headers at the path the device names too
CUDA_HOME=$("$here/cuda-home.sh")
export CUDA_HOME
cd "$build"
caches=$(ctest -L gpu -N "$@" | awk '/Test +#/ {print "tests/cache-" $3}')
# only this build's kernels go into the archive
rm -rf $caches
start=$(date +%s)
# the checks fail by design: ctest's status says nothing here
HUM_CUDA_DRIVER="$work/libcuda.so.1" ctest -L gpu --timeout 3600 "$@" >"$out.log" 2>&1 || true
kept=""
for c in $caches; do
  if [ -d "$c/kernels" ]; then kept="$kept $c/kernels"; fi
done
n=0
if [ -n "$kept" ]; then n=$(find $kept -name '*.hum' | wc -l); fi
[ "$n" -gt 0 ] || { echo "label-cache: no kernel compiled; ctest's output is in $out.log" >&2; exit 1; }
tar cJf "$out" $kept
echo "label-cache: $n kernels of $(echo $kept | wc -w) tests in $(($(date +%s) - start)) s, $(du -h "$out" | cut -f1) in $out"
