"""The binding on the CPU: checkpoints written by hum's writers, listed, loaded, dequantized and
sharded; layers made (and, without a GPU, left unprepared); errors carry hum's message."""

import numpy as np
import pytest

import hum
from conftest import LAYERS, K, MOE_E, MOE_H, MOE_I, MOE_NAME, N, random_weights


def test_version_and_runtime(rt):
    assert hum.version().count(".") == 2
    assert rt.policies and rt.policies[0].startswith("embedded:policies/")
    assert rt.cache_dir
    rt.reload_policies()


def test_list_layers(rt, gptq_dir):
    layers = {s.name: s for s in rt.list_layers(gptq_dir)}
    assert sorted(layers) == sorted(LAYERS)
    down = layers[LAYERS[1]]
    assert (down.format, down.weight_dtype, down.bits, down.group_size, down.n, down.k) == \
        ("gptq_v2", "uint4", 4, 128, N, K)
    assert down.act_order and not down.symmetric
    assert not layers[LAYERS[0]].act_order


@pytest.mark.parametrize("writer", ["gptq", "awq"])
def test_checkpoint_round_trip(rt, tmp_path, writer):
    """The dequantized weight read back from the checkpoint is the written weight's, bit for bit."""
    w = hum.quantize(random_weights(5), weight="uint4", group_size=128, zero_point="int")
    getattr(hum, "write_" + writer)(tmp_path, {LAYERS[0]: w})
    back = rt.load_standard(tmp_path, LAYERS[0])
    assert (back.n, back.k, back.weight_dtype, back.param_dtype) == (N, K, "uint4", "float16")
    np.testing.assert_array_equal(back.dequant(), w.dequant())


@pytest.mark.parametrize("writer", ["gptq", "awq"])
def test_writers_keep_a_users_files(tmp_path, writer):
    """A directory that already holds a file the writer would write is refused, the file kept."""
    (tmp_path / "config.json").write_text('{"mine": true}')
    w = hum.quantize(random_weights(5), weight="uint4", group_size=128, zero_point="int")
    with pytest.raises(hum.HumError, match="config.json exists: not replaced"):
        getattr(hum, "write_" + writer)(tmp_path, {LAYERS[0]: w})
    assert (tmp_path / "config.json").read_text() == '{"mine": true}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json"]


def test_dequant_is_the_quantized_weight(rt, gptq_dir):
    """GPTQ-style rounding keeps every weight within half a quantization step of the original."""
    w = rt.load_standard(gptq_dir, LAYERS[0])
    err = np.abs(w.dequant() - random_weights(1))
    step = (np.ptp(random_weights(1).reshape(N, K // 128, 128), axis=2) / 15).repeat(128, axis=1)
    assert np.all(err <= step * 0.5 + 1e-3)
    assert w.has_bias and w.bias().shape == (N,)


def test_reference_gemm(rt, gptq_dir):
    w = rt.load_standard(gptq_dir, LAYERS[0])
    a = np.random.default_rng(1).standard_normal((5, K))
    np.testing.assert_allclose(w.reference_gemm(a), a @ w.dequant().T + w.bias(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("layer", LAYERS)
@pytest.mark.parametrize("world", [1, 2, 4])
def test_column_shards(rt, gptq_dir, layer, world):
    full = rt.load_standard(gptq_dir, layer)
    dq = full.dequant()
    for r in range(world):
        part = rt.load_standard(gptq_dir, layer, shard=hum.Shard("column", r, world))
        rows = slice(r * N // world, (r + 1) * N // world)
        assert (part.n, part.k) == (N // world, K)
        np.testing.assert_array_equal(part.dequant(), dq[rows])
        if full.has_bias:
            np.testing.assert_array_equal(part.bias(), full.bias()[rows])


@pytest.mark.parametrize("world", [1, 2, 4])
def test_row_shards(rt, gptq_dir, world):
    full = rt.load_standard(gptq_dir, LAYERS[0])
    a = np.random.default_rng(2).standard_normal((3, K))
    total = np.zeros((3, N))
    for r in range(world):
        part = full.shard(hum.Shard("row", r, world))
        cols = slice(r * K // world, (r + 1) * K // world)
        np.testing.assert_array_equal(part.dequant(), full.dequant()[:, cols])
        assert part.has_bias == (r == 0)
        total += part.reference_gemm(a[:, cols])
    np.testing.assert_allclose(total, full.reference_gemm(a), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("world", [2, 4, 8])
def test_act_order_row_shards(rt, gptq_dir, world):
    """Act-order groups scattered over K: each rank keeps its columns' groups (padded runs), so its
    dequantized weight is the full one's column slice and the GEMMs sum to the full one."""
    full = rt.load_standard(gptq_dir, LAYERS[1])
    assert full.act_order
    a = np.random.default_rng(4).standard_normal((3, K))
    total = np.zeros((3, N))
    for r in range(world):
        part = rt.load_standard(gptq_dir, LAYERS[1], shard=hum.Shard("row", r, world))
        cols = slice(r * K // world, (r + 1) * K // world)
        assert (part.n, part.k, part.act_order) == (N, K // world, True)
        np.testing.assert_array_equal(part.dequant(), full.dequant()[:, cols])
        total += part.reference_gemm(a[:, cols])
    np.testing.assert_allclose(total, full.reference_gemm(a), rtol=1e-12, atol=1e-12)
    layer = rt.layer_from_checkpoint(gptq_dir, LAYERS[1], shard=hum.Shard("row", 1, world), prepare=False)
    assert layer.k == K // world and layer.info["k"] == K // world


def test_row_shard_refusals(rt, gptq_dir):
    """A group of 128 cannot be split over 8 ranks without act-order."""
    with pytest.raises(hum.HumError, match="whole groups"):
        rt.load_standard(gptq_dir, LAYERS[0], shard=hum.Shard("row", 0, 8))
    with pytest.raises(hum.HumError, match="not a multiple of world 3"):
        rt.load_standard(gptq_dir, LAYERS[0], shard=hum.Shard("column", 0, 3))
    with pytest.raises(hum.HumError, match="rank 2 of world 2"):
        rt.load_standard(gptq_dir, LAYERS[0], shard=hum.Shard("column", 2, 2))
    with pytest.raises(ValueError):
        hum.Shard("diagonal")


def test_concat_gate_up(rt):
    """w13 of a MoE layer from gate and up stacked along N, per expert; parts that differ raise."""
    rng = np.random.default_rng(5)
    gate, up = (hum.quantize(rng.standard_normal((3, 64, 128)).astype(np.float32) * 0.05, weight="uint4",
                             group_size=32, zero_point="int", param="bfloat16") for _ in range(2))
    w13 = hum.StandardWeight.concat([gate, up])
    assert (w13.num_experts, w13.n, w13.k) == (3, 128, 128)
    for e in range(3):
        np.testing.assert_array_equal(w13.dequant(e), np.concatenate([gate.dequant(e), up.dequant(e)]))
    other = hum.quantize(rng.standard_normal((3, 64, 128)).astype(np.float32), weight="uint8", scale="channel",
                         param="bfloat16")
    with pytest.raises(hum.HumError, match="part 1 differs from part 0 in weight_dtype"):
        hum.StandardWeight.concat([gate, other])


def test_expert_shards(rt, moe_dir):
    [summary] = rt.list_layers(moe_dir)
    assert summary.name == "model.layers.0.mlp.experts.*.down_proj" and summary.num_experts == 4
    full = rt.load_standard(moe_dir, summary.name)
    part = rt.load_standard(moe_dir, summary.name, shard=hum.Shard("column", 1, 2, experts=[3, 1]))
    assert (part.num_experts, part.n, part.k) == (2, 64, 256)
    for local, expert in enumerate([3, 1]):
        np.testing.assert_array_equal(part.dequant(local), full.dequant(expert)[64:])
    with pytest.raises(hum.HumError, match="a repeat"):
        full.shard(hum.Shard(experts=[1, 1]))
    with pytest.raises(hum.HumError, match="dense weight"):
        rt.load_standard(moe_dir, "model.layers.0.mlp.experts.0.down_proj", shard=hum.Shard(experts=[0]))


def test_expert_shards_convert_only_local_experts(rt, moe_mixed_dir):
    name = "model.layers.0.mlp.experts.*.down_proj"
    whole = rt.load_standard(moe_mixed_dir, name)  # one k_perm row per expert (identity but for 2)
    assert whole.num_experts == 4 and whole.act_order
    for expert in range(4):
        alone = rt.load_standard(moe_mixed_dir, "model.layers.0.mlp.experts.%d.down_proj" % expert)
        np.testing.assert_array_equal(whole.dequant(expert), alone.dequant())
    part = rt.load_standard(moe_mixed_dir, name, shard=hum.Shard("row", 1, 2, experts=[3, 0, 1]))
    assert (part.num_experts, part.n, part.k) == (3, 128, 128)
    for local, expert in enumerate([3, 0, 1]):
        alone = rt.load_standard(moe_mixed_dir, "model.layers.0.mlp.experts.%d.down_proj" % expert)
        np.testing.assert_array_equal(part.dequant(local), alone.dequant()[:, 128:])
    two = rt.load_standard(moe_mixed_dir, name, shard=hum.Shard(experts=[2]))
    assert two.num_experts == 1 and two.act_order
    local = rt.load_standard(moe_mixed_dir, name, shard=hum.Shard.from_expert_map([1, -1, 0, -1]))
    assert local.num_experts == 2
    np.testing.assert_array_equal(local.dequant(0), whole.dequant(2))
    np.testing.assert_array_equal(local.dequant(1), whole.dequant(0))
    with pytest.raises(ValueError, match="expert_map"):
        hum.Shard.from_expert_map([0, 0])
    with pytest.raises(hum.HumError) as e:
        rt.load_standard(moe_mixed_dir, name, shard=hum.Shard(experts=[0, 4]))
    assert e.value.status == "HUM_ERR_INVALID_ARG" and "experts[1] = 4 is out of range" in e.value.message


def test_layers_without_gpu(rt, gptq_dir):
    layer = rt.layer_from_checkpoint(gptq_dir, LAYERS[0], activation="bfloat16", shard=hum.Shard("column", 1, 4))
    assert (layer.n, layer.k, layer.activation) == (N // 4, K, "bfloat16")
    if rt.device is None:
        assert not layer.info["prepared"]
        with pytest.raises(hum.HumError) as e:
            layer.prepare()
        assert e.value.status == "HUM_ERR_NO_DEVICE"
    w = hum.spec_weight("n=128,k=256,w=uint4,group=64")
    assert (w.n, w.k) == (128, 256)
    layer = rt.layer_from_standard(w, shard=hum.Shard("row", 1, 2), prepare=False)
    assert (layer.n, layer.k, layer.activation) == (128, 128, "float16")
    if rt.device is None:
        with pytest.raises(hum.HumError, match="HUM_ERR_INVALID_ARG"):
            layer.workspace_size(16)  # unprepared
        with pytest.raises(hum.HumError) as e:
            rt.workspace(nbytes=1 << 20)
        assert e.value.status == "HUM_ERR_NO_DEVICE"
    layer.close()
    with pytest.raises(hum.HumError, match="closed"):
        layer.prepare()


def test_errors_carry_hums_message(rt, gptq_dir, tmp_path):
    with pytest.raises(hum.HumError) as e:
        rt.load_standard(gptq_dir, "model.layers.9.mlp.up_proj")
    assert e.value.status == "HUM_ERR_FORMAT" and 'no quantized layer "model.layers.9.mlp.up_proj"' in e.value.message
    with pytest.raises(hum.HumError) as e:
        rt.list_layers(tmp_path / "missing")
    assert e.value.status == "HUM_ERR_IO" and "missing" in e.value.message
    with pytest.raises(hum.HumError, match="activation dtype float32"):
        rt.layer_from_checkpoint(gptq_dir, LAYERS[0], activation="float32")
    with pytest.raises(hum.HumError, match="HUM_ERR_UNSUPPORTED"):
        hum.dtype("float7")
    bad = tmp_path / "bad.yaml"
    bad.write_text("device: [1\n")
    with pytest.raises(hum.HumError) as e:
        hum.Runtime(config=bad)
    assert e.value.status == "HUM_ERR_CONFIG" and "bad.yaml" in e.value.message
    with pytest.raises(hum.HumError, match="quantize"):
        hum.quantize(np.full((4, 8), np.nan, dtype=np.float32))


def test_arguments_checked_before_c(rt, gptq_dir):
    """A NUL inside a str ended it in C, ctypes wrapped integers to 32 bits and truncated floats,
    and None reached .encode(): each is a TypeError or ValueError naming the argument now."""
    with pytest.raises(ValueError, match="NUL"):
        rt.list_layers(str(gptq_dir) + "\0junk")
    with pytest.raises(ValueError, match="NUL"):
        rt.load_standard(gptq_dir, LAYERS[0] + "\0x")
    with pytest.raises(ValueError, match="NUL"):
        hum.spec_weight("n=64,k=64\0,w=bogus")
    with pytest.raises(ValueError, match="spec .* which UTF-8 cannot encode"):
        hum.spec_weight("n=64,k=64\udcff")
    with pytest.raises(ValueError, match="list_layers path .* which the file system's encoding cannot encode"):
        rt.list_layers(str(gptq_dir) + "\ud800")
    with pytest.raises(TypeError, match="spec must be a str"):
        hum.spec_weight(None)
    with pytest.raises(TypeError, match="load_standard name must be a str"):
        rt.load_standard(gptq_dir, None)
    with pytest.raises(TypeError, match="dtype name must be a str"):
        hum.dtype(5)
    with pytest.raises(TypeError, match="cache_dir must be a path"):
        hum.Runtime(cache_dir=5)
    with pytest.raises(TypeError, match="device must be an integer"):
        hum.Runtime(device=1.5)
    with pytest.raises(ValueError, match="Shard rank = 4294967298"):
        hum.Shard("column", 2 ** 32 + 2, 4)
    with pytest.raises(ValueError, match="Shard world = 1099511627776"):
        hum.Shard("column", 0, 2 ** 40)
    with pytest.raises(TypeError, match="spec_weight seed must be an integer"):
        hum.spec_weight("n=64,k=64", seed=None)


def test_dlpack_view():
    """DLPack tensors are read in place: pointer, dtype, shape and element strides."""
    from hum._layer import dlpack_view
    a = np.arange(12, dtype=np.float16).reshape(3, 4)
    v = dlpack_view(a)
    assert (v["data"], v["dtype"], v["shape"], v["device_type"]) == (a.ctypes.data, "float16", (3, 4), 1)
    assert v["strides"] in (None, (4, 1))
    t = dlpack_view(a[:, 1:3])
    assert (t["data"], t["shape"], t["strides"]) == (a.ctypes.data + 2, (3, 2), (4, 1))
    assert dlpack_view(np.zeros(2, np.float32))["dtype"] == "float32"


def test_moe_without_gpu(rt, moe_model_dir):
    """A MoE layer from a checkpoint of one module per expert (gate and up joined into w13), made
    and described without a GPU; an expert map keeps only the local experts."""
    moe = rt.moe_from_checkpoint(moe_model_dir, MOE_NAME, top_k=2, prepare=False)
    info = moe.info
    assert (info["experts"], info["global_experts"], info["hidden"], info["intermediate"], info["top_k"]) == (
        MOE_E, MOE_E, MOE_H, MOE_I, 2)
    assert (info["activation"], info["gate_up"], info["dtype"], info["prepared"]) == ("silu", "split", "float16", False)
    assert info["activations"] is None  # known once prepared
    ep = rt.moe_from_checkpoint(moe_model_dir, MOE_NAME, top_k=2, expert_map=[-1, 1, -1, 0], prepare=False)
    assert (ep.experts, ep.global_experts) == (2, MOE_E)
    with pytest.raises(hum.HumError) as e:
        rt.moe_from_checkpoint(moe_model_dir, "model.layers.0.mlp.nothing", top_k=2, prepare=False)
    assert e.value.status == "HUM_ERR_FORMAT" and "model.layers.0.mlp.nothing" in e.value.message
    with pytest.raises(hum.HumError, match="top_k"):
        rt.moe_from_checkpoint(moe_model_dir, MOE_NAME, top_k=9, prepare=False)
    with pytest.raises(ValueError, match="activation"):
        rt.moe_from_checkpoint(moe_model_dir, MOE_NAME, top_k=2, activation="tanh", prepare=False)
    w13 = hum.StandardWeight.concat([rt.load_standard(moe_model_dir, MOE_NAME + ".*." + p) for p in ("gate_proj", "up_proj")])
    w2 = rt.load_standard(moe_model_dir, MOE_NAME + ".*.down_proj")
    assert rt.moe_from_standard(w13, w2, top_k=2, experts=[2], prepare=False).experts == 1


def override_runtime(tmp_path, section, value):
    config = tmp_path / ("%s-%s.yaml" % (section, value))
    config.write_text("overrides:\n  %s:\n    activation: %s\n" % (section, value))
    return hum.Runtime(config=config, cache_dir=tmp_path / "cache")


def test_activation_options_plan(rt):
    """8-bit activations the host quantizes (activation=, output=, activation_group=), planned
    for an arch without a GPU, and the rules hum refuses them by, as HumError with its message."""
    w = hum.spec_weight("n=256,k=512,w=e4m3,a=bfloat16")
    assert rt.describe_plan(w, arch="sm_90a", activation="e4m3")["activation"] == "e4m3 per token"
    u8 = hum.spec_weight("n=256,k=512,w=uint8")
    plan = rt.describe_plan(u8, arch="sm_80", activation="int8", output="bfloat16")
    assert plan["activation"] == "int8 per token" and plan["arch"] == "sm_80" and plan["rows"][0]["m_min"] == 1
    with pytest.raises(hum.HumError) as e:
        rt.describe_plan(w, arch="sm_80", activation="e4m3")
    assert e.value.status == "HUM_ERR_UNSUPPORTED" and "float8_e4m3fn activations need sm_89" in e.value.message
    with pytest.raises(hum.HumError, match="uint8 weights with float8_e4m3fn"):
        rt.describe_plan(u8, arch="sm_90a", activation="e4m3")
    with pytest.raises(hum.HumError, match="activation group 64"):
        rt.describe_plan(u8, arch="sm_90a", activation="int8", activation_group=64)
    with pytest.raises(hum.HumError, match="activation group 128 with int8 activations"):
        rt.describe_plan(u8, arch="sm_90a", activation="int8", activation_group=128)
    block = hum.spec_weight("n=256,k=512,w=e4m3,block=128x128")
    assert rt.describe_plan(block, arch="sm_90a", activation="e4m3", activation_group=128)["rows"]
    grouped = rt.layer_from_standard(block, activation="e4m3", activation_group=128, prepare=False)
    assert (grouped.activation, grouped.activation_group) == ("float8_e4m3fn", 128)
    with pytest.raises(hum.HumError, match="output dtype float32"):
        rt.describe_plan(w, arch="sm_90a", activation="e4m3", output="float32")
    with pytest.raises(ValueError, match="SPEC carries"):
        rt.describe_plan("n=256,k=512,w=e4m3,a=e4m3", arch="sm_90a", activation="e4m3")
    layer = rt.layer_from_standard(w, activation="e4m3", prepare=False)
    assert (layer.activation, layer.output, layer.activation_group) == ("float8_e4m3fn", "bfloat16", 0)
    assert "-> bfloat16" in repr(layer)
    layer = rt.layer_from_standard(u8, activation="int8", output="bfloat16", prepare=False)
    assert (layer.activation, layer.output) == ("int8", "bfloat16")


def test_checkpoint_activation_scheme(rt):
    """A weight's own 8-bit scheme (a SPEC's a= and ascale=, as a W8A8 checkpoint's) is what a
    layer runs where the arch has it, quantizing the 16-bit A it is given; sm_80 falls back."""
    assert hum.spec_weight("n=256,k=512,w=uint4").activation is None
    tensor = hum.spec_weight("n=256,k=512,w=e4m3,a=e4m3,ascale=tensor")
    assert tensor.activation == {"dtype": "float8_e4m3fn", "scale": "tensor", "group": 0,
                                 "input_scale": pytest.approx(8 / 448)}
    assert rt.describe_plan(tensor, arch="sm_90a")["activation"] == \
        "e4m3 per tensor (the checkpoint's; quantized by the layer)"
    assert rt.describe_plan("n=256,k=512,w=uint8,a=int8", arch="sm_90a")["activation"] == \
        "int8 per token (the checkpoint's; quantized by the layer)"
    fallback = rt.describe_plan(tensor, arch="sm_80")["activation"]
    assert fallback.startswith("bfloat16 (fallback from e4m3 per tensor") and "need sm_89" in fallback
    layer = rt.layer_from_standard(tensor, prepare=False)  # the request, until prepare plans it
    assert (layer.activation, layer.output) == ("float8_e4m3fn", "bfloat16")


def test_activation_override_through_the_config(tmp_path):
    """linear.activation in the deployment config changes what a 16-bit checkpoint's layer
    runs as; a host-quantized layer keeps its type; moe.activation leaves dense layers alone."""
    w = hum.spec_weight("n=256,k=512,w=uint4,a=bfloat16")
    with override_runtime(tmp_path, "linear", "e4m3") as r:
        assert r.describe_plan(w, arch="sm_90a")["activation"] == \
            "e4m3 per token (override linear.activation = e4m3; quantized by the layer)"
        old = r.describe_plan(w, arch="sm_80")["activation"]
        assert old.startswith("bfloat16 (fallback from e4m3 per token, override linear.activation = e4m3")
        assert r.describe_plan(hum.spec_weight("n=256,k=512,w=uint8"), arch="sm_90a", activation="int8")[
            "activation"] == "int8 per token"
    with override_runtime(tmp_path, "linear", "int8") as r:
        assert r.describe_plan(w, arch="sm_90a")["activation"].startswith("int8 per token (override")
    with override_runtime(tmp_path, "moe", "e4m3") as r:
        assert r.describe_plan(w, arch="sm_90a")["activation"] == "bfloat16"


def test_activation_scale_in_info(rt):
    assert rt.layer_from_spec("n=256,k=512,w=uint4", prepare=False).info["activation_scale"] is None
    w = hum.spec_weight("n=256,k=512,w=e4m3,a=e4m3,ascale=tensor")
    assert rt.layer_from_standard(w, prepare=False).info["activation_scale"] == "tensor"
    # a_round is decided with the plan: the request before it rounds nothing
    assert rt.layer_from_spec("n=256,k=512,w=e4m3,a=mxfp8", prepare=False).info["activation_round"] is None


def test_mxfp8_rounded(rt):
    """mxfp8 is rounded into 16-bit A by the layer (no block-scaled MMA before sm_100), on any
    arch of 16-bit A."""
    spec = "n=256,k=512,w=e4m3,a=mxfp8"
    assert rt.describe_plan(spec, arch="sm_90a")["activation"] == (
        "mxfp8 (the checkpoint's; rounded by the layer, computed in bfloat16: no block-scaled MMA before sm_100)")
    assert rt.describe_plan(spec, arch="sm_80")["activation"].startswith("mxfp8 (the checkpoint's; rounded by the layer")


def test_moe_gemm_types(rt, moe_model_dir):
    """gemm= picks the expert GEMMs' type: grouped layers are made without a GPU too; a bad name
    is refused before any call."""
    for gemm in ("grouped_contiguous", "grouped_masked"):
        moe = rt.moe_from_checkpoint(moe_model_dir, MOE_NAME, top_k=1, gemm=gemm, prepare=False)
        assert moe.gemm == gemm and moe.experts == MOE_E
    with pytest.raises(ValueError, match="gemm 'grouped'"):
        rt.moe_from_checkpoint(moe_model_dir, MOE_NAME, top_k=1, gemm="grouped", prepare=False)
