"""hum for Python: a thin ctypes binding over libhum's C API (hum.h).

    import hum, torch
    rt = hum.Runtime()                                   # config=path, device=ordinal, cache_dir=path
    layer = rt.layer_from_checkpoint("ckpt/", "model.layers.0.mlp.down_proj")
    y = layer(x)                                         # x: CUDA float16/bfloat16 [..., K] -> [..., N]

Tensors: torch tensors (any leading shape; rows of the flattened [M, K] view may be strided), or
2-D arrays that export DLPack or __cuda_array_interface__ (float16 only: that interface has no
bfloat16 type string). Forwards run on the host's current stream: torch.cuda.current_stream() unless `stream`
(a CUstream handle as an int, or a torch.cuda.Stream) is given; they neither allocate (when `out`
is given) nor synchronise, so torch.cuda.graph captures them. Every failing call raises HumError
with hum's message (hum_last_error()).

8-bit activations: a layer made with activation="e4m3" / "int8" takes the host's codes and their
float32 scales, layer(x_q, x_scale=s); one whose checkpoint scheme or config override is 8-bit
takes 16-bit x and quantizes it itself (layer.dispatch["activation"] says what runs and why).

Host-side helpers need numpy: StandardWeight.dequant() / reference_gemm(), quantize(),
write_gptq() / write_awq() (hum's checkpoint writers), and tensor-parallel shards (Shard).
"""

import ctypes

from . import _args, _capi
from ._capi import F, K, T

__all__ = ["HumError", "Runtime", "Layer", "Moe", "Workspace", "StandardWeight", "Shard", "LayerSummary", "dtype",
           "dtype_name", "quantize", "write_gptq", "write_awq", "version", "device_count"]


class HumError(RuntimeError):
    """A failed hum call: `status` is the status name ("HUM_ERR_FORMAT", ...), the message hum's."""

    def __init__(self, status, message):
        super().__init__("%s: %s" % (status, message))
        self.status = status
        self.message = message


def _check(status, what=None):
    if status != K["HUM_OK"]:
        message = F["hum_last_error"]().decode(errors="replace")
        if what:
            message = "%s: %s" % (what, message)
        raise HumError(F["hum_status_name"](status).decode(), message)


def version():
    return F["hum_version"]().decode()


def device_count():
    """Number of GPUs hum sees (0 without a driver or GPU)."""
    count = ctypes.c_int32(0)
    F["hum_device_count"](ctypes.byref(count))
    return count.value


def dtype(name):
    """The hum_dtype code of a name ("float16", "bf16", "uint4", "e4m3", ...)."""
    out = ctypes.c_uint32()
    _check(F["hum_dtype_parse"](_args.text(name, "dtype name"), ctypes.byref(out)))
    return out.value


def dtype_name(code):
    return F["hum_dtype_name"](code).decode()


_ACT_SCALE_NAMES = {K["HUM_ACT_SCALE_TOKEN"]: "token", K["HUM_ACT_SCALE_TENSOR"]: "tensor",
                    K["HUM_ACT_SCALE_GROUP"]: "group"}


class Shard:
    """A tensor-parallel shard: dim "column" (split N) or "row" (split K, bias on rank 0 only),
    rank of world; `experts`: the expert ids kept (MoE weights, expert parallelism). hum.h,
    hum_standard_shard, gives the rules; a split that would cut a scale group or block raises."""

    _DIMS = {None: K["HUM_SHARD_NONE"], "column": K["HUM_SHARD_COLUMN"], "row": K["HUM_SHARD_ROW"]}

    def __init__(self, dim=None, rank=0, world=1, experts=None):
        if dim not in self._DIMS:
            raise ValueError("Shard dim %r: expected 'column', 'row' or None" % (dim,))
        self.world = _args.integer(world, "Shard world", 1, 2 ** 31 - 1)
        self.dim, self.rank = dim, _args.integer(rank, "Shard rank", 0, 2 ** 31 - 1)  # hum checks rank < world
        self.experts = None if experts is None else [_args.integer(x, "Shard expert", 0, 2 ** 31 - 1) for x in experts]

    @classmethod
    def from_expert_map(cls, expert_map, dim=None, rank=0, world=1):
        """The Shard that keeps the experts an expert map makes local: expert_map[g] is global
        expert g's local index on this rank or -1 (the map a MoE forward takes); the local
        indices must be 0 .. L-1, each once."""
        local = {}
        for g, x in enumerate(int(v) for v in expert_map):
            if x >= 0:
                if x in local:
                    raise ValueError("expert_map: experts %d and %d both map to local %d" % (local[x], g, x))
                local[x] = g
        if sorted(local) != list(range(len(local))) or not local:
            raise ValueError("expert_map: local indices %s (expected 0 .. L-1, L >= 1)" % sorted(local))
        return cls(dim, rank, world, experts=[local[x] for x in range(len(local))])

    def _c(self):
        """(hum_shard, the expert id array it points to: keep it alive during the call)."""
        s = T["hum_shard"]()
        s.dim = self._DIMS[self.dim]
        s.rank, s.world = self.rank, self.world
        ids = None
        if self.experts is not None:
            ids = (ctypes.c_int32 * len(self.experts))(*self.experts)
            s.experts = ctypes.cast(ids, ctypes.POINTER(ctypes.c_int32))
            s.expert_count = len(self.experts)
        return s, ids

    def __repr__(self):
        return "Shard(%r, rank=%d, world=%d%s)" % (self.dim, self.rank, self.world,
                                                   "" if self.experts is None else ", experts=%r" % self.experts)


def _options(activation, shard, output=None, activation_group=0):
    """(hum_layer_options, what it points to: keep it alive during the call)."""
    o = T["hum_layer_options"]()
    o.activation_dtype = dtype(activation) if activation else 0
    o.output_dtype = dtype(output) if output else 0
    o.activation_group = int(activation_group)
    ids = None
    if shard is not None:
        o.shard, ids = shard._c()
    return o, ids


def _np():
    try:
        import numpy
    except ImportError as e:
        raise ImportError("hum: host-side helpers (dequant, reference_gemm, quantize) need numpy") from e
    return numpy


class StandardWeight:
    """A weight in hum's standard format (host memory, owned here): what a checkpoint layer is
    converted to: n, k, num_experts, group_size, has_bias, act_order and the dtype names."""

    def __init__(self, handle):
        self._w = handle

    @classmethod
    def _new(cls):
        return cls(T["hum_standard_weight"]())

    def __del__(self):
        w = getattr(self, "_w", None)
        if w is not None:
            F["hum_standard_free"](ctypes.byref(w))

    n = property(lambda self: self._w.n)
    k = property(lambda self: self._w.k)
    num_experts = property(lambda self: self._w.num_experts)
    group_size = property(lambda self: self._w.group_size)
    has_bias = property(lambda self: bool(self._w.bias.data))
    act_order = property(lambda self: bool(self._w.k_perm.data))
    weight_dtype = property(lambda self: dtype_name(self._w.weight_dtype))
    param_dtype = property(lambda self: dtype_name(self._w.param_dtype))
    scale_dtype = property(lambda self: dtype_name(self._w.scale_dtype))

    @property
    def activation(self):
        """The checkpoint's own activation scheme: None (weight-only: 16-bit A), or a dict of
        dtype ("float8_e4m3fn", "int8", "float4_e2m1"), scale ("token", "tensor", "group"),
        group (K columns per scale) and input_scale (the static per-tensor scale, or None)."""
        w = self._w
        if not w.act_dtype:
            return None
        scale = None
        if w.input_scale.data:
            scale = ctypes.cast(w.input_scale.data, ctypes.POINTER(ctypes.c_float))[0]
        return {"dtype": dtype_name(w.act_dtype), "scale": _ACT_SCALE_NAMES[w.act_scale], "group": w.act_group,
                "input_scale": scale}

    def shard(self, shard):
        """The Shard of this weight as a new StandardWeight."""
        out = StandardWeight._new()
        s, ids = shard._c()
        _check(F["hum_standard_shard"](ctypes.byref(self._w), ctypes.byref(s), ctypes.byref(out._w)), "%r" % (shard,))
        return out

    @staticmethod
    def concat(parts):
        """The parts stacked along N (rows of part 0, then part 1, ...; per expert): a MoE w13 from
        gate_proj and up_proj, gate first. hum.h, hum_standard_concat, gives the rules."""
        parts = list(parts)
        arr = (T["hum_standard_weight"] * len(parts))(*[p._w for p in parts])
        out = StandardWeight._new()
        _check(F["hum_standard_concat"](arr, len(parts), ctypes.byref(out._w)), "concat")
        return out

    def dequant(self, expert=0):
        """float64 numpy [N, K]: the dequantized weight (checkpoint column order)."""
        np = _np()
        out = np.empty((self.n, self.k), dtype=np.float64)
        _check(F["hum_reference_dequant"](ctypes.byref(self._w), expert,
                                          out.ctypes.data_as(ctypes.POINTER(ctypes.c_double))))
        return out

    def bias(self):
        """float64 numpy [N] (or [E, N]), or None."""
        if not self._w.bias.data:
            return None
        np = _np()
        count = self.n * max(1, self.num_experts)
        raw = np.ctypeslib.as_array(ctypes.cast(self._w.bias.data, ctypes.POINTER(ctypes.c_uint16)), (count,)).copy()
        vals = _halves_to_float(np, raw, self.param_dtype)
        return vals.reshape((self.num_experts, self.n) if self.num_experts else (self.n,))

    def reference_gemm(self, a, expert=0):
        """float64 numpy [M, N] = a [M, K] (checkpoint column order) * dequant^T + bias."""
        np = _np()
        a = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
        if a.ndim != 2 or a.shape[1] != self.k:
            raise ValueError("reference_gemm: a has shape %s, expected [M, %d]" % (a.shape, self.k))
        out = np.empty((a.shape[0], self.n), dtype=np.float64)
        _check(F["hum_reference_gemm"](ctypes.byref(self._w), expert, a.ctypes.data_as(ctypes.POINTER(ctypes.c_double)),
                                       a.shape[0], out.ctypes.data_as(ctypes.POINTER(ctypes.c_double))))
        return out

    def __repr__(self):
        return "StandardWeight(n=%d, k=%d, experts=%d, weight=%s, param=%s)" % (
            self.n, self.k, self.num_experts, self.weight_dtype, self.param_dtype)


def _halves_to_float(np, raw, name):
    if name == "bfloat16":
        return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return raw.view(np.float16).astype(np.float64)


class LayerSummary:
    """One quantized layer of a checkpoint, as hum_checkpoint_list_layers lists it."""

    def __init__(self, s):
        self.name = s.name.decode()
        self.format = s.format.decode()
        self.weight_dtype = dtype_name(s.weight_dtype)
        self.bits = s.bits
        self.scale = s.scale.decode()
        self.group_size = s.group_size
        self.symmetric = bool(s.symmetric)
        self.act_order = bool(s.act_order)
        self.n, self.k, self.num_experts = s.n, s.k, s.num_experts
        self.error = s.error.decode() or None  # why the layer cannot be converted; None when it can

    def __repr__(self):
        return "LayerSummary(%r, %s, %s, n=%d, k=%d%s)" % (self.name, self.format, self.weight_dtype, self.n, self.k,
                                                           ", experts=%d" % self.num_experts if self.num_experts else "")


class Runtime:
    """A hum runtime: device, kernel cache, policies. config: deployment YAML path (None: $HUM_CONFIG);
    device: CUDA ordinal (None: the config's, default 0); cache_dir: kernel cache (None: default)."""

    def __init__(self, config=None, device=None, cache_dir=None):
        o = T["hum_runtime_options"]()
        F["hum_runtime_options_init"](ctypes.byref(o))
        self._keep = [None if config is None else _args.path(config, "hum.Runtime config"),
                      None if cache_dir is None else _args.path(cache_dir, "hum.Runtime cache_dir")]
        o.config_path, o.cache_dir = self._keep
        if device is not None:
            o.device_ordinal = _args.integer(device, "hum.Runtime device", 0, 2 ** 31 - 1)
        rt = ctypes.c_void_p()
        _check(F["hum_runtime_create"](ctypes.byref(o), ctypes.byref(rt)), "hum.Runtime")
        self._rt = rt
        self._layers = []

    def close(self):
        """Frees the runtime (after its layers); later use raises."""
        rt, self._rt = getattr(self, "_rt", None), None
        if rt:
            for ref in self._layers:
                layer = ref()
                if layer is not None:
                    layer.close()
            F["hum_runtime_destroy"](rt)

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _handle(self):
        if not self._rt:
            raise HumError("HUM_ERR_INVALID_ARG", "the runtime is closed")
        return self._rt

    @property
    def device(self):
        """dict of the runtime's GPU (name, ordinal, sm, sm_count, memory), or None without one."""
        d = T["hum_device_info"]()
        if F["hum_runtime_device"](self._handle(), ctypes.byref(d)) != K["HUM_OK"]:
            return None
        return {"name": d.name.decode(), "ordinal": d.ordinal, "sm": d.sm_major * 10 + d.sm_minor,
                "sm_count": d.sm_count, "memory_bytes": d.total_memory_bytes}

    @property
    def cache_dir(self):
        return F["hum_runtime_cache_dir"](self._handle()).decode()

    @property
    def policies(self):
        """Origins of the policy files in force, in layering order."""
        rt = self._handle()
        return [F["hum_runtime_policy_origin"](rt, i).decode() for i in range(F["hum_runtime_policy_count"](rt))]

    def reload_policies(self):
        """Re-reads every policy layer (all or nothing); layers prepared afterwards use them."""
        _check(F["hum_runtime_reload_policies"](self._handle()), "reload_policies")

    def list_layers(self, path):
        """[LayerSummary] of every quantized layer of a checkpoint (directory or .safetensors file)."""
        ck = ctypes.c_void_p()
        _check(F["hum_checkpoint_open"](_args.path(path, "list_layers path"), ctypes.byref(ck)))
        lst = T["hum_layer_list"]()
        try:
            _check(F["hum_checkpoint_list_layers"](self._handle(), ck, ctypes.byref(lst)))
            return [LayerSummary(lst.items[i]) for i in range(lst.count)]
        finally:
            F["hum_layer_list_free"](ctypes.byref(lst))
            F["hum_checkpoint_close"](ck)

    def load_standard(self, path, name, shard=None):
        """The layer `name` of a checkpoint converted to a StandardWeight, or its Shard (a MoE
        layer of one module per expert then converts only the shard's experts)."""
        w = StandardWeight._new()
        s, ids = shard._c() if shard is not None else (None, None)
        _check(F["hum_layer_load_shard"](self._handle(), _args.path(path, "load_standard path"),
                                         _args.text(name, "load_standard name"),
                                         ctypes.byref(s) if s is not None else None, ctypes.byref(w._w)))
        return w

    def layer_from_checkpoint(self, path, name, activation=None, shard=None, prepare=True, output=None,
                              activation_group=0):
        """A Layer of checkpoint layer `name` (or its Shard). activation: None (the checkpoint's
        scheme: its 16-bit dtype, or its 8-bit one where the GPU runs it, unless the config's
        linear.activation overrides it), "float16" / "bfloat16", or "e4m3" / "int8": the host
        passes A quantized to that type with its float32 scales (Layer.__call__'s x_scale), one
        per row or tensor, or per 1 x activation_group (128) block. output: C's dtype for 8-bit
        activations (None: the checkpoint's 16-bit dtype). Prepared (kernels compiled, weights on
        the GPU) when `prepare` and the runtime has a GPU."""
        o, ids = _options(activation, shard, output, activation_group)
        out = ctypes.c_void_p()
        _check(F["hum_layer_from_safetensors"](self._handle(), _args.path(path, "layer_from_checkpoint path"),
                                               _args.text(name, "layer_from_checkpoint name"), ctypes.byref(o),
                                               ctypes.byref(out)), "layer %s of %s" % (name, path))
        return self._adopt(Layer(self, out), prepare)

    def layer_from_standard(self, weight, activation=None, shard=None, prepare=True, output=None,
                            activation_group=0):
        """A Layer of a StandardWeight (copied), or of its Shard; the options as for
        layer_from_checkpoint."""
        o, ids = _options(activation, shard, output, activation_group)
        out = ctypes.c_void_p()
        _check(F["hum_layer_from_standard"](self._handle(), ctypes.byref(weight._w), ctypes.byref(o),
                                            ctypes.byref(out)), "layer_from_standard")
        return self._adopt(Layer(self, out), prepare)

    def describe_plan(self, layer, arch=None, activation=None, output=None, activation_group=0, shard=None):
        """How a layer would run, planned without preparing it or touching a GPU
        (hum_layer_describe_plan): `layer` a StandardWeight (with the options of
        layer_from_standard) or a SPEC string (which carries its own a=, ascale=, out=);
        arch "sm_90a", ... (None: the runtime's GPU). A dict as Layer.dispatch gives:
        `activation` says what A runs as and why (the checkpoint's scheme, the config's
        override, or the fallback where the arch lacks it)."""
        d = T["hum_layer_dispatch"]()
        target = _args.text(arch, "describe_plan arch") if arch else None
        if isinstance(layer, str):
            if activation or output or activation_group or shard is not None:
                raise ValueError("describe_plan: a SPEC carries its own activation options (a=, ascale=, out=)")
            s = _spec(layer)
            _check(F["hum_layer_describe_spec"](self._handle(), ctypes.byref(s), target, ctypes.byref(d)),
                   "describe_plan %s" % layer)
        else:
            o, ids = _options(activation, shard, output, activation_group)
            _check(F["hum_layer_describe_plan"](self._handle(), ctypes.byref(layer._w), ctypes.byref(o), target,
                                                ctypes.byref(d)), "describe_plan")
        return dispatch_dict(d)

    def workspace(self, layers=(), max_m=1, nbytes=None, torch_memory=False):
        """A Workspace for forwards of `layers` (prepared) with M <= max_m in one pass (or of
        `nbytes` bytes). torch_memory: take it from torch's caching allocator (a uint8 CUDA
        tensor on the runtime's GPU) instead of hum's own cuMemAlloc."""
        size = nbytes if nbytes is not None else max([l.workspace_size(max_m) for l in layers] or [0])
        memory = None
        if torch_memory:
            import torch
            memory = torch.empty(size, dtype=torch.uint8, device="cuda:%d" % self.device["ordinal"])
        return Workspace(self, size, memory)

    def layer_from_spec(self, spec, seed=1, activation=None, prepare=True):
        """A random Layer of a `hum bench --layer` SPEC ("n=4096,k=4096,w=uint4,group=128"); an
        8-bit a= ("a=e4m3,ascale=token") is the weight's own scheme: the layer quantizes the
        16-bit A it is given (as `hum bench` times it)."""
        return self.layer_from_standard(spec_weight(spec, seed), activation=activation, prepare=prepare)

    def moe_from_checkpoint(self, path, name, top_k, activation="silu", gate_up="split", global_experts=0,
                            experts=None, expert_map=None, dtype=None, alpha=None, beta=None, limit=None,
                            prepare=True, gemm="indexed", hidden=None, hidden_group=0):
        """A Moe of the experts module `name` of a checkpoint ("model.layers.0.mlp.experts": fused
        gate_up_proj / down_proj, one gate_proj / up_proj / down_proj per expert, or Mixtral's
        w1 / w3 / w2; hum.h, hum_moe_from_safetensors). activation "silu", "swiglu_oai" (alpha,
        beta, limit), "relu2" or "gelu"; gate_up "split" or "interleaved" (gpt-oss). Expert
        parallelism: `experts` (the global ids kept, in local order) or `expert_map` (the
        forward's map: local index or -1 per global id) converts only the local experts. gemm:
        "indexed" (moe(hidden, topk_ids, topk_weights): tokens routed by their top-k ids) or
        "grouped_contiguous" / "grouped_masked" (moe.grouped(hidden, layout): rows a dispatcher
        such as DeepEP already grouped by expert). hidden: None (the layer takes 16-bit hidden,
        quantizing it where its gate/up GEMM runs 8-bit A) or "float8_e4m3fn" / "int8": the host
        passes hidden's codes and their scales (moe(codes, ..., hidden_scale=...)), per token
        (hidden_group 0) or, for e4m3, per group of hidden_group columns (128, or 32: MXFP8's
        e8m0); indexed layers (hum.h, hum_moe_forward_quantized)."""
        if expert_map is not None:
            if experts is not None:
                raise ValueError("moe_from_checkpoint: give experts or expert_map, not both")
            experts = Shard.from_expert_map(expert_map).experts
        o, ids = moe_options(top_k, activation, gate_up, global_experts, experts, dtype, alpha, beta, limit, gemm,
                             hidden, hidden_group)
        out = ctypes.c_void_p()
        _check(F["hum_moe_from_safetensors"](self._handle(), _args.path(path, "moe_from_checkpoint path"),
                                             _args.text(name, "moe_from_checkpoint name"), ctypes.byref(o),
                                             ctypes.byref(out)), "MoE %s of %s" % (name, path))
        return self._adopt(Moe(self, out, gemm), prepare)

    def moe_from_standard(self, w13, w2, top_k, activation="silu", gate_up="split", global_experts=0, experts=None,
                          dtype=None, alpha=None, beta=None, limit=None, prepare=True, gemm="indexed", hidden=None,
                          hidden_group=0):
        """A Moe of two expert StandardWeights (copied): w13 [E, 2I (I for relu2), H] and w2
        [E, H, I]; `experts` keeps those experts only (expert parallelism); the other options as
        for moe_from_checkpoint."""
        o, ids = moe_options(top_k, activation, gate_up, global_experts, experts, dtype, alpha, beta, limit, gemm,
                             hidden, hidden_group)
        out = ctypes.c_void_p()
        _check(F["hum_moe_from_standard"](self._handle(), ctypes.byref(w13._w), ctypes.byref(w2._w), ctypes.byref(o),
                                          ctypes.byref(out)), "moe_from_standard")
        return self._adopt(Moe(self, out, gemm), prepare)

    def _adopt(self, layer, prepare):
        import weakref
        self._layers.append(weakref.ref(layer))
        if prepare and self.device is not None:
            layer.prepare()
        return layer


def _spec(spec):
    s = T["hum_layer_spec"]()
    _check(F["hum_layer_spec_parse"](_args.text(spec, "spec"), ctypes.byref(s)), "spec %r" % spec)
    return s


def spec_weight(spec, seed=1):
    """The random StandardWeight hum_layer_spec_weight makes for a SPEC string."""
    s = _spec(spec)
    w = StandardWeight._new()
    _check(F["hum_layer_spec_weight"](ctypes.byref(s), _args.integer(seed, "spec_weight seed", 0, 2 ** 64 - 1),
                                      ctypes.byref(w._w)))
    return w


from ._layer import Layer, Workspace, dispatch_dict  # noqa: E402  (they need the helpers above)
from ._moe import Moe, moe_options  # noqa: E402
from ._quant import quantize, write_awq, write_gptq  # noqa: E402
