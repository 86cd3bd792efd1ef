# timeout: 580
# Session 14 call 1 (main 3c5c145): 8-bit A tile / promotion candidates as site policies; ncu of uint2 M = 1 (hum and Humming);
# the dense rows not run since session 10 and W4A8 / W8A8 beside Humming.
set -u
H=build/runtime/hum
export HUM_CACHE_DIR=/tmp/s14-cache
t0=$(date +%s)
P=/tmp/s14pol; mkdir -p $P
mk() {
  mkdir -p $P/$1; cat > $P/$1/zz-$1.lua <<LUA
local policy = require('hum.policy')
return { name = 's14-$1', applies = function(device) return device.sm >= 90 end,
  tunings = function(device, layer)
    local list = policy.below(device, layer)
    for _, e in ipairs(list) do
      local t = e.tuning
      if layer.a8 and t.kernel == 'wgmma_ws' and t.block_k == 128 and (t.block_m == 128 or t.block_m == 192) and e.m_min > 128 then
        local c = {}
        for k, v in pairs(t) do c[k] = v end
        $2
        e.tuning = c
      end
    end
    return list
  end }
LUA
  printf 'policy_paths: [%s]\n' "$P/$1" > $P/$1.yaml; }
mk p512 'c.promote_k = 512'
mk p256 'c.promote_k = 256'
mk r192 'c.block_m, c.warp_m = 192, 192'
mk r192p512 'c.block_m, c.warp_m = 192, 192; c.promote_k = 512'
mk never128 'c.block_m, c.warp_m = 128, 128; c.promote_k = layer.padded_k'
mk never256 'c.block_m, c.warp_m = 256, 256; c.promote_k = layer.padded_k; c.stages = 3'
printf 'policy_paths: []\n' > $P/base.yaml
W4=n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0
W8=n=8192,k=8192,w=e4m3,a=e4m3
b() { # NAME CONFIG LAYER MS
  echo "=== $1 $2 $3 $4" >>$R/sweep.txt
  timeout 40 $H bench --config $P/$2.yaml --layer $3 --m $4 --warmup 10 --reps 50 >>$R/sweep.txt 2>&1
  echo "exit $? at $(($(date +%s) - t0)) s" >>$R/sweep.txt
}
for v in base p512 r192 r192p512 p256 never128 never256 base; do b w4a8 $v $W4 1024,2048,8192; done
for v in base p512 r192 never128 never256 base; do b w8a8 $v $W8 1024,8192; done
# ncu: uint2 channel M = 1, hum and Humming
cat > /tmp/hm-one.py <<'PY'
# one Humming call of a dense layer (for ncu): hm-one.py N K WDTYPE ADTYPE GROUP M
import sys, torch
sys.path.insert(0, "tools-shared")
from humming.layer import HummingLayer
from humming.forward import may_process_input
from humming.testing import random_fill_tensor
n, k, b, a, gs, m = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
layer = HummingLayer(shape_n=n, shape_k=k, num_experts=0,
                     weight_config={"dtype": b, "group_size": gs, "scale_dtype": "float16", "has_zero_point": False},
                     input_config={"dtype": a, "group_size": 0}, torch_dtype=torch.float16).to("cuda:0")
for t in layer.parameters(): random_fill_tensor(t)
layer.transform()
x = torch.randn((m, k), dtype=torch.float16, device="cuda:0")
from humming.tune import get_heuristics_config
from humming.config import GemmType
import json
cfg = layer.humming_config
tcs = json.dumps(get_heuristics_config(layer_config=cfg, gemm_type=GemmType.DENSE)); ccs = json.dumps({'gemm_type': GemmType.DENSE.value})
print(tcs)
for _ in range(3): y = layer(inputs=x, compute_config=ccs, tuning_config=tcs)
torch.cuda.synchronize(); print("ok", y.shape)
PY
timeout 60 ncu --set full -k regex:hum_gemm -c 1 -o $R/w2-m1 $H bench --layer n=8192,k=8192,w=uint2,a=float16 --m 1 --warmup 0 --reps 1 >$R/w2-m1.log 2>&1
ncu -i $R/w2-m1.ncu-rep --page details --print-units base >$R/w2-m1.txt 2>&1
PYTHONPATH=/tmp/site:${PYTHONPATH:-} timeout 90 ncu --set full -k regex:humming -c 3 -o $R/hm-w2-m1 python3 /tmp/hm-one.py 8192 8192 uint2 float16 0 1 >$R/hm-w2-m1.log 2>&1
ncu -i $R/hm-w2-m1.ncu-rep --page details --print-units base >$R/hm-w2-m1.txt 2>&1
PYTHONPATH=/tmp/site:${PYTHONPATH:-} timeout 90 ncu --set full -k regex:humming -c 3 -o $R/hm-w4-m1 python3 /tmp/hm-one.py 8192 8192 uint4 float16 128 1 >$R/hm-w4-m1.log 2>&1
ncu -i $R/hm-w4-m1.ncu-rep --page details --print-units base >$R/hm-w4-m1.txt 2>&1
rm -f $R/*.ncu-rep
echo "ncu done at $(($(date +%s) - t0)) s" >>$R/sweep.txt
left=$((560 - ($(date +%s) - t0)))
OUT=$R/show LABEL=0 BUDGET=$left ROWS="w4a8mx w8a8 w2ch w8ch w4g128bf16 w4g128zp" HUMMING="quant dense" bash bench/sweeps/show.sh build >$R/show.log 2>&1
