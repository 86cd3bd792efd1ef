/* `hum run --check` as a user runs it (docs/cli.md) on checkpoints laid out as the quantization
 * tools write them (tests/support/fixture_*.c), each compared with the float64 reference:
 *  - gpt-oss MXFP4 experts: gate_up_proj and down_proj as *_blocks / *_scales (e8m0) / *_bias,
 *    gate and up rows interleaved, swiglu_oai, bfloat16;
 *  - compressed-tensors WNA16 experts, one module per expert (experts.<e>.gate_proj, up_proj,
 *    down_proj: pack-quantized int4, symmetric, group 128), silu;
 *  - ModelOpt NVFP4 experts, one module per expert, whose gate and up carry different global
 *    scales (weight_scale_2; vLLM issue 54974), as do the experts: the w13 join and the expert
 *    GEMMs fold them into the group scales; run with 16-bit A (moe.activation = bfloat16: the
 *    checkpoint's W4A4 is for Blackwell);
 *  - compressed-tensors W8A8 fp8 (float-quantized, channel weight scales, dynamic per-token
 *    activations): the layer must run e4m3 per token, quantizing A itself, and pass the 8-bit
 *    bar against A quantized the same way.
 * Without a GPU every checkpoint must still load and convert (the command stops at "no GPU to
 * run on"); then the test reports skipped (77). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "cli_test.h"
#include "fixture.h"
#include "quant_test.h"
#include "rt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { E = 8, H = 256, I = 128 };
static const char EXPERTS[] = "model.layers.0.mlp.experts";
static const char DENSE[] = "model.layers.0.self_attn.o_proj";

/* The fixtures' random codes and scales (seeded in main): the writers below are called through
 * write_experts' function pointer, whose signature carries no generator. */
static quant_rng rng;

/* One gpt-oss projection of E experts [n, k]: e2m1 codes, e8m0 scales 2^-8 .. 2^-4, bf16 bias. */
static int gptoss_proj(const char *dir, const char *proj, int64_t n, int64_t k)
{
    uint8_t *q = malloc((size_t)(E * n * k)), *s = malloc((size_t)(E * n * k / 32));
    uint16_t *bias = malloc((size_t)(E * n) * 2);
    for (int64_t i = 0; i < E * n * k; i++)
        q[i] = (uint8_t)quant_rng_below(&rng, 16);
    for (int64_t i = 0; i < E * n * k / 32; i++)
        s[i] = (uint8_t)(119 + quant_rng_below(&rng, 5));
    for (int64_t i = 0; i < E * n; i++)
        bias[i] = fx_bf16_bits((double)(quant_rng_below(&rng, 129) - 64) / 64.0);
    const fx_gptoss w = {.experts = E, .n = n, .k = k, .codes = q, .scales = s, .bias = bias};
    char name[256];
    snprintf(name, sizeof name, "%s.%s", EXPERTS, proj);
    const int rc = fx_write_gptoss(dir, name, &w);
    free(q), free(s), free(bias);
    return rc;
}

/* One compressed-tensors W4A16 module [n, k]: signed int4, one bf16 scale per 128 columns. */
static int ct_module(const char *dir, const char *layer, int64_t n, int64_t k, int expert, int proj)
{
    const int64_t g = k / 128;
    int8_t *q = malloc((size_t)(n * k));
    uint16_t *s = malloc((size_t)(n * g) * 2);
    for (int64_t i = 0; i < n * k; i++)
        q[i] = (int8_t)(quant_rng_below(&rng, 16) - 8);
    for (int64_t i = 0; i < n * g; i++)
        s[i] = fx_bf16_bits((double)(8 + quant_rng_below(&rng, 9)) / 512.0);
    const fx_ct w = {.format = "pack-quantized", .version = "0.18.0", .type = "int", .strategy = "group", .bits = 4,
                     .sym = 1, .group_size = 128, .n = n, .k = k, .q_int = q, .scale = s, .scale_dtype = "BF16",
                     .scale_rows = n, .scale_cols = g};
    const int rc = fx_write_ct(dir, layer, &w);
    free(q), free(s);
    return rc;
}

/* One ModelOpt NVFP4 module [n, k]: e2m1 codes, e4m3 group-16 scales 0.25 .. 1.5 (codes 0x28 ..
 * 0x3c); the global scale weight_scale_2 of expert e's gate, up and down is 1/32, 1/40 and 1/24
 * times (1 + e / 8). */
static int nvfp4_module(const char *dir, const char *layer, int64_t n, int64_t k, int expert, int proj)
{
    static const float base[3] = {1.f / 32, 1.f / 40, 1.f / 24};
    uint8_t *q = malloc((size_t)(n * k)), *s = malloc((size_t)(n * k / 16));
    for (int64_t i = 0; i < n * k; i++)
        q[i] = (uint8_t)quant_rng_below(&rng, 16);
    for (int64_t i = 0; i < n * k / 16; i++)
        s[i] = (uint8_t)(0x28 + quant_rng_below(&rng, 21));
    const fx_modelopt w = {.algo = "NVFP4", .n = n, .k = k, .group_size = 16, .codes = q, .scale = s,
                           .scale_2 = base[proj] * (1.f + (float)expert / 8.f)};
    const int rc = fx_write_modelopt(dir, layer, &w);
    free(q), free(s);
    return rc;
}

/* The parts (each a fixture directory) merged into dir, the parts removed. */
static int merge(const char *dir, char parts[][4200], int n)
{
    const char *p[3 * E];
    for (int i = 0; i < n; i++)
        p[i] = parts[i];
    const int rc = fx_merge(dir, p, n);
    for (int i = 0; i < n; i++)
        rt_rmtree(parts[i]);
    return rc;
}

static int write_gptoss(const char *dir)
{
    static char parts[2][4200];
    rt_tmpdir("gptoss-gate-up", parts[0], sizeof parts[0]);
    rt_tmpdir("gptoss-down", parts[1], sizeof parts[1]);
    int rc = gptoss_proj(parts[0], "gate_up_proj", 2 * I, H);
    rc |= gptoss_proj(parts[1], "down_proj", H, I);
    return rc | merge(dir, parts, 2);
}

/* E experts, one module each of gate_proj and up_proj [I, H] and down_proj [H, I], written by
 * `module` (expert, projection 0..2) and merged. */
static int write_experts(const char *dir, int (*module)(const char *, const char *, int64_t, int64_t, int, int))
{
    static const char *const proj[3] = {"gate_proj", "up_proj", "down_proj"};
    static char parts[3 * E][4200];
    int rc = 0;
    for (int i = 0; i < 3 * E; i++) {
        char layer[256];
        snprintf(layer, sizeof layer, "%s.%d.%s", EXPERTS, i / 3, proj[i % 3]);
        rt_tmpdir("expert", parts[i], sizeof parts[i]);
        rc |= module(parts[i], layer, i % 3 == 2 ? H : I, i % 3 == 2 ? I : H, i / 3, i % 3);
    }
    return rc | merge(dir, parts, 3 * E);
}

/* N = 320, K = 576: e4m3 codes of magnitude 1/16 .. 3.75, one bf16 scale per row. */
static int write_ct_fp8(const char *dir)
{
    enum { N = 320, K = 576 };
    uint8_t *q = malloc(N * K);
    uint16_t *s = malloc(N * 2);
    for (int i = 0; i < N * K; i++)
        q[i] = (uint8_t)(quant_rng_below(&rng, 2) << 7 | (3 + quant_rng_below(&rng, 6)) << 3 |
                         quant_rng_below(&rng, 8));
    for (int i = 0; i < N; i++)
        s[i] = fx_bf16_bits((double)(4 + quant_rng_below(&rng, 5)) / 256.0);
    const fx_ct w = {.format = "float-quantized", .version = "0.18.0", .type = "float", .strategy = "channel",
                     .bits = 8, .sym = 1, .n = N, .k = K, .q_codes = q, .scale = s, .scale_dtype = "BF16",
                     .scale_rows = N, .scale_cols = 1,
                     .input_activations = "{\"num_bits\": 8, \"type\": \"float\", \"strategy\": \"token\", "
                                          "\"dynamic\": true, \"symmetric\": true}"};
    const int rc = fx_write_ct(dir, DENSE, &w);
    free(q), free(s);
    return rc;
}

/* Runs `hum run` on one checkpoint: with a GPU every M passes its check; without one the
 * checkpoint loads and the command stops where the GPU is needed. */
static void run(int gpu, const char *what, const char *dir, const char *args, int ms, const char *must)
{
    char line[16384];
    snprintf(line, sizeof line, "run %s %s --check", dir, args);
    const int rc = cli_hum(line);
    printf("$ hum %s\n%s\n", line, cli_output);
    if (!gpu) {
        RT_CHECK(rc == 1 && strstr(cli_output, "no GPU to run on") && cli_count("loaded in") == 1,
                 "%s: loads, then needs a GPU:\n%s", what, cli_output);
        return;
    }
    RT_CHECK(rc == 0 && cli_count(": ok") == ms && cli_count("FAIL") == 0, "%s: %d passing M:\n%s", what, ms,
             cli_output);
    if (must)
        RT_CHECK(strstr(cli_output, must) != NULL, "%s: '%s' in:\n%s", what, must, cli_output);
}

int main(void)
{
    int32_t gpus = 0;
    const int gpu = hum_device_count(&gpus) == HUM_OK && gpus > 0;
    char no_gpu[512];
    snprintf(no_gpu, sizeof no_gpu, "%s", gpu ? "" : hum_last_error());
    unsetenv("HUM_CONFIG");
    rng = quant_rng_fresh("cli_run_formats");
    char gptoss[4200], ct_moe[4200], nvfp4[4200], ct_fp8[4200], args[8192];
    rt_tmpdir("run-gptoss", gptoss, sizeof gptoss);
    rt_tmpdir("run-nvfp4", nvfp4, sizeof nvfp4);
    rt_tmpdir("run-ct-moe", ct_moe, sizeof ct_moe);
    rt_tmpdir("run-ct-fp8", ct_fp8, sizeof ct_fp8);
    if (RT_CHECK(write_gptoss(gptoss) == 0, "gpt-oss fixture: %s", hum_last_error())) {
        snprintf(args, sizeof args, "--layer %s --m 1,5,64,300 --topk 4 --act swiglu_oai --gate-up interleaved "
                 "--activation bfloat16", EXPERTS);
        run(gpu, "gpt-oss mxfp4 experts", gptoss, args, 4, "float4_e2m1 weights, swiglu_oai (gate/up interleaved)");
    }
    if (RT_CHECK(write_experts(ct_moe, ct_module) == 0, "compressed-tensors experts fixture: %s", hum_last_error())) {
        snprintf(args, sizeof args, "--layer %s --m 1,5,64,300 --topk 2 --activation bfloat16", EXPERTS);
        run(gpu, "compressed-tensors WNA16 experts", ct_moe, args, 4, "8 experts, top-2");
    }
    if (RT_CHECK(write_experts(nvfp4, nvfp4_module) == 0, "ModelOpt NVFP4 experts fixture: %s", hum_last_error())) {
        const char *config = rt_write(nvfp4, "deploy.yaml", "overrides:\n  moe:\n    activation: bfloat16\n");
        snprintf(args, sizeof args, "--layer %s --m 1,5,64,300 --topk 2 --activation bfloat16 --config %s", EXPERTS,
                 config);
        run(gpu, "ModelOpt NVFP4 experts", nvfp4, args, 4, "float4_e2m1 weights, silu (gate/up split)");
    }
    if (RT_CHECK(write_ct_fp8(ct_fp8) == 0, "compressed-tensors W8A8 fixture: %s", hum_last_error())) {
        snprintf(args, sizeof args, "--layer %s --m 1,3,100 --activation bfloat16", DENSE);
        run(gpu, "compressed-tensors W8A8 fp8", ct_fp8, args, 3, "activations: e4m3 per token");
    }
    rt_rmtree(gptoss);
    rt_rmtree(ct_moe);
    rt_rmtree(nvfp4);
    rt_rmtree(ct_fp8);
    const int rc = rt_test_result("cli_run_formats");
    if (!gpu && rc == 0) {
        printf("cli_run_formats: checkpoints load; runs skipped (%s)\n", no_gpu);
        return 77;
    }
    return rc;
}
