#!/bin/sh
# Prints a CUDA_HOME whose include folder is a plain copy of the toolkit's at a fixed path, made
# afresh. hum gives NVRTC that folder by its real path (runtime/src/jit/jit_nvrtc.c) and the
# kernel cache key holds the option (jit_key.c), so a cache filled on one machine hits on another
# only where both name the same path: tools/label-cache/build.sh and bench/sweeps/run-call.sh
# both export what this prints. From: $CUDA_HOME/include, else /usr/local/cuda/include.
set -eu
home=/tmp/hum-label-cache-cuda
from=${CUDA_HOME:-/usr/local/cuda}
# already exported from an earlier run: copy from the toolkit, not from the copy
[ "$from" != "$home" ] || from=/usr/local/cuda
rm -rf "$home.new"
mkdir -p "$home.new"
cp -rL "$from/include" "$home.new/include"
rm -rf "$home"
mv "$home.new" "$home"
echo "$home"
