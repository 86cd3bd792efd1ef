"""What the Python binding costs per call: layer(x) from PyTorch beside `hum bench` on the same layer.

For one layer SPEC (as `hum bench --layer` takes it) and each M, on the GPU:
  gpu us       median GPU time of one forward, CUDA-graph replays of layer(x, out=out) with the L2
               flushed before each (the protocol of `hum bench`, bench/README.md);
  host us      host time of one call, median over batches of back-to-back calls without
               synchronisation, for: layer(x, out=out); layer(x) (allocates out); the bare ctypes
               call of hum_layer_forward with prebuilt arguments, as layer(x) makes it (no
               argument conversion) and through the prototype (ctypes converts each argument);
               torch.nn.functional.linear on a dense 16-bit weight of the same shape (cuBLAS), for
               scale;
  eager us     wall time per call of a loop of layer(x, out=out) (what a model sees without graphs:
               the larger of GPU time and host time).
Then runs `hum bench --layer SPEC --m LIST` (the C path: hum_us, host_overhead_us) and prints the
binding's overhead per call: host us of layer(x, out=out) minus hum bench's host_overhead_us.

usage: python examples/python/bench_binding.py [--layer SPEC] [--m 1,16,128,1024] [--hum PATH]
"""

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

import hum
from hum import _layer
from hum._capi import F


def host_us(fn, batches=30, calls=50):
    """Median over batches of the mean host time of `calls` back-to-back calls (synchronised
    between batches, so the launch queue never fills)."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    means = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        means.append((time.perf_counter() - t0) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(means)


def gpu_us(fn, reps):
    """Median event time of CUDA-graph replays of fn, the L2 flushed before each, after warm-up
    replays: hum bench's protocol (runtime/cli/bench_timer.c)."""
    fn()
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.stream(s):
        with torch.cuda.graph(g, stream=s):
            fn()
    flush = torch.empty(max(256 << 20, 4 * torch.cuda.get_device_properties(0).L2_cache_size), dtype=torch.uint8,
                        device="cuda")
    for _ in range(10):  # warm-up replays, as hum bench's
        g.replay()
    torch.cuda.synchronize()
    times = []
    for i in range(reps):
        flush.fill_(i & 0xFF)  # a new byte each time, as hum bench's cuMemsetD8Async
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        g.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3)
    return statistics.median(times)


def eager_us(fn, calls=200):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / calls * 1e6


def hum_bench(path, spec, ms):
    out = os.path.join(tempfile.mkdtemp(prefix="hum-bench-"), "bench.json")
    cmd = [path, "bench", "--layer", spec, "--m", ",".join(map(str, ms)), "--out", out]
    print("$ " + " ".join(cmd))
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    sys.stdout.write(r.stdout)
    if r.returncode != 0:
        sys.stdout.write(r.stderr)
        return None
    with open(out) as f:
        return json.load(f)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--layer", default="n=8192,k=8192,w=uint4,a=float16,group=128")
    p.add_argument("--m", default="1,16,128,1024")
    p.add_argument("--reps", type=int, default=100)
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--hum", default=os.path.join(here, "..", "..", "build", "runtime", "hum"),
                   help="the hum CLI for `hum bench` (default: build/runtime/hum; 'none' skips it)")
    args = p.parse_args()
    ms = [int(v) for v in args.m.split(",")]
    rt = hum.Runtime()
    if rt.device is None or not torch.cuda.is_available():
        print("bench_binding: needs a GPU (hum sees %s, torch.cuda.is_available() = %s)"
              % (rt.device, torch.cuda.is_available()))
        return 1
    layer = rt.layer_from_spec(args.layer)
    dt = getattr(torch, layer.output)  # 16-bit x (a layer of 8-bit A quantizes it in the forward)
    dense = torch.randn(layer.n, layer.k, device="cuda", dtype=dt) * 0.02
    print("hum %s on %s; layer %s: %s" % (hum.version(), rt.device["name"], args.layer, layer.info["ranges"]))
    print("activations: %s" % layer.dispatch["activation"])
    header = "%6s %9s %11s %9s %10s %10s %11s %9s" % ("M", "gpu us", "host us", "host us", "ctypes us", "ctypes us",
                                                       "F.linear", "eager us")
    print(header + "\n%6s %9s %11s %9s %10s %10s %11s %9s" % ("", "", "(x, out)", "(x)", "bare", "argtypes",
                                                                 "host us", "(x, out)"))
    rows = {}
    for m in ms:
        x = torch.randn(m, layer.k, device="cuda", dtype=dt)
        out = torch.empty(m, layer.n, device="cuda", dtype=layer._torch_out)
        layer(x, out=out)  # fills the layer's reusable tensor structs for the bare calls
        st, h = layer._own, layer._h
        raw_stream = torch.cuda.current_stream().cuda_stream
        stream = ctypes.c_void_p(raw_stream)
        bare, typed = _layer._FORWARD, F["hum_layer_forward"]
        row = {
            "gpu_us": gpu_us(lambda: layer(x, out=out), args.reps),
            "host_us": host_us(lambda: layer(x, out=out)),
            "host_alloc_us": host_us(lambda: layer(x)),
            "ctypes_us": host_us(lambda: bare(h, stream, st.aref, None, st.cref)),
            "ctypes_argtypes_us": host_us(lambda: typed(h, raw_stream, st.aref, None, st.cref)),
            "linear_host_us": host_us(lambda: torch.nn.functional.linear(x, dense)),
            "eager_us": eager_us(lambda: layer(x, out=out)),
        }
        rows[m] = row
        print("%6d %9.2f %11.2f %9.2f %10.2f %10.2f %11.2f %9.2f" % (
            m, row["gpu_us"], row["host_us"], row["host_alloc_us"], row["ctypes_us"], row["ctypes_argtypes_us"],
            row["linear_host_us"], row["eager_us"]))
    if args.hum == "none" or not os.path.exists(args.hum):
        print("(no hum CLI at %s: hum bench skipped)" % args.hum)
        return 0
    layer.close()  # its GPU memory back before hum bench prepares its own copy
    bench = hum_bench(args.hum, args.layer, ms)
    if not bench:
        return 1
    c_host = bench.get("host_overhead_us")
    print("\n%6s %12s %12s %16s %16s %14s" % ("M", "hum bench", "layer(x)", "C host us", "Python host us",
                                               "binding us"))
    print("%6s %12s %12s %16s %16s %14s" % ("", "gpu us", "gpu us", "(hum_layer_fwd)", "layer(x, out)", "per call"))
    for r in bench["results"]:
        m = r["m"]
        if m not in rows:
            continue
        py = rows[m]
        over = py["host_us"] - c_host if c_host is not None else float("nan")
        print("%6d %12.2f %12.2f %16.2f %16.2f %14.2f" % (m, r["hum_us"] or float("nan"), py["gpu_us"],
                                                          c_host if c_host is not None else float("nan"),
                                                          py["host_us"], over))
    return 0


if __name__ == "__main__":
    sys.exit(main())
