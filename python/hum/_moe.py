"""hum.Moe: a MoE layer (hum.h, HUM-SECTION moe) and its forward on torch tensors."""

import ctypes

from . import HumError, _check, dtype, dtype_name
from ._capi import LIB, NS, F, K, T, raw
from ._layer import _HT, _TORCH, _W_DATA, _W_LD, _W_ROWS, stream_pointer, torch_stream

_FORWARD, _ = raw(LIB, NS, "hum_moe_forward")
_FORWARD_QUANTIZED, _ = raw(LIB, NS, "hum_moe_forward_quantized")
_FORWARD_GROUPED, _ = raw(LIB, NS, "hum_moe_forward_grouped")

_ACTIVATIONS = {"silu": "HUM_MOE_SILU", "swiglu_oai": "HUM_MOE_SWIGLU_OAI", "relu2": "HUM_MOE_RELU2",
                "gelu": "HUM_MOE_GELU"}
_GATE_UP = {"split": "HUM_MOE_GATE_UP_SPLIT", "interleaved": "HUM_MOE_GATE_UP_INTERLEAVED"}
_GEMMS = {"indexed": "HUM_GEMM_MOE_INDEXED", "grouped_contiguous": "HUM_GEMM_MOE_GROUPED_CONTIGUOUS",
          "grouped_masked": "HUM_GEMM_MOE_GROUPED_MASKED"}
_DEVICE = K["HUM_MEMORY_DEVICE"]
_INT32, _INT64, _FLOAT32, _E8M0 = dtype("int32"), dtype("int64"), dtype("float32"), dtype("float8_e8m0")
_ID_DTYPES = {} if _TORCH is None else {_TORCH.int32: _INT32, _TORCH.int64: _INT64}


def moe_options(top_k, activation="silu", gate_up="split", global_experts=0, experts=None, dtype_=None,
                alpha=None, beta=None, limit=None, gemm="indexed", hidden=None, hidden_group=0):
    """(hum_moe_options, what it points to: keep it alive during the call)."""
    if activation not in _ACTIVATIONS or gate_up not in _GATE_UP or gemm not in _GEMMS:
        raise ValueError("hum.Moe: activation %r (one of %s), gate_up %r (one of %s), gemm %r (one of %s)"
                         % (activation, sorted(_ACTIVATIONS), gate_up, sorted(_GATE_UP), gemm, sorted(_GEMMS)))
    o = T["hum_moe_options"]()
    F["hum_moe_options_init"](ctypes.byref(o))
    o.activation, o.gate_up, o.gemm_type = K[_ACTIVATIONS[activation]], K[_GATE_UP[gate_up]], K[_GEMMS[gemm]]
    o.top_k, o.global_experts = int(top_k), int(global_experts)
    o.activation_dtype = dtype(dtype_) if dtype_ else 0
    o.hidden_dtype, o.hidden_group = (dtype(hidden) if hidden else 0), int(hidden_group)
    for name, value in (("alpha", alpha), ("beta", beta), ("limit", limit)):
        if value is not None:
            setattr(o, name, float(value))
    ids = None
    if experts is not None:
        ids = (ctypes.c_int32 * len(experts))(*[int(x) for x in experts])
        o.experts, o.expert_count = ctypes.cast(ids, ctypes.POINTER(ctypes.c_int32)), len(experts)
    return o, ids


def tensor_views():
    """hum_tensor structs for a MoE forward's hidden, topk_ids, topk_weights, expert_map and out,
    then a grouped forward's hidden, layout and out, then the host-quantized hidden's scales, each
    (struct, reference, int64 view of its memory); the forwards set the dtypes and ranks that
    vary."""
    out = []
    for rank, dt in ((2, 0), (2, _INT32), (2, _FLOAT32), (1, _INT32), (2, 0), (2, 0), (1, _INT64), (2, 0),
                     (1, _FLOAT32)):
        t = _HT()
        t.dtype, t.rank, t.memory = dt, rank, _DEVICE
        out.append((t, ctypes.byref(t), memoryview(t).cast("B").cast("q")))
    return out


def workspace_views(workspace):
    """The hum_tensor views of the MoE forwards run in `workspace` (one at a time), made once."""
    if workspace._moe is None:
        workspace._moe = tensor_views()
    return workspace._moe


def _point(view, t):
    """Points a view's hum_tensor at torch tensor t (of the view's rank); its reference."""
    q = view[2]
    q[_W_DATA] = t.data_ptr()
    shape, strides = t.shape, t.stride()
    q[_W_ROWS], q[_W_LD] = shape[0], strides[0]
    if len(shape) > 1:
        q[_W_ROWS + 1], q[_W_LD + 1] = shape[1], strides[1]
        if len(shape) > 2:
            q[_W_ROWS + 2], q[_W_LD + 2] = shape[2], strides[2]
    return view[1]


class Moe:
    """out[t] = sum_j topk_weights[t, j] * down_e(act(gate_up_e(hidden[t]))), e = topk_ids[t, j]
    (hum.h, hum_moe). Made by Runtime.moe_from_checkpoint / moe_from_standard; info (a dict);
    prepare(); call it on torch CUDA tensors. Free with close() or by dropping it (and before the
    runtime is closed, which closes it)."""

    def __init__(self, runtime, handle, gemm="indexed"):
        self._runtime, self._h, self.gemm = runtime, handle, gemm
        i = self._info()
        self.hidden, self.intermediate, self.top_k = i.hidden, i.intermediate, i.top_k
        self.experts, self.global_experts = i.experts, i.global_experts
        self.activation = dtype_name(i.activation_dtype)
        self._torch_dtype = None if _TORCH is None else getattr(_TORCH, self.activation)
        self._act = i.activation_dtype
        # the codes the host quantized hidden to (hum_moe_options.hidden_dtype), else None
        self.hidden_dtype = dtype_name(i.hidden_dtype) if i.hidden_dtype else None
        self.hidden_group = i.hidden_group
        self._hidden = i.hidden_dtype or i.activation_dtype
        self._torch_hidden = None if _TORCH is None else getattr(_TORCH, dtype_name(self._hidden))
        self._stream = (None, None)  # stream_pointer's cache
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
        dtype, hidden_dtype (None: 16-bit hidden) and hidden_group, prepared, prepare_ms; activations (once prepared, else None): what each expert
        GEMM's A runs as and why, {"gate_up": "e4m3 per token (override moe.activation = e4m3;
        ...)", "down": ...} (hum_moe_info)."""
        i = self._info()
        act = {K[v]: k for k, v in _ACTIVATIONS.items()}[i.activation]
        gu = {K[v]: k for k, v in _GATE_UP.items()}[i.gate_up]
        return {"experts": i.experts, "global_experts": i.global_experts, "hidden": i.hidden,
                "intermediate": i.intermediate, "top_k": i.top_k, "activation": act, "gate_up": gu,
                "dtype": dtype_name(i.activation_dtype),
                "hidden_dtype": dtype_name(i.hidden_dtype) if i.hidden_dtype else None,
                "hidden_group": i.hidden_group, "prepared": bool(i.prepared), "prepare_ms": i.prepare_ms,
                "activations": {"gate_up": i.gate_up_activation.decode(), "down": i.down_activation.decode()}
                if i.prepared else None}

    def prepare(self):
        """Compiles both expert GEMMs' tables and the MoE kernels and uploads the weights."""
        _check(F["hum_moe_prepare"](self._handle()), "hum.Moe prepare")

    def workspace_size(self, max_m):
        """Bytes of a Workspace in which forwards of up to max_m tokens run in one pass."""
        size = ctypes.c_int64()
        _check(F["hum_moe_workspace_size"](self._handle(), int(max_m), ctypes.byref(size)), "workspace_size")
        return size.value

    def __call__(self, hidden, topk_ids, topk_weights, expert_map=None, out=None, accumulate=False, stream=None,
                 workspace=None, hidden_scale=None):
        """hidden [M, H] (float16/bfloat16), topk_ids [M, top_k] (int32/int64: global ids, -1 none),
        topk_weights [M, top_k] float32, expert_map None or [global experts] int32 (local index or
        -1), all torch CUDA tensors on the layer's GPU -> out [M, H] (allocated when None; with
        accumulate, added to). A layer made with hidden="float8_e4m3fn" / "int8" takes hidden as
        the host's codes and their scales as hidden_scale: float32 [M] (or [M, 1]) per token, or
        [M, ceil(H / hidden_group)] per group (e8m0 bytes, uint8, for groups of 32); out stays
        the layer's 16-bit dtype (hum_moe_forward_quantized). On `stream` (None: torch's current
        stream); no sync, capturable by torch.cuda.graph (pass a workspace and out). Without
        `workspace` the layer's own one (grown to M on demand, outside graph capture) is used."""
        torch = _TORCH
        if torch is None:
            raise TypeError("hum.Moe: forwards take torch tensors")
        h = self._h
        if not h:
            self._handle()  # raises: the layer is closed
        if self.gemm != "indexed":
            raise ValueError("hum.Moe: a %s layer takes rows already grouped by expert: moe.grouped(hidden, layout)"
                             % self.gemm)
        dev = hidden.get_device()
        if dev != self._ordinal:
            raise ValueError("hum.Moe: hidden is on %s, expected cuda:%s" % (hidden.device, self._ordinal))
        want, hshape = self._torch_dtype, hidden.shape
        if hidden.dtype is not self._torch_hidden or len(hshape) != 2 or hshape[1] != self.hidden:
            raise ValueError("hum.Moe: hidden is %s %s, expected %s [M, %d]"
                             % (hidden.dtype, tuple(hshape), self._torch_hidden, self.hidden))
        if (hidden_scale is None) != (self.hidden_dtype is None):
            raise ValueError("hum.Moe: %s" % ("the layer takes hidden quantized to %s: pass its scales as "
                                              "hidden_scale" % self.hidden_dtype if self.hidden_dtype else
                                              "hidden_scale is for layers made with hidden='float8_e4m3fn' or "
                                              "'int8'; this one takes %s hidden" % self.activation))
        for name, t in (("topk_ids", topk_ids), ("topk_weights", topk_weights), ("expert_map", expert_map),
                        ("out", out), ("hidden_scale", hidden_scale)):
            if t is not None and t.get_device() != dev:  # hum reads every pointer on this GPU
                raise ValueError("hum.Moe: %s is on %s, hidden on %s" % (name, t.device, hidden.device))
        if hidden.stride(1) != 1:
            hidden = hidden.contiguous()
        topk_ids, topk_weights = topk_ids.contiguous(), topk_weights.contiguous()
        m = hshape[0]
        if out is None:
            out = (torch.zeros if accumulate else torch.empty)(tuple(hshape), dtype=want, device=hidden.device)
        elif out.dtype is not want or out.shape != hshape or out.stride(1) != 1:
            raise ValueError("hum.Moe: out is %s %s, expected %s %s with contiguous rows"
                             % (out.dtype, tuple(out.shape), want, tuple(hshape)))
        ids_dt = _ID_DTYPES.get(topk_ids.dtype)
        if ids_dt is None:
            raise ValueError("hum.Moe: topk_ids is %s, expected int32 or int64" % topk_ids.dtype)
        if topk_weights.dtype is not torch.float32:
            raise ValueError("hum.Moe: topk_weights is %s, expected float32" % topk_weights.dtype)
        if expert_map is not None:
            if expert_map.dtype is not torch.int32:
                raise ValueError("hum.Moe: expert_map is %s, expected int32" % expert_map.dtype)
            expert_map = expert_map.contiguous()
        if workspace is None:
            workspace = self._own_workspace(m)
        # hum checks shapes, dtypes and devices of what it is given and names the tensor
        th, ti, tw, tm, to, _, _, _, ts = workspace_views(workspace)
        ti[0].dtype, th[0].dtype, to[0].dtype = ids_dt, self._hidden, self._act
        rest = (_point(ti, topk_ids), _point(tw, topk_weights), None if expert_map is None else _point(tm, expert_map),
                _point(to, out), 1 if accumulate else 0)
        s = stream_pointer(self, torch_stream(dev, stream))
        if self.hidden_dtype is None:
            status = _FORWARD(h, workspace._handle(), s, _point(th, hidden), *rest)
        else:
            status = _FORWARD_QUANTIZED(h, workspace._handle(), s, _point(th, hidden),
                                        self._point_scale(ts, hidden_scale, m), *rest)
        if status:
            _check(status, "hum.Moe forward")
        return out

    def _point_scale(self, view, scale, m):
        """Points the scales' view at hidden_scale: [M] per token ([M, 1] taken), else [M, G]; hum
        checks G, the dtype and the device's memory."""
        if scale.dtype is _TORCH.float32:
            view[0].dtype = _FLOAT32
        elif scale.dtype is _TORCH.uint8 or str(scale.dtype) == "torch.float8_e8m0fnu":
            view[0].dtype = _E8M0
        else:
            raise ValueError("hum.Moe: hidden_scale is %s, expected float32 (or e8m0 bytes, uint8, for groups of "
                             "32)" % scale.dtype)
        if not self.hidden_group:
            scale = scale.reshape(-1)
        if scale.stride(-1) != 1:
            scale = scale.contiguous()
        view[0].rank = scale.dim()
        if self.hidden_group and scale.dim() != 2:
            raise ValueError("hum.Moe: hidden_scale has shape %s, expected [M, ceil(H / %d)]"
                             % (tuple(scale.shape), self.hidden_group))
        if scale.dim() == 1 and scale.shape[0] != m:
            raise ValueError("hum.Moe: hidden_scale has %d values, expected one per token (%d)" % (scale.shape[0], m))
        return _point(view, scale)

    def _own_workspace(self, m):
        """The layer's own Workspace, grown to m rows (outside graph capture)."""
        if self._workspace is None or self._workspace_m < m:
            self._workspace = self._runtime.workspace(nbytes=self.workspace_size(max(m, 1)))
            self._workspace_m = max(m, 1)
        return self._workspace

    def grouped(self, hidden, layout, out=None, stream=None, workspace=None):
        """The experts of a layer made with gemm="grouped_contiguous" or "grouped_masked" on rows
        a dispatcher (DeepEP) already grouped by local expert: each row x of expert e becomes
        down_e(act(gate_up_e(x))), no router weight (the host's combine applies it); hum.h,
        hum_moe_forward_grouped. Torch CUDA tensors on the layer's GPU:
          grouped_contiguous: hidden [T, H], expert e's rows layout[e] .. layout[e + 1] - 1,
            layout int64 [E + 1]; out [T, H];
          grouped_masked: hidden [E, T, H] contiguous, expert e's first layout[e] rows, layout
            int32 [E]; out [E, T, H].
        out is allocated when None; rows outside every expert's are neither read nor written.
        The layout stays on the GPU (its values are not checked). On `stream` (None: torch's
        current stream); no sync, capturable (pass a workspace of T rows and out)."""
        torch = _TORCH
        if torch is None:
            raise TypeError("hum.Moe: forwards take torch tensors")
        h = self._h
        if not h:
            self._handle()  # raises: the layer is closed
        if self.gemm == "indexed":
            raise ValueError("hum.Moe: grouped() is for layers made with gemm='grouped_contiguous' or "
                             "'grouped_masked'; this one routes tokens by their top-k ids: moe(hidden, topk_ids, ...)")
        masked = self.gemm == "grouped_masked"
        dev = hidden.get_device()
        if dev != self._ordinal:
            raise ValueError("hum.Moe: hidden is on %s, expected cuda:%s" % (hidden.device, self._ordinal))
        want, hshape, rank = self._torch_dtype, hidden.shape, 3 if masked else 2
        shape = "[E, T, %d]" % self.hidden if masked else "[T, %d]" % self.hidden
        if hidden.dtype is not want or len(hshape) != rank or hshape[-1] != self.hidden:
            raise ValueError("hum.Moe: hidden is %s %s, expected %s %s" % (hidden.dtype, tuple(hshape), want, shape))
        layout_dtype = torch.int32 if masked else torch.int64
        if layout.dtype is not layout_dtype or layout.dim() != 1 or layout.get_device() != dev:
            raise ValueError("hum.Moe: layout is %s %s on %s, expected %s [%s] on %s" % (
                layout.dtype, tuple(layout.shape), layout.device, layout_dtype, "E" if masked else "E + 1",
                hidden.device))
        if masked or hidden.stride(-1) != 1:
            hidden = hidden.contiguous()
        layout = layout.contiguous()
        if out is None:
            out = torch.empty_like(hidden)
        elif out.dtype is not want or out.shape != hshape or out.get_device() != dev:
            raise ValueError("hum.Moe: out is %s %s on %s, expected %s %s on %s" % (
                out.dtype, tuple(out.shape), out.device, want, tuple(hshape), hidden.device))
        if workspace is None:
            workspace = self._own_workspace(hshape[-2])
        _, _, _, _, _, th, tl, to, _ = workspace_views(workspace)
        th[0].dtype, to[0].dtype, th[0].rank, to[0].rank = self._act, self._act, rank, rank
        tl[0].dtype = _INT32 if masked else _INT64
        status = _FORWARD_GROUPED(h, workspace._handle(), stream_pointer(self, torch_stream(dev, stream)),
                                  _point(th, hidden), _point(tl, layout), _point(to, out))
        if status:
            _check(status, "hum.Moe grouped forward")
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
        return "hum.Moe(experts=%d of %d, hidden=%d, intermediate=%d, top_k=%d, %s%s)" % (
            self.experts, self.global_experts, self.hidden, self.intermediate, self.top_k, self.activation,
            "" if self.gemm == "indexed" else ", " + self.gemm)
