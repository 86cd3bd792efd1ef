"""A tiny Llama on hum layers, end to end, with no network and no tool but hum and torch:

1. makes a random Llama-config model (plain torch: embeddings, RMSNorm, rotary GQA attention,
   SwiGLU MLP, tied-free lm_head) and writes it as an HF-format directory whose Linear layers
   are quantized (4-bit, group 128) by hum's reference quantizer and written by hum's own
   checkpoint writers: GPTQ (q/k/v/gate/up asymmetric, o_proj and down_proj with act-order) or
   AutoAWQ GEMM; the dense tensors (embeddings, norms, lm_head) go to dense.safetensors and the
   model dimensions into config.json beside the quantization_config;
2. loads that directory back: a torch model built from config.json, its dense tensors, and its
   nn.Linear modules swapped for hum layers (rt.layer_from_checkpoint);
3. compares the logits with the same model whose Linear weights are the checkpoint's
   dequantized weights (rt.load_standard(...).dequant(), float32 torch reference).

usage: python examples/python/tiny_llama.py [--format gptq|awq|both] [--dtype float16|bfloat16]
       [--dir DIR] [--tokens N]
Needs HUM_LIBRARY (or an installed hum) and python/ on PYTHONPATH (or pip install ./python).
Without a GPU it writes and reloads the checkpoints, checks the dequantized weights against the
float model, and says that the hum forward was skipped. Exit status 1 when a check fails.
"""

import argparse
import json
import math
import os
import struct
import sys
import tempfile

import numpy as np
import torch
from torch import nn

import hum

CONFIG = {"vocab_size": 512, "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2,
          "num_attention_heads": 4, "num_key_value_heads": 2, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
          "max_position_embeddings": 256, "model_type": "llama", "torch_dtype": "float16"}
PROJECTIONS = ["self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj",
               "mlp.up_proj", "mlp.down_proj"]
ACT_ORDER = ("self_attn.o_proj", "mlp.down_proj")


# --- the model, in plain torch --------------------------------------------------------------

class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        h = x.float()
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return (h * self.weight.float()).to(x.dtype)


def rotary(x, theta):
    """x [B, H, T, D]: rotate-half rotary embedding, positions 0..T-1."""
    t, d = x.shape[-2], x.shape[-1]
    inv = 1.0 / theta ** (torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d)
    ang = torch.outer(torch.arange(t, device=x.device, dtype=torch.float32), inv)
    cos, sin = torch.cat([ang.cos()] * 2, -1), torch.cat([ang.sin()] * 2, -1)
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    rot = torch.cat([-x2, x1], -1)
    return (x.float() * cos + rot.float() * sin).to(x.dtype)


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.heads, self.kv = c["num_attention_heads"], c["num_key_value_heads"]
        self.dim = c["hidden_size"] // self.heads
        self.theta = c["rope_theta"]
        h = c["hidden_size"]
        self.q_proj = nn.Linear(h, self.heads * self.dim, bias=False)
        self.k_proj = nn.Linear(h, self.kv * self.dim, bias=False)
        self.v_proj = nn.Linear(h, self.kv * self.dim, bias=False)
        self.o_proj = nn.Linear(self.heads * self.dim, h, bias=False)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, self.heads, self.dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.kv, self.dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.kv, self.dim).transpose(1, 2)
        q, k = rotary(q, self.theta), rotary(k, self.theta)
        rep = self.heads // self.kv
        k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
        att = (q.float() @ k.float().transpose(-1, -2)) / math.sqrt(self.dim)
        att = att.masked_fill(torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
        o = (att.softmax(-1) @ v.float()).to(x.dtype)
        return self.o_proj(o.transpose(1, 2).reshape(b, t, -1))


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        h, i = c["hidden_size"], c["intermediate_size"]
        self.gate_proj = nn.Linear(h, i, bias=False)
        self.up_proj = nn.Linear(h, i, bias=False)
        self.down_proj = nn.Linear(i, h, bias=False)

    def forward(self, x):
        return self.down_proj(nn.functional.silu(self.gate_proj(x)) * self.up_proj(x))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.input_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.self_attn = Attention(c)
        self.post_attention_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.mlp = MLP(c)

    def forward(self, x):
        x = x + self.self_attn(self.input_layernorm(x))
        return x + self.mlp(self.post_attention_layernorm(x))


class Llama(nn.Module):
    """Module names follow the HF checkpoint's tensor names (model.layers.0.mlp.down_proj...)."""

    def __init__(self, c):
        super().__init__()
        self.model = nn.Module()
        self.model.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.model.layers = nn.ModuleList([Block(c) for _ in range(c["num_hidden_layers"])])
        self.model.norm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.lm_head = nn.Linear(c["hidden_size"], c["vocab_size"], bias=False)

    def forward(self, ids):
        x = self.model.embed_tokens(ids)
        for block in self.model.layers:
            x = block(x)
        return self.lm_head(self.model.norm(x)).float()


def linear_names(c):
    return ["model.layers.%d.%s" % (i, p) for i in range(c["num_hidden_layers"]) for p in PROJECTIONS]


# --- safetensors for the dense tensors (the format: 8-byte header length, JSON header, data) --

_ST_DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().contiguous().cpu()
        data = t.view(torch.uint8).numpy().tobytes() if t.dtype == torch.bfloat16 else t.numpy().tobytes()
        header[name] = {"dtype": _ST_DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + size])
    out = {}
    for name, h in header.items():
        if name == "__metadata__":
            continue
        b, e = h["data_offsets"]
        dt = {v: k for k, v in _ST_DTYPES.items()}[h["dtype"]]
        buf = bytearray(raw[8 + size + b: 8 + size + e])
        out[name] = torch.frombuffer(buf, dtype=dt).reshape(h["shape"]).clone()
    return out


# --- 1. make the checkpoint ------------------------------------------------------------------

def make_checkpoint(directory, fmt, seed=0):
    """Writes the tiny model's checkpoint; returns the float model it was quantized from."""
    torch.manual_seed(seed)
    model = Llama(CONFIG)
    for p in model.parameters():
        nn.init.normal_(p, std=0.05)
    for module in model.modules():
        if isinstance(module, RMSNorm):
            nn.init.normal_(module.weight, mean=1.0, std=0.05)
    rng = np.random.default_rng(seed)
    layers = {}
    for name in linear_names(CONFIG):
        w = model.get_submodule(name).weight.detach().float().numpy()
        perm = None
        if fmt == "gptq" and name.endswith(ACT_ORDER):
            perm = rng.permutation(w.shape[1]).astype(np.int32)
        layers[name] = hum.quantize(w, weight="uint4", group_size=128, zero_point="int", k_perm=perm)
    if fmt == "gptq":
        hum.write_gptq(directory, layers, v2=False)
    else:
        hum.write_awq(directory, layers)
    dense = {n: p.to(torch.float16) for n, p in model.state_dict().items()
             if not any(n == q + ".weight" for q in layers)}
    write_safetensors(os.path.join(directory, "dense.safetensors"), dense)
    path = os.path.join(directory, "config.json")
    with open(path) as f:
        config = json.load(f)  # hum's writer put quantization_config and architectures there
    config.update(CONFIG)
    with open(path, "w") as f:
        json.dump(config, f, indent=2)
    return model


# --- 2. load it with hum layers --------------------------------------------------------------

class HumLinear(nn.Module):
    """An nn.Linear replaced by a hum layer: same call, same output shape."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer
        self.in_features, self.out_features = layer.k, layer.n

    def forward(self, x):
        return self.layer(x)


def load_model(rt, directory, device, dtype, use_hum):
    """The model of a checkpoint directory: dense tensors from dense.safetensors; Linear layers
    as hum layers (use_hum) or as nn.Linear holding the dequantized weights."""
    with open(os.path.join(directory, "config.json")) as f:
        config = json.load(f)
    model = Llama(config)
    model.load_state_dict(read_safetensors(os.path.join(directory, "dense.safetensors")), strict=False)
    names = [s.name for s in rt.list_layers(directory)]
    for name in names:
        parent, child = name.rsplit(".", 1)
        if use_hum:
            layer = rt.layer_from_checkpoint(directory, name, activation=str(dtype).split(".")[-1])
            setattr(model.get_submodule(parent), child, HumLinear(layer))
        else:
            w = torch.from_numpy(rt.load_standard(directory, name).dequant())
            model.get_submodule(name).weight.data = w.float()
    return model.to(device=device, dtype=dtype if use_hum else torch.float32), names


def rel(a, b):
    return ((a.double() - b.double()).norm() / b.double().norm()).item()


def run(rt, directory, fmt, dtype, tokens, gpu):
    float_model = make_checkpoint(directory, fmt)
    print("%s checkpoint: %s (%d quantized layers)" % (fmt, directory, len(rt.list_layers(directory))))
    ok = True
    ref_model, names = load_model(rt, directory, "cuda" if gpu else "cpu", dtype, use_hum=False)
    # The checkpoint's weights are the float model's, quantized: within half a step of 4-bit groups.
    worst = max(rel(ref_model.get_submodule(n).weight.cpu(), float_model.get_submodule(n).weight) for n in names)
    print("  dequantized weights vs the float model: worst ||dW||/||W|| = %.4f" % worst)
    ok &= worst < 0.15
    ids = torch.randint(0, CONFIG["vocab_size"], (2, tokens), generator=torch.Generator().manual_seed(1))
    if not gpu:
        print("  no GPU: the hum forward and the logits check are skipped")
        return ok
    ids = ids.cuda()
    with torch.no_grad():
        ref = ref_model(ids)
        hum_model, _ = load_model(rt, directory, "cuda", dtype, use_hum=True)
        got = hum_model(ids)
        dense_ref = ref_model.to(dtype)(ids)  # the same weights through torch's own 16-bit GEMMs
    torch.cuda.synchronize()
    err, err16 = rel(got, ref), rel(dense_ref, ref)
    top1 = (got.argmax(-1) == ref.argmax(-1)).float().mean().item()
    top1_16 = (dense_ref.argmax(-1) == ref.argmax(-1)).float().mean().item()
    name = str(dtype).split(".")[-1]
    print("  logits [%s], hum layers (%s) vs float32 dequantized reference: rel err %.2e, top-1 agreement %.1f%%"
          % ("x".join(map(str, got.shape)), name, err, 100 * top1))
    print("  torch %s GEMMs on the same dequantized weights:                  rel err %.2e, top-1 agreement %.1f%%"
          % (name, err16, 100 * top1_16))
    # hum's 16-bit GEMMs must be about as close to the float32 reference as torch's own: a layout
    # or scale mistake would be off by O(1).
    limit = max(3 * err16, 1e-2)
    ok &= bool(torch.isfinite(got).all()) and err <= limit and top1 >= top1_16 - 0.1
    print("  %s (limits: rel err <= %.2e, top-1 >= %.1f%%)" % ("PASS" if ok else "FAIL", limit, 100 * (top1_16 - 0.1)))
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--format", choices=["gptq", "awq", "both"], default="both")
    p.add_argument("--dtype", choices=["float16", "bfloat16"], default="float16")
    p.add_argument("--dir", help="where to write the checkpoints, in its gptq/ and awq/, each new or empty "
                   "(default: a temporary directory)")
    p.add_argument("--tokens", type=int, default=24)
    args = p.parse_args()
    rt = hum.Runtime()
    gpu = rt.device is not None and torch.cuda.is_available()
    print("hum %s, device: %s" % (hum.version(), rt.device["name"] if rt.device else "none"))
    base = args.dir or tempfile.mkdtemp(prefix="hum-tiny-llama-")
    formats = ["gptq", "awq"] if args.format == "both" else [args.format]
    for fmt in formats:
        directory = os.path.join(base, fmt)
        # hum's writers replace no file: say so before any work (a second run into the same --dir)
        if os.path.isdir(directory) and os.listdir(directory):
            p.error("--dir %s: %s is not empty (name a new --dir, or empty it)" % (base, directory))
    ok = True
    for fmt in formats:
        directory = os.path.join(base, fmt)
        os.makedirs(directory, exist_ok=True)
        ok &= run(rt, directory, fmt, getattr(torch, args.dtype), args.tokens, gpu)
    print("tiny_llama: %s" % ("all checks passed" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
