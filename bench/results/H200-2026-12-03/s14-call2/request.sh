# timeout: 590
# Session 14 call 2: e4m3 totals in shared memory (256-row tiles promoted), W4A8 192 rows + promote_k 512,
# the M <= 16 tiles at two CTAs per SM (uint2 / uint4), uint8 channel tiles above M = 384; test_gemm_a8 rows256.
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/s14-cache2
t0=$(date +%s)
P=/tmp/s14pol2; mkdir -p $P
mkdir -p $P/k128c2
cat > $P/k128c2/zz-k128c2.lua <<'LUA'
local policy = require('hum.policy')
return { name = 's14-k128c2', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    local e = list[1]
    if e.m_max == 16 then
      local c = {}
      for k, v in pairs(e.tuning) do c[k] = v end
      c.block_k, c.warp_k, c.stages, c.ctas_per_sm = 128, 64, 4, 2
      e.tuning = c
    end
    return list
  end }
LUA
printf 'policy_paths: [%s]\n' "$P/k128c2" > $P/k128c2.yaml
mkdir -p $P/k128s6
cat > $P/k128s6/zz-k128s6.lua <<'LUA'
local policy = require('hum.policy')
return { name = 's14-k128s6', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    local e = list[1]
    if e.m_max == 16 then
      local c = {}
      for k, v in pairs(e.tuning) do c[k] = v end
      c.block_k, c.warp_k, c.stages = 128, 64, 6
      e.tuning = c
    end
    return list
  end }
LUA
printf 'policy_paths: [%s]\n' "$P/k128s6" > $P/k128s6.yaml
mkdir -p $P/k128w64c2
cat > $P/k128w64c2/zz-k128w64c2.lua <<'LUA'
local policy = require('hum.policy')
return { name = 's14-k128w64c2', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    local e = list[1]
    if e.m_max == 16 then
      local c = {}
      for k, v in pairs(e.tuning) do c[k] = v end
      c.block_k, c.warp_n, c.warp_k, c.stages, c.ctas_per_sm = 128, 64, 32, 4, 2
      e.tuning = c
    end
    return list
  end }
LUA
printf 'policy_paths: [%s]\n' "$P/k128w64c2" > $P/k128w64c2.yaml
mkdir -p $P/k256c2s3
cat > $P/k256c2s3/zz-k256c2s3.lua <<'LUA'
local policy = require('hum.policy')
return { name = 's14-k256c2s3', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    local e = list[1]
    if e.m_max == 16 then
      local c = {}
      for k, v in pairs(e.tuning) do c[k] = v end
      c.stages, c.ctas_per_sm = 3, 2
      e.tuning = c
    end
    return list
  end }
LUA
printf 'policy_paths: [%s]\n' "$P/k256c2s3" > $P/k256c2s3.yaml
mkdir -p $P/m8k128c2
cat > $P/m8k128c2/zz-m8k128c2.lua <<'LUA'
local policy = require('hum.policy')
return { name = 's14-m8k128c2', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    local e = list[1]
    if e.m_max == 16 then
      local c = {}
      for k, v in pairs(e.tuning) do c[k] = v end
      c.block_m, c.warp_m, c.block_k, c.warp_k, c.stages, c.ctas_per_sm = 8, 8, 128, 64, 4, 2
      e.tuning = c
    end
    return list
  end }
LUA
printf 'policy_paths: [%s]\n' "$P/m8k128c2" > $P/m8k128c2.yaml
mkdir -p $P/t256k128
cat > $P/t256k128/zz-t256k128.lua <<'LUA'
local policy = require('hum.policy')
return { name = 's14-t256k128', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      if layer.a8 and t.kernel == 'wgmma_ws' and t.block_k == 128 and (t.block_m == 128 or t.block_m == 192) and e.m_min > 128 then
        local c = {}
        for k, v in pairs(t) do c[k] = v end
        c.block_m, c.warp_m = 256, 256; c.promote_k = 512
        e.tuning = c
      end
    end
    return list
  end }
LUA
printf 'policy_paths: [%s]\n' "$P/t256k128" > $P/t256k128.yaml
mkdir -p $P/t256k64
cat > $P/t256k64/zz-t256k64.lua <<'LUA'
local policy = require('hum.policy')
return { name = 's14-t256k64', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      if layer.a8 and t.kernel == 'wgmma_ws' and t.block_k == 128 and (t.block_m == 128 or t.block_m == 192) and e.m_min > 128 then
        local c = {}
        for k, v in pairs(t) do c[k] = v end
        c.block_m, c.warp_m, c.block_k, c.warp_k, c.stages = 256, 256, 64, 64, 4; c.promote_k = 512
        e.tuning = c
      end
    end
    return list
  end }
LUA
printf 'policy_paths: [%s]\n' "$P/t256k64" > $P/t256k64.yaml
mkdir -p $P/w8n256
cat > $P/w8n256/zz-w8n256.lua <<'LUA'
local policy = require('hum.policy')
return { name = 's14-w8n256', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      if not layer.a8 and t.kernel == 'wgmma_ws' and t.block_m == 256 and e.m_min > 384 then
        local c = {}
        for k, v in pairs(t) do c[k] = v end
        c.block_m, c.warp_m, c.block_n, c.warp_n, c.stages = 128, 128, 256, 32, 4
        e.tuning = c
      end
    end
    return list
  end }
LUA
printf 'policy_paths: [%s]\n' "$P/w8n256" > $P/w8n256.yaml
mkdir -p $P/w8r192
cat > $P/w8r192/zz-w8r192.lua <<'LUA'
local policy = require('hum.policy')
return { name = 's14-w8r192', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      if not layer.a8 and t.kernel == 'wgmma_ws' and t.block_m == 256 and e.m_min > 384 then
        local c = {}
        for k, v in pairs(t) do c[k] = v end
        c.block_m, c.warp_m, c.stages = 192, 192, 4
        e.tuning = c
      end
    end
    return list
  end }
LUA
printf 'policy_paths: [%s]\n' "$P/w8r192" > $P/w8r192.yaml
mkdir -p $P/w8s4
cat > $P/w8s4/zz-w8s4.lua <<'LUA'
local policy = require('hum.policy')
return { name = 's14-w8s4', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      if not layer.a8 and t.kernel == 'wgmma_ws' and t.block_m == 256 and e.m_min > 384 then
        local c = {}
        for k, v in pairs(t) do c[k] = v end
        c.stages = 4
        e.tuning = c
      end
    end
    return list
  end }
LUA
printf 'policy_paths: [%s]\n' "$P/w8s4" > $P/w8s4.yaml
mkdir -p $P/w8sk
cat > $P/w8sk/zz-w8sk.lua <<'LUA'
local policy = require('hum.policy')
return { name = 's14-w8sk', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      if not layer.a8 and t.kernel == 'wgmma_ws' and t.block_m == 256 and e.m_min > 384 then
        local c = {}
        for k, v in pairs(t) do c[k] = v end
        c.stream_k = true; c.stream_k_sum = "workspace"
        e.tuning = c
      end
    end
    return list
  end }
LUA
printf 'policy_paths: [%s]\n' "$P/w8sk" > $P/w8sk.yaml
mkdir -p $P/r192p512
cat > $P/r192p512/zz.lua <<'LUA'
local policy = require('hum.policy')
return { name = 's14-r192p512', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      if layer.a8 and t.kernel == 'wgmma_ws' and t.block_k == 128 and (t.block_m == 128 or t.block_m == 192) and e.m_min > 128 then
        local c = {}
        for k, v in pairs(t) do c[k] = v end
        c.block_m, c.warp_m = 192, 192; c.promote_k = 512
        e.tuning = c
      end
    end
    return list
  end }
LUA
printf 'policy_paths: [%s]\n' "$P/r192p512" > $P/r192p512.yaml
printf 'policy_paths: []\n' > $P/base.yaml
b() { # NAME CONFIG LAYER MS [TIMEOUT]
  echo "=== $1 $2 $3 $4" >>$R/sweep.txt
  timeout ${5:-40} $H bench --config $P/$2.yaml --layer $3 --m $4 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
# correctness first: test_gemm_a8's rows256 pass (and the default passes' wgmma_ws ones), small odd shapes under the 256-row policy
(cd build && timeout 100 ./tests/test_test_gemm_a8 rows256) >$R/a8-rows256.txt 2>&1; echo "rows256 exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
b odd4 t256k128 n=1024,k=2080,w=e2m1,a=e4m3,group=32,scale=e8m0 200,520,1000
b odd8 t256k128 n=1000,k=2064,w=e4m3,a=e4m3 200,1000
for v in base t256k128 r192p512 t256k128 base; do b w4a8 $v $W4 512,1024,2048,8192; done
for v in base t256k128 base; do b w8a8 $v $W8 1024,2048,8192; done
cuobjdump --dump-resource-usage /tmp/s14-cache2/kernels/*.hum >$R/res.txt 2>&1 || true
for f in /tmp/s14-cache2/kernels/*.hum; do python3 - "$f" <<'PY' >>$R/res.txt 2>&1
import sys; b=open(sys.argv[1],'rb').read(); i=b.find(b'\x7fELF'); open('/tmp/one.cubin','wb').write(b[i:])
PY
cuobjdump --dump-resource-usage /tmp/one.cubin 2>&1 | grep -E "Function|REG|STACK|LOCAL" >>$R/res.txt; done
# M <= 16 at two CTAs per SM
for v in base k128c2 k128w64c2 k256c2s3 base; do b w2 $v n=8192,k=8192,w=uint2,a=float16 1,16; done
for v in base k128c2 k128w64c2 base; do b w4 $v n=8192,k=8192,w=uint4,a=float16,group=128 1,16; done
for v in base k128c2 k128w64c2 base; do b l14 $v n=4096,k=14336,w=uint4,a=float16,group=128 1,16; done
for v in base w8r192 w8n256 w8sk; do b w8ch $v n=8192,k=8192,w=uint8,a=float16 1024,8192; done
echo "end at $(($(date +%s) - t0)) s" >>$R/sweep.txt
