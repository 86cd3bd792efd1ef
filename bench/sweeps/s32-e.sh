# timeout: 110
# Session 32's last request (the budget's last ~130 s), for bench/sweeps/run-call.sh: .exp/build.tgz
# is 6669342 (SS weight descriptors once a stage, in uniform registers), .exp/main.tgz 22189a6 (the
# code of 20f2fce, labelled in s32-d). W8A8 n = k = 8192 across its SS entries with hum bench's
# float64 checks, main then the change then both again at M 1024 / 8192; FP8 block-wise 7168 x 2048
# (SS with K-group factors, kLag) on the change, its checks.
set -u
t0=$(date +%s)
mkdir -p /tmp/mainb && tar xzf .exp/main.tgz -C /tmp/mainb
X=n=8192,k=8192,w=e4m3,a=e4m3
run() { # LABEL HUM CACHE ARGS...
  echo "== $1" >> $R/ab.txt
  local h=$2 c=$3; shift 3
  HUM_CACHE_DIR=/tmp/c-$c timeout 30 $h bench "$@" --warmup 10 --reps 50 2>&1 | grep -E '^ +[0-9]+ |check|FAIL|error' >> $R/ab.txt
}
run main /tmp/mainb/runtime/hum main --layer $X --m 32,64,128,256,384,1024,8192
run uniform build/runtime/hum new --layer $X --m 32,64,128,256,384,1024,8192
run "main 2" /tmp/mainb/runtime/hum main --layer $X --m 1024,8192
run "uniform 2" build/runtime/hum new --layer $X --m 1024,8192
run "uniform fp8blk" build/runtime/hum new --layer n=7168,k=2048,w=e4m3,a=e4m3,block=128x128,ascale=group128 --m 32,128,1024
echo "done at $(($(date +%s) - t0)) s" >> $R/calls.txt
