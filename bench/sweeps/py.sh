#!/bin/sh
# The Python binding's checks that did not get a GPU in session 4 (about 80 s on an H200), from the
# top of a Release build with torch installed; logs under $OUT (default: a temporary folder).
#  1. python/tests/test_gpu.py -k a8: 8-bit activations through the binding: host-quantized e4m3 /
#     int8 codes with x_scale (per row, per tensor) against the float64 reference of the same
#     torch-quantized activations (<= 1e-3 after output rounding), 16-bit x quantized by the layer
#     (a W8A8 scheme) incl. CUDA-graph capture, linear.activation = e4m3 from the config, errors.
#  2. the rest of test_gpu.py: the forward hot path without ctypes argument conversion (forward vs
#     reference, graphs, streams, workspaces, DLPack, shards, MoE) still passes.
#  3. bench_binding.py at M = 1 and 128: the binding's cost per call over hum bench's
#     hum_layer_forward host overhead (session 4, before the hot-path rewrite: 5.7-10.3 us; the
#     bar is about 5 us). Look at the last table's "binding us per call".
set -u
OUT=${OUT:-$(mktemp -d)}
build=${1:-build}
export HUM_LIBRARY=$PWD/$build/runtime/libhum.so PYTHONPATH=$PWD/python HUM_CACHE_DIR=${HUM_CACHE_DIR:-/tmp/py-sweep-cache}
timeout 40 python3 -m pytest -q -p no:cacheprovider -rs python/tests/test_gpu.py -k a8 > "$OUT/pytest-a8.txt" 2>&1
echo "exit $?" >> "$OUT/pytest-a8.txt"
timeout 30 python3 -m pytest -q -p no:cacheprovider -rs python/tests/test_gpu.py -k "not a8" > "$OUT/pytest-rest.txt" 2>&1
echo "exit $?" >> "$OUT/pytest-rest.txt"
timeout 20 python3 examples/python/bench_binding.py --m 1,128 --reps 30 --hum "$build/runtime/hum" > "$OUT/bench.txt" 2>&1
echo "exit $?" >> "$OUT/bench.txt"
tail -3 "$OUT/pytest-a8.txt" "$OUT/pytest-rest.txt"
tail -6 "$OUT/bench.txt"
echo "logs: $OUT"
