#!/bin/sh
# Issue 8, first run of the warp-specialised wgmma kernel ("wgmma_ws", bench/NOTES.md session 4)
# on an H200, ~90 s. Run from the repository root after a Release build:
#   OUT=out sh bench/sweeps/perf-ws.sh [BUILD_DIR]
# What it decides: whether policies/sm90.lua sends M >= 17 to wgmma_ws, and which tile above
# M = 128 (256x128x128 fits two stages with its own epilogue tile; 256x128x64 four).
#  1. correctness first: test_gemm_wgmma runs both families over every width, M 1..1024, stream-K
#     (a hang or failure here ends the script: no timing of a wrong kernel);
#  2. hum bench of the built-in table against the same table on wgmma_ws (M 17..inf), each a
#     policy file in HUM_POLICY_PATH, n=k=8192 uint4 g128 fp16 and the Llama N = 4096 layers;
#  3. the candidate tiles above M = 128 on wgmma_ws at M = 1024 and 8192.
# Ran in session 5 (bench/results/H200-2026-12-02/perf-ws.txt): sm90.lua runs wgmma_ws from M = 17.
# Compare with Humming in the same call: python3 tools-shared/bench-humming.py --out $OUT/humming.json --only dense
set -u
build=${1:-build}
out=${OUT:-out}
mkdir -p "$out"
L=$out/perf-ws.txt
H=$build/runtime/hum
(cd "$build" && timeout 300 ctest -R 'test_gemm_wgmma$' --output-on-failure) >"$out/ctest-wgmma.log" 2>&1
rc=$?
echo "ctest test_gemm_wgmma: exit $rc" >>"$L"
[ $rc -eq 0 ] || exit 1
pol() { # NAME TUNING-AT-129..inf: a policy file like sm90.lua's wgmma table on wgmma_ws
    mkdir -p "/tmp/perf-ws/$1"
    cat >"/tmp/perf-ws/$1/zz-perf-ws.lua" <<LUA
local policy = require("hum.policy")
local mma = policy.mma_tuning
local function ws(bm, bn, bk, wn, st) local t = mma(bm, bn, bk, bm, wn, bk, st); t.kernel = "wgmma_ws"; return t end
return { name = "perf-ws-$1", applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer) return policy.ranges({ { 16, mma(16, 128, 256, 16, 32, 128, 4) },
    { 32, ws(32, 128, 256, 16, 5) }, { 64, ws(64, 128, 256, 16, 4) }, { 128, ws(128, 128, 128, 16, 4) },
    { math.huge, $2 } }) end }
LUA
}
pol k128 "ws(256, 128, 128, 16, 3)"
pol k64 "ws(256, 128, 64, 16, 4)"
pol n256 "ws(128, 256, 128, 32, 4)"
run() { # POLICY-DIR SPEC M-LIST
    echo "=== ${1:-built-in} $2 m=$3 t=$(date +%s)" >>"$L"
    HUM_POLICY_PATH=$1 timeout 60 "$H" bench --layer "$2,w=uint4,a=float16,group=128" --m "$3" --warmup 10 \
        --reps 50 2>&1 | grep -E "^ +[0-9]+ +[0-9.]+ |check|error|fail|refus|M [0-9]" >>"$L"
}
run "" n=8192,k=8192 32,64,128,256,512,1024,2048,4096,8192
run /tmp/perf-ws/k128 n=8192,k=8192 32,64,128,256,512,1024,2048,4096,8192
for spec in n=4096,k=4096 n=4096,k=14336 n=14336,k=4096; do
    run "" $spec 128,1024
    run /tmp/perf-ws/k128 $spec 128,1024
done
run /tmp/perf-ws/k64 n=8192,k=8192 1024,8192
run /tmp/perf-ws/n256 n=8192,k=8192 1024,8192
echo "=== end t=$(date +%s)" >>"$L"
