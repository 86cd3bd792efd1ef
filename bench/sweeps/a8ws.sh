#!/bin/sh
# Issue 9 (engineer a8ws, session 5): 8-bit A on the warp-specialised wgmma kernel (wgmma_ws),
# ~60 s on the H200 host with a cold kernel cache. Run from the repository root after a Release
# build:  OUT=out sh bench/sweeps/a8ws.sh [BUILD_DIR]
#  1. correctness first: test_gemm_a8's wgmma_ws pass (the built-in tables' wgmma entries on
#     wgmma_ws, stream-K summed in the workspace, M 20/48/72); a failure ends the script;
#  2. hum bench of W8A8 e4m3 and W4A8 MXFP4 (e2m1 g32 e8m0 x e4m3) n = k = 8192 under site
#     policies over the built-in tables, stream_k_sum = "workspace" on every entry:
#     ws    wgmma entries -> wgmma_ws, same tiles                      M 1, 128, 1024, 8192
#     ws5   ws with the M > 128 entry at 5 stages (W4A8 runs 3 there)  M 1024, 8192
#     p4    plain wgmma, W4A8's M > 128 entry at 4 stages              M 1024, 8192
#     n256  ws with the M > 128 entry 64 x 256 x 128 (warp_n 32)       M 1024, 8192
# Session 5's device call ran step 1 and the two ws rows before its 45 s limit
# (bench/results/H200-2026-12-02/a8ws/); ws5, p4 and n256 are still to run.
set -u
build=${1:-build}
out=${OUT:-out}
mkdir -p "$out"
HUM_CACHE_DIR=$(mktemp -d)
export HUM_CACHE_DIR
H=$build/runtime/hum
L=$out/a8ws.txt
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
timeout 40 "$build/tests/test_test_gemm_a8" wgmma_ws >"$out/test_gemm_a8-ws.log" 2>&1
rc=$?
echo "test_gemm_a8 wgmma_ws: exit $rc at $(el) s" >>"$L"
grep -E "FAIL|ok  " "$out/test_gemm_a8-ws.log" | tail -3 >>"$L"
[ $rc -eq 0 ] || exit 1
P=$(mktemp -d)
pol() { # NAME LUA-STATEMENT-ON-last (the M > 128 entry)
    mkdir -p "$P/$1"
    cat >"$P/$1/zz-a8ws.lua" <<LUA
local policy = require('hum.policy')
return { name = 'a8ws-$1', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      e.tuning.stream_k_sum = 'workspace'
      if '$1' ~= 'p4' and e.tuning.kernel == 'wgmma' then e.tuning.kernel = 'wgmma_ws' end
    end
    local last = list[#list].tuning
    $2
    return list
  end }
LUA
}
pol ws ""
pol ws5 "last.stages = 5"
pol p4 "last.stages = 4"
pol n256 "last.block_m, last.warp_m, last.block_n, last.warp_n = 64, 64, 256, 32"
W8=n=8192,k=8192,w=e4m3,a=e4m3
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
row() { # POLICY LABEL SPEC M-LIST
    echo "== $1 $2 $3 m=$4 t=$(el)" >>"$L"
    HUM_POLICY_PATH=$P/$1 timeout 30 "$H" bench --layer "$3" --m "$4" --warmup 10 --reps 50 \
        --out "$out/$1-$2.json" >"$out/$1-$2.log" 2>&1
    grep -E "^ +[0-9]+ +[0-9.]+ |check|rror|fail|refus|  M [0-9]" "$out/$1-$2.log" >>"$L"
}
row ws w8a8 $W8 1,128,1024,8192
row ws w4a8 $W4 1,128,1024,8192
row ws5 w8a8 $W8 1024,8192
row ws5 w4a8 $W4 1024,8192
row p4 w4a8 $W4 1024,8192
row n256 w8a8 $W8 1024,8192
echo "== end t=$(el)" >>"$L"
rm -rf "$P" "$HUM_CACHE_DIR"
