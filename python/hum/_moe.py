"""hum.Moe: a MoE layer (hum.h, HUM-SECTION moe) and its forward on torch tensors."""

import ctypes

from . import HumError, _check, dtype, dtype_name
from ._capi import F, K, T
from ._layer import _TORCH, _raw_stream

_ACTIVATIONS = {"silu": "HUM_MOE_SILU", "swiglu_oai": "HUM_MOE_SWIGLU_OAI", "relu2": "HUM_MOE_RELU2",
                "gelu": "HUM_MOE_GELU"}
_GATE_UP = {"split": "HUM_MOE_GATE_UP_SPLIT", "interleaved": "HUM_MOE_GATE_UP_INTERLEAVED"}
_DEVICE = K["HUM_MEMORY_DEVICE"]
_INT32, _INT64, _FLOAT32 = dtype("int32"), dtype("int64"), dtype("float32")


def moe_options(top_k, activation="silu", gate_up="split", global_experts=0, experts=None, dtype_=None,
                alpha=None, beta=None, limit=None):
    """(hum_moe_options, what it points to: keep it alive during the call)."""
    if activation not in _ACTIVATIONS or gate_up not in _GATE_UP:
        raise ValueError("hum.Moe: activation %r (one of %s), gate_up %r (one of %s)"
                         % (activation, sorted(_ACTIVATIONS), gate_up, sorted(_GATE_UP)))
    o = T["hum_moe_options"]()
    F["hum_moe_options_init"](ctypes.byref(o))
    o.activation, o.gate_up = K[_ACTIVATIONS[activation]], K[_GATE_UP[gate_up]]
    o.top_k, o.global_experts = int(top_k), int(global_experts)
    o.activation_dtype = dtype(dtype_) if dtype_ else 0
    for name, value in (("alpha", alpha), ("beta", beta), ("limit", limit)):
        if value is not None:
            setattr(o, name, float(value))
    ids = None
    if experts is not None:
        ids = (ctypes.c_int32 * len(experts))(*[int(x) for x in experts])
        o.experts, o.expert_count = ctypes.cast(ids, ctypes.POINTER(ctypes.c_int32)), len(experts)
    return o, ids


def _tensor(t, rank, dt):
    """A hum_tensor pointing at a torch CUDA tensor (rank `rank`, hum dtype `dt`)."""
    h = T["hum_tensor"]()
    h.data, h.dtype, h.rank, h.memory = t.data_ptr(), dt, rank, _DEVICE
    for d in range(rank):
        h.shape[d], h.strides[d] = t.shape[d], t.stride(d)
    return h


class Moe:
    """out[t] = sum_j topk_weights[t, j] * down_e(act(gate_up_e(hidden[t]))), e = topk_ids[t, j]
    (hum.h, hum_moe). Made by Runtime.moe_from_checkpoint / moe_from_standard; info (a dict);
    prepare(); call it on torch CUDA tensors. Free with close() or by dropping it (and before the
    runtime is closed, which closes it)."""

    def __init__(self, runtime, handle):
        self._runtime, self._h = runtime, handle
        i = self._info()
        self.hidden, self.intermediate, self.top_k = i.hidden, i.intermediate, i.top_k
        self.experts, self.global_experts = i.experts, i.global_experts
        self.activation = dtype_name(i.activation_dtype)
        self._ordinal = runtime.device["ordinal"] if runtime.device else None
        self._workspace, self._workspace_m = None, 0

    def _handle(self):
        if not self._h:
            raise HumError("HUM_ERR_INVALID_ARG", "the MoE layer is closed")
        return self._h

    def _info(self):
        i = T["hum_moe_info"]()
        _check(F["hum_moe_get_info"](self._handle(), ctypes.byref(i)))
        return i

    @property
    def info(self):
        """dict: experts (local), global_experts, hidden, intermediate, top_k, activation, gate_up,
        dtype, prepared, prepare_ms, gate_up_activation and down_activation (the dtypes the expert
        GEMMs multiply, once prepared)."""
        i = self._info()
        act = {K[v]: k for k, v in _ACTIVATIONS.items()}[i.activation]
        gu = {K[v]: k for k, v in _GATE_UP.items()}[i.gate_up]
        return {"experts": i.experts, "global_experts": i.global_experts, "hidden": i.hidden,
                "intermediate": i.intermediate, "top_k": i.top_k, "activation": act, "gate_up": gu,
                "dtype": dtype_name(i.activation_dtype), "prepared": bool(i.prepared), "prepare_ms": i.prepare_ms,
                # what each expert GEMM multiplies once prepared (the config's moe.activation or the
                # weights' scheme where the GPU runs it; 8-bit A is quantized by the layer)
                "gate_up_activation": dtype_name(i.gate_up_gemm.config.a_dtype) if i.prepared else None,
                "down_activation": dtype_name(i.down_gemm.config.a_dtype) if i.prepared else None}

    def prepare(self):
        """Compiles both expert GEMMs' tables and the MoE kernels and uploads the weights."""
        _check(F["hum_moe_prepare"](self._handle()), "hum.Moe prepare")

    def workspace_size(self, max_m):
        """Bytes of a Workspace in which forwards of up to max_m tokens run in one pass."""
        size = ctypes.c_int64()
        _check(F["hum_moe_workspace_size"](self._handle(), int(max_m), ctypes.byref(size)), "workspace_size")
        return size.value

    def __call__(self, hidden, topk_ids, topk_weights, expert_map=None, out=None, accumulate=False, stream=None,
                 workspace=None):
        """hidden [M, H] (float16/bfloat16), topk_ids [M, top_k] (int32/int64: global ids, -1 none),
        topk_weights [M, top_k] float32, expert_map None or [global experts] int32 (local index or
        -1), all torch CUDA tensors on the layer's GPU -> out [M, H] (allocated when None; with
        accumulate, added to). On `stream` (None: torch's current stream); no sync, capturable by
        torch.cuda.graph (pass a workspace and out). Without `workspace` the layer's own one
        (grown to M on demand, outside graph capture) is used."""
        torch = _TORCH
        if torch is None:
            raise TypeError("hum.Moe: forwards take torch tensors")
        device = hidden.device
        if device.type != "cuda" or device.index != self._ordinal:
            raise ValueError("hum.Moe: hidden is on %s, expected cuda:%s" % (device, self._ordinal))
        want = {"float16": torch.float16, "bfloat16": torch.bfloat16}[self.activation]
        if hidden.dtype != want or hidden.dim() != 2 or hidden.shape[1] != self.hidden:
            raise ValueError("hum.Moe: hidden is %s %s, expected %s [M, %d]"
                             % (hidden.dtype, tuple(hidden.shape), want, self.hidden))
        for name, t in (("topk_ids", topk_ids), ("topk_weights", topk_weights), ("expert_map", expert_map),
                        ("out", out)):
            if t is not None and t.device != device:  # hum reads every pointer on this GPU
                raise ValueError("hum.Moe: %s is on %s, hidden on %s" % (name, t.device, device))
        if hidden.stride(1) != 1:
            hidden = hidden.contiguous()
        topk_ids, topk_weights = topk_ids.contiguous(), topk_weights.contiguous()
        m = hidden.shape[0]
        if out is None:
            out = torch.empty_like(hidden) if not accumulate else torch.zeros_like(hidden)
        elif out.dtype != want or out.shape != hidden.shape or out.stride(1) != 1:
            raise ValueError("hum.Moe: out is %s %s, expected %s %s with contiguous rows"
                             % (out.dtype, tuple(out.shape), want, tuple(hidden.shape)))
        act = dtype(self.activation)
        ids_dt = {torch.int32: _INT32, torch.int64: _INT64}.get(topk_ids.dtype)
        if ids_dt is None:
            raise ValueError("hum.Moe: topk_ids is %s, expected int32 or int64" % topk_ids.dtype)
        if topk_weights.dtype != torch.float32:
            raise ValueError("hum.Moe: topk_weights is %s, expected float32" % topk_weights.dtype)
        # hum checks shapes, dtypes and devices of what it is given and names the tensor
        th, ti, tw, to = (_tensor(hidden, 2, act), _tensor(topk_ids, 2, ids_dt),
                          _tensor(topk_weights, 2, _FLOAT32), _tensor(out, 2, act))
        tm = None
        if expert_map is not None:
            if expert_map.dtype != torch.int32:
                raise ValueError("hum.Moe: expert_map is %s, expected int32" % expert_map.dtype)
            expert_map = expert_map.contiguous()
            tm = _tensor(expert_map, 1, _INT32)
        if workspace is None:
            if self._workspace is None or self._workspace_m < m:
                self._workspace = self._runtime.workspace(nbytes=self.workspace_size(max(m, 1)))
                self._workspace_m = max(m, 1)
            workspace = self._workspace
        if stream is None:
            handle = _raw_stream(device.index) if _raw_stream else torch.cuda.current_stream(device).cuda_stream
        else:
            handle = stream if isinstance(stream, int) else stream.cuda_stream
        _check(F["hum_moe_forward"](self._handle(), workspace._handle(), handle, ctypes.byref(th), ctypes.byref(ti),
                                    ctypes.byref(tw), ctypes.byref(tm) if tm is not None else None, ctypes.byref(to),
                                    1 if accumulate else 0), "hum.Moe forward")
        return out

    def close(self):
        """Frees the layer (not while a forward of it may still run)."""
        h, self._h = getattr(self, "_h", None), None
        if self._workspace is not None:
            self._workspace.close()
        if h:
            F["hum_moe_destroy"](h)

    def __del__(self):
        self.close()

    def __repr__(self):
        return "hum.Moe(experts=%d of %d, hidden=%d, intermediate=%d, top_k=%d, %s)" % (
            self.experts, self.global_experts, self.hidden, self.intermediate, self.top_k, self.activation)
