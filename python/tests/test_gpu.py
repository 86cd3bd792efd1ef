"""The binding on a GPU (skipped without torch with CUDA, or without a GPU hum can use): layer(x)
against the float64 reference of the dequantized weight (output poisoned first), any leading
shape, `out=`, strided rows, CUDA-graph capture, torch's current stream, tensor-parallel shards
(column outputs concatenated and row outputs summed give the full layer's), errors."""

import numpy as np
import pytest

import hum
from conftest import LAYERS, K, MOE_E, MOE_H, MOE_I, MOE_NAME, N

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available() or hum.device_count() == 0, reason="needs a GPU")


@pytest.fixture(scope="module")
def grt(rt):
    if rt.device is None:
        pytest.skip("hum sees no GPU")
    return rt


def rel_err(out, ref):
    out = out.double().cpu().numpy().reshape(ref.shape)
    return np.linalg.norm(out - ref) / np.linalg.norm(ref)


def reference(w, x):
    return w.reference_gemm(x.double().cpu().numpy().reshape(-1, w.k))


@pytest.mark.parametrize("activation", ["float16", "bfloat16"])
@pytest.mark.parametrize("layer_name", LAYERS)
@pytest.mark.parametrize("lead", [(1,), (7,), (2, 33), (3, 100)])
def test_forward_matches_reference(grt, gptq_dir, activation, layer_name, lead):
    dt = getattr(torch, activation)
    layer = grt.layer_from_checkpoint(gptq_dir, layer_name, activation=activation)
    w = grt.load_standard(gptq_dir, layer_name)
    x = torch.randn(*lead, K, device="cuda").to(dt)
    out = torch.full((*lead, N), float("nan"), device="cuda", dtype=dt)
    assert layer(x, out=out) is out
    torch.cuda.synchronize()
    assert rel_err(out, reference(w, x)) < (1e-2 if activation == "bfloat16" else 2e-3)
    y = layer(x)  # allocated output
    torch.cuda.synchronize()
    assert y.shape == (*lead, N) and torch.equal(y, out)


def test_strided_rows_and_streams(grt, gptq_dir):
    layer = grt.layer_from_checkpoint(gptq_dir, LAYERS[0], activation="float16")
    w = grt.load_standard(gptq_dir, LAYERS[0])
    big = torch.randn(16, 2 * K, device="cuda", dtype=torch.float16)
    x = big[:, :K]  # rows of stride 2K: passed as they are
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        y = layer(x)
    s.synchronize()
    assert rel_err(y, reference(w, x)) < 2e-3


def test_cuda_graph_capture(grt, gptq_dir):
    layer = grt.layer_from_checkpoint(gptq_dir, LAYERS[1], activation="float16")
    w = grt.load_standard(gptq_dir, LAYERS[1])
    x = torch.randn(8, K, device="cuda", dtype=torch.float16)
    out = torch.empty(8, N, device="cuda", dtype=torch.float16)
    layer(x, out=out)  # warm-up outside the capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        layer(x, out=out)
    x.copy_(torch.randn(8, K, device="cuda", dtype=torch.float16))
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    assert rel_err(out, reference(w, x)) < 2e-3


@pytest.mark.parametrize("world", [2, 4])
@pytest.mark.parametrize("name", LAYERS)
def test_shards_recombine(grt, gptq_dir, world, name):
    """Column shards concatenated along N, and row shards (each on its slice of x) summed, give
    the full layer's output; act-order row shards (LAYERS[1]) take x's slice of K / world
    columns while their GEMM runs over the padded K'."""
    full = grt.layer_from_checkpoint(gptq_dir, name, activation="float16")
    w = grt.load_standard(gptq_dir, name)
    x = torch.randn(5, K, device="cuda", dtype=torch.float16)
    ref = reference(w, x)
    cols = [grt.layer_from_checkpoint(gptq_dir, name, activation="float16", shard=hum.Shard("column", r, world))
            for r in range(world)]
    y = torch.cat([c(x) for c in cols], dim=-1)
    rows = [grt.layer_from_checkpoint(gptq_dir, name, activation="float16", shard=hum.Shard("row", r, world))
            for r in range(world)]
    ks = K // world
    assert all(r.k == ks for r in rows)
    z = sum(rows[r](x[:, r * ks:(r + 1) * ks].contiguous()).float() for r in range(world))
    torch.cuda.synchronize()
    assert rel_err(y, ref) < 2e-3 and rel_err(z, ref) < 2e-3
    assert rel_err(full(x), ref) < 2e-3


def test_forward_errors(grt, gptq_dir):
    layer = grt.layer_from_checkpoint(gptq_dir, LAYERS[0], activation="float16")
    with pytest.raises(ValueError, match="the layer takes"):
        layer(torch.randn(2, K, device="cuda", dtype=torch.bfloat16))
    with pytest.raises(ValueError, match="expected a CUDA tensor"):
        layer(torch.randn(2, K, dtype=torch.float16))
    with pytest.raises(ValueError, match=r"expected \[\.\.\., %d\]" % K):
        layer(torch.randn(2, K + 1, device="cuda", dtype=torch.float16))
    x = torch.randn(2, K, device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="out is"):
        layer(x, out=torch.empty(3, N, device="cuda", dtype=torch.float16))
    # hum's own checks: an activation pointer off the 16-byte alignment the kernels load with
    raw = torch.randn(2 * K + 1, device="cuda", dtype=torch.float16)
    with pytest.raises(hum.HumError) as e:
        layer(raw[1:].view(2, K))
    assert e.value.status == "HUM_ERR_INVALID_ARG" and "aligned" in e.value.message


class DLPackOnly:
    """An array of a library hum does not know, seen through DLPack only."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


class CudaArrayOnly:
    def __init__(self, t):
        self.__cuda_array_interface__ = t.__cuda_array_interface__


@pytest.mark.parametrize("activation", ["float16", "bfloat16"])
def test_dlpack_and_cuda_array_interface(grt, gptq_dir, activation):
    dt = getattr(torch, activation)
    layer = grt.layer_from_checkpoint(gptq_dir, LAYERS[0], activation=activation)
    x = torch.randn(9, K, device="cuda", dtype=dt)
    want = layer(x)
    out = torch.full((9, N), float("nan"), device="cuda", dtype=dt)
    layer(DLPackOnly(x), out=DLPackOnly(out))
    torch.cuda.synchronize()
    assert torch.equal(out, want)
    if activation == "float16":
        out.fill_(float("nan"))
        layer(CudaArrayOnly(x), out=CudaArrayOnly(out))
        torch.cuda.synchronize()
        assert torch.equal(out, want)
    with pytest.raises(TypeError, match="out"):
        layer(DLPackOnly(x))


def test_workspaces_let_streams_overlap(grt, gptq_dir):
    """One act-order layer on two streams at once, each through its own Workspace (one in torch's
    memory): both outputs equal the plain forward's."""
    layer = grt.layer_from_checkpoint(gptq_dir, LAYERS[1], activation="float16")
    assert layer.info["act_order"]
    x = [torch.randn(64, K, device="cuda", dtype=torch.float16) for _ in range(2)]
    want = [layer(v) for v in x]
    torch.cuda.synchronize()
    spaces = [grt.workspace([layer], max_m=64), grt.workspace([layer], max_m=64, torch_memory=True)]
    assert spaces[0].nbytes >= 64 * K * 2
    streams = [torch.cuda.Stream(), torch.cuda.Stream()]
    outs = [torch.full((64, N), float("nan"), device="cuda", dtype=torch.float16) for _ in range(2)]
    torch.cuda.synchronize()
    for _ in range(20):
        for v, o, st, ws in zip(x, outs, streams, spaces):
            with torch.cuda.stream(st):
                layer(v, out=o, workspace=ws)
    torch.cuda.synchronize()
    for o, w in zip(outs, want):
        assert torch.equal(o, w)
    for ws in spaces:
        ws.close()


def moe_reference(rt, d, x, ids, weights, local=None):
    """float64 out[t] = sum_j w[t, j] * down_e(silu(gate_e(x_t)) * up_e(x_t)) over the slots whose
    expert is local (all when local is None), from the dequantized experts."""
    gate, up, down = (rt.load_standard(d, "%s.*.%s" % (MOE_NAME, p)) for p in ("gate_proj", "up_proj", "down_proj"))
    xs, ids, weights = x.double().cpu().numpy(), ids.cpu().numpy(), weights.double().cpu().numpy()
    out = np.zeros_like(xs)
    for t in range(xs.shape[0]):
        for j in range(ids.shape[1]):
            e = int(ids[t, j])
            if e < 0 or (local is not None and e not in local):
                continue
            g, u = gate.dequant(e) @ xs[t], up.dequant(e) @ xs[t]
            out[t] += weights[t, j] * (down.dequant(e) @ (g / (1 + np.exp(-g)) * u))
    return out


@pytest.mark.parametrize("m", [1, 7, 64])
def test_moe_forward(grt, moe_model_dir, m):
    """moe(hidden, topk_ids, topk_weights) against the float64 MoE of the dequantized experts,
    output poisoned first; with an expert map, only this rank's experts {3, 1} contribute."""
    moe = grt.moe_from_checkpoint(moe_model_dir, MOE_NAME, top_k=2)
    g = torch.Generator(device="cpu").manual_seed(m)
    x = (torch.randn(m, MOE_H, generator=g) * 0.5).to("cuda", torch.float16)
    ids = torch.stack([torch.randperm(MOE_E, generator=g)[:2] for _ in range(m)]).to("cuda", torch.int32)
    weights = torch.rand(m, 2, generator=g).to("cuda")
    out = torch.full((m, MOE_H), float("nan"), device="cuda", dtype=torch.float16)
    moe(x, ids, weights, out=out)
    torch.cuda.synchronize()
    assert rel_err(out, moe_reference(grt, moe_model_dir, x, ids, weights)) < 1e-2
    ep = grt.moe_from_checkpoint(moe_model_dir, MOE_NAME, top_k=2, experts=[3, 1])
    expert_map = torch.tensor([-1, 1, -1, 0], dtype=torch.int32, device="cuda")
    y = ep(x, ids.long(), weights, expert_map=expert_map)
    torch.cuda.synchronize()
    ref = moe_reference(grt, moe_model_dir, x, ids, weights, local={3, 1})
    assert rel_err(y, ref) < 1e-2
    with pytest.raises(ValueError, match="hidden"):
        moe(x.float(), ids, weights)
    with pytest.raises(ValueError, match="topk_weights is torch.float16"):
        moe(x, ids, weights.half())
    with pytest.raises(ValueError, match="topk_ids is on cpu"):
        moe(x, ids.cpu(), weights)


# --- 8-bit activations (issue 9): quantized in torch here, independently of hum's kernels ---------

MAX8 = {"e4m3": 448.0, "int8": 127.0}


def quantize_rows(x, act, per_token):
    """x's codes (float8_e4m3fn or int8, saturating, nearest even) and float32 scales: one per
    row ([..., 1]) or one for the tensor ([1]); activation = code * scale."""
    xf = x.float()
    amax = xf.abs().amax(dim=-1, keepdim=True) if per_token else xf.abs().amax().reshape(1)
    scale = amax / MAX8[act]
    q = (xf * torch.where(amax > 0, MAX8[act] / amax, torch.zeros_like(amax))).clamp(-MAX8[act], MAX8[act])
    codes = q.to(torch.float8_e4m3fn) if act == "e4m3" else q.round().to(torch.int8)
    return codes, scale


# 8-bit A against the float64 reference of the very codes and scales the GPU multiplies: only the
# accumulation order and C's rounding differ. The marks are hum's own for that comparison (hum run
# and hum bench: bench_check_tolerance_quantized; tests/gpu/test_expert_gemm.c), by C's dtype:
# bfloat16 keeps 8 significant bits to float16's 11, so an output that the accumulation order puts
# on the other side of a rounding moves 8 times as far (one bfloat16 ulp is 2^-8 ~ 3.9e-3 relative).
A8_TOLERANCE = {torch.float16: 1e-3, torch.bfloat16: 4e-3}


def assert_a8_close(out, ref):
    """||out - round(ref)|| / ||ref||, ref rounded to out's dtype (as hum's test_gemm_a8 measures
    it), within A8_TOLERANCE of out's dtype."""
    r = torch.from_numpy(ref).to(out.dtype).double().numpy()
    got = out.double().cpu().numpy().reshape(ref.shape)
    err = np.linalg.norm(got - r) / np.linalg.norm(ref)
    assert err <= A8_TOLERANCE[out.dtype], "8-bit A, %s output: rounded error %.3e above %.0e" % (
        out.dtype, err, A8_TOLERANCE[out.dtype])


def needs_sm(grt, act):
    if grt.device["sm"] < (89 if act == "e4m3" else 80):
        pytest.skip("%s activations need sm_%d" % (act, 89 if act == "e4m3" else 80))


A8_CASES = [("n=256,k=512,w=e4m3", "e4m3", "float16"),
            ("n=200,k=528,w=e4m3,a=bfloat16,scale=float32,bias=1", "e4m3", "bfloat16"),
            ("n=256,k=512,w=uint8", "int8", "float16"),
            ("n=256,k=512,w=uint4,a=bfloat16", "int8", "bfloat16"),
            ("n=256,k=512,w=uint4", "e4m3", "float16")]


@pytest.mark.parametrize("spec,act,output", A8_CASES)
@pytest.mark.parametrize("per_token", [True, False])
@pytest.mark.parametrize("lead", [(1,), (2, 33)])
def test_a8_host_quantized(grt, spec, act, output, per_token, lead):
    """The host passes 8-bit codes and their scales (activation="e4m3" / "int8", as vLLM passes
    a1q_scale): against the float64 reference of the same quantized activations."""
    needs_sm(grt, act)
    w = hum.spec_weight(spec, seed=3)
    layer = grt.layer_from_standard(w, activation=act, output=output)
    assert (layer.activation, layer.output) == ({"e4m3": "float8_e4m3fn"}.get(act, act), output)
    assert layer.dispatch["activation"] == "%s per token" % act
    x = torch.randn(*lead, w.k, device="cuda")
    codes, scale = quantize_rows(x, act, per_token)
    out = torch.full((*lead, w.n), float("nan"), device="cuda", dtype=getattr(torch, output))
    assert layer(codes, out=out, x_scale=scale) is out
    torch.cuda.synchronize()
    a = (codes.double() * scale.double()).cpu().numpy().reshape(-1, w.k)
    assert_a8_close(out, w.reference_gemm(a))
    if per_token:  # the scales as a flat [M] too
        y = layer(codes, x_scale=scale.reshape(-1))
        torch.cuda.synchronize()
        assert torch.equal(y, out)


def test_a8_layer_quantizes_16bit_x(grt):
    """A weight whose own scheme is e4m3 per token (a W8A8 checkpoint's, here a SPEC's a=e4m3)
    takes 16-bit x and quantizes it itself: the result is the reference of x quantized per token
    (the same codes as torch's here) and near the 16-bit reference; captured in a CUDA graph."""
    needs_sm(grt, "e4m3")
    w = hum.spec_weight("n=256,k=512,w=e4m3,a=e4m3,out=bfloat16", seed=5)
    layer = grt.layer_from_standard(w)
    assert (layer.activation, layer.output) == ("float8_e4m3fn", "bfloat16")
    assert layer.dispatch["activation"] == "e4m3 per token (the checkpoint's; quantized by the layer)"
    for dt in (torch.bfloat16, torch.float16):
        x = torch.randn(3, 7, w.k, device="cuda").to(dt)
        out = torch.full((3, 7, w.n), float("nan"), device="cuda", dtype=torch.bfloat16)
        layer(x, out=out)
        torch.cuda.synchronize()
        codes, scale = quantize_rows(x, "e4m3", True)
        a = (codes.double() * scale.double()).cpu().numpy().reshape(-1, w.k)
        assert_a8_close(out, w.reference_gemm(a))
        assert rel_err(out, reference(w, x)) < 5e-2  # what e4m3 activations cost, for the record
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        layer(x, out=out)
    x.copy_(torch.randn_like(x))
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    codes, scale = quantize_rows(x, "e4m3", True)
    assert_a8_close(out, w.reference_gemm((codes.double() * scale.double()).cpu().numpy().reshape(-1, w.k)))


def test_a8_config_override(tmp_path):
    """linear.activation = e4m3 in the deployment config: a 16-bit checkpoint's layer runs W4A8
    (channel-scaled int4 weights), quantizing x per token itself."""
    config = tmp_path / "e4m3.yaml"
    config.write_text("overrides:\n  linear:\n    activation: e4m3\n")
    with hum.Runtime(config=config, cache_dir=tmp_path / "cache") as r:
        if r.device is None:
            pytest.skip("hum sees no GPU")
        needs_sm(r, "e4m3")
        w = hum.spec_weight("n=256,k=512,w=uint4,a=bfloat16", seed=9)
        layer = r.layer_from_standard(w)
        assert layer.activation == "float8_e4m3fn"
        assert layer.dispatch["activation"] == \
            "e4m3 per token (override linear.activation = e4m3; quantized by the layer)"
        x = torch.randn(17, w.k, device="cuda", dtype=torch.bfloat16)
        out = layer(x)
        torch.cuda.synchronize()
        codes, scale = quantize_rows(x, "e4m3", True)
        assert_a8_close(out, w.reference_gemm((codes.double() * scale.double()).cpu().numpy()))


def test_a8_forward_errors(grt):
    needs_sm(grt, "int8")
    w = hum.spec_weight("n=256,k=512,w=uint8")
    layer = grt.layer_from_standard(w, activation="int8")
    x = torch.randn(4, w.k, device="cuda")
    codes, scale = quantize_rows(x, "int8", True)
    with pytest.raises(ValueError, match="pass their float32 scales as x_scale"):
        layer(codes)
    with pytest.raises(ValueError, match="x_scale must be a float32 tensor"):
        layer(codes, x_scale=scale.half())
    with pytest.raises(hum.HumError, match="a_scale"):  # e8m0 bytes are for 1 x 32 groups: hum refuses them here
        layer(codes, x_scale=torch.zeros(4, dtype=torch.uint8, device="cuda"))
    with pytest.raises(ValueError, match="x_scale goes with x of int8 codes"):
        layer(x.half(), x_scale=scale)
    with pytest.raises(ValueError, match="x_scale has 3 values"):
        layer(codes, x_scale=scale[:3])
    with pytest.raises(ValueError, match="x_scale is for layers of 8-bit activations"):
        grt.layer_from_spec("n=256,k=512,w=uint4")(x.half(), x_scale=scale)
    # hum's own checks, with its message: 8-bit A off the 16-byte alignment
    raw = torch.zeros(4 * w.k + 1, device="cuda", dtype=torch.int8)
    with pytest.raises(hum.HumError) as e:
        layer(raw[1:].view(4, w.k), x_scale=scale)
    assert e.value.status == "HUM_ERR_INVALID_ARG" and "16-byte aligned" in e.value.message


@pytest.mark.parametrize("gemm", ["grouped_contiguous", "grouped_masked"])
def test_moe_grouped(grt, moe_model_dir, gemm):
    """moe.grouped(hidden, layout) on rows already grouped by expert (DeepEP's contiguous and
    masked layouts) against the float64 experts of the dequantized weights, no router weight;
    rows outside every expert's stay as they were (poisoned)."""
    moe = grt.moe_from_checkpoint(moe_model_dir, MOE_NAME, top_k=1, gemm=gemm)
    gate, up, down = (grt.load_standard(moe_model_dir, "%s.*.%s" % (MOE_NAME, p))
                      for p in ("gate_proj", "up_proj", "down_proj"))

    def expert(e, rows):
        g, u = rows @ gate.dequant(e).T, rows @ up.dequant(e).T
        return (g / (1 + np.exp(-g)) * u) @ down.dequant(e).T

    g = torch.Generator(device="cpu").manual_seed(5)
    if gemm == "grouped_masked":
        counts = [2, 0, 6, 1]
        x = (torch.randn(MOE_E, 6, MOE_H, generator=g) * 0.5).to("cuda", torch.float16)
        layout = torch.tensor(counts, dtype=torch.int32, device="cuda")
        spans = [(e, slice(0, c)) for e, c in enumerate(counts)]
    else:
        bounds = [0, 3, 3, 8, 10]  # 12 rows: the last two belong to no expert
        x = (torch.randn(12, MOE_H, generator=g) * 0.5).to("cuda", torch.float16)
        layout = torch.tensor(bounds, dtype=torch.int64, device="cuda")
        spans = [(e, slice(bounds[e], bounds[e + 1])) for e in range(MOE_E)]
    out = torch.full_like(x, float("nan"))
    assert moe.grouped(x, layout, out=out) is out
    torch.cuda.synchronize()
    xs, got = x.double().cpu().numpy(), out.double().cpu().numpy()
    covered = np.zeros(got.shape[:-1], dtype=bool)
    for e, rows in spans:
        sel = (e, rows) if gemm == "grouped_masked" else rows
        covered[sel] = True
        if xs[sel].shape[0]:
            ref = expert(e, xs[sel])
            assert np.linalg.norm(got[sel] - ref) / np.linalg.norm(ref) < 1e-2
    assert np.isnan(got[~covered]).all()
    with pytest.raises(ValueError, match="takes rows already grouped"):
        moe(x.reshape(-1, MOE_H), torch.zeros(1, 1, dtype=torch.int32, device="cuda"),
            torch.ones(1, 1, device="cuda"))


def quantize_groups(x, group):
    """x's e4m3 codes and scales per row and 1 x group columns: float32 amax / 448 for 128 (FP8
    block-wise), e8m0 bytes for 32 (MXFP8: 2^clamp(floor(log2 amax) - 8, -127, 127), stored as
    the exponent + 127); saturating, nearest even. Also the float64 activations they make."""
    m, k = x.shape
    groups = -(-k // group)
    xf = torch.nn.functional.pad(x.float(), (0, groups * group - k)).reshape(m, groups, group)
    amax = xf.abs().amax(dim=-1, keepdim=True)
    if group == 32:
        exp = torch.where(amax > 0, torch.floor(torch.log2(amax)) - 8, torch.full_like(amax, -127)).clamp(-127, 127)
        scale = torch.exp2(exp)
        stored = (exp + 127).to(torch.uint8).reshape(m, groups)
    else:
        scale = amax / 448
        stored = scale.reshape(m, groups)
    inv = torch.where(amax > 0, 1 / scale, torch.zeros_like(scale)) if group == 32 else \
        torch.where(amax > 0, 448 / amax, torch.zeros_like(amax))
    codes = (xf * inv).clamp(-448, 448).to(torch.float8_e4m3fn)
    a = (codes.double() * scale.double()).reshape(m, groups * group)[:, :k]
    return codes.reshape(m, groups * group)[:, :k].contiguous(), stored, a.cpu().numpy()


@pytest.mark.parametrize("spec,group,output", [("n=256,k=512,w=e4m3,block=128x128", 128, "float16"),
                                               ("n=200,k=528,w=e4m3,block=128x128,a=bfloat16", 128, "bfloat16"),
                                               ("n=256,k=544,w=e4m3", 32, "bfloat16")])
def test_a8_host_quantized_groups(grt, spec, group, output):
    """The host's e4m3 codes with a scale per row and 1 x 128 group (float32, FP8 block-wise,
    against 128 x 128 weight blocks) or 1 x 32 group (e8m0 bytes, MXFP8): activation_group=;
    against the float64 reference of the same quantized activations."""
    needs_sm(grt, "e4m3")
    w = hum.spec_weight(spec, seed=7)
    layer = grt.layer_from_standard(w, activation="e4m3", activation_group=group, output=output)
    assert layer.activation_group == group
    x = torch.randn(5, w.k, device="cuda")
    codes, scales, a = quantize_groups(x, group)
    out = torch.full((5, w.n), float("nan"), device="cuda", dtype=getattr(torch, output))
    layer(codes, out=out, x_scale=scales)
    torch.cuda.synchronize()
    assert_a8_close(out, w.reference_gemm(a))
    with pytest.raises(hum.HumError, match="a_scale"):  # one scale per row where groups are expected
        layer(codes, x_scale=torch.ones(5, 1, device="cuda"))


def moe_a8_reference(w13, w2, codes, scale, ids, weights, down_a):
    """float64 MoE (silu, split gate/up) of hidden rows codes x scale (per token), the gate/up
    output held as float16, the activation's float64 output made into what the down GEMM
    multiplies by down_a."""
    xq = (codes.double() * scale.double()).cpu().numpy()
    i = w2.dequant(0).shape[1]
    ref = np.zeros((xq.shape[0], w2.dequant(0).shape[0]))
    for t in range(xq.shape[0]):
        for j in range(ids.shape[1]):
            k = int(ids[t, j])
            gu = torch.from_numpy(w13.dequant(k) @ xq[t]).half().double().numpy()  # held as float16
            gate, up = gu[:i], gu[i:]
            ref[t] += float(weights[t, j]) * (w2.dequant(k) @ down_a(gate / (1 + np.exp(-gate)) * up))
    return ref


def test_moe_a8_config_override(tmp_path):
    """moe.activation = e4m3 in the deployment config: e4m3-weight experts run 8-bit A, the
    hidden rows and the activation's output quantized per token by the layer; against the
    float64 MoE of the same pipeline (torch's per-token e4m3 codes of the 16-bit hidden and of
    the float32 activation output)."""
    config = tmp_path / "moe-e4m3.yaml"
    config.write_text("overrides:\n  moe:\n    activation: e4m3\n")
    e, h, i, top_k = 4, 128, 64, 2
    rng = np.random.default_rng(21)
    w13 = hum.quantize(rng.standard_normal((e, 2 * i, h)).astype(np.float32) * 0.05, weight="e4m3",
                       scale="channel", group_size=0)
    w2 = hum.quantize(rng.standard_normal((e, h, i)).astype(np.float32) * 0.05, weight="e4m3", scale="channel",
                      group_size=0)
    with hum.Runtime(config=config, cache_dir=tmp_path / "cache") as r:
        if r.device is None:
            pytest.skip("hum sees no GPU")
        needs_sm(r, "e4m3")
        moe = r.moe_from_standard(w13, w2, top_k=top_k)
        notes = moe.info["activations"]
        assert notes["gate_up"].startswith("e4m3 per token (override moe.activation = e4m3")
        assert notes["down"].startswith("e4m3 per token")
        g = torch.Generator(device="cpu").manual_seed(3)
        x = (torch.randn(9, h, generator=g) * 0.5).to("cuda", torch.float16)
        ids = torch.stack([torch.randperm(e, generator=g)[:top_k] for _ in range(9)]).to("cuda", torch.int32)
        weights = torch.rand(9, top_k, generator=g).to("cuda")
        out = torch.full((9, h), float("nan"), device="cuda", dtype=torch.float16)
        moe(x, ids, weights, out=out)
        torch.cuda.synchronize()
        codes, scale = quantize_rows(x, "e4m3", True)

        def e4m3_rows(act):  # the activation kernel's per-token e4m3 codes times their scales
            c, s = quantize_rows(torch.from_numpy(act).float().reshape(1, -1), "e4m3", True)
            return (c.double() * s.double()).numpy()[0]

        assert rel_err(out, moe_a8_reference(w13, w2, codes, scale, ids, weights, e4m3_rows)) < 1e-2


def test_moe_host_quantized_hidden(tmp_path):
    """A layer made with hidden="float8_e4m3fn" takes the host's per-token codes and scales
    (hum_moe_forward_quantized): the gate/up GEMM multiplies them as given, the down GEMM runs
    the weights' own 16-bit scheme; against the float64 MoE of those codes times scales, the
    rows between the GEMMs held in float16."""
    e, h, i, top_k = 4, 128, 64, 2
    rng = np.random.default_rng(23)
    w13 = hum.quantize(rng.standard_normal((e, 2 * i, h)).astype(np.float32) * 0.05, weight="e4m3",
                       scale="channel", group_size=0)
    w2 = hum.quantize(rng.standard_normal((e, h, i)).astype(np.float32) * 0.05, weight="e4m3", scale="channel",
                      group_size=0)
    with hum.Runtime(cache_dir=tmp_path / "cache") as r:
        if r.device is None:
            pytest.skip("hum sees no GPU")
        needs_sm(r, "e4m3")
        moe = r.moe_from_standard(w13, w2, top_k=top_k, hidden="float8_e4m3fn")
        assert moe.hidden_dtype == "float8_e4m3fn"
        assert moe.info["activations"]["gate_up"].startswith("e4m3 per token")
        g = torch.Generator(device="cpu").manual_seed(5)
        x = (torch.randn(9, h, generator=g) * 0.5).to("cuda", torch.float16)
        codes, scale = quantize_rows(x, "e4m3", True)
        ids = torch.stack([torch.randperm(e, generator=g)[:top_k] for _ in range(9)]).to("cuda", torch.int32)
        weights = torch.rand(9, top_k, generator=g).to("cuda")
        out = torch.full((9, h), float("nan"), device="cuda", dtype=torch.float16)
        moe(codes, ids, weights, out=out, hidden_scale=scale)
        torch.cuda.synchronize()
        half_rows = lambda act: torch.from_numpy(act).half().double().numpy()  # 16-bit A of the down GEMM
        assert rel_err(out, moe_a8_reference(w13, w2, codes, scale, ids, weights, half_rows)) < 1e-2
        with pytest.raises(ValueError, match="pass its scales as hidden_scale"):
            moe(codes, ids, weights)
