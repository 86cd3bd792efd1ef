#!/bin/sh
# Writes three small checkpoints laid out exactly as their tools write them (GPTQ 4-bit g128
# act-order as AutoGPTQ/optimum, AWQ 4-bit g128 GEMM as AutoAWQ, compressed-tensors W4A16
# pack-quantized as llm-compressor) into DIR, and shows `hum inspect` and `--dequant` on each.
# The checkpoints come from the ctest tests/c/test_inspect.c, which also checks the output.
# usage: tools/make-fixture-checkpoints.sh DIR [BUILD_DIR]
set -eu
dir=${1:?usage: tools/make-fixture-checkpoints.sh DIR [BUILD_DIR]}
build=${2:-build}
test_bin=$(ls "$build"/tests/test_*inspect 2>/dev/null | head -n 1)
if [ -z "$test_bin" ]; then
    echo "make-fixture-checkpoints: no inspect test binary under $build/tests (build the tree first)" >&2
    exit 1
fi
mkdir -p "$dir"
HUM_FIXTURE_DIR=$dir "$test_bin"
