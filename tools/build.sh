#!/bin/sh
# Configures and builds hum in Release mode: libhum (shared and static) and the hum CLI in
# $HUM_BUILD_DIR (default: build/ at the top of the tree). Further arguments go to cmake's
# configure step, e.g. tools/build.sh -DHUM_BUILD_TESTS=OFF. HUM_JOBS caps parallel jobs;
# HUM_TARGETS (space-separated) builds only those targets.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${HUM_BUILD_DIR:-$src/build}
jobs=${HUM_JOBS:-$(nproc)}
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ -x "$cuda/bin/nvcc" ]; then
    set -- -DCUDAToolkit_ROOT="$cuda" "$@"
fi
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build" -j "$jobs" ${HUM_TARGETS:+--target $HUM_TARGETS}
echo "build: $build/runtime/hum"
