# timeout: 99
# Session 8, engineer w4a8, call 2 (branch w4a8-tables, not landed: the stage's e2m1 byte tables
# built once per stage by each math warpgroup, gemm_wgmma.cu build_tables). First test_gemm_a8 in parallel (36 s), M <= 16
# on wgmma_ws 16-row tiles (site policy small-ws16): e2m1 cases, default passes (built-in, plain
# wgmma with workspace sums, wgmma_ws); e4m3- and uint4-weight cases, built-in pass; e2m1 rows192
# (built-in policy). Then rows while 12 s are left (site policies in bench/w4a8-r192/; hum bench's check
# gives the error at the first M): W4A8 MXFP4 built-in (this tree's sm90.lua: 192-row tiles above
# M = 1024), main's hum (3f07dfb: its kernels; bench/w4a8-r192/hum-3f07dfb, not in git) with its
# built-in table (128 rows) and with 192-row tiles (site policy r192); M <= 16 on wgmma_ws 16-row
# tiles instead of mma.sync (whose e4m3 m16n8k32 sm_90 runs as float16 HMMA on converted
# operands), W4A8 and W8A8, and W8A8's built-in row.
set -u
R=${R:-out}; mkdir -p "$R"
H=build/runtime/hum T=build/tests/test_test_gemm_a8
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
P=bench/w4a8-r192
budget=97
t0=$(date +%s); el() { echo $(($(date +%s) - t0)); }
test_sub() { # NAME CASES [PASS] [VAR=VALUE...]
    name=$1 cases=$2 pass=$3; shift 3
    env "$@" HUM_TEST_CASES=$cases HUM_CACHE_DIR=$(mktemp -d) timeout 36 "$T" $pass >"$R/test-$name.log" 2>&1
    echo "test_gemm_a8 $name ($cases $pass $*): exit $? at $(el) s" >"$R/test-$name.exit"
}
test_sub default e2m1 "" HUM_POLICY_PATH=$P/small-ws16 &
test_sub e4m3 "w=e4m3" built-in HUM_POLICY_PATH=$P/small-ws16 &
test_sub rows192 e2m1 rows192 X=1 &
test_sub uint4 "w=uint4" built-in HUM_POLICY_PATH=$P/small-ws16 &
wait
for s in default e4m3 rows192 uint4; do cat "$R/test-$s.exit"; grep -E " (ok  |FAIL) " "$R/test-$s.log"; done >>"$R/summary.txt"
row() { # NAME LAYER M-LIST TIMEOUT [VAR=VALUE...] (HUMBIN=...: another hum)
    name=$1 layer=$2 ms=$3 to=$4; shift 4
    local H=${HUMBIN:-$H}
    if [ $(($(el) + 4 + to / 2)) -gt $budget ]; then echo "=== $name skipped at $(el) s" >>"$R/summary.txt"; return; fi
    echo "=== $name ($layer, M $ms) at $(el) s" >>"$R/summary.txt"
    env "$@" timeout "$to" "$H" bench --layer "$layer" --m "$ms" --warmup 10 --reps 50 --out "$R/$name.json" >"$R/$name.log" 2>&1
    echo "exit $? at $(el) s" >>"$R/summary.txt"
    grep -E "^ *[0-9]+ +[0-9.]+ |error|check" "$R/$name.log" >>"$R/summary.txt"
}
row w4a8 $W4 1,1024,2048,8192 15 X=1
HUMBIN=$P/hum-3f07dfb row w4a8-main $W4 1024,8192 12 X=1
HUMBIN=$P/hum-3f07dfb row w4a8-main-r192 $W4 2048,8192 12 HUM_POLICY_PATH=$P/r192
row w4a8-small16 $W4 1,16 9 HUM_POLICY_PATH=$P/small-ws16
row w8a8-small16 $W8 1,16 9 HUM_POLICY_PATH=$P/small-ws16
row w8a8 $W8 1,16 9 X=1
cat "$R/summary.txt"
