# timeout: 140
# Session 16 final call (main at the policy commit): uint8 channel fp16 above M = 384, the new built-in
# entry against the old one (site policy), then the gpu label on this commit
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/s16c4
t0=$(date +%s)
P=/tmp/s16c4-pol; mkdir -p $P/old
cat >$P/old/zz-old.lua <<'LUA'
local policy = require('hum.policy')
return { name = 'c-old', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      if e.m_min > 384 then
        local t = policy.mma_tuning(256, 128, 64, 256, 16, 64, 3); t.kernel = 'wgmma_ws'; t.stream_k = false
        e.tuning = t
      end
    end
    return list
  end }
LUA
printf 'policy_paths: [%s]\n' "$P/old" >$P/old.yaml; printf 'policy_paths: []\n' >$P/base.yaml
U8=n=8192,k=8192,w=uint8,a=float16
for v in base old; do
  echo "=== $v" >>$R/ab.txt
  timeout 35 $H bench --config $P/$v.yaml --layer $U8 --m 512,1024,2048,8192 --warmup 10 --reps 30 >>$R/ab.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >>$R/ab.txt
done
(cd build && HUM_CACHE_DIR=$(mktemp -d) timeout $((135 - ($(date +%s) - t0))) ctest -L gpu -R "gemm_wgmma" -j8 --output-on-failure) >$R/label.log 2>&1
echo "wgmma tests exit $? in $(($(date +%s) - t0)) s" >>$R/label.log
cp build/Testing/Temporary/LastTest.log $R/label-cases.log 2>/dev/null
