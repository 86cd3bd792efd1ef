#!/bin/sh
# The GPU checks of session 4's tidy work that did not get a GPU (about 60-90 s on an H200, most of it
# NVRTC), from the top of a Release build; logs under $OUT (default: a temporary folder).
#  1. cli_run_formats: `hum run --check` (as docs/cli.md gives it) on checkpoints laid out as the tools
#     write them: gpt-oss MXFP4 experts (swiglu_oai, interleaved gate/up, biases), compressed-tensors W4A16
#     experts (one module per expert), ModelOpt NVFP4 experts whose gate/up carry different weight_scale_2
#     (folded into the group scales), compressed-tensors W8A8 fp8 dense (must print "activations: e4m3 per
#     token"). Each M line must end ": ok" (issues 9 and 10, "Show").
#  2. moe_grouped: hum_moe_forward_grouped (grouped contiguous and masked layouts) against the float64
#     reference; rows no expert owns keep their poison; one relative error line per case.
set -u
OUT=${OUT:-$(mktemp -d)}
build=${1:-build}
cd "$build" || exit 1
timeout 85 ctest -R '^(cli_run_formats|moe_grouped)$' --output-on-failure -V > "$OUT/tidy.txt" 2>&1
echo "exit $?" >> "$OUT/tidy.txt"
grep -E "rel error|relative error|activations:|FAIL|failed|passed|exit" "$OUT/tidy.txt" | tail -40
echo "logs: $OUT"
