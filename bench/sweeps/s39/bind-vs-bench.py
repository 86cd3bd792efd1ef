#!/usr/bin/env python3
"""W8A8 n = k = 8192 at M = 8192 through the binding and through `hum bench`, in turn, in one call:
whether the binding's slower reading (bench/NOTES.md, session 38: 1071.6 against 933.6 µs) is its
path or the length of the timing run. The binding is timed by bench-humming.py's `timed` (triton's
do_bench, 200 ms of replays) and by the same with 50 ms; hum bench with --reps 50 and 200. Clocks
and power from nvidia-smi after each."""
import importlib.util, json, os, subprocess, sys
import torch, triton
import hum

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("bh", os.path.join(here, "..", "..", "..", "tools-shared", "bench-humming.py"))
bh = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bh)
SPEC, M = "n=8192,k=8192,w=e4m3,a=e4m3", 8192


def smi():
    return subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu", "--format=csv,noheader"],
                          capture_output=True, text=True).stdout.strip()


def graph_of(fn):
    fn(); torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    torch.cuda.synchronize()
    return g


rt = hum.Runtime()
layer = rt.layer_from_spec(SPEC, seed=1)
ws = rt.workspace([layer], max_m=M)
x = torch.randn((M, layer.k), dtype=getattr(torch, layer.output), device="cuda:0")
y = layer(x, workspace=ws)
g = graph_of(lambda: layer(x, out=y, workspace=ws))
print("binding: x", x.dtype, "out", y.dtype, flush=True)
for rnd in range(2):
    for rep in (200, 50):
        us = triton.testing.do_bench(g.replay, warmup=25, rep=rep, return_mode="median") * 1e3
        print(json.dumps({"round": rnd, "path": "binding", "rep_ms": rep, "us": us, "smi": smi()}), flush=True)
    for reps in (50, 200):
        out = subprocess.run([os.path.join(os.environ["BUILD"], "runtime/hum"), "bench", "--layer", SPEC, "--m", str(M),
                              "--warmup", "10", "--reps", str(reps)], capture_output=True, text=True).stdout
        row = [l for l in out.splitlines() if l.strip().startswith(str(M))]
        print(json.dumps({"round": rnd, "path": "hum bench", "reps": reps, "row": row, "smi": smi()}), flush=True)
