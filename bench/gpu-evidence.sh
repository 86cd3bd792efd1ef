#!/bin/sh
# One call on a GPU host, over a Release build made elsewhere: what the issues ask to be shown.
# Writes every step's output into $OUT/evidence.log (default ./out), the bench JSON beside it,
# and prints a summary last.
#   device info; the self-check kernel compiled twice (a cache hit the second time); the `gpu`
#   ctest label; `hum demo` on a GPTQ act-order and on an AWQ checkpoint of Llama-3-8B shapes
#   (both kept); `hum run --check` on every layer of both; `hum bench` of the issue's SPEC in
#   float16 and bfloat16.
# usage: bench/gpu-evidence.sh [BUILD_DIR]
set -u
build=${1:-build}
out=${OUT:-out}
mkdir -p "$out"
hum="$build/runtime/hum"
HUM_CACHE_DIR=$(mktemp -d)
export HUM_CACHE_DIR
ckpt=$(mktemp -d)
layers="model.layers.0.self_attn.q_proj model.layers.0.mlp.gate_proj model.layers.0.mlp.down_proj"
spec=n=8192,k=8192,w=uint4,a=float16,group=128

step() { # name command...: appends the command's output to the log, records its exit status
    name=$1; shift
    start=$(date +%s)
    printf '\n===== %s: %s\n' "$name" "$*" >>"$out/evidence.log"
    timeout "${STEP_TIMEOUT:-300}" "$@" >>"$out/evidence.log" 2>&1
    rc=$?
    echo "$name: exit $rc, $(($(date +%s) - start)) s" >>"$out/summary.txt"
}

step info "$hum" info
step compile sh -c "'$hum' compile --arch sm_90a --kernel selfcheck && '$hum' compile --arch sm_90a --kernel selfcheck"
step gpu-tests sh -c "cd '$build' && ctest -L gpu --output-on-failure --timeout 300"
step demo-gptq "$hum" demo --act-order --keep "$ckpt/gptq"
step demo-awq "$hum" demo --format awq --keep "$ckpt/awq"
for fmt in gptq awq; do
    for layer in $layers; do
        step "run-$fmt-${layer##*.}" "$hum" run "$ckpt/$fmt" --layer "$layer" --m 1,16,128,1000 --check
    done
done
step bench-fp16 "$hum" bench --layer "$spec" --out "$out/bench-fp16.json"
step bench-bf16 "$hum" bench --layer "$(echo $spec | sed s/a=float16/a=bfloat16/)" --out "$out/bench-bf16.json"
rm -rf "$ckpt" "$HUM_CACHE_DIR"
echo
cat "$out/summary.txt"
