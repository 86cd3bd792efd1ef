"""Host-side quantization and hum's checkpoint writers: how tests and examples make GPTQ / AWQ
checkpoints from float weights without any other tool (hum.h: hum_quantize_reference,
hum_checkpoint_write_gptq / _awq)."""

import ctypes

from . import StandardWeight, _args, _check, _np, dtype
from ._capi import F, K, T

_SCALES = {"channel": "HUM_SCALE_CHANNEL", "group": "HUM_SCALE_GROUP", "block": "HUM_SCALE_BLOCK",
           "tensor": "HUM_SCALE_TENSOR", "group+tensor": "HUM_SCALE_GROUP_TENSOR"}
_ZEROS = {None: "HUM_ZERO_POINT_NONE", "int": "HUM_ZERO_POINT_INT", "float": "HUM_ZERO_POINT_FLOAT"}


def _host_array(np, x, dt):
    if hasattr(x, "detach"):  # a torch tensor
        x = x.detach().cpu().numpy()
    return np.ascontiguousarray(np.asarray(x, dtype=dt))


def quantize(w, weight="uint4", group_size=128, zero_point=None, param="float16", scale="group", scale_dtype=None,
             bias=None, k_perm=None, group_size_n=0):
    """hum_quantize_reference of float weights w [N, K] (or [E, N, K]: E experts; numpy or torch): a StandardWeight.
    weight: "uint1".."uint8" or a float of <= 8 bits ("e4m3", "e2m1", ...); scale: "channel",
    "group", "block", "tensor" or "group+tensor"; zero_point None, "int" or "float"; k_perm:
    act-order permutation (stored column j is column k_perm[j] of w)."""
    np = _np()
    a = _host_array(np, w, np.float32)
    if a.ndim not in (2, 3):
        raise ValueError("quantize: w has shape %s, expected [N, K] or [E, N, K]" % (a.shape,))
    if scale not in _SCALES or zero_point not in _ZEROS:
        raise ValueError("quantize: scale %r (one of %s), zero_point %r (None, 'int', 'float')"
                         % (scale, sorted(_SCALES), zero_point))
    spec = T["hum_quant_spec"]()
    spec.num_experts = a.shape[0] if a.ndim == 3 else 0
    spec.weight_dtype = dtype(weight)
    spec.param_dtype = dtype(param)
    spec.scale_type = K[_SCALES[scale]]
    spec.group_size = group_size if scale in ("group", "block", "group+tensor") else 0
    spec.group_size_n = group_size_n
    spec.scale_dtype = dtype(scale_dtype) if scale_dtype else 0
    spec.zero_point = K[_ZEROS[zero_point]]
    keep = []
    if bias is not None:
        b = _host_array(np, bias, np.float32)
        keep.append(b)
        spec.bias = b.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
    if k_perm is not None:
        p = _host_array(np, k_perm, np.int32)
        keep.append(p)
        spec.k_perm = p.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    out = StandardWeight._new()
    _check(F["hum_quantize_reference"](a.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), a.shape[-2], a.shape[-1],
                                       ctypes.byref(spec), ctypes.byref(out._w)), "quantize")
    return out


def _write(fn, directory, layers, v2, architecture):
    names = list(layers)
    if not names:
        raise ValueError("write: no layers")
    c_names = (ctypes.c_char_p * len(names))(*[_args.text(n, "layer name") for n in names])
    weights = (T["hum_standard_weight"] * len(names))(*[layers[n]._w for n in names])
    opts = T["hum_checkpoint_write_options"]()
    opts.gptq_v2 = 1 if v2 else 0
    arch = _args.text(architecture, "architecture") if architecture else None
    opts.architecture = arch
    _check(fn(_args.path(directory, "write directory"), c_names, weights, len(names), ctypes.byref(opts)),
           "writing %s" % directory)


def write_gptq(directory, layers, v2=False, architecture=None):
    """Writes a GPTQ checkpoint (model.safetensors, config.json, quantize_config.json) of
    {layer name: StandardWeight} into `directory` (made if missing), as AutoGPTQ lays it out.
    A directory that already holds one of those files, or quant_config.json / hf_quant_config.json
    (which a reader would take with them), is refused (HumError, nothing written)."""
    _write(F["hum_checkpoint_write_gptq"], directory, layers, v2, architecture)


def write_awq(directory, layers, architecture=None):
    """Writes an AutoAWQ GEMM checkpoint (model.safetensors, config.json) of {layer name:
    StandardWeight} into `directory` (made if missing); refused, as write_gptq's, where one of
    those files or another checkpoint config is already there."""
    _write(F["hum_checkpoint_write_awq"], directory, layers, False, architecture)
