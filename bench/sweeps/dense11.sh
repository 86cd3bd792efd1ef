#!/bin/bash
# Issue 8, session 10 (engineer "dense11"): the dense rows still behind or level with Humming at main
# 7629405 (bench/NOTES.md "Session 8 (lead): the final calls", "Session 9 (engineer dense10)"), beside
# Humming 0.1.20 in the same device call (H200, cold kernel cache, <= 90 s).
#   OUT=out [ROOT=dir] bash bench/sweeps/dense11.sh [BUILD_DIR]     (DRY=1: `hum info --arch sm_90a` of
#   each row's table instead of timing it, no GPU needed)
# SET=1 (call 1):
#  w2      uint2 channel fp16 8192 x 8192 at M 1 / 16 / 128 on the built-in table (uint2 last
#          timed at b7d8585: 23.31 / 68.93 against Humming 18.08 / 35.36), and M = 1 candidates on the
#          mma.sync path as tags M = 2, 3, 4 of one process (`c1`): 16 x 256 x 256 (warp 16 x 64 x 128),
#          16 x 128 x 256 (warp 16 x 32 x 256, four warps), 16 x 256 x 256 (warp 16 x 32 x 128, 16 warps),
#          all summed in the workspace like the built-in: at two bits a stage carries half the codes of
#          four, so the per-stage overhead (addresses, loop, barrier: ~130 of ~347 instructions per warp)
#          weighs twice as much per byte;
#  l4k     4096 x 4096 uint4 g128 fp16 M = 128 (19.18-19.36 against 19.23): tags 124..128 of one process,
#          the built-in 64 x 128 x 256 / 4 through C (124, 128), summed (125), 64 x 64 x 256 / 5 whole
#          (126: 128 tiles of 16 k-blocks, no fix-up) and summed (127);
#  l14     n = 4096, k = 14336 M = 128 (34.35-34.66 against 34.08): the built-in 128 x 128 x 128 / 4
#          summed (124, 128), 64 x 128 x 256 / 4 summed (125), 64 x 64 x 256 / 5 summed (126), 128 x 64 x
#          128 / 6 summed (127: one math warpgroup, 64 column tiles);
#  *-raw   uint2 channel and 8192 x 8192 uint4 g128 fp16 at M 1 / 16 on this tree's kernels (KP: HUM_KERNEL_PATH,
#          the codes masked where they sit, read as float16 subnormals, kRawCodes in gemm_mma.cu) beside the
#          build's (the built-in table either way);
#  w3      uint3 channel M 1 / 16 / 128 on the built-in table's tiles (a site policy, `c3`), and 16 x 256 x
#          256 (warp 16 x 64 x 128: eight warps where the built-in's odd width runs four) at M = 2;
#  hm-*    Humming on uint2 channel M 1 / 16 / 128 (dense11-humming.py);
#  ncu-*   one hum_gemm launch each (--clock-control none): uint2 channel M = 1, 4096 x 4096 M = 128,
#          n = 4096, k = 14336 M = 128.
# SET=2 (call 2, this tree's build: policies/sm90.lua with 4096 x 4096 M 65..128 on 64 x 64 x 256 whole):
#  l4k     the entry before (64 x 128 x 256 / 4, stream-K through C) at M 65 / 99 / 127 beside the whole
#          64 x 64 x 256 at M 66 / 100 / 128, one process;
#  *-fx    n = 4096, k = 14336 at M = 128 and 8192 x 8192 uint4 g128 fp16 at M 128 / 256 on this tree's kernels
#          (KP: gemm/epilogue.cuh's workspace sums read a peer's 64 accumulators per thread at once, one L2
#          round trip per peer where the 128 x 128 tiles took two) beside the build's;
#  hm-*    Humming on uint2 channel M 1 / 16 / 128, 4096 x 4096 and n = 4096, k = 14336 at M = 128;
#  w2, l14 (if time is left) uint2 channel M = 1: two CTAs per SM, eight stages, 16 x 128 x 128 / 8,
#          16 x 64 x 256 / 6 beside the built-in (1, 16); n = 4096, k = 14336 M = 128: 128 x 128 x 64 / 8
#          and 128 x 128 x 128 / 3 summed, 64 x 64 x 256 whole, beside the built-in (124, 127).
# Rows run in order of what they decide and are skipped when the time left (BUDGET seconds from the
# start, default 84) cannot hold them.
set -u
build=${1:-build}
out=${OUT:-out}
mkdir -p "$out"
H=$build/runtime/hum
L=$out/dense11.txt
here=$(cd "$(dirname "$0")" && pwd)
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
HUM_CACHE_DIR=${HUM_CACHE_DIR:-$(mktemp -d)}
export HUM_CACHE_DIR
P=$(mktemp -d)
# A site policy NAME of the ranges given (a Lua list body of { max_m, TUNING } entries), TUNING a Lua
# expression of ws(bm, bn, bk, warp_n, stages[, sum[, whole]]) (a wgmma_ws tile; sum: stream-K slices
# summed in the workspace; whole: no stream-K) or sm(bn, bk, warp_n, warp_k, stages[, ctas]) (mma.sync,
# 16 rows, summed in the workspace; ctas: CTAs per SM).
pol() {
    mkdir -p "$P/$1"
    cat >"$P/$1/zz-dense11.lua" <<LUA
local policy = require("hum.policy")
local mma = policy.mma_tuning
local function ws(bm, bn, bk, wn, st, sum, whole)
  local t = mma(bm, bn, bk, bm, wn, bk, st)
  t.kernel = "wgmma_ws"
  if sum then t.stream_k_sum = "workspace" end
  if whole then t.stream_k = false end
  return t
end
local function sm(bn, bk, wn, wk, st, ctas)
  local t = mma(16, bn, bk, 16, wn, wk, st, ctas)
  t.stream_k_sum = "workspace"
  return t
end
return { name = "dense11-$1", applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer) return policy.ranges({ $2 }) end }
LUA
}
T=true
row() { # POLICY|- LABEL SPEC M-LIST: one hum bench, skipped when the time left cannot hold it
    local pdir=$P/$1 name=$1-$2
    [ "$1" = - ] && pdir= name=builtin-$2
    if [ -n "${DRY:-}" ]; then
        echo "== $name $3 m=$4" >>"$L"
        HUM_POLICY_PATH=$pdir "$H" info --arch sm_90a --layer "$3" 2>&1 | grep -E "^ +M [0-9]|rror" >>"$L"
        return
    fi
    local lim=$((${BUDGET:-84} - $(el)))
    [ $lim -gt 16 ] && lim=16
    if [ $lim -lt 5 ]; then
        echo "== $name $3 m=$4: skipped (time) t=$(el)" >>"$L"
        return
    fi
    echo "== $name $3 m=$4 t=$(el)" >>"$L"
    HUM_POLICY_PATH=$pdir HUM_KERNEL_PATH=${KP:-} timeout $lim "$H" bench --layer "$3" --m "$4" --warmup 10 --reps 50 \
        --out "$out/$name.json" >"$out/$name.log" 2>&1
    echo "exit $?" >>"$out/$name.log"
    grep -E "^ +[0-9]+ +[0-9.]+ |check|rror|fail|refus|  M [0-9]|exit [1-9]" "$out/$name.log" >>"$L"
}
hm() { # LABEL ARGS...: Humming rows (dense11-humming.py), skipped when the time left cannot hold them
    [ -n "${DRY:-}" ] && return
    local lim=$((${BUDGET:-84} - $(el)))
    [ $lim -gt 40 ] && lim=40
    if [ $lim -lt 14 ] || [ -z "${ROOT:-}" ]; then
        echo "== hm-$1: skipped (time or no ROOT) t=$(el)" >>"$L"
        return
    fi
    local label=$1
    shift
    echo "== hm-$label $* t=$(el)" >>"$L"
    timeout $lim python3 "$here/dense11-humming.py" --out "$out/hm-$label.json" "$@" >"$out/hm-$label.log" 2>&1
    echo "exit $?" >>"$out/hm-$label.log"
    grep -E '"us"|exit [1-9]|Error' "$out/hm-$label.log" | cut -c1-160 >>"$L"
}
nc() { # LABEL SPEC M: ncu of one hum_gemm launch (details, and the stall reasons per issued instruction)
    [ -n "${DRY:-}" ] && return
    local lim=$((${BUDGET:-84} - $(el)))
    [ $lim -gt 16 ] && lim=16
    if [ $lim -lt 8 ] || ! command -v ncu >/dev/null 2>&1; then
        echo "== ncu-$1: skipped (time or no ncu) t=$(el)" >>"$L"
        return
    fi
    echo "== ncu-$1 $2 m=$3 t=$(el)" >>"$L"
    timeout $lim ncu --clock-control none -k regex:hum_gemm -c 1 --section SpeedOfLight \
        --section MemoryWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section Occupancy \
        --section LaunchStats --section ComputeWorkloadAnalysis -o "$P/ncu-$1" "$H" bench --layer "$2" --m "$3" \
        --warmup 0 --reps 1 >"$out/ncu-$1.log" 2>&1
    echo "exit $?" >>"$out/ncu-$1.log"
    ncu --import "$P/ncu-$1.ncu-rep" --page details >"$out/ncu-$1.txt" 2>&1
    ncu --import "$P/ncu-$1.ncu-rep" --page raw --csv 2>/dev/null | python3 -c '
import csv, sys
r = list(csv.reader(sys.stdin))
if len(r) > 2:
    for n, u, v in zip(r[0], r[1], r[2]):
        if ("issue_stalled" in n and "per_issue_active" in n) or n.startswith(("dram__bytes", "gpc__cycles_elapsed.max",
                "sm__cycles_active.avg", "smsp__inst_executed.sum", "sm__throughput", "lts__t_bytes.sum",
                "l1tex__data_pipe_lsu_wavefronts_mem_shared", "smsp__inst_executed_pipe")):
            print(n, u, v)' >"$out/ncu-$1-raw.txt" 2>&1
    grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Issued Warp|Eligible Warps|Registers" \
        "$out/ncu-$1.txt" >>"$L"
}
B2=n=8192,k=8192,w=uint2,a=float16
B3=n=8192,k=8192,w=uint3,a=float16
E16=n=8192,k=8192,w=uint4,a=float16,group=128
L4K=n=4096,k=4096,w=uint4,a=float16,group=128
L14=n=4096,k=14336,w=uint4,a=float16,group=128
# M = 1 on the mma.sync path: the built-in 16 x 128 x 256 / 4 (1), three candidates (2, 3, 4)
SMB="sm(128, 256, 32, 128, 4)"
pol c1 "{ 1, $SMB }, { 2, sm(256, 256, 64, 128, 4) }, { 3, sm(128, 256, 32, 256, 4) }, { 4, sm(256, 256, 32, 128, 4) }, { math.huge, $SMB }"
# 4096 x 4096 M = 128: the built-in 64 x 128 x 256 / 4 through C (124, 128), summed (125), 64 x 64 x 256
# / 5 whole (126) and summed (127)
B4K="ws(64, 128, 256, 16, 4)"
pol c4k "{ 124, $B4K }, { 125, ws(64, 128, 256, 16, 4, $T) }, { 126, ws(64, 64, 256, 16, 5, false, $T) }, { 127, ws(64, 64, 256, 16, 5, $T) }, { math.huge, $B4K }"
# n = 4096, k = 14336 M = 128: the built-in 128 x 128 x 128 / 4 summed (124, 128), 64 x 128 x 256 / 4
# summed (125), 64 x 64 x 256 / 5 summed (126), 128 x 64 x 128 / 6 summed (127)
B14="ws(128, 128, 128, 16, 4, $T)"
pol c14 "{ 124, $B14 }, { 125, ws(64, 128, 256, 16, 4, $T) }, { 126, ws(64, 64, 256, 16, 5, $T) }, { 127, ws(128, 64, 128, 16, 6, $T) }, { math.huge, $B14 }"
# uint3 channel: the built-in table (1, 16: 16 x 128 x 256, warp 16 x 64 x 128, four warps: odd widths
# need warp N a multiple of 64; 128: 128 x 128 x 128 / 4 summed) and 16 x 256 x 256 (eight warps) at 2
pol c3 "{ 1, sm(128, 256, 64, 128, 4) }, { 2, sm(256, 256, 64, 128, 4) }, { 16, sm(128, 256, 64, 128, 4) }, { math.huge, $B14 }"
# call 2: 4096 x 4096 M 65..128, the entry before (64 x 128 x 256 / 4, stream-K through C) at M - 1
# beside 64 x 64 x 256 / 5 whole (policies/sm90.lua now) at M, one process
P4O="ws(64, 128, 256, 16, 4)"
P4N="ws(64, 64, 256, 16, 5, false, $T)"
pol p4k "{ 64, ws(64, 64, 256, 16, 5) }, { 65, $P4O }, { 66, $P4N }, { 99, $P4O }, { 100, $P4N }, { 127, $P4O }, { math.huge, $P4N }"
# n = 4096, k = 14336 M = 128: the built-in 128 x 128 x 128 / 4 summed (124, 127), 128 x 128 x 64 / 8
# summed (125), 128 x 128 x 128 / 3 summed (126), 64 x 64 x 256 / 5 whole (128: 128 tiles)
pol p14 "{ 124, $B14 }, { 125, ws(128, 128, 64, 16, 8, $T) }, { 126, ws(128, 128, 128, 16, 3, $T) }, { 127, $B14 }, { math.huge, $P4N }"
# uint2 channel M = 1: the built-in 16 x 128 x 256 / 4 (1, 16), two CTAs per SM (2), eight stages (3),
# 16 x 128 x 128 / 8 (warp 16 x 32 x 64: finer stream-K slices, 4), 16 x 64 x 256 / 6 (warp 16 x 16 x
# 128: 128 column tiles, 5)
pol pw2 "{ 1, $SMB }, { 2, sm(128, 256, 32, 128, 4, 2) }, { 3, sm(128, 256, 32, 128, 8) }, { 4, sm(128, 128, 32, 64, 8) }, { 5, sm(64, 256, 16, 128, 6) }, { math.huge, $SMB }"
W8=n=8192,k=8192,w=uint8,a=float16
case ${SET:-1} in
1)
    row - w2 $B2 1,16,128
    KP=$PWD/kernels row - w2-raw $B2 1,16
    row - e16 $E16 1,16
    KP=$PWD/kernels row - e16-raw $E16 1,16
    row c1 w2 $B2 1,2,3,4
    row c4k l4k $L4K 124,125,126,127,128
    row c14 l14 $L14 124,125,126,127,128
    nc l4km128 $L4K 128
    nc w2m1 $B2 1
    hm w2 --row case=w2a16-ch-fp16,n=8192,k=8192,w=uint2,group=0,m=1/16/128
    row c3 w3 $B3 1,2,16,128
    nc l14m128 $L14 128
    ;;
2)
    row p4k l4k $L4K 65,66,99,100,127,128
    row - l14 $L14 127,128
    KP=$PWD/kernels row - l14-fx $L14 127,128
    row - e16 $E16 128,256
    KP=$PWD/kernels row - e16-fx $E16 128,256
    hm dense --row case=w2a16-ch-fp16,n=8192,k=8192,w=uint2,group=0,m=1/16/128 \
        --row case=w4a16-g128-fp16-4096x4096,n=4096,k=4096,m=128 --row case=w4a16-g128-fp16-4096x14336,n=4096,k=14336,m=128
    row pw2 w2 $B2 1,2,3,4,5,16
    row p14 l14 $L14 124,125,126,127,128
    ;;
esac
echo "== end t=$(el)" >>"$L"
rm -rf "$P"
