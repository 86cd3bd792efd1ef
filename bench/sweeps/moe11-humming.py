#!/usr/bin/env python3
"""Session 10 (moe11): Humming 0.1.20's Qwen3-30B-A3B expert GEMMs (indexed, uint4 g128 bf16,
E = 128, top-8) timed as tools-shared/bench-humming.py --only moe times them (its timed(): one
CUDA-graph capture, L2 flushed before each replay, median), but set up and compiled first and
timed only once the file GO exists, so that the setup overlaps hum's kernel compiles on the CPU
while the timings share the GPU with nothing. Usage: moe11-humming.py OUT.json GO"""
import importlib.util, json, os, sys, time
import torch
from humming.layer import HummingLayer
from humming.testing import generate_random_moe_tensors, random_fill_tensor
from humming.tune import get_heuristics_config
from humming.config import GemmType

spec = importlib.util.spec_from_file_location("bh", os.path.join(os.environ["ROOT"], "tools-shared/bench-humming.py"))
bh = importlib.util.module_from_spec(spec); spec.loader.exec_module(bh)
out, go = sys.argv[1], sys.argv[2]
ms = [1, 8, 128, 1024, 4096]
runs = []
for name, n, k, down in (("moe-gateup-w4a16-bf16", 1536, 2048, False), ("moe-down-w4a16-bf16", 2048, 768, True)):
    layer = HummingLayer(shape_n=n, shape_k=k, num_experts=128,
                         weight_config={"dtype": "uint4", "group_size": 128, "scale_dtype": "bfloat16",
                                        "has_zero_point": False},
                         input_config={"dtype": "bfloat16", "group_size": 0}, torch_dtype=torch.bfloat16).to("cuda:0")
    for t in layer.parameters(): random_fill_tensor(t)
    layer.transform(); cfg = layer.humming_config
    tc = get_heuristics_config(layer_config=cfg, gemm_type=GemmType.INDEXED)
    for m in ms:
        x = torch.randn((m * 8 if down else m, k), dtype=torch.bfloat16, device="cuda:0")
        bsz = next(conf["block_shape"][0] for lo, hi, conf in tc if lo < m * 8 <= hi)
        torch.cuda.manual_seed(m)
        _, layout, sids, eids, ntp = generate_random_moe_tensors(shape_m=m, num_experts=128, top_k=8,
                                                                 gemm_type=GemmType.INDEXED, block_size_config=bsz)
        def run(layer=layer, x=x, layout=layout, sids=sids, eids=eids, ntp=ntp, tcs=json.dumps(tc), down=down):
            return layer(inputs=x, input_scale=None, sorted_ids=sids, expert_ids=eids, num_tokens_padded=ntp,
                         expert_layout=layout, compute_config=json.dumps({"gemm_type": GemmType.INDEXED.value}),
                         tuning_config=tcs, top_k=1 if down else 8)
        run(); torch.cuda.synchronize()  # compiles
        runs.append((name, m, run))
print("ready", flush=True)
while not os.path.exists(go):
    time.sleep(0.05)
rows = []
for name, m, run in runs:
    us, g = bh.timed(run)
    rows.append({"impl": "humming", "case": name, "m": m, "us": us * 1e3, "graph": g})
    print(json.dumps(rows[-1]), flush=True)
json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows}, open(out, "w"), indent=1)
