# timeout: 88
# Session 8, engineer w4a8, call 1: W4A8 MXFP4 on 192-row tiles above M = 64 (site policies in
# bench/w4a8-r192/), beside the built-in table in the same call; W8A8 at M = 1 per token and per
# tensor (what the per-token quantizer costs before the GEMM); 192 rows promoted every 256 of K
# (hum bench's check gives its error at the first M).
set -u
R=${R:-out}; mkdir -p "$R"
H=build/runtime/hum
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
t0=$(date +%s); el() { echo $(($(date +%s) - t0)); }
row() { # NAME LAYER M-LIST TIMEOUT [VAR=VALUE...]
    name=$1 layer=$2 ms=$3 to=$4; shift 4
    echo "=== $name ($layer, M $ms) at $(el) s" >>"$R/summary.txt"
    env "$@" timeout "$to" "$H" bench --layer "$layer" --m "$ms" --warmup 10 --reps 50 --out "$R/$name.json" >"$R/$name.log" 2>&1
    echo "exit $? at $(el) s" >>"$R/summary.txt"
    grep -E "^ *[0-9]+ +[0-9.]+ |error|check" "$R/$name.log" >>"$R/summary.txt"
}
row w4a8-r192 $W4 1024,2048,8192 16 HUM_POLICY_PATH=bench/w4a8-r192/r192
row w4a8 $W4 1024,2048,8192 16 X=1
row w4a8-r192p256 $W4 2048,8192 13 HUM_POLICY_PATH=bench/w4a8-r192/r192p256
row w8a8-m1 $W8 1 10 X=1
row w8a8-m1-tensor $W8,ascale=tensor 1 10 X=1
row w4a8-r192s5 $W4 8192 10 HUM_POLICY_PATH=bench/w4a8-r192/r192s5
cat "$R/summary.txt"
