#!/usr/bin/env python3
"""The kernels of one 8-bit-A forward on a timeline (torch.profiler's CUDA activity, CUPTI): when the
quantizer starts and ends, when the GEMM starts (PDL lets it launch early and wait) and ends. W8A8
and W4A8 MXFP4, n = k = 8192, M 1024 and 8192, L2 flushed before each of 6 forwards (the last
three printed). What the ~6 / ~12 us (M 1024) and ~120 us (M 8192) between hum and hum-q in
side-by-side.py are spent on (bench/NOTES.md, session 39), beside torch's cast of x into e4m3 (the
same bytes moved)."""
import json
import torch
from torch.profiler import profile, ProfilerActivity
import hum

SPECS = {"w8a8": "n=8192,k=8192,w=e4m3,a=e4m3",
         "w4a8mx": "n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0,out=bfloat16"}
rt = hum.Runtime()
flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda:0")
for name, spec in SPECS.items():
    layer = rt.layer_from_spec(spec, seed=1)
    ws = rt.workspace([layer], max_m=8192)
    for m in (1024, 8192):
        x = torch.randn((m, layer.k), dtype=getattr(torch, layer.output), device="cuda:0")
        y = layer(x, workspace=ws)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(6):
                flush.zero_()
                layer(x, out=y, workspace=ws)
            torch.cuda.synchronize()
        ks = sorted([(e.time_range.start, e.time_range.end, e.name) for e in prof.events()
                     if e.device_type == torch.autograd.DeviceType.CUDA], key=lambda t: t[0])
        runs, cur = [], None
        for s, e, n in ks:
            if "hum_quantize_a" in n:
                cur = {"q": (s, e)}
                runs.append(cur)
            elif "hum_gemm" in n and cur is not None and "g" not in cur:
                cur["g"] = (s, e)
        for r in runs[-3:]:
            if "g" not in r:
                continue
            q0, q1 = r["q"]
            g0, g1 = r["g"]
            print(json.dumps({"case": name, "m": m, "quantizer_us": round(q1 - q0, 2),
                              "gemm_start_after_quantizer_start_us": round(g0 - q0, 2),
                              "gemm_end_after_quantizer_end_us": round(g1 - q1, 2),
                              "gemm_us": round(g1 - g0, 2), "total_us": round(g1 - q0, 2)}), flush=True)
        # the GEMM alone on A quantized outside the call (side-by-side.py's hum-q)
        g = x.float()
        scale = (g.abs().amax(dim=1) / 448).clamp(min=1e-12)
        q = (g / scale[:, None]).clamp(-448, 448).to(torch.float8_e4m3fn)
        layer(q, out=y, workspace=ws, x_scale=scale)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(6):
                flush.zero_()
                layer(q, out=y, workspace=ws, x_scale=scale)
            torch.cuda.synchronize()
        gs = [e.time_range.end - e.time_range.start for e in prof.events()
              if e.device_type == torch.autograd.DeviceType.CUDA and "hum_gemm" in e.name]
        print(json.dumps({"case": name + "-q", "m": m, "gemm_us": [round(v, 2) for v in gs[-3:]]}), flush=True)
        # the DRAM floor of the quantizer's bytes: torch's cast of x into e4m3 (reads 2 MK, writes MK)
        c = torch.empty_like(q)
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(6):
                flush.zero_()
                c.copy_(x)
            torch.cuda.synchronize()
        cs = [e.time_range.end - e.time_range.start for e in prof.events()
              if e.device_type == torch.autograd.DeviceType.CUDA and "fill" not in e.name.lower()
              and "zero" not in e.name.lower()]
        print(json.dumps({"case": "torch-cast", "m": m, "us": [round(v, 2) for v in cs[-3:]]}), flush=True)
    ws.close()
    layer.close()
rt.close()
