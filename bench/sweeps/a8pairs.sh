#!/bin/sh
# Issue 9 (engineer a8, session 7): W8A8 / W4A8 on 192-row tiles, n = k = 8192 at M 1024 to 8192.
# Session 7's call 2 ran it at a2b3f18, whose kernels also promoted over spans of two stages (its
# `w8a8` row, with a `spans` pass; reverted since: bench/NOTES.md, session 7, a8; results in
# bench/results/H200-2026-12-02/a8-2/). Run from the repository root after a Release build:
#     OUT=out BUDGET=77 BASE=dir/kernels [KC=cache] sh bench/sweeps/a8pairs.sh [BUILD_DIR]
# BASE: the kernels before a change, through HUM_KERNEL_PATH (the tunings are the same); KC: a
# kernel cache to start from (copied). Rows while BUDGET - 40 seconds have not passed (the GPU to
# themselves), then test_gemm_a8 passes in parallel to BUDGET; the summary in $OUT/a8pairs.txt.
#  rows   w8a8-r192   W8A8 e4m3 (channel, per-token A), the built-in table with 192-row tiles on
#                     its 128-row entries (M > 64)
#         w8a8        the built-in table (wgmma_ws 128 x 128 x 128 / 4 at M 65..1024, 192 rows above)
#         w8a8-old    the same with BASE's kernels
#         w4a8-r192, w4a8, w4a8-old  W4A8 MXFP4 (e2m1 g32 e8m0 x e4m3) the three ways
#  tests  test_gemm_a8 against float64: rows192 (M 200 / 520, K 2064 and 8192, W8A8 and W4A8 on
#         192-row tiles), the wgmma_ws pass (M 20 / 48 / 72, stream-K slices summed in the
#         workspace) of the e4m3-A cases
set -u
build=${1:-build}
out=${OUT:-out}
budget=${BUDGET:-97}
mkdir -p "$out"
HUM_CACHE_DIR=$(mktemp -d)
[ -n "${KC:-}" ] && cp -r "$KC"/. "$HUM_CACHE_DIR"/
export HUM_CACHE_DIR
H=$build/runtime/hum
T=$build/tests/test_test_gemm_a8
L=$out/a8pairs.txt
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
P=$(mktemp -d)
mkdir -p "$P/r192"
cat >"$P/r192/zz-a8.lua" <<'LUA'
local policy = require('hum.policy')
return { name = 'a8-r192', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      if t.kernel == 'wgmma_ws' and t.block_m == 128 and t.block_k == 128 then t.block_m, t.warp_m = 192, 192 end
    end
    return list
  end }
LUA
W8=n=8192,k=8192,w=e4m3,a=e4m3
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
row() { # NAME LAYER M-LIST [VAR=VALUE...]: hum bench with the environment given
    name=$1 layer=$2 ms=$3
    shift 3
    if [ $(($(el) + 40)) -gt "$budget" ]; then
        echo "=== $name skipped at $(el) s" >>"$L"
        return
    fi
    echo "=== $name at $(el) s" >>"$L"
    env "$@" timeout 14 "$H" bench --layer "$layer" --m "$ms" --warmup 10 --reps 50 \
        --out "$out/$name.json" >"$out/$name.log" 2>&1
    echo "exit $? at $(el) s" >>"$L"
    grep -E "^ *[0-9]+ +[0-9.]+ |error" "$out/$name.log" >>"$L"
}
M4=1024,2048,4096,8192
row w8a8-r192 $W8 $M4 HUM_POLICY_PATH="$P/r192"
row w8a8 $W8 $M4 X=1
row w8a8-old $W8 1024,8192 HUM_KERNEL_PATH="${BASE:-}"
row w4a8-r192 $W4 $M4 HUM_POLICY_PATH="$P/r192"
row w4a8 $W4 $M4 X=1
row w4a8-old $W4 1024,8192 HUM_KERNEL_PATH="${BASE:-}"
left=$((budget - $(el)))
test_sub() { # NAME PASS CASES
    HUM_TEST_CASES=$3 HUM_CACHE_DIR=$(mktemp -d) timeout $left "$T" "$2" >"$out/test-$1.log" 2>&1
    echo "test_gemm_a8 $2 ($3): exit $? at $(el) s" >"$out/test-$1.exit"
}
test_sub rows192 rows192 "" &
test_sub ws wgmma_ws "w=e4m3,w=e2m1,w=uint4" &
wait
for s in rows192 ws; do
    cat "$out/test-$s.exit" >>"$L"
    grep -E " (ok  |FAIL) " "$out/test-$s.log" >>"$L"
done
cat "$L"
