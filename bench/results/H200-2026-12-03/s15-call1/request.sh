# timeout: 540
# Session 15 call 1 (tree: st15 = main + branch smem-totals-s14's kernel): (A) e4m3 256-row tiles, half the totals
# in shared memory, against the built-in; (B) test_gemm_a8 rows256; (C) M <= 16 on 8- and 16-row wgmma_ws tiles;
# (D) W4A8 MXFP4 M 65..128 candidates; (E) Humming's quant rows.
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/s15c1
t0=$(date +%s)
P=/tmp/s15c1-pol
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
pol t256 "if layer.a8 and t.kernel == 'wgmma_ws' and t.block_k == 128 and (t.block_m == 128 or t.block_m == 192) and e.m_min > 128 then t.block_m, t.warp_m, t.promote_k = 256, 256, 512 end"
pol m8s6 "if e.m_max <= 16 then t = wg('wgmma_ws', 8, 128, 256, 6) end"
pol m8s8 "if e.m_max <= 16 then t = wg('wgmma_ws', 8, 128, 256, 8) end"
pol m16s6 "if e.m_max <= 16 then t = wg('wgmma_ws', 16, 128, 256, 6) end"
pol mid64 "if e.m_min == 65 then t = wg('wgmma_ws', 64, 128, 256, 4) end"
pol s6 "if e.m_min == 65 then t = wg('wgmma_ws', 128, 128, 128, 6) end"
pol n64 "if e.m_min == 65 then t = wg('wgmma_ws', 128, 64, 128, 6) end"
b() { # NAME CONFIG LAYER MS
    echo "=== $1 $2 $3 $4" >>$R/sweep.txt
    timeout 45 $H bench --config $P/$2.yaml --layer $3 --m $4 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
    echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
for v in base t256 base t256; do b w4a8 $v $W4 256,512,1024,2048,4096,8192; done
for v in base t256 base t256; do b w8a8 $v $W8 512,1024,2048,8192; done
(cd build && timeout 75 ./tests/test_test_gemm_a8 rows256) >$R/a8-rows256.txt 2>&1
echo "rows256 exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
for L in n=8192,k=8192,w=uint2,a=float16 n=8192,k=8192,w=uint4,a=float16,group=128 n=4096,k=14336,w=uint4,a=float16,group=128 \
         n=4096,k=4096,w=uint4,a=float16,group=128 $W8 $W4; do
    for v in base m8s6 m16s6 m8s8 base; do b small $v $L 1,16; done
done
for v in base mid64 s6 n64 base; do b mid $v $W4 128; done
for v in base mid64 s6 base; do b mid $v $W8 128; done
python3 tools-shared/bench-humming.py --only quant --out $R/humming-quant.json >$R/humming-quant.txt 2>&1
echo "humming exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
