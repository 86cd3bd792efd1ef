"""Shared fixtures: a runtime on a fresh kernel cache, and small GPTQ / AWQ checkpoints written with
hum's own quantizer and checkpoint writers from seeded random weights."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import hum  # noqa: E402

LAYERS = ["model.layers.0.self_attn.q_proj", "model.layers.0.mlp.down_proj"]
N, K = 256, 512


@pytest.fixture(scope="session")
def rt(tmp_path_factory):
    with hum.Runtime(cache_dir=tmp_path_factory.mktemp("cache")) as r:
        yield r


def random_weights(seed, n=N, k=K):
    return np.random.default_rng(seed).standard_normal((n, k)).astype(np.float32) * 0.05


@pytest.fixture(scope="session")
def gptq_dir(tmp_path_factory):
    """GPTQ 4-bit g128: q_proj asymmetric with bias, down_proj symmetric act-order (random k_perm)."""
    d = tmp_path_factory.mktemp("gptq")
    rng = np.random.default_rng(7)
    q = hum.quantize(random_weights(1), weight="uint4", group_size=128, zero_point="int",
                     bias=rng.standard_normal(N).astype(np.float32))
    down = hum.quantize(random_weights(2), weight="uint4", group_size=128, zero_point="int",
                        k_perm=rng.permutation(K).astype(np.int32))
    hum.write_gptq(d, {LAYERS[0]: q, LAYERS[1]: down}, v2=True)
    return d


@pytest.fixture(scope="session")
def awq_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("awq")
    hum.write_awq(d, {LAYERS[0]: hum.quantize(random_weights(3), weight="uint4", group_size=64, zero_point="int")})
    return d


@pytest.fixture(scope="session")
def moe_dir(tmp_path_factory):
    """Four experts written as one module each: hum lists them as one MoE layer experts.*.down_proj."""
    d = tmp_path_factory.mktemp("moe")
    layers = {"model.layers.0.mlp.experts.%d.down_proj" % e: hum.quantize(random_weights(10 + e, 128, 256),
                                                                           weight="uint4", group_size=128)
              for e in range(4)}
    hum.write_gptq(d, layers)
    return d


@pytest.fixture(scope="session")
def moe_mixed_dir(tmp_path_factory):
    """Four experts, expert 2 alone with act-order: the others stack with identity k_perm rows."""
    d = tmp_path_factory.mktemp("moe-mixed")
    perm = np.random.default_rng(3).permutation(256).astype(np.int32)
    layers = {"model.layers.0.mlp.experts.%d.down_proj" % e: hum.quantize(
        random_weights(20 + e, 128, 256), weight="uint4", group_size=128, k_perm=perm if e == 2 else None)
        for e in range(4)}
    hum.write_gptq(d, layers)
    return d


MOE_E, MOE_H, MOE_I = 4, 128, 64
MOE_NAME = "model.layers.0.mlp.experts"


@pytest.fixture(scope="session")
def moe_model_dir(tmp_path_factory):
    """A Qwen-style MoE block: gate_proj, up_proj and down_proj per expert, GPTQ int4 g32 asym."""
    d = tmp_path_factory.mktemp("moe-model")
    rng = np.random.default_rng(11)
    layers = {}
    for e in range(MOE_E):
        for proj, shape in (("gate_proj", (MOE_I, MOE_H)), ("up_proj", (MOE_I, MOE_H)), ("down_proj", (MOE_H, MOE_I))):
            layers["%s.%d.%s" % (MOE_NAME, e, proj)] = hum.quantize(
                rng.standard_normal(shape).astype(np.float32) * 0.05, weight="uint4", group_size=32,
                zero_point="int")
    hum.write_gptq(d, layers, architecture="Qwen3MoeForCausalLM")
    return d
