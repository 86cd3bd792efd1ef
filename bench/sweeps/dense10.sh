#!/bin/bash
# Issue 8, session 9 (engineer "dense10"): what bounds the dense rows still behind Humming at main
# c46c0fa (= code 4880031; bench/NOTES.md "Session 8 (lead): the final calls"), and candidate tiles
# for them, in one device call on an H200 with a cold kernel cache.
#   OUT=out [OLD_HUM=path] bash bench/sweeps/dense10.sh [BUILD_DIR]     (DRY=1: `hum info --arch sm_90a`
#   of each row's table instead of timing it, no GPU needed)
# SET=1 (call 1):
#  ncu-*   one hum_gemm launch each, at the clocks `hum bench` runs at (--clock-control none), ncu's own
#          cache control (L2 flushed clean before each pass: no dirty lines of the bench's memset to
#          write back): 8192 x 8192 and 4096 x 4096 uint4 g128 fp16 at M = 1 (DRAM throughput,
#          occupancy, issue and stall reasons: what the kernel's time is beside its bytes), and
#          n = 4096, k = 14336 at M = 1024 (wgmma_ws 256 x 128 x 128 / 2, summed);
#  old     n = 4096, k = 14336 M = 1024 on $OLD_HUM (e052469, the commit before moe9's four-plane
#          repack, 99c2d69) beside this build in the same call: 178.74 (s7 final) -> 186.93 (s8 final),
#          the layout's or the card's;
#  cand-*  one site policy of several M ranges (HUM_POLICY_PATH), a candidate tile per range, so
#          that one row times several (only the row's first M is checked against float64; call 2
#          checks what is taken): 128 x 256 x 128 / 3 summed in the workspace (`w256`, A read
#          from L2 by half as many column tiles) at M = 128 / 512 / 1024, 256 x 128 x 128 whole
#          (no stream-K: n = 4096 at M = 1024 and 8192 x 8192 at M = 512 are 128 tiles on 132 SMs)
#          and summed, beside the built-in table of the same layer in the same call.
# SET=2 (call 2): the bf16 decode's GPU tests; bf16 M 1 / 16 / 1024 on this tree beside main's
# kernels and table (BASE); main's entry above M = 384 (stream-K) beside whole tiles, pairs of rows
# M - 1 / M in one process (8192 x 8192 M 512..8192, n = 4096, k = 14336, uint2 and uint8 channel,
# n = 14336, k = 4096 at 1024); 4096 x 4096 M = 128 on 64 x 64 x 256 whole (128 tiles).
# Rows run in order of what they decide and are skipped when the time left (BUDGET seconds from the
# start, default 78) cannot hold them.
set -u
build=${1:-build}
out=${OUT:-out}
mkdir -p "$out"
H=$build/runtime/hum
L=$out/dense10.txt
t0=$(date +%s)
el() { echo $(($(date +%s) - t0)); }
HUM_CACHE_DIR=${HUM_CACHE_DIR:-$(mktemp -d)}
export HUM_CACHE_DIR
P=$(mktemp -d)
# A site policy NAME of the ranges given (a Lua list body of { max_m, TUNING } entries), TUNING a
# Lua expression of ws(bm, bn, bk, warp_n, stages[, sum[, whole]]) (a wgmma_ws tile; sum: stream-K
# slices summed in the workspace; whole: no stream-K).
pol() {
    mkdir -p "$P/$1"
    cat >"$P/$1/zz-dense10.lua" <<LUA
local policy = require("hum.policy")
local mma = policy.mma_tuning
local function ws(bm, bn, bk, wn, st, sum, whole)
  local t = mma(bm, bn, bk, bm, wn, bk, st)
  t.kernel = "wgmma_ws"
  if sum then t.stream_k_sum = "workspace" end
  if whole then t.stream_k = false end
  return t
end
return { name = "dense10-$1", applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer) return policy.ranges({ $2 }) end }
LUA
}
T=true
W256="ws(128, 256, 128, 32, 3, $T)"
B256="ws(256, 128, 128, 16, 2)" # the built-in above M = 384 (three stages asked, two fit), through C
# n = 4096, k = 14336: M = 128 w256 (16 tiles), M = 1023 256 x 128 whole (128 tiles), 1024 w256
pol cl14 "{ 128, $W256 }, { 1023, ws(256, 128, 128, 16, 2, false, $T) }, { math.huge, $W256 }"
# 8192 x 8192 M 509 / 510 / 511 / 512: the built-in's tile, w256, 256 x 128 whole, 256 x 128 summed
pol c512 "{ 509, $B256 }, { 510, $W256 }, { 511, ws(256, 128, 128, 16, 2, false, $T) }, { math.huge, ws(256, 128, 128, 16, 2, $T) }"
# M 1022 / 1023 / 1024: the built-in's tile, 256 x 128 summed, w256 (bf16 and uint2 channel)
pol c1k "{ 1022, $B256 }, { 1023, ws(256, 128, 128, 16, 2, $T) }, { math.huge, $W256 }"
# 4096 x 4096 M 127 / 128: the built-in's 64 x 128 x 256 / 4 (through C), w256
pol c4k "{ 127, ws(64, 128, 256, 16, 4) }, { math.huge, $W256 }"
row() { # BIN(new|old) POLICY|- LABEL SPEC M-LIST: one hum bench, skipped when the time left cannot hold it
    local hum=$H pdir=$P/$2 name=$2-$3
    [ "$2" = - ] && pdir= name=builtin-$3
    local kp=
    if [ "$1" = old ]; then
        [ -n "${OLD_HUM:-}" ] || return
        hum=$OLD_HUM name=old-$name
    elif [ "$1" = main ]; then # main's kernels (HUM_KERNEL_PATH) and table (a site policy)
        [ -n "${BASE:-}" ] || return
        kp=$BASE/kernels pdir=$BASE/policy name=main-$name
    fi
    if [ -n "${DRY:-}" ]; then # the tables' kernels (fitted stages, shared memory), no GPU needed
        echo "== $name $4 m=$5" >>"$L"
        HUM_POLICY_PATH=$pdir "$hum" info --arch sm_90a --layer "$4" 2>&1 | grep -E "^ +M [0-9]|rror" >>"$L"
        return
    fi
    local lim=$((${BUDGET:-78} - $(el)))
    [ $lim -gt 16 ] && lim=16
    if [ $lim -lt 6 ]; then
        echo "== $name $4 m=$5: skipped (time) t=$(el)" >>"$L"
        return
    fi
    echo "== $name $4 m=$5 t=$(el)" >>"$L"
    HUM_POLICY_PATH=$pdir HUM_KERNEL_PATH=$kp timeout $lim "$hum" bench --layer "$4" --m "$5" --warmup 10 \
        --reps 50 --out "$out/$name.json" >"$out/$name.log" 2>&1
    echo "exit $?" >>"$out/$name.log"
    grep -E "^ +[0-9]+ +[0-9.]+ |check|rror|fail|refus|  M [0-9]|exit [1-9]" "$out/$name.log" >>"$L"
}
nc() { # LABEL SPEC M: ncu of one hum_gemm launch (details, and the stall reasons per issued instruction)
    [ -n "${DRY:-}" ] && return
    local lim=$((${BUDGET:-78} - $(el) - 20))
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
                "sm__cycles_active.avg", "smsp__inst_executed.sum", "sm__throughput", "lts__t_bytes.sum")):
            print(n, u, v)' >"$out/ncu-$1-raw.txt" 2>&1
    grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Issued Warp|Eligible Warps|Registers" \
        "$out/ncu-$1.txt" >>"$L"
}
# call 2: main's entry above M = 384 replayed at M - 1 beside this tree's whole tiles at M (one
# process, one check: the first M, this tree's)
MSK="ws(256, 128, 128, 16, 2)"          # main's 256 x 128 x 128 (two stages fit), stream-K through C
WHL="ws(256, 128, 128, 16, 2, false, $T)" # whole
pol pe16 "{ 511, $MSK }, { 512, $WHL }, { 1023, $MSK }, { 1024, $WHL }, { 2047, $MSK }, { 2048, $WHL }, { 8191, $MSK }, { math.huge, $WHL }"
pol pl14 "{ 1023, ws(256, 128, 128, 16, 2, $T) }, { math.huge, $WHL }"
pol p1k "{ 1023, $MSK }, { math.huge, $WHL }"
pol pw8 "{ 1023, ws(256, 128, 64, 16, 3) }, { 1024, ws(256, 128, 64, 16, 3, false, $T) }, { 8191, ws(256, 128, 64, 16, 3) }, { math.huge, ws(256, 128, 64, 16, 3, false, $T) }"
# 4096 x 4096 M = 128: the built-in's 64 x 128 x 256 / 4 at 127, 64 x 64 x 256 whole (128 tiles) at 128
pol p4k "{ 127, ws(64, 128, 256, 16, 4) }, { math.huge, ws(64, 64, 256, 16, 5, false, $T) }"
L14=n=4096,k=14336,w=uint4,a=float16,group=128
L4K=n=4096,k=4096,w=uint4,a=float16,group=128
E16=n=8192,k=8192,w=uint4,a=float16,group=128
EBF=n=8192,k=8192,w=uint4,a=bfloat16,group=128
EW2=n=8192,k=8192,w=uint2,a=float16
W8=n=8192,k=8192,w=uint8,a=float16
N14=n=14336,k=4096,w=uint4,a=float16,group=128
case ${SET:-1} in
1)  # call 1: the built-in rows first (they warm the cache for ncu), then ncu, then candidates; where
    # a row's candidates stand beside the built-in tile replayed at M - 1 .. (one process, one check)
    row new - l14 $L14 1024,128
    row old - l14 $L14 1024
    nc e16m1 $E16 1
    nc l4km1 $L4K 1
    row new cl14 l14 $L14 128,1023,1024
    nc l14m1k $L14 1024
    row new c512 e16 $E16 512,509,510,511
    row new c4k l4k $L4K 128,127
    row new c1k ebf $EBF 1024,1022,1023
    row new c1k ew2 $EW2 1024,1022,1023
    ;;
2)  # call 2: the GPU tests of the bf16 window decode (every width, zero points, M 1..1024), then this
    # tree's table and kernels beside main's (BASE: main's kernels/ and its sm90.lua as a site policy)
    if [ -z "${DRY:-}" ]; then
        echo "== test_gemm bfloat16 t=$(el)" >>"$L"
        HUM_TEST_CASES=bfloat16,n=1000 timeout 30 "$build/tests/test_test_gemm" >"$out/test_gemm.log" 2>&1
        echo "exit $?" >>"$out/test_gemm.log"
        echo "cases ok: $(grep -c " ok  " "$out/test_gemm.log")" >>"$L"
        grep -E "FAIL|check failed|all checks|exit" "$out/test_gemm.log" | tail -8 >>"$L"
    fi
    row new - ebf $EBF 1,16,1024
    row main - ebf $EBF 1,16,1024
    row new pe16 e16 $E16 512,511,1024,1023,2048,2047,8192,8191
    row new pl14 l14 $L14 1024,1023
    row new p1k ew2 $EW2 1024,1023
    row new pw8 w8 $W8 1024,1023,8192,8191
    row new p4k l4k $L4K 128,127
    row new p1k n14 $N14 1024,1023
    ;;
esac
echo "== end t=$(el)" >>"$L"
rm -rf "$P"
