#!/bin/sh
# Grouped MoE layers timed (about 60-90 s on an H200, half of it NVRTC), from the top of a Release
# build; logs under $OUT. The Qwen3-30B-A3B gate/up shape with each M's routed rows dispatched as
# DeepEP lays them out: grouped contiguous ([M * 8, H], expert offsets; DeepEP high-throughput) and
# grouped masked ([E, T, H], counts; low-latency), hum_moe_forward_grouped timed whole (gate/up,
# activation, down; no align, no combine) after a checked forward. Compare with the indexed layer's
# gate_up + act + down columns of `hum bench --moe` at the same M (bench/results: session 4 lead-1).
set -u
OUT=${OUT:-$(mktemp -d)}
build=${1:-build}
spec=e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128
for g in grouped masked; do
    timeout 45 "$build/runtime/hum" bench --moe "$spec,gemm=$g" --m 1,8,128,1024 --warmup 5 --reps 20 \
        > "$OUT/moe-$g.txt" 2>&1
    echo "exit $?" >> "$OUT/moe-$g.txt"
    cat "$OUT/moe-$g.txt"
done
echo "logs: $OUT"
