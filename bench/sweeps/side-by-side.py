#!/usr/bin/env python3
"""hum and Humming timed in one process, round after round, the order flipped every round, so that
the clock's drift over a call (the M = 8192 cells swing 10-15 % between calls: bench/NOTES.md,
sessions 16 and 23) falls on both alike. hum through its Python binding (rt.layer_from_spec, made
once per runtime and case; the output and a workspace for the largest M passed in), Humming
through tools-shared/bench-humming.py's own humming_rows; both timed by that script's `timed` (one
direct call, a CUDA graph of one call, L2 flushed before each replay, median), hum bench's protocol.

8-bit activations: hum's rows quantize the 16-bit x inside the timed call (as hum bench and issue
9's bar count them); humming_rows quantizes before it (may_process_input), so its rows leave the
quantizer out. For like against like, hum's layers of per-token or 1 x 128 group 8-bit A are timed
a second time on x it already quantized (impl NAME-q: e4m3 codes and their float32 scales, x_scale).

Then the floor of that protocol at M = 1: a kernel that only reads B bytes (a Triton XOR-reduce over
int32 words, the best of several grids), and an empty one (one program per SM), timed the same way: what reading a
layer's weights costs before any GEMM work.

With --ncu nothing is timed: each run is one call inside the NVTX range "ncu", for
`ncu --nvtx --nvtx-include ncu/ ... side-by-side.py --ncu --impl hum|humming --only CASE --m M`
(Humming's first, untimed call stays outside it).

Usage (device machine, a Release build, HUM_LIBRARY and PYTHONPATH set as bench/sweeps/py.sh does,
Humming's wheel on PYTHONPATH): side-by-side.py --out FILE.json [--rounds 3] [--only NAME,...]
[--m M,...] [--impl hum|humming] [--hum NAME=CONFIG[:CASE+CASE] ...] [--floor BYTES,... | --floor '']
[--ncu]
"""
import argparse, importlib.util, json, os, sys
import torch, triton, triton.language as tl
import hum

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "bench_humming", os.path.join(here, "..", "..", "tools-shared", "bench-humming.py"))
bh = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bh)

# name: (hum SPEC, humming_rows' arguments after name: n, k, a, b, c, bs, gs, keywords), M values
CASES = {
    "w8ch": ("n=8192,k=8192,w=uint8,a=float16", (8192, 8192, "float16", "uint8", "float16", "float16", 0, {}),
             [512, 2048, 8192]),
    "w2ch": ("n=8192,k=8192,w=uint2,a=float16", (8192, 8192, "float16", "uint2", "float16", "float16", 0, {}),
             [512, 2048, 8192]),
    "w4g128": ("n=8192,k=8192,w=uint4,a=float16,group=128",
               (8192, 8192, "float16", "uint4", "float16", "float16", 128, {}), [8192]),
    "w4g128bf16": ("n=8192,k=8192,w=uint4,a=bfloat16,group=128",
                   (8192, 8192, "bfloat16", "uint4", "bfloat16", "bfloat16", 128, {}), [1, 128, 1024, 8192]),
    "w4g128zp": ("n=8192,k=8192,w=uint4,a=float16,group=128,zp=int",
                 (8192, 8192, "float16", "uint4", "float16", "float16", 128, {"zp": True}), [1, 128, 1024, 8192]),
    # Llama-3-8B's shapes, n x k (issue 8)
    "llama-4096x4096": ("n=4096,k=4096,w=uint4,a=float16,group=128",
                        (4096, 4096, "float16", "uint4", "float16", "float16", 128, {}), [1, 16, 128, 1024]),
    "llama-14336x4096": ("n=14336,k=4096,w=uint4,a=float16,group=128",
                         (14336, 4096, "float16", "uint4", "float16", "float16", 128, {}), [1, 16, 128, 1024]),
    "llama-4096x14336": ("n=4096,k=14336,w=uint4,a=float16,group=128",
                         (4096, 14336, "float16", "uint4", "float16", "float16", 128, {}), [128]),
    "w4a8mx": ("n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0,out=bfloat16",
               (8192, 8192, "float8e4m3", "float4e2m1", "bfloat16", "float8e8m0", 32, {}), [256, 1024, 8192]),
    # W4A8 with int8 activations: uint4 group-128 weights (issue 9; Humming integerizes the group
    # scales, hum promotes the int32 sums in float32)
    "w4a8int": ("n=8192,k=8192,w=uint4,a=int8,group=128,scale=float32",
                (8192, 8192, "int8", "uint4", "float16", "float16", 128, {}), [1, 128, 1024, 8192]),
    "w8a8": ("n=8192,k=8192,w=e4m3,a=e4m3", (8192, 8192, "float8e4m3", "float8e4m3", "float16", "float16", 0, {}),
             [1024, 8192]),
    # FP8 block-wise (issue 9): 128 x 128 float32 weight scales, 1 x 128 activation groups; Humming
    # through humming_block_rows (block_n: its BLOCK scale type)
    "fp8blk7168": ("n=7168,k=2048,w=e4m3,a=e4m3,block=128x128,ascale=group128",
                   (7168, 2048, "float8e4m3", "float8e4m3", "float16", "float32", 128, {"block_n": 128}),
                   [1, 128, 1024, 8192]),
    "fp8blk8192": ("n=8192,k=8192,w=e4m3,a=e4m3,block=128x128,ascale=group128",
                   (8192, 8192, "float8e4m3", "float8e4m3", "float16", "float32", 128, {"block_n": 128}),
                   [1, 128, 1024, 8192]),
}


def humming_block_rows(name, n, k, c, block_n, block_k, ms):
    """Humming's FP8 block-wise layer, which bench-humming.py's humming_rows cannot describe: weight
    scales of its BLOCK type (float32, one per block_n x block_k weights: weight_config's
    group_size_n) and e4m3 activations in groups of block_k along K, quantized before the timed call
    as humming_rows does for its 8-bit rows; timed by that script's `timed`."""
    from humming.config import GemmType
    from humming.forward import may_process_input
    from humming.layer import HummingLayer
    from humming.testing import random_fill_tensor
    from humming.tune import get_heuristics_config
    dtype = getattr(torch, c)
    layer = HummingLayer(shape_n=n, shape_k=k, num_experts=0, torch_dtype=dtype,
                         weight_config={"dtype": "float8e4m3", "group_size": block_k, "group_size_n": block_n,
                                        "scale_dtype": "float32"},
                         input_config={"dtype": "float8e4m3", "group_size": block_k}).to("cuda:0")
    for t in layer.parameters():
        random_fill_tensor(t)
    layer.transform()
    cfg = layer.humming_config
    tuning = json.dumps(get_heuristics_config(layer_config=cfg, gemm_type=GemmType.DENSE))
    compute = json.dumps({"gemm_type": GemmType.DENSE.value})
    rows = []
    for m in ms:
        x, group_scale, tensor_scale = may_process_input(cfg, torch.randn((m, k), dtype=dtype, device="cuda:0"))
        scale = group_scale if group_scale is not None else tensor_scale
        us, g = bh.timed(lambda: layer(inputs=x, input_scale=scale, compute_config=compute, tuning_config=tuning))
        rows.append({"impl": "humming", "case": name, "m": m, "us": us * 1e3, "graph": g})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def hum_rows(made, rt, impl, name, layer_spec, ms):
    """Times the case's layer (made on the first call, kept in `made`) at each M."""
    if (impl, name) not in made:
        layer = rt.layer_from_spec(layer_spec, seed=1)
        # a workspace for every M in one pass, as hum bench's: the layer's own holds the rows of 16
        # MiB of 16-bit A (1024 at K = 8192), and 16-bit x of 8-bit layers above that runs in chunks
        made[impl, name] = (layer, rt.workspace([layer], max_m=max(ms)))
    layer, ws = made[impl, name]
    e4m3 = layer.activation == "float8_e4m3fn"
    per_token = e4m3 and layer.activation_group == 0 and layer.info["activation_scale"] == "token"
    # FP8 block-wise's 1 x 128 groups (K a multiple of 128 in the cases above)
    group128 = e4m3 and layer.activation_group == 128
    rows = []
    for m in ms:
        # 16-bit x of the output's type (a layer of 8-bit A quantizes it), C allocated once
        x = torch.randn((m, layer.k), dtype=getattr(torch, layer.output), device="cuda:0")
        y = layer(x, workspace=ws)
        runs = [(impl, lambda: layer(x, out=y, workspace=ws))]
        if per_token or group128:
            g = x.float().reshape(m, -1, 128) if group128 else x.float().reshape(m, 1, -1)
            scale = (g.abs().amax(dim=2) / 448).clamp(min=1e-12)
            q = (g / scale[:, :, None]).clamp(-448, 448).to(torch.float8_e4m3fn).reshape(m, -1)
            scale = scale if group128 else scale.reshape(m)
            layer(q, out=y, workspace=ws, x_scale=scale)
            runs.append((impl + "-q", lambda: layer(q, out=y, workspace=ws, x_scale=scale)))
        for label, fn in runs:
            us, g = bh.timed(fn)
            rows.append({"impl": label, "case": name, "m": m, "us": us * 1e3, "graph": g})
            print(json.dumps(rows[-1]), flush=True)
    return rows


@triton.jit
def _read(x_ptr, out_ptr, BLOCK: tl.constexpr, ITERS: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.int32)
    for i in range(ITERS):
        acc ^= tl.load(x_ptr + (pid * ITERS + i) * BLOCK + tl.arange(0, BLOCK))
    tl.store(out_ptr + pid * BLOCK + tl.arange(0, BLOCK), acc)


@triton.jit
def _empty(out_ptr):
    pass


def ncu_once(fn, graph=True):
    """bench-humming.py's `timed` for --ncu: one call of fn inside the NVTX range "ncu"."""
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("ncu")
    fn()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    return float("nan"), False


def floor_rows(sizes):
    rows = []
    out = torch.empty(1 << 24, dtype=torch.int32, device="cuda:0")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    us, g = bh.timed(lambda: _empty[(sms,)](out))
    rows.append({"impl": "floor", "case": "empty kernel", "bytes": 0, "us": us * 1e3, "graph": g})
    print(json.dumps(rows[-1]), flush=True)
    for size in sizes:
        x = torch.randint(-2**31, 2**31 - 1, (size // 4,), dtype=torch.int32, device="cuda:0")
        best = None
        for block in (1024, 2048, 4096):
            for programs in (128, 256, 512, 1024, 2048):
                if (size // 4) % (block * programs):
                    continue
                iters = size // 4 // (block * programs)
                us, g = bh.timed(lambda: _read[(programs,)](x, out, BLOCK=block, ITERS=iters, num_warps=8))
                r = {"impl": "floor", "case": "read", "bytes": size, "us": us * 1e3, "graph": g,
                     "block": block, "programs": programs}
                print(json.dumps(r), flush=True)
                if best is None or r["us"] < best["us"]:
                    best = r
        if best is None:
            print("floor: no grid of 128 .. 2048 programs x 1024 .. 4096 words divides %d bytes" % size,
                  file=sys.stderr, flush=True)
            continue
        best = dict(best, case="read, best grid", gbps=size / best["us"] / 1e3)
        rows.append(best)
        print(json.dumps(best), flush=True)
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--only", default="")
    p.add_argument("--floor", default="8388608,33554432")
    p.add_argument("--hum", action="append", default=[],
                   help="NAME=CONFIG[:CASE+CASE]: hum again under a deployment config (a site policy), "
                        "timed as impl hum-NAME beside the built-in, on the cases named (default all)")
    p.add_argument("--m", default="", help="M values for every case named (default: each case's own)")
    p.add_argument("--impl", choices=("hum", "humming"), help="one side only")
    p.add_argument("--ncu", action="store_true", help="one call per run inside NVTX range ncu, no timing")
    args = p.parse_args()
    if args.ncu:
        bh.timed = ncu_once
    own_ms = [int(m) for m in args.m.split(",")] if args.m else None
    names = [n for n in CASES if not args.only or n in args.only.split(",")]
    rows = []
    save = lambda: json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                              "hum": hum.version(), "rows": rows}, open(args.out, "w"), indent=1)
    if args.floor:
        rows += floor_rows([int(s) for s in args.floor.split(",")])
        save()
    runtimes = [("hum", hum.Runtime(), None)]
    for h in args.hum:
        label, rest = h.split("=", 1)
        config, _, only = rest.partition(":")
        runtimes.append(("hum-" + label, hum.Runtime(config=config), only.split("+") if only else None))
    made = {}  # (impl, case): (layer, workspace)
    for r in range(args.rounds):
        for name in names:
            layer_spec, (n, k, a, b, c, bs, gs, kw), ms = CASES[name]
            ms = own_ms or ms
            steps = [lambda rt=rt, impl=impl: hum_rows(made, rt, impl, name, layer_spec, ms)
                     for impl, rt, only in runtimes if (only is None or name in only) and args.impl != "humming"]
            if args.impl != "hum" and "block_n" in kw:
                steps.append(lambda: humming_block_rows(name, n, k, c, kw["block_n"], gs, ms))
            elif args.impl != "hum":
                steps.append(lambda: bh.humming_rows(name, n, k, a, b, c, bs, gs, ms, **kw))
            for step in steps if r % 2 == 0 else steps[::-1]:
                try:
                    got = step()
                except Exception as e:  # one side failing leaves the other's rows
                    print("%s: %s" % (name, e), file=sys.stderr, flush=True)
                    continue
                for row in got:
                    row["round"] = r
                rows += got
                save()
    for layer, ws in made.values():
        ws.close()
        layer.close()
    for _, rt, _ in runtimes:
        rt.close()


if __name__ == "__main__":
    main()
