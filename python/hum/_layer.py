"""hum.Layer: a prepared quantized linear layer and its forward on torch / CUDA-array tensors."""

import ctypes

from . import HumError, _check, dtype_name
from ._capi import F, K, T

_FORWARD = F["hum_layer_forward"]
_FORWARD_WS = F["hum_layer_forward_ws"]
_DEVICE = K["HUM_MEMORY_DEVICE"]
# What info's "ranges" append to a tile for each kernel family (hum_gemm_kernel: mma, wgmma, wgmma_ws).
_KERNEL_SUFFIX = ("", " wgmma", " wgmma_ws")


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
    """C[..., N] = x[..., K] @ dequant(W)^T (+ bias). Made by Runtime.layer_from_*; n, k, activation
    (its dtype name), info (how hum prepared it). Free with close() or by dropping it (and before
    the runtime is closed, which closes its layers)."""

    def __init__(self, runtime, handle):
        self._runtime = runtime
        self._h = handle
        info = self._info()
        self.n, self.k = info.config.n, info.input_k  # A's columns (config.k: the GEMM's, padding included)
        self.activation = dtype_name(info.config.a_dtype)
        self._dtype = info.config.a_dtype
        # Reused by every forward: the call fills data, shape and strides in place.
        self._a, self._c = T["hum_tensor"](), T["hum_tensor"]()
        self._shape_tensors(self._a, self._c)
        self._aref, self._cref = ctypes.byref(self._a), ctypes.byref(self._c)
        torch = _TORCH
        self._torch_dtype = None if torch is None else getattr(torch, self.activation)
        device = runtime.device
        self._ordinal = None if device is None else device["ordinal"]

    def _shape_tensors(self, a, c):
        """The fields of A's and C's hum_tensor that do not change from call to call."""
        for t, cols in ((a, self.k), (c, self.n)):
            t.dtype, t.rank, t.memory, t.shape[1], t.strides[1] = self._dtype, 2, _DEVICE, cols, 1

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
        return self

    @property
    def info(self):
        """dict: n, k, activation, prepared, policy, arch, ranges [(m_min, m_max, tile)], timings."""
        i = self._info()
        ranges = []
        for e in i.entries[: i.entry_count]:
            family = _KERNEL_SUFFIX[e.kernel] if 0 <= e.kernel < len(_KERNEL_SUFFIX) else " kernel %d" % e.kernel
            tile = "%dx%dx%d/%d%s" % (e.block_m, e.block_n, e.block_k, e.stages, family)
            ranges.append((e.m_min, e.m_max, tile))
        return {"n": i.config.n, "k": i.input_k, "activation": dtype_name(i.config.a_dtype),
                "weight": dtype_name(i.config.weight_dtype), "act_order": bool(i.config.act_order),
                "prepared": bool(i.prepared), "policy": i.policy_name.decode(), "arch": i.arch.decode(),
                "ranges": ranges, "prepare_ms": i.prepare_ms, "compile_ms": i.compile_ms,
                "device_bytes": i.device_bytes}

    def __repr__(self):
        return "hum.Layer(n=%d, k=%d, %s)" % (self.n, self.k, self.activation)

    def workspace_size(self, max_m):
        """Bytes of a Workspace in which forwards of this (prepared) layer with M <= max_m run in
        one pass (hum_layer_workspace_size)."""
        size = ctypes.c_int64()
        _check(F["hum_layer_workspace_size"](self._handle(), int(max_m), ctypes.byref(size)), "workspace_size")
        return size.value

    def __call__(self, x, out=None, stream=None, workspace=None):
        """x [..., K] on the GPU -> out [..., N] (allocated when None), on `stream` (None: torch's
        current stream for torch tensors, the legacy default stream otherwise), asynchronously.
        Without `workspace` the layer's own is used, so forwards of one layer must not overlap;
        with a Workspace per stream (or thread) they may (hum_layer_forward_ws)."""
        if workspace is None:
            ta, tc, aref, cref = self._a, self._c, self._aref, self._cref
        else:  # the workspace's own tensor structs: it serves one forward at a time
            ta, tc, aref, cref = workspace._tensors(self)
        torch = _TORCH
        if torch is not None and isinstance(x, torch.Tensor):
            out, stream = self._point_torch(torch, x, out, stream, ta, tc)
        else:
            out, stream = self._point_arrays(x, out, stream, ta, tc)
        if workspace is None:
            status = _FORWARD(self._handle(), stream, aref, None, cref)
        else:
            status = _FORWARD_WS(self._handle(), workspace._handle(), stream, aref, None, cref)
        if status:
            _check(status, "hum.Layer forward")
        return out

    def _point_torch(self, torch, x, out, stream, ta, tc):
        """Points ta / tc at torch tensors; (out, the CUstream handle). The hot path of a model:
        every check is a cheap attribute read, and torch's current stream is read as a raw
        handle (no Stream object) where torch offers that."""
        device = x.device
        if device.index != self._ordinal or device.type != "cuda":
            raise ValueError("hum.Layer: x is on %s, expected a CUDA tensor on cuda:%s (the layer's runtime)"
                             % (device, self._ordinal))
        if x.dtype != self._torch_dtype:
            raise ValueError("hum.Layer: x is %s, the layer takes %s" % (x.dtype, self._torch_dtype))
        shape = x.shape
        if not shape or shape[-1] != self.k:
            raise ValueError("hum.Layer: x has shape %s, expected [..., %d]" % (tuple(shape), self.k))
        a = x if len(shape) == 2 else x.reshape(-1, self.k)
        if a.stride(1) != 1 or a.stride(0) < self.k:
            a = a.contiguous()
        if out is None:
            out = torch.empty(shape[:-1] + (self.n,), dtype=x.dtype, device=device)
        elif out.dtype != x.dtype or out.device != device or out.shape != shape[:-1] + (self.n,):
            raise ValueError("hum.Layer: out is %s %s on %s, expected %s %s on %s" % (
                out.dtype, tuple(out.shape), out.device, x.dtype, tuple(shape[:-1]) + (self.n,), device))
        c = out if len(shape) == 2 else out.view(-1, self.n)
        if c.stride(1) != 1:
            raise ValueError("hum.Layer: out's last dimension must be contiguous")
        ta.data, tc.data = a.data_ptr(), c.data_ptr()
        ta.shape[0], ta.strides[0] = a.shape[0], a.stride(0)
        tc.shape[0], tc.strides[0] = c.shape[0], c.stride(0)
        if stream is None:
            return out, (_raw_stream(device.index) if _raw_stream else torch.cuda.current_stream(device).cuda_stream)
        if isinstance(stream, int):
            return out, stream
        if a is not x and a.data_ptr() != x.data_ptr():  # a copy made on the current stream, read on another
            a.record_stream(stream)
        return out, stream.cuda_stream

    def _point_arrays(self, x, out, stream, ta, tc):
        if out is None:
            raise TypeError("hum.Layer: `out` is required for inputs other than torch tensors")
        handle = stream if stream is None or isinstance(stream, int) else stream.cuda_stream
        m = self._fill_array(ta, x, self.k, "x", handle)
        if self._fill_array(tc, out, self.n, "out", handle) != m:
            raise ValueError("hum.Layer: out has %d rows, x has %d" % (tc.shape[0], m))
        return out, handle

    def _fill_array(self, t, obj, cols, what, stream):
        """Points `t` at a 2-D device array: DLPack (__dlpack__) first, else __cuda_array_interface__."""
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
        if dt != self.activation:
            raise ValueError("hum.Layer: %s is %s, the layer takes %s" % (what, dt, self.activation))
        if len(shape) != 2 or shape[1] != cols:
            raise ValueError("hum.Layer: %s has shape %s, expected [M, %d]" % (what, shape, cols))
        if strides is not None and strides[1] != 1 and shape[1] > 1:
            raise ValueError("hum.Layer: %s's rows must be contiguous" % what)
        t.data = data
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
        self._a, self._c = T["hum_tensor"](), T["hum_tensor"]()
        self._refs = (ctypes.byref(self._a), ctypes.byref(self._c))
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
        layer._shape_tensors(self._a, self._c)
        return self._a, self._c, self._refs[0], self._refs[1]

    def close(self):
        h, self._h = getattr(self, "_h", None), None
        if h:
            F["hum_workspace_destroy"](h)

    def __del__(self):
        self.close()
