#!/bin/sh
# FP8 block-wise W8A8 and MXFP8 (e4m3 A with scales along K, kernels/gemm/kscale.cuh; issues 9
# and 10): its tests passed on the H200 in session 5, and a dense layer runs the checkpoint's
# K-group scheme by default since; this times it (about 2-3 minutes on an H200, over a Release
# build made elsewhere). Writes under $OUT (default ./out):
#   ctest.log     the gpu tests of the K-group path against the float64 reference
#                 (test_gemm_kgroup: ||C - ref|| / ||ref|| <= 1e-3 per case and M;
#                 cli_run_check_fp8: `hum run --check` on an FP8 block-wise checkpoint), and the
#                 8-bit-A tests whose kernels share the code (test_gemm_a8, test_gemm_a8_quantize)
#   bench-*.txt   `hum bench` at n = k = 7168 (DeepSeek-V3), M 1, 128, 1024, 8192: block 128 x 128
#                 with 1 x 128 A groups, the same with MXFP8 A, and per-token W8A8 beside them
#                 (cuBLAS and cuBLASLt fp8 columns included); JSON beside them
#   humming.txt   Humming 0.1.20 on the nearest layers it has (fp8 weights with group-128 scales
#                 along K, A per token and per 1 x 128 group), when $HUMMING names its wheel's
#                 site directory and tools-shared/bench-humming.py is there
# usage: bench/sweeps/kgroup.sh [BUILD_DIR]
set -u
build=${1:-build}
out=${OUT:-out}
mkdir -p "$out"
hum="$build/runtime/hum"
timeout 300 ctest --test-dir "$build" -R '^(test_gemm_kgroup|cli_run_check_fp8|test_gemm_a8|test_gemm_a8_quantize)$' \
    --output-on-failure >"$out/ctest.log" 2>&1
tail -4 "$out/ctest.log"
ms=1,128,1024,8192
# each SPEC's a= is what the layer runs by default; the config names the same scheme (docs/formats.md)
printf 'overrides:\n  linear:\n    activation: e4m3\n' >"$out/e4m3.yaml"
printf 'overrides:\n  linear:\n    activation: mxfp8\n' >"$out/mxfp8.yaml"
for case in "block|e4m3|n=7168,k=7168,w=e4m3,block=128x128,a=e4m3,ascale=group128" \
    "mxfp8|mxfp8|n=7168,k=7168,w=e4m3,block=128x128,a=mxfp8" "token|e4m3|n=7168,k=7168,w=e4m3,a=e4m3"; do
    label=${case%%|*} rest=${case#*|}
    config=${rest%%|*} spec=${rest#*|}
    timeout 120 "$hum" --config "$out/$config.yaml" bench --layer "$spec" --m "$ms" --out "$out/bench-$label.json" \
        >"$out/bench-$label.txt" 2>&1
    echo "== $label: $spec"
    cat "$out/bench-$label.txt"
done
if [ -n "${HUMMING:-}" ] && [ -f tools-shared/bench-humming.py ]; then
    PYTHONPATH="$HUMMING${PYTHONPATH:+:$PYTHONPATH}" timeout 240 python3 - >"$out/humming.txt" 2>&1 <<'PY'
import importlib.util, traceback
spec = importlib.util.spec_from_file_location("bh", "tools-shared/bench-humming.py")
bh = importlib.util.module_from_spec(spec); spec.loader.exec_module(bh)
for name, bs, in_gs in (("fp8-g128-f32-a-g128", "float32", 128), ("fp8-g128-bf16-a-g128", "bfloat16", 128),
                        ("fp8-g128-bf16-a-token", "bfloat16", 0)):
    try:
        bh.humming_rows(name, 7168, 7168, "float8e4m3", "float8e4m3", "bfloat16", bs, 128, [1, 128, 1024, 8192],
                        in_gs=in_gs)
    except Exception:
        traceback.print_exc()
PY
    cat "$out/humming.txt"
fi
