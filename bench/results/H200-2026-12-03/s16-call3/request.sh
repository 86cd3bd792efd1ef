# timeout: 420
# Session 16 call 3 (main 61b6b97): site-policy candidates for the cells behind Humming at small M and
# uint8 at M = 8192: W8A8 e4m3 and W4A8 MXFP4 at M = 1 / 8 / 16 on 8-row wgmma_ws tiles (stages, CTAs per
# SM, block N), uint8 channel fp16 at M = 8192 (128 x 256 tiles, stages); interleaved with the built-in.
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/s16c3
t0=$(date +%s)
P=/tmp/s16c3-pol
pol() {
    mkdir -p $P/$1
    cat >$P/$1/zz-$1.lua <<LUA
local policy = require('hum.policy')
local function wg(kernel, m, n, k, s, c)
  local t = policy.mma_tuning(m, n, k, m, 16, k, s, c); t.kernel = kernel; t.stream_k_sum = 'workspace'; return t
end
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
pol s6 "if e.m_max <= 16 then t = wg('wgmma_ws', 8, 128, 256, 6) end"
pol s8 "if e.m_max <= 16 then t = wg('wgmma_ws', 8, 128, 256, 8) end"
pol c2 "if e.m_max <= 16 then t = wg('wgmma_ws', 8, 128, 256, 5, 2) end"
pol c3 "if e.m_max <= 16 then t = wg('wgmma_ws', 8, 128, 256, 3, 3) end"
pol n256 "if e.m_max <= 16 then t = wg('wgmma_ws', 8, 256, 256, 4); t.warp_n = 32 end"
pol w8big "if e.m_min > 384 then t = wg('wgmma_ws', 128, 256, 64, 4); t.warp_n = 32; t.stream_k = false; t.stream_k_sum = nil end"
pol w8r192 "if e.m_min > 384 then t = wg('wgmma_ws', 192, 128, 64, 4); t.stream_k = false; t.stream_k_sum = nil end"
b() { # NAME CONFIG LAYER MS
    echo "=== $1 $2 $3 $4" >>$R/sweep.txt
    timeout 45 $H bench --config $P/$2.yaml --layer $3 --m $4 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
U8=n=8192,k=8192,w=uint8,a=float16
for r in 1 2; do
  for v in base s6 s8 c2 c3 n256; do b small $v $W8 1,8,16; done
  for v in base s8 c2 c3 n256; do b small $v $W4 1,8; done
done
for v in base w8big w8r192 base w8big w8r192; do b big $v $U8 8192; done
