#!/bin/sh
# Issue 9 (engineer w8a8, session 6): W8A8 e4m3 n = k = 8192, the two ranges that miss the bar.
# Run from the repository root after a Release build:
#     OUT=out BUDGET=85 [BASE=dir/kernels] sh bench/sweeps/w8a8.sh [BUILD_DIR]
# Each step runs only while BUDGET seconds (from the start) leave it room; logs under $OUT,
# the summary in $OUT/w8a8.txt.
#  tests  test_gemm_a8's promotion passes (K = 8192 and K = 2064 e4m3 at M 1 and 200, the
#         error against float64 printed): never (one accumulator set, 256-row tiles above
#         M = 128), every 256 of K; the wgmma_ws pass (the default tables' wgmma_ws kernels at
#         M 20 / 48 / 72); never with 128 x 256 tiles, every 512 of K
#  rows   hum bench --layer n=8192,k=8192,w=e4m3,a=e4m3 under site policies over the built-in
#         tables (every entry edited):
#     base   the built-in tables                                M 1, 16, 128, 1024, 8192
#     old    the same with BASE's kernels (HUM_KERNEL_PATH: the kernels before this change,
#            no weight prefetch before the PDL wait, the quantizer's trigger at its end)
#     never  promote_k = K: no promotion; the M > 128 entry 256 x 128 x 128 / 3  M 16, 128, 1024, 8192
#     n256   never, 128 x 256 x 128 (warp N 32) from M = 65
#     p256   promoted every 256 of K (every other 128-column stage), same tiles
#     p512   every 512
set -u
build=${1:-build}
out=${OUT:-out}
budget=${BUDGET:-85}
mkdir -p "$out"
HUM_CACHE_DIR=$(mktemp -d)
export HUM_CACHE_DIR
H=$build/runtime/hum
T=$build/tests/test_test_gemm_a8
L=$out/w8a8.txt
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
room() { [ $((budget - $(el))) -ge "$1" ]; }  # NEED seconds left?
P=$(mktemp -d)
pol() { # NAME LUA-STATEMENTS-ON-t (each entry's tuning)
    mkdir -p "$P/$1"
    cat >"$P/$1/zz-w8a8.lua" <<LUA
local policy = require('hum.policy')
return { name = 'w8a8-$1', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      $2
    end
    return list
  end }
LUA
}
pol base ""
pol never "t.promote_k = layer.padded_k; if e.m_min > 128 and t.block_m == 128 then local c = {} for k, v in pairs(t) do c[k] = v end c.block_m, c.warp_m = 256, 256 e.tuning = c end"
pol n256 "t.promote_k = layer.padded_k; if t.block_m >= 128 then t.block_m, t.warp_m, t.block_n, t.warp_n = 128, 128, 256, 32 end"
pol p256 "t.promote_k = 256"
pol p512 "t.promote_k = 512"
W8=n=8192,k=8192,w=e4m3,a=e4m3
test_pass() { # PASS NEED
    room "$2" || { echo "test_gemm_a8 $1: skipped at $(el) s" >>"$L"; return; }
    timeout $((budget - $(el))) "$T" "$1" >"$out/test_gemm_a8-$1.log" 2>&1
    echo "test_gemm_a8 $1: exit $? at $(el) s" >>"$L"
    grep -E " (ok  |FAIL) |relative error" "$out/test_gemm_a8-$1.log" >>"$L"
}
row() { # POLICY M-LIST NEED [KERNEL_PATH]
    room "$3" || { echo "== $1 skipped at $(el) s" >>"$L"; return; }
    echo "== $1 m=$2 t=$(el)" >>"$L"
    HUM_KERNEL_PATH=${4:-} HUM_POLICY_PATH=$P/$1 timeout $((budget - $(el))) "$H" bench --layer "$W8" --m "$2" \
        --warmup 5 --reps 20 --out "$out/$1.json" >"$out/$1.log" 2>&1
    grep -E "^ +[0-9]+ +[0-9.]+ |check|rror|fail|refus|  M [0-9]" "$out/$1.log" >>"$L"
}
row base 1,16,128,1024,8192 12
test_pass never 6
row never 16,128,1024,8192 10
[ -n "${BASE:-}" ] && { mkdir -p "$P/old" && cp "$P/base/zz-w8a8.lua" "$P/old/"; row old 1,16,1024,8192 10 "$BASE"; }
row n256 1024,8192 9
test_pass promote256 6
row p256 1024,8192 9
test_pass wgmma_ws 20
test_pass never128x256 6
test_pass promote512 6
row p512 1024,8192 9
echo "== end t=$(el)" >>"$L"
rm -rf "$P" "$HUM_CACHE_DIR"
