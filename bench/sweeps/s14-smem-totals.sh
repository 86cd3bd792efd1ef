# timeout: 200
# The first call for branch smem-totals-s14 (bench/NOTES.md, "Session 14 (lead)"): from a Release build of that
# branch, under R (results dir): 256-row e4m3 tiles with half the totals in shared memory against 192 rows
# promoted every 512 (W4A8 MXFP4's built-in on main) and the built-in (W8A8), then test_gemm_a8's rows256 pass.
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/s14-smem-totals
t0=$(date +%s)
P=/tmp/s14-smem-totals-pol
mk() { # NAME ROWS: the 8-bit-A wgmma_ws entries above M = 128 on ROWS-row tiles promoted every 512 of K
    mkdir -p $P/$1
    cat >$P/$1/zz-$1.lua <<LUA
local policy = require('hum.policy')
return { name = 's14-$1', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      if layer.a8 and t.kernel == 'wgmma_ws' and t.block_k == 128 and (t.block_m == 128 or t.block_m == 192) and e.m_min > 128 then
        local c = {}
        for k, v in pairs(t) do c[k] = v end
        c.block_m, c.warp_m, c.promote_k = $2, $2, 512
        e.tuning = c
      end
    end
    return list
  end }
LUA
    printf 'policy_paths: [%s]\n' "$P/$1" >$P/$1.yaml
}
mk t256 256
mk r192 192
printf 'policy_paths: []\n' >$P/base.yaml
b() { # NAME CONFIG LAYER MS
    echo "=== $1 $2 $3 $4" >>$R/sweep.txt
    timeout 30 $H bench --config $P/$2.yaml --layer $3 --m $4 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
b w4a8 t256 $W4 512,1024,2048,8192
b w4a8 r192 $W4 512,1024,2048,8192
b w8a8 t256 $W8 1024,8192
b w8a8 base $W8 1024,8192
(cd build && timeout 75 ./tests/test_test_gemm_a8 rows256) >$R/a8-rows256.txt 2>&1
echo "rows256 exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
