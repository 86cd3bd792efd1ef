/* ModelOpt (FP8, FP8 per channel, NVFP4, MXFP8), DeepSeek-style FP8 blocks and gpt-oss MXFP4
 * experts -> standard format -> reference dequantizer. Every element must equal the format's own
 * rule on the raw values: decode(code) * scale (* weight_scale_2 for NVFP4), with FP8 block scales
 * indexed [n / bn][k / bk] and MX scales 2^(u - 127). */
#include "fixture.h"
#include "formats_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t fp8_code(fmt_rng *r)
{
    uint8_t c;
    do
        c = (uint8_t)fmt_rand_range(r, 0, 255);
    while ((c & 0x7f) == 0x7f);
    return c;
}

/* Loads `layer`, checks dims and summary, compares expert `x`'s dequant with want. */
static void check(const char *dir, const char *layer, const char *what, int64_t experts, int64_t n, int64_t k,
                  const double *want, const char *format, int bits)
{
    hum_standard_weight w;
    hum_status s = fmt_load(dir, layer, &w);
    FMT_CHECK(s == HUM_OK, "%s: load: %s", what, hum_last_error());
    if (s == HUM_OK) {
        FMT_CHECK(w.num_experts == experts && w.n == n && w.k == k, "%s: dims", what);
        for (int64_t x = 0; x < (experts ? experts : 1); x++) {
            double *got = fmt_dequant(&w, x);
            if (got)
                fmt_compare(got, want + x * n * k, n * k, 0, what);
            free(got);
        }
        hum_standard_free(&w);
    }
    hum_layer_list list;
    s = fmt_list(dir, &list);
    FMT_CHECK(s == HUM_OK && list.count == 1 && !strcmp(list.items[0].name, layer) &&
                  !strcmp(list.items[0].format, format) && list.items[0].bits == bits && list.items[0].n == n &&
                  list.items[0].k == k && list.items[0].num_experts == experts,
              "%s: listing (%s): %s", what, s == HUM_OK && list.count ? list.items[0].format : "-", hum_last_error());
    hum_layer_list_free(&list);
}

/* The checkpoint's activation scheme on the standard weight and in the listing. */
static void check_act(const char *dir, const char *layer, const char *what, hum_dtype dtype, hum_act_scale mode,
                      int32_t group, float input_scale, const char *text)
{
    hum_standard_weight w;
    if (fmt_load(dir, layer, &w) == HUM_OK) {
        FMT_CHECK(w.act_dtype == dtype && w.act_scale == mode && w.act_group == group &&
                      (input_scale == 0.0f ? w.input_scale.data == NULL
                                           : w.input_scale.data && *(const float *)w.input_scale.data == input_scale),
                  "%s: activations %s mode %d group %d, expected %s mode %d group %d (input scale %g)", what,
                  hum_dtype_name(w.act_dtype), (int)w.act_scale, (int)w.act_group, hum_dtype_name(dtype), (int)mode,
                  (int)group, (double)input_scale);
        hum_standard_free(&w);
    }
    hum_layer_list list;
    if (fmt_list(dir, &list) == HUM_OK) {
        FMT_CHECK(list.count == 1 && !strcmp(list.items[0].activations, text), "%s: listed activations '%s', expected "
                  "'%s'", what, list.count ? list.items[0].activations : "-", text);
        hum_layer_list_free(&list);
    }
}

static void test_modelopt(const char *algo, int64_t n, int64_t k, unsigned seed)
{
    const char *layer = "model.layers.0.mlp.up_proj";
    fmt_rng r = {seed};
    int nvfp4 = !strcmp(algo, "NVFP4"), mx = !strcmp(algo, "MXFP8"), tensor = !strcmp(algo, "FP8");
    int64_t gs = nvfp4 ? 16 : 32;
    uint8_t *codes = malloc((size_t)(n * k)), *scale8 = malloc((size_t)(n * k / 16 + 1));
    float *scale32 = malloc(sizeof(float) * (size_t)n);
    double *want = malloc(sizeof(double) * (size_t)(n * k));
    for (int64_t i = 0; i < n * k; i++)
        codes[i] = nvfp4 ? (uint8_t)fmt_rand_range(&r, 0, 15) : fp8_code(&r);
    for (int64_t i = 0; i < n * k / 16; i++)
        scale8[i] = nvfp4 ? (uint8_t)fmt_rand_range(&r, 0x20, 0x70) : (uint8_t)fmt_rand_range(&r, 115, 135);
    for (int64_t i = 0; i < n; i++)
        scale32[i] = (float)fmt_rand_range(&r, 1, 1 << 20) / (float)(1 << 26);
    float scale_2 = 0.0001234f;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < k; j++) {
            uint8_t c = codes[i * k + j];
            if (nvfp4)
                want[i * k + j] = fx_e2m1_value(c) * fx_e4m3_value(scale8[i * (k / gs) + j / gs]) * (double)scale_2;
            else if (mx)
                want[i * k + j] = fx_e4m3_value(c) * ldexp(1.0, scale8[i * (k / gs) + j / gs] - 127);
            else
                want[i * k + j] = fx_e4m3_value(c) * (double)scale32[tensor ? 0 : i];
        }
    char *dir = fmt_tmpdir("modelopt");
    fx_modelopt fx = {.algo = algo, .n = n, .k = k, .group_size = nvfp4 ? 16 : 0, .codes = codes,
                      .scale = nvfp4 || mx ? (const void *)scale8 : (const void *)scale32, .scale_2 = scale_2};
    FMT_CHECK(fx_write_modelopt(dir, layer, &fx) == 0, "modelopt %s fixture", algo);
    char what[64], format[64];
    snprintf(what, sizeof what, "modelopt %s N=%lld K=%lld", algo, (long long)n, (long long)k);
    snprintf(format, sizeof format, "modelopt/%s", algo);
    check(dir, layer, what, 0, n, k, want, format, nvfp4 ? 4 : 8);
    /* activations as ModelOpt quantizes them (the fixture's input_scale is 2^-6) */
    if (tensor)
        check_act(dir, layer, what, HUM_DTYPE_FLOAT8_E4M3FN, HUM_ACT_SCALE_TENSOR, 0, 0.015625f, "e4m3 tensor");
    else if (mx)
        check_act(dir, layer, what, HUM_DTYPE_FLOAT8_E4M3FN, HUM_ACT_SCALE_GROUP, 32, 0.0f, "mxfp8");
    else if (nvfp4)
        check_act(dir, layer, what, HUM_DTYPE_FLOAT4_E2M1, HUM_ACT_SCALE_GROUP, 16, 0.0f, "nvfp4");
    else
        check_act(dir, layer, what, HUM_DTYPE_FLOAT8_E4M3FN, HUM_ACT_SCALE_TOKEN, 0, 0.0f, "e4m3 token");
    /* NVFP4's group size must be a positive integer (7.5 was cut to 7, "16" reached C as a string) */
    if (nvfp4) {
        fmt_write_text(fmt_path(dir, "hf_quant_config.json"),
                       "{\"producer\": {\"name\": \"modelopt\"}, \"quantization\": {\"quant_algo\": \"NVFP4\", "
                       "\"group_size\": \"16\"}}");
        hum_standard_weight w;
        FMT_EXPECT_ERROR(fmt_load(dir, layer, &w), HUM_ERR_FORMAT, "nvfp4 string group",
                         "group_size of model.layers.0.mlp.up_proj is \"16\" (a string), expected a positive integer");
    }
    /* The AWQ flavours are refused by name, and a contradicting config.json too. */
    fmt_write_text(fmt_path(dir, "hf_quant_config.json"),
                   "{\"producer\": {\"name\": \"modelopt\"}, \"quantization\": {\"quant_algo\": \"W4A16_AWQ\"}}");
    hum_standard_weight w;
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &w), HUM_ERR_FORMAT, "modelopt contradiction", "contradicts");
    fmt_write_text(fmt_path(dir, "config.json"), "{\"quantization_config\": {\"quant_method\": \"modelopt\"}}");
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &w), HUM_ERR_UNSUPPORTED, "modelopt awq", "pre_quant_scale");
    fmt_rmtree(dir);
    free(dir);
    free(codes);
    free(scale8);
    free(scale32);
    free(want);
}

static void test_fp8_block(int64_t n, int64_t k, int64_t bn, int64_t bk, const char *scale_dtype, unsigned seed)
{
    const char *layer = "model.layers.3.self_attn.o_proj";
    fmt_rng r = {seed};
    int64_t rows = (n + bn - 1) / bn, cols = (k + bk - 1) / bk;
    uint8_t *codes = malloc((size_t)(n * k)), *e8 = malloc((size_t)(rows * cols));
    float *s = malloc(sizeof(float) * (size_t)(rows * cols));
    double *sv = malloc(sizeof(double) * (size_t)(rows * cols)), *want = malloc(sizeof(double) * (size_t)(n * k));
    for (int64_t i = 0; i < n * k; i++)
        codes[i] = fp8_code(&r);
    for (int64_t i = 0; i < rows * cols; i++) {
        e8[i] = (uint8_t)fmt_rand_range(&r, 100, 130);
        s[i] = (float)fmt_rand_double(&r, 1e-4, 1e-2);
        sv[i] = !strcmp(scale_dtype, "F32") ? (double)s[i] : ldexp(1.0, e8[i] - 127);
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < k; j++)
            want[i * k + j] = fx_e4m3_value(codes[i * k + j]) * sv[(i / bn) * cols + j / bk];
    char *dir = fmt_tmpdir("fp8");
    fx_fp8_block fx = {.n = n, .k = k, .block_n = bn, .block_k = bk, .codes = codes,
                       .scale = !strcmp(scale_dtype, "F32") ? (const void *)s : (const void *)e8,
                       .scale_dtype = scale_dtype};
    FMT_CHECK(fx_write_fp8_block(dir, layer, &fx) == 0, "fp8 fixture");
    char what[80];
    snprintf(what, sizeof what, "fp8 block %lldx%lld %s N=%lld K=%lld", (long long)bn, (long long)bk, scale_dtype,
             (long long)n, (long long)k);
    check(dir, layer, what, 0, n, k, want, "fp8", 8);
    /* "dynamic": 1 x 128 groups when the K block is 128 (DeepSeek's act_quant), else 16-bit */
    if (bk == 128)
        check_act(dir, layer, what, HUM_DTYPE_FLOAT8_E4M3FN, HUM_ACT_SCALE_GROUP, 128, 0.0f, "e4m3 group 128");
    else
        check_act(dir, layer, what, HUM_DTYPE_INVALID, HUM_ACT_SCALE_TOKEN, 0, 0.0f, "");
    /* block sizes that are no positive integers, or not two of them, are refused (128.5 was cut
     * to 128, a third entry ignored) */
    static const struct {
        const char *block, *needle;
    } bad[] = {
        {"[128.5, 128]", "weight_block_size[1] is 128.5, expected a positive integer below 2^31"},
        {"[128, 128, 7]", "weight_block_size is a list of 3 values, expected [rows, cols]"},
        {"[128, \"128\"]", "weight_block_size[2] is \"128\" (a string)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char cfg[256];
        snprintf(cfg, sizeof cfg,
                 "{\"quantization_config\": {\"quant_method\": \"fp8\", \"fmt\": \"e4m3\", "
                 "\"activation_scheme\": \"dynamic\", \"weight_block_size\": %s}}\n",
                 bad[i].block);
        fmt_write_text(fmt_path(dir, "config.json"), cfg);
        hum_standard_weight w;
        FMT_EXPECT_ERROR(fmt_load(dir, layer, &w), HUM_ERR_FORMAT, bad[i].block, bad[i].needle);
    }
    fmt_rmtree(dir);
    free(dir);
    free(codes);
    free(e8);
    free(s);
    free(sv);
    free(want);
}

static void test_gptoss(int64_t e, int64_t n, int64_t k, unsigned seed)
{
    const char *proj = "model.layers.5.mlp.experts.gate_up_proj";
    fmt_rng r = {seed};
    uint8_t *codes = malloc((size_t)(e * n * k)), *scales = malloc((size_t)(e * n * k / 32));
    uint16_t *bias = malloc(2 * (size_t)(e * n));
    double *want = malloc(sizeof(double) * (size_t)(e * n * k));
    for (int64_t i = 0; i < e * n * k; i++)
        codes[i] = (uint8_t)fmt_rand_range(&r, 0, 15);
    for (int64_t i = 0; i < e * n * k / 32; i++)
        scales[i] = (uint8_t)fmt_rand_range(&r, 118, 132);
    for (int64_t i = 0; i < e * n; i++)
        bias[i] = fx_bf16_bits((double)fmt_rand_range(&r, -64, 64) / 16.0);
    for (int64_t i = 0; i < e * n; i++)
        for (int64_t j = 0; j < k; j++)
            want[i * k + j] = fx_e2m1_value(codes[i * k + j]) * ldexp(1.0, scales[i * (k / 32) + j / 32] - 127);
    char *dir = fmt_tmpdir("gptoss");
    fx_gptoss fx = {.experts = e, .n = n, .k = k, .codes = codes, .scales = scales, .bias = bias};
    FMT_CHECK(fx_write_gptoss(dir, proj, &fx) == 0, "gpt-oss fixture");
    char what[80];
    snprintf(what, sizeof what, "gpt-oss mxfp4 E=%lld N=%lld K=%lld", (long long)e, (long long)n, (long long)k);
    check(dir, proj, what, e, n, k, want, "mxfp4", 4);
    /* gpt-oss runs weight-only (16-bit activations) unless the deployment overrides it */
    check_act(dir, proj, what, HUM_DTYPE_INVALID, HUM_ACT_SCALE_TOKEN, 0, 0.0f, "");
    hum_standard_weight w;
    if (fmt_load(dir, proj, &w) == HUM_OK) {
        FMT_CHECK(w.bias.dtype == HUM_DTYPE_BFLOAT16 && w.bias.rank == 2 &&
                      memcmp(w.bias.data, bias, 2 * (size_t)(e * n)) == 0,
                  "%s: bias [E, N] in checkpoint order", what);
        hum_standard_free(&w);
    }
    fmt_rmtree(dir);
    free(dir);
    free(codes);
    free(scales);
    free(bias);
    free(want);
}

/* MIXED_PRECISION: the per-layer quant_algo comes from quantized_layers. */
static void test_modelopt_mixed(void)
{
    const char *layer = "model.layers.0.mlp.up_proj";
    uint8_t codes[8 * 32];
    for (int i = 0; i < 8 * 32; i++)
        codes[i] = (uint8_t)(i % 0x7e);
    float scale = 0.125f;
    char *dir = fmt_tmpdir("modelopt-mixed");
    fx_modelopt fx = {.algo = "FP8", .n = 8, .k = 32, .codes = codes, .scale = &scale};
    fx_write_modelopt(dir, layer, &fx);
    fmt_write_text(fmt_path(dir, "config.json"), "{\"quantization_config\": {\"quant_method\": \"modelopt\", "
                                                 "\"quant_algo\": \"MIXED_PRECISION\"}}");
    fmt_write_text(fmt_path(dir, "hf_quant_config.json"),
                   "{\"producer\": {\"name\": \"modelopt\"}, \"quantization\": {\"quant_algo\": \"MIXED_PRECISION\", "
                   "\"quantized_layers\": {\"model.layers.0.mlp.up_proj\": {\"quant_algo\": \"fp8\"}}}}");
    hum_standard_weight w;
    hum_status st = fmt_load(dir, layer, &w);
    FMT_CHECK(st == HUM_OK && w.scale_type == HUM_SCALE_TENSOR && ((const float *)w.global_scale.data)[0] == 0.125f,
              "mixed precision: %s", hum_last_error());
    if (st == HUM_OK)
        hum_standard_free(&w);
    fmt_write_text(fmt_path(dir, "hf_quant_config.json"),
                   "{\"quantization\": {\"quant_algo\": \"MIXED_PRECISION\", \"quantized_layers\": {}}}");
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &w), HUM_ERR_FORMAT, "mixed precision without the layer",
                     "lists no quant_algo for model.layers.0.mlp.up_proj");
    fmt_rmtree(dir);
    free(dir);
}

int main(void)
{
    test_modelopt("FP8", 32, 64, 1);
    test_modelopt("FP8_PER_CHANNEL_PER_TOKEN", 24, 40, 2);
    test_modelopt("NVFP4", 32, 128, 3);
    test_modelopt("MXFP8", 16, 96, 4);
    test_fp8_block(256, 384, 128, 128, "F32", 5);
    test_fp8_block(200, 300, 128, 128, "F32", 6); /* partial edge blocks */
    test_fp8_block(64, 192, 32, 64, "F8_E8M0", 7);
    test_gptoss(3, 64, 96, 8);
    test_gptoss(1, 32, 64, 9);
    test_modelopt_mixed();
    fmt_runtime_destroy();
    return fmt_finish("test_format_float");
}
