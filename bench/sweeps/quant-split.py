#!/usr/bin/env python3
"""How much of an 8-bit-A layer's forward at small M is the quantizer's: each layer timed on 16-bit
x (hum quantizes it itself, kernels/prep/quantize_a.cu, then the GEMM) and on x already quantized
(float8_e4m3fn codes and float32 per-row scales, the GEMM alone), with hum bench's protocol: one
forward captured in a CUDA graph, L2 flushed before each replay, the median of the event timings.

  HUM_LIBRARY=build/runtime/libhum.so PYTHONPATH=python python3 bench/sweeps/quant-split.py \
      [--m 1,2,4,8,16] [--reps 50] SPEC...
"""
import argparse
import statistics

import torch

import hum


def time_graph(fn, reps, flush):
    fn()  # compiles nothing (prepared), but warms the launch path
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=stream):
            fn()
    times = []
    for i in range(reps + 10):
        flush.zero_()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        if i >= 10:
            times.append(start.elapsed_time(end) * 1000.0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--m", default="1,2,4,8,16")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("spec", nargs="+")
    args = ap.parse_args()
    flush = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")
    rt = hum.Runtime()
    for spec in args.spec:
        layer = rt.layer_from_spec(spec)
        print("===", spec, layer.dispatch.get("activation"), flush=True)
        for m in (int(v) for v in args.m.split(",")):
            x = torch.randn(m, layer.k, device="cuda", dtype=torch.bfloat16)
            y16 = layer(x)
            scale = (x.float().abs().amax(dim=-1, keepdim=True) / 448.0).clamp(min=1e-12)
            q = (x.float() / scale).clamp(-448, 448).to(torch.float8_e4m3fn)
            y8 = layer(q, x_scale=scale.reshape(m))
            diff = ((y16.float() - y8.float()).norm() / y8.float().norm()).item()
            t16 = time_graph(lambda: layer(x, out=y16), args.reps, flush)
            t8 = time_graph(lambda: layer(q, out=y8, x_scale=scale.reshape(m)), args.reps, flush)
            print("M %5d  16-bit x (quantizer + GEMM) %8.2f us  quantized x (GEMM) %8.2f us  "
                  "difference %6.2f us  |y16-y8|/|y8| %.2e" % (m, t16, t8, t16 - t8, diff), flush=True)


if __name__ == "__main__":
    main()
