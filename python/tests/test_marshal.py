"""What the binding hands libhum per forward, checked without a GPU: torch is replaced by
fake_torch (numpy arrays posing as CUDA tensors) and hum_layer_forward / hum_moe_forward by a
recorder, so every hum_tensor the hot path fills (pointer, dtype, rank, shape, strides), the
scales and the stream can be compared with the arrays passed."""

import ctypes

import pytest

import fake_torch as torch
import hum
from hum import _layer, _moe
from conftest import MOE_H, MOE_NAME


@pytest.fixture
def calls(monkeypatch):
    got = []

    def record(*args):
        got.append(args)
        return 0

    monkeypatch.setattr(_layer, "_TORCH", torch)
    monkeypatch.setattr(_layer, "_raw_stream", torch._C._cuda_getCurrentRawStream)
    monkeypatch.setattr(_moe, "_TORCH", torch)
    monkeypatch.setattr(_moe, "_ID_DTYPES", {torch.int32: hum.dtype("int32"), torch.int64: hum.dtype("int64")})
    for module, name in ((_layer, "_FORWARD"), (_layer, "_FORWARD_WS"), (_moe, "_FORWARD"),
                         (_moe, "_FORWARD_GROUPED"), (_moe, "_FORWARD_QUANTIZED")):
        monkeypatch.setattr(module, name, record)
    return got


def seen(ref):
    """A hum_tensor passed by reference, as the callee saw it (None for NULL)."""
    if ref is None:
        return None
    t = ref._obj
    return {"data": t.data, "dtype": hum.dtype_name(t.dtype), "shape": tuple(t.shape[: t.rank]),
            "strides": tuple(t.strides[: t.rank]), "device": t.memory == 1}


def on_gpu(layer):
    layer._ordinal = 0  # the stand-in tensors' device
    return layer


def test_dense_forward(rt, calls):
    layer = on_gpu(rt.layer_from_spec("n=256,k=512,w=uint4,group=128", prepare=False))
    x = torch.tensor((2, 3, 512))
    y = layer(x)
    h, stream, a, s, c = calls[-1]
    assert h is layer._h and stream.value == torch._C.RAW_STREAM and s is None
    assert seen(a) == {"data": x.data_ptr(), "dtype": "float16", "shape": (6, 512), "strides": (512, 1), "device": True}
    assert y.shape == (2, 3, 256) and y.dtype is torch.float16
    assert seen(c) == {"data": y.data_ptr(), "dtype": "float16", "shape": (6, 256), "strides": (256, 1), "device": True}
    wide = torch.tensor((4, 1024))
    out = torch.tensor((4, 256))
    assert layer(wide[:, 512:], out=out, stream=12345) is out  # strided rows passed as they are
    _, stream, a, _, c = calls[-1]
    assert stream.value == 12345 and seen(a)["data"] == wide.data_ptr() + 1024 and seen(a)["strides"] == (1024, 1)
    assert seen(c)["data"] == out.data_ptr() and seen(c)["shape"] == (4, 256)
    with pytest.raises(ValueError, match="the layer takes float16"):
        layer(torch.tensor((2, 512), torch.bfloat16))
    with pytest.raises(ValueError, match="expected a CUDA tensor on cuda:0"):
        layer(torch.tensor((2, 512), ordinal=-1))
    with pytest.raises(ValueError, match=r"out is torch.float16 \(3, 256\)"):
        layer(x, out=torch.tensor((3, 256)))
    with pytest.raises(ValueError, match="x_scale is for layers of 8-bit activations"):
        layer(x, x_scale=torch.tensor((6,), torch.float32))
    assert len(calls) == 2


def test_a8_forward(rt, calls):
    """An 8-bit layer: the host's codes with their scales (per row, per tensor), or 16-bit x with
    none (the layer quantizes it); the output in the layer's output dtype."""
    w = hum.spec_weight("n=256,k=512,w=e4m3,a=bfloat16")
    layer = on_gpu(rt.layer_from_standard(w, activation="e4m3", prepare=False))
    codes, scale = torch.tensor((2, 3, 512), torch.float8_e4m3fn), torch.tensor((2, 3, 1), torch.float32)
    y = layer(codes, x_scale=scale)
    _, _, a, s, c = calls[-1]
    assert y.dtype is torch.bfloat16 and seen(c)["dtype"] == "bfloat16"
    assert seen(a)["dtype"] == "float8_e4m3fn" and seen(a)["shape"] == (6, 512)
    assert seen(s) == {"data": scale.data_ptr(), "dtype": "float32", "shape": (6,), "strides": (1,), "device": True}
    one = torch.tensor((1,), torch.float32)
    layer(codes, x_scale=one)
    assert seen(calls[-1][3])["shape"] == (1,) and seen(calls[-1][3])["data"] == one.data_ptr()
    for dt in (torch.float16, torch.bfloat16):
        layer(torch.tensor((5, 512), dt))
        assert seen(calls[-1][2])["dtype"] == dt.name and calls[-1][3] is None
    with pytest.raises(ValueError, match="pass their float32 scales as x_scale"):
        layer(codes)
    with pytest.raises(ValueError, match="x_scale goes with x of float8_e4m3fn codes"):
        layer(torch.tensor((6, 512)), x_scale=scale)
    with pytest.raises(ValueError, match="x_scale has 5 values"):
        layer(codes, x_scale=torch.tensor((5,), torch.float32))
    with pytest.raises(ValueError, match="x_scale must be a float32 tensor"):
        layer(codes, x_scale=torch.tensor((6,), torch.float16))
    with pytest.raises(ValueError, match="the layer takes float8_e4m3fn or float16 or bfloat16"):
        layer(torch.tensor((6, 512), torch.int8), x_scale=scale)
    grouped = on_gpu(rt.layer_from_standard(w, activation="e4m3", activation_group=128, prepare=False))
    gs = torch.tensor((2, 3, 4), torch.float32)
    grouped(codes, x_scale=gs)
    assert seen(calls[-1][3]) == {"data": gs.data_ptr(), "dtype": "float32", "shape": (6, 4), "strides": (4, 1),
                                  "device": True}
    e8m0 = torch.tensor((6, 4), torch.uint8)  # MXFP8's e8m0 bytes: hum checks the layer takes them
    grouped(codes, x_scale=e8m0)
    assert seen(calls[-1][3])["dtype"] == "float8_e8m0" and seen(calls[-1][3])["shape"] == (6, 4)
    grouped(codes, x_scale=gs)
    assert seen(calls[-1][3])["dtype"] == "float32"


def test_workspace_forward(rt, calls):
    """With a workspace the call goes to hum_layer_forward_ws with the workspace's own structs."""
    layer = on_gpu(rt.layer_from_spec("n=256,k=512,w=uint4", prepare=False))

    class Space:  # a Workspace without device memory (none here)
        _structs, _moe = _layer._Structs(), None
        _tensors = _layer.Workspace._tensors

        def _handle(self):
            return ctypes.c_void_p(99)

    space = Space()
    x = torch.tensor((7, 512))
    layer(x, workspace=space)
    h, ws, stream, a, s, c = calls[-1]
    assert ws.value == 99 and a._obj is space._structs.a and seen(a)["shape"] == (7, 512)
    assert seen(c)["shape"] == (7, 256) and s is None


def test_moe_forward(rt, moe_model_dir, calls):
    moe = rt.moe_from_checkpoint(moe_model_dir, MOE_NAME, top_k=2, prepare=False)
    moe._ordinal = 0

    Space = MoeSpace
    x = torch.tensor((3, MOE_H))
    ids, weights = torch.tensor((3, 2), torch.int64), torch.tensor((3, 2), torch.float32)
    expert_map = torch.tensor((4,), torch.int32)
    out = moe(x, ids, weights, expert_map=expert_map, workspace=Space())
    h, ws, stream, th, ti, tw, tm, to, accumulate = calls[-1]
    assert h is moe._h and ws.value == 97 and stream.value == torch._C.RAW_STREAM and accumulate == 0
    assert seen(th) == {"data": x.data_ptr(), "dtype": "float16", "shape": (3, MOE_H), "strides": (MOE_H, 1),
                        "device": True}
    assert seen(ti) == {"data": ids.data_ptr(), "dtype": "int64", "shape": (3, 2), "strides": (2, 1), "device": True}
    assert seen(tw)["dtype"] == "float32" and seen(tm) == {"data": expert_map.data_ptr(), "dtype": "int32",
                                                           "shape": (4,), "strides": (1,), "device": True}
    assert seen(to)["data"] == out.data_ptr() and seen(to)["shape"] == (3, MOE_H)
    moe(x, torch.tensor((3, 2), torch.int32), weights, out=out, accumulate=True, workspace=Space())
    assert seen(calls[-1][4])["dtype"] == "int32" and calls[-1][6] is None and calls[-1][8] == 1
    with pytest.raises(ValueError, match="topk_weights is torch.float16"):
        moe(x, ids, torch.tensor((3, 2), torch.float16), workspace=Space())
    with pytest.raises(ValueError, match="topk_ids is on cpu"):
        moe(x, torch.tensor((3, 2), torch.int64, ordinal=-1), weights, workspace=Space())


def test_moe_forward_quantized(rt, moe_model_dir, calls):
    """A layer of host-quantized hidden goes to hum_moe_forward_quantized with the codes and their
    scales; out is the layer's 16-bit dtype; a missing or stray hidden_scale is refused."""
    moe = rt.moe_from_checkpoint(moe_model_dir, MOE_NAME, top_k=2, prepare=False, hidden="float8_e4m3fn")
    moe._ordinal = 0
    assert moe.hidden_dtype == "float8_e4m3fn" and moe.hidden_group == 0
    codes, scale = torch.tensor((3, MOE_H), torch.float8_e4m3fn), torch.tensor((3, 1), torch.float32)
    ids, weights = torch.tensor((3, 2), torch.int32), torch.tensor((3, 2), torch.float32)
    out = moe(codes, ids, weights, hidden_scale=scale, workspace=MoeSpace())
    h, ws, stream, th, ts, ti, tw, tm, to, accumulate = calls[-1]
    assert h is moe._h and ws.value == 97 and tm is None and accumulate == 0
    assert seen(th) == {"data": codes.data_ptr(), "dtype": "float8_e4m3fn", "shape": (3, MOE_H),
                        "strides": (MOE_H, 1), "device": True}
    assert seen(ts) == {"data": scale.data_ptr(), "dtype": "float32", "shape": (3,), "strides": (1,), "device": True}
    assert out.dtype is torch.float16 and seen(to)["data"] == out.data_ptr() and seen(to)["shape"] == (3, MOE_H)
    with pytest.raises(ValueError, match="pass its scales as hidden_scale"):
        moe(codes, ids, weights, workspace=MoeSpace())
    with pytest.raises(ValueError, match="hidden is torch.float16"):
        moe(torch.tensor((3, MOE_H)), ids, weights, hidden_scale=scale, workspace=MoeSpace())
    with pytest.raises(ValueError, match="hidden_scale has 6 values"):
        moe(codes, ids, weights, hidden_scale=torch.tensor((6,), torch.float32), workspace=MoeSpace())
    plain = rt.moe_from_checkpoint(moe_model_dir, MOE_NAME, top_k=2, prepare=False)
    plain._ordinal = 0
    with pytest.raises(ValueError, match="hidden_scale is for layers made with"):
        plain(torch.tensor((3, MOE_H)), ids, weights, hidden_scale=scale, workspace=MoeSpace())
    assert len(calls) == 1


class MoeSpace:
    """A Workspace without device memory, for MoE forwards."""
    _moe = None

    def _handle(self):
        return ctypes.c_void_p(97)


@pytest.mark.parametrize("gemm", ["grouped_contiguous", "grouped_masked"])
def test_moe_grouped_forward(rt, moe_model_dir, calls, gemm):
    """Rows a dispatcher grouped by expert (DeepEP's layouts) go to hum_moe_forward_grouped."""
    moe = rt.moe_from_checkpoint(moe_model_dir, MOE_NAME, top_k=1, gemm=gemm, prepare=False)
    moe._ordinal = 0
    assert moe.gemm == gemm and gemm in repr(moe)
    masked = gemm == "grouped_masked"
    x = torch.tensor((4, 5, MOE_H) if masked else (9, MOE_H))
    layout = torch.tensor((4,), torch.int32) if masked else torch.tensor((5,), torch.int64)
    space = MoeSpace()
    out = moe.grouped(x, layout, workspace=space)
    h, ws, stream, th, tl, to = calls[-1]
    assert h is moe._h and ws.value == 97 and stream.value == torch._C.RAW_STREAM
    if masked:
        assert seen(th) == {"data": x.data_ptr(), "dtype": "float16", "shape": (4, 5, MOE_H),
                            "strides": (5 * MOE_H, MOE_H, 1), "device": True}
        assert seen(tl) == {"data": layout.data_ptr(), "dtype": "int32", "shape": (4,), "strides": (1,),
                            "device": True}
    else:
        assert seen(th) == {"data": x.data_ptr(), "dtype": "float16", "shape": (9, MOE_H), "strides": (MOE_H, 1),
                            "device": True}
        assert seen(tl)["dtype"] == "int64" and seen(tl)["shape"] == (5,)
    assert seen(to)["data"] == out.data_ptr() and seen(to)["shape"] == tuple(x.shape)
    with pytest.raises(ValueError, match="layout is torch"):
        moe.grouped(x, torch.tensor((5,), torch.int32 if not masked else torch.int64), workspace=space)
    with pytest.raises(ValueError, match="hidden is torch.float16"):
        moe.grouped(torch.tensor((9, MOE_H) if masked else (4, 5, MOE_H)), layout, workspace=space)
    with pytest.raises(ValueError, match="takes rows already grouped by expert"):
        moe(x, torch.tensor((9, 1), torch.int32), torch.tensor((9, 1), torch.float32), workspace=space)
    indexed = rt.moe_from_checkpoint(moe_model_dir, MOE_NAME, top_k=1, prepare=False)
    with pytest.raises(ValueError, match="grouped\\(\\) is for layers made with"):
        indexed.grouped(x, layout, workspace=space)
    assert len(calls) == 1
