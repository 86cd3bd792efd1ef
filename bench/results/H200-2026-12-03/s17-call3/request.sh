# timeout: 330
# Session 17 call 3 (main 5016260): M <= 16 tiles with more bytes in flight and no stream-K seams (ncu of
# call 2: W8A8 M = 1 GEMM at 57 % of DRAM, 30 % of its samples waiting for its stages): site policies
# beside the built-in at M 1 / 16 (W4A8 1 / 8): six stages; 64-wide tiles whole (128 tiles on 132 SMs),
# warps 16 x 16 x 128 or 16 x 32 x 64, eight stages; the same with stream-K.
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/s17c3
t0=$(date +%s)
P=/tmp/s17c3-pol
pol() {
    mkdir -p $P/$1
    cat >$P/$1/zz-$1.lua <<LUA
local policy = require('hum.policy')
local function mma(m, n, k, wm, wn, wk, s)
  local t = policy.mma_tuning(m, n, k, wm, wn, wk, s, 1); t.stream_k_sum = 'workspace'; return t
end
local function wg(kernel, m, n, k, s, c)
  local t = policy.mma_tuning(m, n, k, m, 16, k, s, c); t.kernel = kernel; t.stream_k_sum = 'workspace'; return t
end
local function whole(t) t.stream_k = false; t.stream_k_sum = nil; return t end
return { name = 'c-$1', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = {}
      for k, v in pairs(e.tuning) do t[k] = v end
      $2
      e.tuning = t
    end
    return list
  end }
LUA
    printf 'policy_paths: [%s]\n' "$P/$1" >$P/$1.yaml
}
mkdir -p $P; printf 'policy_paths: []\n' >$P/base.yaml
pol st6 "if e.m_max <= 16 then t = mma(16, 128, 256, 16, 32, 128, 6) end"
pol n64w "if e.m_max <= 16 then t = whole(mma(16, 64, 256, 16, 16, 128, 8)) end"
pol n64w4 "if e.m_max <= 16 then t = whole(mma(16, 64, 256, 16, 32, 64, 8)) end"
pol n64s "if e.m_max <= 16 then t = mma(16, 64, 256, 16, 16, 128, 8) end"
pol wn64w "if e.m_max <= 8 then t = whole(wg('wgmma_ws', 8, 64, 256, 8)) end"
b() { # NAME CONFIG LAYER MS
    echo "=== $1 $2 $3 $4" >>$R/sweep.txt
    timeout 40 $H bench --config $P/$2.yaml --layer $3 --m $4 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
U4=n=8192,k=8192,w=uint4,a=float16,group=128
for v in base st6 n64w n64w4 n64s base; do b w8 $v $W8 1,16; done
for v in base n64w n64w4 base; do b u4 $v $U4 1,16; done
for v in base wn64w base; do b w4 $v $W4 1,8; done
grep -E "^===|^ +[0-9]+ +[0-9.]+ |error|rror" $R/sweep.txt > $R/summary.txt
