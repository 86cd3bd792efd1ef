"""hum.Layer: a prepared quantized linear layer and its forward on torch / CUDA-array tensors."""

import ctypes

from . import _ACT_SCALE_NAMES as _ACT_SCALES, HumError, _check, dtype, dtype_name
from ._capi import F, K, LIB, NS, T, raw

# The forwards without ctypes' argument conversion (every argument a ctypes pointer object):
# what a model calls per layer and token, so what the binding adds to hum_layer_forward's cost.
_FORWARD, _ = raw(LIB, NS, "hum_layer_forward")
_FORWARD_WS, _ = raw(LIB, NS, "hum_layer_forward_ws")
_DEVICE = K["HUM_MEMORY_DEVICE"]
_16BIT = ("float16", "bfloat16")
_CODES = {n: dtype(n) for n in _16BIT + ("float8_e4m3fn", "int8")}
_FLOAT32, _E8M0 = dtype("float32"), dtype("float8_e8m0")
# What info's "ranges" append to a tile for each kernel family (hum_gemm_kernel: mma, wgmma, wgmma_ws, mma_direct).
# hum_tensor's words (int64) written per call: data, shape[0], shape[1], strides[0]
_HT = T["hum_tensor"]
assert ctypes.sizeof(ctypes.c_void_p) == 8 and _HT.shape.offset % 8 == 0 and _HT.strides.offset % 8 == 0
_W_DATA, _W_ROWS, _W_LD = _HT.data.offset // 8, _HT.shape.offset // 8, _HT.strides.offset // 8


class _Structs:
    """hum_tensor structs for A, C and A's scales, references to them, and int64 views of their
    memory: a forward writes its pointers, rows and strides through the views (one store each,
    where a ctypes field store builds objects)."""

    __slots__ = ("a", "c", "s", "aref", "cref", "sref", "qa", "qc", "qs")

    def __init__(self):
        self.a, self.c, self.s = _HT(), _HT(), _HT()
        self.aref, self.cref, self.sref = ctypes.byref(self.a), ctypes.byref(self.c), ctypes.byref(self.s)
        self.qa, self.qc, self.qs = (memoryview(t).cast("B").cast("q") for t in (self.a, self.c, self.s))


def stream_pointer(owner, handle):
    """handle (an int or None) as the c_void_p a forward takes, made once per stream and kept in
    owner._stream as one (handle, pointer) pair, so threads never read a mixed pair."""
    pair = owner._stream
    if pair[0] != handle or pair[1] is None:
        pair = (handle, ctypes.c_void_p(handle))
        owner._stream = pair
    return pair[1]


def torch_stream(device, stream):
    """The raw CUstream of a torch forward: torch's current stream of the device ordinal (read
    as a raw handle, no Stream object, where torch offers that) unless `stream` (an int or a
    torch.cuda.Stream) is given."""
    if stream is None:
        return _raw_stream(device) if _raw_stream else _TORCH.cuda.current_stream(device).cuda_stream
    return stream if isinstance(stream, int) else stream.cuda_stream


def dispatch_dict(d):
    """A hum_layer_dispatch as a dict: policy, policy_origin, device, arch, activation (what A is
    multiplied as, and why), rows [{m_min, m_max, tile, smem_bytes, threads, origin}]."""
    rows = []
    for r in d.rows[: d.row_count]:
        t = r.tuning
        rows.append({"m_min": t.m_min, "m_max": t.m_max, "tile": "%dx%dx%d/%d%s" % (
            t.block_m, t.block_n, t.block_k, t.stages, " wgmma" if t.kernel else ""), "smem_bytes": r.smem_bytes,
                     "threads": r.threads, "origin": r.origin.decode()})
    return {"policy": d.policy_name.decode(), "policy_origin": d.policy_origin.decode(),
            "device": d.device_name.decode(), "arch": d.arch.decode(), "activation": d.activation.decode(),
            "rows": rows}


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


_TORCH = _torch()
# torch's current stream of a device as a raw CUstream handle (what torch's own extensions use),
# when this torch has it: a public torch.cuda.current_stream() builds a Stream object per call.
_raw_stream = getattr(getattr(_TORCH, "_C", None), "_cuda_getCurrentRawStream", None)


class Layer:
    """C[..., N] = x[..., K] @ dequant(W)^T (+ bias). Made by Runtime.layer_from_*; n, k;
    activation: the dtype the GEMM multiplies ("float16", "bfloat16", or 8-bit "float8_e4m3fn" /
    "int8"); output: C's dtype; activation_group: K columns per scale of 8-bit A (0: one per
    row or tensor); info, dispatch (how hum prepared it). Free with close() or by dropping it
    (and before the runtime is closed, which closes its layers)."""

    def __init__(self, runtime, handle):
        self._runtime = runtime
        self._h = handle
        device = runtime.device
        self._ordinal = None if device is None else device["ordinal"]
        # Reused by every forward: the call fills data, shape and strides in place.
        self._own = _Structs()
        self._stream = (None, None)  # (raw CUstream, its c_void_p): replaced whole, so threads read a pair
        self._read_plan()

    def _read_plan(self):
        """What the layer computes in: the request before prepare, what runs after it (a
        checkpoint's or the config's 8-bit scheme may fall back to 16-bit on the GPU)."""
        info = self._info()
        cfg = info.config
        self.n, self.k = cfg.n, info.input_k  # A's columns (config.k: the GEMM's, padding included)
        self.activation, self.output = dtype_name(cfg.a_dtype), dtype_name(cfg.c_dtype)
        self.activation_group = cfg.a_group
        self._a8 = F["hum_dtype_bits"](cfg.a_dtype) == 8
        self._dtype, self._cdtype = cfg.a_dtype, cfg.c_dtype
        torch = _TORCH
        # torch dtype -> hum dtype of x: the activation dtype, and 16-bit A too for 8-bit layers,
        # which quantize it themselves
        names = [self.activation] + (["float16", "bfloat16"] if self._a8 else [])
        self._accept = {} if torch is None else {getattr(torch, n): _CODES[n] for n in names if hasattr(torch, n)}
        self._accept_names = names
        self._torch_out = None if torch is None else getattr(torch, self.output)
        # x_scale's torch dtypes: float32, or e8m0 bytes (MXFP8's 1 x 32 groups) as uint8 or
        # float8_e8m0fnu; hum checks which one the layer takes
        self._scale_dtypes = {} if torch is None else {
            getattr(torch, n): code for n, code in (("float32", _FLOAT32), ("uint8", _E8M0), ("float8_e8m0fnu", _E8M0))
            if hasattr(torch, n)}
        self._shape_tensors(self._own)

    def _shape_tensors(self, st):
        """The fields of A's, C's and A's scales' hum_tensor that do not change from call to call."""
        for t, cols, dt in ((st.a, self.k, self._dtype), (st.c, self.n, self._cdtype)):
            t.dtype, t.rank, t.memory, t.shape[1], t.strides[1] = dt, 2, _DEVICE, cols, 1
        st.s.dtype, st.s.memory, st.s.rank = _FLOAT32, _DEVICE, 2 if self.activation_group else 1
        st.s.strides[0], st.s.strides[1] = 1, 1

    def _handle(self):
        if not self._h:
            raise HumError("HUM_ERR_INVALID_ARG", "the layer is closed")
        return self._h

    def _info(self):
        info = T["hum_layer_info"]()
        _check(F["hum_layer_get_info"](self._handle(), ctypes.byref(info)))
        return info

    def close(self):
        h, self._h = getattr(self, "_h", None), None
        if h:
            F["hum_layer_destroy"](h)

    def __del__(self):
        self.close()

    def prepare(self):
        """Compiles the layer's kernels and uploads its weights to the runtime's GPU (once)."""
        _check(F["hum_layer_prepare"](self._handle()), "prepare")
        self._read_plan()
        return self

    @property
    def info(self):
        """dict: n, k, activation, output, activation_group, activation_scale ("token",
        "tensor", "group": how an 8-bit layer scales the A it quantizes; None for 16-bit A),
        activation_round ("mxfp8": the 16-bit A is rounded to mxfp8's values by the layer,
        hum.h's a_round; else None),
        weight, act_order, prepared, policy, arch, ranges [(m_min, m_max, tile)], timings, device
        bytes."""
        i = self._info()
        ranges = []
        for e in i.entries[: i.entry_count]:
            # the policy's name of the family (hum_gemm_kernel_name); the default, mma, unsaid
            name = F["hum_gemm_kernel_name"](e.kernel)
            family = "" if e.kernel == K["HUM_GEMM_KERNEL_MMA"] else " " + (name.decode() if name else
                                                                           "kernel %d" % e.kernel)
            tile = "%dx%dx%d/%d%s" % (e.block_m, e.block_n, e.block_k, e.stages, family)
            ranges.append((e.m_min, e.m_max, tile))
        return {"n": i.config.n, "k": i.input_k, "activation": dtype_name(i.config.a_dtype),
                "output": dtype_name(i.config.c_dtype), "activation_group": i.config.a_group,
                "activation_scale": _ACT_SCALES[i.config.a_scale] if F["hum_dtype_bits"](i.config.a_dtype) == 8
                else None,
                "activation_round": "mxfp8" if i.config.a_round == 1 else None,
                "weight": dtype_name(i.config.weight_dtype), "act_order": bool(i.config.act_order),
                "prepared": bool(i.prepared), "policy": i.policy_name.decode(), "arch": i.arch.decode(),
                "ranges": ranges, "prepare_ms": i.prepare_ms, "compile_ms": i.compile_ms,
                "device_bytes": i.device_bytes}

    @property
    def dispatch(self):
        """What runs for each M on the GPU (hum_layer_describe; prepared layers): a dict, with
        `activation` saying what A is multiplied as and why ("e4m3 per token (override
        linear.activation = e4m3; quantized by the layer)", "bfloat16 (fallback from ...)")."""
        d = T["hum_layer_dispatch"]()
        _check(F["hum_layer_describe"](self._handle(), ctypes.byref(d)), "dispatch")
        return dispatch_dict(d)

    def __repr__(self):
        return "hum.Layer(n=%d, k=%d, %s%s)" % (self.n, self.k, self.activation,
                                               " -> " + self.output if self.output != self.activation else "")

    def workspace_size(self, max_m):
        """Bytes of a Workspace in which forwards of this (prepared) layer with M <= max_m run in
        one pass (hum_layer_workspace_size)."""
        size = ctypes.c_int64()
        _check(F["hum_layer_workspace_size"](self._handle(), int(max_m), ctypes.byref(size)), "workspace_size")
        return size.value

    def __call__(self, x, out=None, stream=None, workspace=None, x_scale=None):
        """x [..., K] on the GPU -> out [..., N] (allocated when None), on `stream` (None: torch's
        current stream for torch tensors, the legacy default stream otherwise), asynchronously.
        x has the layer's activation dtype; a layer of 8-bit activations also takes 16-bit x
        (float16 or bfloat16), which it quantizes itself (per token, per tensor or per group:
        info["activation_scale"]), or x already quantized (its float8_e4m3fn / int8 codes) with
        `x_scale`: float32 on x's device, [...] or [..., 1] (one per row of x), [1] (one for the
        tensor), or [..., ceil(K / activation_group)] for a layer with activation groups (e8m0
        bytes, uint8 or float8_e8m0fnu, for 1 x 32 groups); the activation of row m is x[m] *
        x_scale[m] (hum_layer_forward's a_scale).
        Without `workspace` the layer's own is used, so forwards of one layer must not overlap;
        with a Workspace per stream (or thread) they may (hum_layer_forward_ws)."""
        h = self._h
        if not h:
            self._handle()  # raises: the layer is closed
        st = self._own if workspace is None else workspace._tensors(self)
        torch = _TORCH
        if torch is not None and isinstance(x, torch.Tensor):
            out, a, dev = self._point_torch(x, out, st)
            sref = self._point_scale(x, x_scale, st) if self._a8 else self._no_scale(x_scale)
            sp = stream_pointer(self, self._torch_stream(x, a, dev, stream))
        else:
            if x_scale is not None:
                raise TypeError("hum.Layer: x_scale needs torch tensors")
            handle = stream if stream is None or isinstance(stream, int) else stream.cuda_stream
            self._point_arrays(x, out, handle, st)
            sref, sp = None, stream_pointer(self, handle)
        if workspace is None:
            status = _FORWARD(h, sp, st.aref, sref, st.cref)
        else:
            status = _FORWARD_WS(h, workspace._handle(), sp, st.aref, sref, st.cref)
        if status:
            _check(status, "hum.Layer forward")
        return out

    def _point_torch(self, x, out, st):
        """Points st's A and C at torch tensors; (out, A as passed, x's device ordinal). The hot
        path of a model: a few attribute reads and one store per field."""
        dev = x.get_device()
        if dev != self._ordinal:
            raise ValueError("hum.Layer: x is on %s, expected a CUDA tensor on cuda:%s (the layer's runtime)"
                             % (x.device, self._ordinal))
        code = self._accept.get(x.dtype)
        if code is None:
            raise ValueError("hum.Layer: x is %s, the layer takes %s" % (x.dtype, " or ".join(self._accept_names)))
        shape, k, n = x.shape, self.k, self.n
        flat = len(shape) == 2
        if not shape or shape[-1] != k:
            raise ValueError("hum.Layer: x has shape %s, expected [..., %d]" % (tuple(shape), k))
        a = x if flat else x.reshape(-1, k)
        lda, one = a.stride()
        if one != 1 or lda < k:
            a = a.contiguous()
            lda = k
        m = shape[0] if flat else a.shape[0]
        if out is None:
            want = shape[:-1] + (n,)
            out = x.new_empty(want) if x.dtype is self._torch_out else \
                _TORCH.empty(want, dtype=self._torch_out, device=x.device)
            c, ldc = (out if flat else out.view(-1, n)), n
        else:
            oshape = out.shape
            if out.dtype is not self._torch_out or out.get_device() != dev or not oshape or \
                    oshape[:-1] != shape[:-1] or oshape[-1] != n:
                raise ValueError("hum.Layer: out is %s %s on %s, expected %s %s on %s" % (
                    out.dtype, tuple(oshape), out.device, self._torch_out, tuple(shape[:-1]) + (n,), x.device))
            c = out if flat else out.view(-1, n)
            ldc, one = c.stride()
            if one != 1:
                raise ValueError("hum.Layer: out's last dimension must be contiguous")
        qa, qc = st.qa, st.qc
        qa[_W_DATA], qa[_W_ROWS], qa[_W_LD] = a.data_ptr(), m, lda
        qc[_W_DATA], qc[_W_ROWS], qc[_W_LD] = c.data_ptr(), m, ldc
        if self._a8:
            st.a.dtype = code
        return out, a, dev

    @staticmethod
    def _torch_stream(x, a, dev, stream):
        if stream is not None and not isinstance(stream, int) and a is not x and a.data_ptr() != x.data_ptr():
            a.record_stream(stream)  # a copy made on the current stream, read on another
        return torch_stream(dev, stream)

    def _no_scale(self, x_scale):
        if x_scale is not None:
            raise ValueError("hum.Layer: x_scale is for layers of 8-bit activations; this one takes %s"
                             % self.activation)
        return None

    def _point_scale(self, x, x_scale, st):
        """For a layer of 8-bit A: points st's scale tensor at x_scale when x holds the codes;
        the reference to pass (None for 16-bit x, which the layer quantizes)."""
        if st.a.dtype != self._dtype:
            if x_scale is not None:
                raise ValueError("hum.Layer: x_scale goes with x of %s codes, not with %s x (which the layer "
                                 "quantizes itself)" % (self.activation, x.dtype))
            return None
        if x_scale is None:
            raise ValueError("hum.Layer: x holds %s codes: pass their float32 scales as x_scale" % self.activation)
        torch = _TORCH
        code = self._scale_dtypes.get(x_scale.dtype) if isinstance(x_scale, torch.Tensor) else None
        if code is None or x_scale.get_device() != x.get_device():
            raise ValueError("hum.Layer: x_scale must be a float32 tensor (or e8m0 bytes, uint8, for 1 x 32 "
                             "groups) on %s (got %s)" % (
                                 x.device, "%s on %s" % (x_scale.dtype, x_scale.device)
                                 if isinstance(x_scale, torch.Tensor) else type(x_scale).__name__))
        st.s.dtype = code
        m, qs = st.qa[_W_ROWS], st.qs
        if self.activation_group:  # [..., G] -> [M, G] (hum checks G)
            if x_scale.dim() == 0 or x_scale.numel() % max(m, 1):
                raise ValueError("hum.Layer: x_scale has shape %s, expected [..., ceil(K / %d)] for %d rows"
                                 % (tuple(x_scale.shape), self.activation_group, m))
            s = x_scale.reshape(m, x_scale.shape[-1])
            if s.stride(1) != 1:
                s = s.contiguous()
            qs[_W_ROWS], qs[_W_ROWS + 1], qs[_W_LD] = s.shape[0], s.shape[1], s.stride(0)
        else:  # one per row ([...] or [..., 1]) or one for the tensor
            s = x_scale.reshape(-1)
            if s.numel() != m and s.numel() != 1:
                raise ValueError("hum.Layer: x_scale has %d values, expected one per row of x (%d) or one"
                                 % (s.numel(), m))
            if s.numel() > 1 and s.stride(0) != 1:
                s = s.contiguous()
            qs[_W_ROWS], qs[_W_LD] = s.numel(), 1
        qs[_W_DATA] = s.data_ptr()
        return st.sref

    def _point_arrays(self, x, out, handle, st):
        if out is None:
            raise TypeError("hum.Layer: `out` is required for inputs other than torch tensors")
        # 16-bit x only (8-bit codes come with x_scale, which needs torch tensors)
        m = self._fill_array(st.a, x, self.k, "x", handle, [n for n in self._accept_names if n in _16BIT])
        if self._fill_array(st.c, out, self.n, "out", handle, [self.output]) != m:
            raise ValueError("hum.Layer: out has %d rows, x has %d" % (st.c.shape[0], m))

    def _fill_array(self, t, obj, cols, what, stream, dtypes):
        """Points `t` at a 2-D device array of one of `dtypes` (names): DLPack (__dlpack__)
        first, else __cuda_array_interface__."""
        if hasattr(obj, "__dlpack__"):
            v = dlpack_view(obj, stream)
            if v["device_type"] != _DL_CUDA or v["device_id"] != self._ordinal:
                raise ValueError("hum.Layer: %s is on DLPack device (%d, %d), expected CUDA device %s"
                                 % (what, v["device_type"], v["device_id"], self._ordinal))
            dt, shape, strides, data = v["dtype"], v["shape"], v["strides"], v["data"]
        elif hasattr(obj, "__cuda_array_interface__"):
            cai = obj.__cuda_array_interface__
            dt = {"<f2": "float16"}.get(cai["typestr"], cai["typestr"])  # no bfloat16 type string exists
            shape, data = tuple(cai["shape"]), cai["data"][0]
            strides = None if cai.get("strides") is None else tuple(s // 2 for s in cai["strides"])
        else:
            raise TypeError("hum.Layer: %s must be a torch CUDA tensor or support DLPack or "
                            "__cuda_array_interface__, not %s" % (what, type(obj).__name__))
        if dt not in dtypes:
            raise ValueError("hum.Layer: %s is %s, the layer takes %s" % (what, dt, " or ".join(dtypes)))
        if len(shape) != 2 or shape[1] != cols:
            raise ValueError("hum.Layer: %s has shape %s, expected [M, %d]" % (what, shape, cols))
        if strides is not None and strides[1] != 1 and shape[1] > 1:
            raise ValueError("hum.Layer: %s's rows must be contiguous" % what)
        t.data, t.dtype = data, _CODES[dt]
        t.shape[0], t.strides[0] = shape[0], cols if strides is None else strides[0]
        return shape[0]


# DLPack (dlpack.h, v0.8: DLManagedTensor), read in place: the capsule is not consumed, so its
# producer keeps ownership and the array stays alive through the object passed in.
_DL_CUDA = 2
_DL_DTYPES = {(2, 16): "float16", (4, 16): "bfloat16", (2, 32): "float32"}  # (kDLFloat / kDLBfloat, bits)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype, _capsule_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


def dlpack_view(obj, stream=None):
    """dict of an object's DLPack tensor: data (pointer, byte offset applied), device_type,
    device_id, dtype name, shape, strides (elements; None when contiguous)."""
    try:  # the stream the consumer runs on (1: CUDA's legacy default stream), for the producer to order its work
        capsule = obj.__dlpack__(stream=1 if stream is None else stream)
    except (TypeError, ValueError, RuntimeError, BufferError):  # producers of host memory take no stream
        capsule = obj.__dlpack__()
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides else None
    code = (t.dtype.code, t.dtype.bits)
    return {"data": (t.data or 0) + t.byte_offset, "device_type": t.device.device_type, "device_id": t.device.device_id,
            "dtype": _DL_DTYPES.get(code, "dlpack code %d bits %d" % code) if t.dtype.lanes == 1 else "vector",
            "shape": shape, "strides": strides, "_capsule": capsule}


class Workspace:
    """Scratch memory for forwards (hum_workspace): one per stream lets forwards of one layer run
    concurrently. Made by Runtime.workspace; in memory hum allocates, or in a torch tensor's
    (`memory`: a CUDA tensor of at least `nbytes` bytes, kept alive here). close() frees it; not
    while a forward using it may still run."""

    def __init__(self, runtime, nbytes, memory=None):
        self._runtime, self._memory, self.nbytes = runtime, memory, int(nbytes)
        self._structs = _Structs()
        self._moe = None  # the MoE forwards' hum_tensor views, made by _moe.workspace_views
        h = ctypes.c_void_p()
        ptr = None if memory is None else memory.data_ptr()
        if memory is not None and memory.numel() * memory.element_size() < self.nbytes:
            raise ValueError("hum.Workspace: memory holds %d bytes, %d needed"
                             % (memory.numel() * memory.element_size(), self.nbytes))
        _check(F["hum_workspace_create"](runtime._handle(), ptr, self.nbytes, ctypes.byref(h)), "hum.Workspace")
        self._h = h

    def _handle(self):
        if not self._h:
            raise HumError("HUM_ERR_INVALID_ARG", "the workspace is closed")
        return self._h

    def _tensors(self, layer):
        layer._shape_tensors(self._structs)
        return self._structs

    def close(self):
        h, self._h = getattr(self, "_h", None), None
        if h:
            F["hum_workspace_destroy"](h)

    def __del__(self):
        self.close()
