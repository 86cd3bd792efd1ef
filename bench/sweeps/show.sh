#!/bin/bash
# The issues' "Show" in one device call (about 9 minutes on an H200), from the top of a Release
# build made elsewhere, with Humming's wheel installed (tools-shared/bench-humming.py's header):
#  1. the gpu ctest label (-j12, test_gemm_a8 in five shards: 157 s at 5620f84; up to 300 s, which
#     leaves the rows and Humming 260 s of the default budget);
#  2. `hum bench` of every row the issues' tables name (dense n=k=8192 uint4 g128 fp16 M 1..8192,
#     bf16, zero point, uint8 / uint3 / uint2 channel, act-order, the three Llama-3-8B layers, W8A8
#     e4m3, W4A8 MXFP4, FP8 block-wise 7168 x 2048 and 8192 x 8192, the Qwen3-30B-A3B MoE layer,
#     the same under moe.activation = mxfp8, its two expert GEMMs alone);
#  3. Humming 0.1.20 and cuBLAS on the same rows (bench-humming.py: dense, quant, moe, llama).
# Each part is skipped when the time left (BUDGET seconds from the start, default 560) cannot hold
# it (each row's limit holds its checks at every M: on the H200 the 11-M fp16 row took 24 s with
# them, session 9). Everything under $OUT (default ./out): label.log, label-cases.log (ctest's LastTest.log),
# bench.txt, json/*.json, humming*.txt.
# ROWS="w8a8 moe ..." runs only those rows, HUMMING="llama quant" only those Humming parts (empty: none), LABEL=0
# skips the label (a call that shows what changed).
#   OUT=out bash bench/sweeps/show.sh [BUILD_DIR]
set -u
build=${1:-build}
OUT=${OUT:-out}
mkdir -p "$OUT/json"
H=$build/runtime/hum
t0=$(date +%s)
left() { echo $((${BUDGET:-560} - ($(date +%s) - t0))); }
[ "${LABEL:-1}" = 0 ] || (cd "$build" && HUM_CACHE_DIR=$(mktemp -d) timeout 300 ctest -L gpu -j12 --timeout 280 --output-on-failure) \
    >"$OUT/label.log" 2>&1
echo "label exit $? in $(($(date +%s) - t0)) s" >>"$OUT/label.log"
# every test's own lines (each case and its error against float64), passed or not
[ "${LABEL:-1}" = 0 ] || cp "$build/Testing/Temporary/LastTest.log" "$OUT/label-cases.log" 2>/dev/null
grep -E "tests passed|FAILED|label exit" "$OUT/label.log"
row() { # NAME TIMEOUT hum-bench-arguments...: one row, skipped when the time left cannot hold it
    name=$1 to=$2
    shift 2
    case " ${ROWS:-$name} " in *" $name "*) ;; *) return ;; esac
    if [ "$(left)" -lt $((to + 150)) ]; then # keep 150 s for Humming
        echo "=== $name: skipped (time)" >>"$OUT/bench.txt"
        return
    fi
    echo "=== $name: $*" >>"$OUT/bench.txt"
    out=()
    [ "$1" = --layer ] && out=(--out "$OUT/json/$name.json")
    HUM_CACHE_DIR=/tmp/show-$name timeout "$to" "$H" bench "$@" --warmup 10 --reps 50 "${out[@]}" \
        >>"$OUT/bench.txt" 2>&1
    echo "exit $?" >>"$OUT/bench.txt"
}
printf 'overrides:\n  moe:\n    activation: mxfp8\n' >/tmp/show-mxfp8.yaml
moe=e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128
row w4g128fp16 45 --layer n=8192,k=8192,w=uint4,a=float16,group=128 --m 1,16,32,64,128,256,512,1024,2048,4096,8192
row actorder 45 --layer n=8192,k=8192,w=uint4,a=float16,group=128,actorder=1 --m 16,32,64,128,256,512,1024,2048,4096,8192
row w8a8 40 --layer n=8192,k=8192,w=e4m3,a=e4m3 --m 1,16,32,64,128,256,512,1024,8192
row moe 40 --moe $moe --m 1,8,128,1024,4096
for s in n=4096,k=4096 n=14336,k=4096 n=4096,k=14336; do
    row "llama-${s//[=,]/}" 20 --layer "$s,w=uint4,a=float16,group=128" --m 1,16,128,1024
done
row w4a8mx 40 --layer n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0 --m 1,8,16,32,64,128,256,384,512,1024,8192
row moe-mxfp8 40 --config /tmp/show-mxfp8.yaml --moe $moe --m 1,128,1024
row fp8blk7168 30 --layer n=7168,k=2048,w=e4m3,a=e4m3,block=128x128,ascale=group128 --m 1,128,1024,8192
row fp8blk8192 35 --layer n=8192,k=8192,w=e4m3,a=e4m3,block=128x128,ascale=group128 --m 1,128,1024,8192
row w2ch 25 --layer n=8192,k=8192,w=uint2,a=float16 --m 1,128,1024,8192
row w3ch 20 --layer n=8192,k=8192,w=uint3,a=float16 --m 1024,8192
row w4g128bf16 25 --layer n=8192,k=8192,w=uint4,a=bfloat16,group=128 --m 1,128,1024,8192
row w4g128zp 25 --layer n=8192,k=8192,w=uint4,a=float16,group=128,zp=int --m 1,128,1024,8192
row w8ch 25 --layer n=8192,k=8192,w=uint8,a=float16 --m 1,128,1024,8192
row moe-gateup 25 --moe-gemm n=1536,k=2048,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8 --m 1,8,128,1024,4096
row moe-down 25 --moe-gemm n=2048,k=768,w=uint4,a=bfloat16,group=128 --experts 128 --topk 8 --down --m 1,8,128,1024,4096
for only in ${HUMMING-dense quant moe llama}; do
    t=$(($(left) - 5))
    [ $t -gt 20 ] || break
    PYTHONUNBUFFERED=1 timeout $t python3 tools-shared/bench-humming.py --only $only \
        --out "$OUT/json/humming-$only.json" >"$OUT/humming-$only.txt" 2>&1
    echo "humming $only exit $? at $(($(date +%s) - t0)) s" | tee -a "$OUT/humming-$only.txt"
done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |exit" "$OUT/bench.txt"
