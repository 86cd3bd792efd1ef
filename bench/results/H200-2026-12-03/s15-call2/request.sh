# timeout: 420
# Session 15 call 2 (tree st15 = main + the 256-row kernel + a K = 8192 e2m1 case and pass rows256p256 in
# test_gemm_a8): the accuracy of each promotion period at K = 8192 (main's W4A8 192 rows every 512 included), and
# 256-row tiles every 256 against every 512 and the built-in; W4A8 M <= 8 on 8-row tiles, repeated.
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/s15c2
t0=$(date +%s)
P=/tmp/s15c2-pol
# pol NAME LUA: a site policy directory $P/NAME (and $P/NAME.yaml) whose tunings edit the built-in list;
# LUA runs per entry with e (the entry), t (a copy of its tuning, assigned back), layer, wg(kernel, m, n, k, stages).
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
for p in 256 512; do
  pol t256p$p "if layer.a8 and t.kernel == 'wgmma_ws' and t.block_k == 128 and (t.block_m == 128 or t.block_m == 192) and e.m_min > 128 then t.block_m, t.warp_m, t.promote_k = 256, 256, $p end"
done
pol r192p256 "if layer.a8 and t.block_m == 192 and e.m_min > 128 then t.promote_k = 256 end"
pol m8s6 "if e.m_max <= 16 then t = wg('wgmma_ws', 8, 128, 256, 6) end"
tst() { # PASS [CASES]
    echo "=== test $1 ${2:-all}" >>$R/tests.txt
    (cd build && HUM_TEST_CASES=${2:-} timeout 90 ./tests/test_test_gemm_a8 $1) >>$R/tests.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/tests.txt
}
b() { # NAME CONFIG LAYER MS
    echo "=== $1 $2 $3 $4" >>$R/sweep.txt
    timeout 45 $H bench --config $P/$2.yaml --layer $3 --m $4 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
tst built-in k=8192
tst promote512 k=8192
tst promote256 k=8192
tst rows256 k=8192
tst rows256p256
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
for r in 1 2; do
  for v in base t256p256 t256p512 r192p256; do b w4a8 $v $W4 512,1024,2048,8192; done
  for v in base t256p256 t256p512; do b w8a8 $v $W8 512,1024,2048,8192; done
done
for v in base m8s6 base m8s6 base m8s6; do b small $v $W4 1,8; done
