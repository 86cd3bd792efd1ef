#!/usr/bin/env python3
"""Session 10 (dense11): times Humming 0.1.20 on the dense rows named on the command line, with the
protocol of $ROOT/tools-shared/bench-humming.py (its humming_rows, loaded from there, not copied), in
one process, so that a device call pays the torch import once.
Usage: dense11-humming.py --out FILE.json --row case=NAME,n=N,k=K,w=uint4,group=128,a=float16,zp=0,m=1/16/128
[--row ...]  (a: float16 | bfloat16, the activations and the scales; group 0: per channel)"""
import argparse, importlib.util, json, os, sys, traceback

spec = importlib.util.spec_from_file_location(
    "bench_humming", os.path.join(os.environ["ROOT"], "tools-shared", "bench-humming.py"))
bh = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bh)

p = argparse.ArgumentParser()
p.add_argument("--out", required=True)
p.add_argument("--row", action="append", default=[])
args = p.parse_args()
rows = []
for r in args.row:
    f = dict(kv.split("=", 1) for kv in r.split(","))
    a = f.get("a", "float16")
    try:
        rows += bh.humming_rows(f["case"], int(f["n"]), int(f["k"]), a, f.get("w", "uint4"), a, a,
                                int(f.get("group", "128")), [int(m) for m in f["m"].split("/")],
                                zp=f.get("zp", "0") == "1")
    except Exception:
        traceback.print_exc()
    json.dump({"rows": rows}, open(args.out, "w"), indent=1)
print("rows", len(rows), file=sys.stderr)
