#!/bin/sh
# Prints a CUDA_HOME whose include folder is a plain copy of the toolkit's at a fixed path, made
# afresh. hum gives NVRTC that folder by its real path (runtime/src/jit/jit_nvrtc.c) and the
# kernel cache key holds the option (jit_key.c), so a cache filled on one machine hits on another
# only where both name the same path: tools/label-cache/build.sh and bench/sweeps/run-call.sh
# both export what this prints. From: $CUDA_HOME/include, else /usr/local/cuda/include.
set -eu
home=/tmp/hum-label-cache-cuda
rm -rf "$home"
mkdir -p "$home"
cp -rL "${CUDA_HOME:-/usr/local/cuda}/include" "$home/include"
echo "$home"
