#!/bin/sh
# Issue 8, tiles for the N = 4096 Llama layers on an H200 (~90 s): the plain wgmma kernel at
# M = 65..128 (4096x4096 M = 128: hum 28.5 us against Humming 19.5, ratio 1.47: 32 tiles of
# 128x128 on 132 SMs, each tile's K cut over ~4 CTAs whose stream-K fix-ups run one after the
# other) and at M = 1024 (128 tiles of 256x128 on 132 SMs: nearly every tile split in two).
# Candidates with more, smaller tiles (64-row, 64-column, block K 256, 2 CTAs per SM), each the
# only entry of a policy file (hum bench checks against float64 first), then ncu --set full of
# the shipped M = 128 kernel. Decides policies/sm90.lua's M 65..128 and 129..inf entries for
# narrow layers (bench/NOTES.md, session 4). Planned on the CPU: every candidate fits. Ran in
# session 5 (bench/results/H200-2026-12-02/perf-tiles-n4096.txt, bench/NOTES.md "Session 5").
#   OUT=out sh bench/sweeps/perf-tiles-n4096.sh [BUILD_DIR]
set -u
build=${1:-build}
out=${OUT:-out}
mkdir -p "$out"
L=$out/perf-tiles-n4096.txt
H=$build/runtime/hum
mk() { mkdir -p "/tmp/p1/$1"; cat >"/tmp/p1/$1/zz-perf.lua" <<LUA
local policy = require("hum.policy")
local mma = policy.mma_tuning
local function wg(bm, bn, bk, wn, st, c) local t = mma(bm, bn, bk, bm, wn, bk, st, c); t.kernel = "wgmma"; return t end
return { name = "p1-$1", applies = function(device) return device.sm >= 90 end,
  tunings = function() return policy.ranges({ { math.huge, $2 } }) end }
LUA
}
mk base128 "wg(128, 128, 128, 16, 4)"
mk m64k128s5 "wg(64, 128, 128, 16, 5)"
mk m64k256s4 "wg(64, 128, 256, 16, 4)"
mk n64k128s5 "wg(128, 64, 128, 16, 5)"
mk n64k256s3 "wg(128, 64, 256, 16, 3)"
mk m64n64k256s5 "wg(64, 64, 256, 16, 5)"
mk m64n64k128s6 "wg(64, 64, 128, 16, 6)"
mk m64k128s3c2 "wg(64, 128, 128, 16, 3, 2)"
mk base256 "wg(256, 128, 128, 16, 3)"
mk m128n256k128s4 "wg(128, 256, 128, 32, 4)"
mk m256k64s4 "wg(256, 128, 64, 16, 4)"
run() { echo "=== $1 $2 m=$3 t=$(date +%s)" >>"$L"
    HUM_POLICY_PATH=/tmp/p1/$1 timeout 40 "$H" bench --layer "$2,w=uint4,a=float16,group=128" --m "$3" --warmup 10 \
        --reps 50 2>&1 | grep -E "^ +[0-9]+ +[0-9.]+ |check|error|fail|refus" >>"$L"; }
for p in base128 m64k128s5 m64k256s4 n64k128s5 n64k256s3 m64n64k256s5 m64n64k128s6 m64k128s3c2; do
    run $p n=4096,k=4096 64,128
done
for p in base128 m64k128s5 m64k256s4 n64k128s5 m64n64k256s5 m64k128s3c2; do
    run $p n=4096,k=14336 128
    run $p n=14336,k=4096 128
done
for p in base256 base128 m128n256k128s4 m256k64s4; do
    run $p n=4096,k=4096 1024
    run $p n=4096,k=14336 1024
done
echo "=== ncu t=$(date +%s)" >>"$L"
timeout 70 ncu --set full -k hum_gemm_wgmma -s 1 -c 1 -o "$out/ncu-4096-m128" "$H" bench \
    --layer n=4096,k=4096,w=uint4,a=float16,group=128 --m 128 --warmup 0 --reps 1 >"$out/ncu-4096-m128.log" 2>&1
ncu --import "$out/ncu-4096-m128.ncu-rep" --page details >"$out/ncu-4096-m128.txt" 2>&1
echo "=== end t=$(date +%s)" >>"$L"
