#!/bin/sh
# The Python binding on a GPU host, from the top of a built tree (./tools/build.sh): the tiny
# Llama's logits check (GPTQ and AWQ, float16 and bfloat16), the GPU pytest suite, the C shard
# test (column shards concatenated, row shards summed), and the binding's cost per call beside
# `hum bench` for one layer. Every step runs under a timeout; the summary lists each step's
# status. usage: examples/python/run_on_gpu.sh [BUILD_DIR]
set -u
build=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
export HUM_LIBRARY=${HUM_LIBRARY:-$root/$build/runtime/libhum.so}
export PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH}
py=${HUM_PYTHON:-python3}
summary=""
step() { # name, command...
    name=$1
    shift
    echo "=== $name"
    timeout 900 "$@"
    rc=$?
    summary="$summary
$name: $([ $rc -eq 0 ] && echo ok || echo "FAILED (exit $rc)")"
}
"$py" -c "import torch, numpy; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" ||
    { echo "run_on_gpu: $py needs torch and numpy"; exit 1; }
step "tiny llama float16" "$py" "$root/examples/python/tiny_llama.py" --dtype float16
step "tiny llama bfloat16" "$py" "$root/examples/python/tiny_llama.py" --dtype bfloat16 --format gptq
if "$py" -c "import pytest" 2>/dev/null; then
    step "pytest (GPU and CPU)" "$py" -m pytest -q -p no:cacheprovider -rs "$root/python/tests"
else
    summary="$summary
pytest: SKIPPED ($py has no pytest)"
fi
step "ctest shard_forward" sh -c "cd '$root/$build' && ctest --output-on-failure -R '^test_shard_forward\$'"
step "binding cost vs hum bench" "$py" "$root/examples/python/bench_binding.py" \
    --layer n=8192,k=8192,w=uint4,a=float16,group=128 --m 1,16,128,1024 --hum "$root/$build/runtime/hum"
echo "=== summary$summary"
