#!/usr/bin/env python3
"""Session 9 (moe10): prints the tuning Humming 0.1.20 picks for the Qwen3-30B-A3B expert GEMMs
(indexed, uint4 g128 bf16, E = 128, top-8) at the rows that bench-humming.py times, beside the
rows per expert; read-only (no kernel runs). Usage: moe10-humming.py"""
import json
import torch
from humming.layer import HummingLayer
from humming.tune import get_heuristics_config
from humming.config import GemmType
from humming.testing import random_fill_tensor

for name, n, k in (("gate_up", 1536, 2048), ("down", 2048, 768)):
    layer = HummingLayer(shape_n=n, shape_k=k, num_experts=128,
                         weight_config={"dtype": "uint4", "group_size": 128, "scale_dtype": "bfloat16",
                                        "has_zero_point": False},
                         input_config={"dtype": "bfloat16", "group_size": 0}, torch_dtype=torch.bfloat16).to("cuda:0")
    for t in layer.parameters():
        random_fill_tensor(t)
    layer.transform()
    cfg = layer.humming_config
    tc = get_heuristics_config(layer_config=cfg, gemm_type=GemmType.INDEXED)
    for m in (1, 8, 128, 1024, 4096):
        for lo, hi, conf in tc:
            if lo < m * 8 <= hi:
                print(json.dumps({"gemm": name, "m": m, "rows": m * 8, "range": [lo, hi], "config": conf},
                                 default=str), flush=True)
