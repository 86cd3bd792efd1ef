/* `hum inspect` and conversion agree: a layer the listing shows as convertible converts, and one
 * that cannot be converted is listed with the reason `--layer` gives, never left out. Each case
 * writes a fixture checkpoint as its producer does and then breaks it one way:
 *   - a quantized weight whose companion tensor is missing (FP8 block scales, ModelOpt and
 *     compressed-tensors scales, BitNet's scale, gpt-oss _scales): listed as not convertible,
 *     naming the weight and the missing tensor (the layer vanished from the listing before);
 *     GPTQ's qzeros named the same way;
 *   - header facts a conversion refuses: ModelOpt NVFP4 weight_scale_2 of two values, a scalar
 *     global scale that is infinite or past float32 (ModelOpt FP8, BitNet's 1 / weight_scale),
 *     a stored divisor of 0 or inf (compressed-tensors NVFP4's global, BitNet's weight_scale),
 *     quantization_status "frozen", a weight of N = 0,
 *     an expert set with one expert broken or shaped unlike expert 0: refused by the listing
 *     with the reason --layer gives (they were listed as convertible before);
 *   - values only a conversion reads (BitNet codes out of range): listed, with the note that
 *     says so, and values_checked false in --json; --layer refuses the layer. */
#define _POSIX_C_SOURCE 200809L
#include "cli_test.h"
#include "fixture.h"
#include "formats_support.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *layer = "model.layers.0.mlp.up_proj";

/* Rewrites dir/model.safetensors without the tensor `drop` (NULL: none) and with `add` (NULL: none)
 * in place of the tensor of its name. */
static void rewrite(const char *dir, const char *drop, const hum_safetensors_tensor *add)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    hum_safetensors *st = NULL;
    FMT_CHECK(hum_safetensors_open(path, &st) == HUM_OK, "open %s: %s", path, hum_last_error());
    if (!st)
        return;
    int64_t count = hum_safetensors_count(st), kept = 0;
    hum_safetensors_tensor *t = calloc((size_t)count + 1, sizeof *t);
    for (int64_t i = 0; i < count; i++) {
        hum_safetensors_tensor x;
        if (hum_safetensors_get(st, i, &x) != HUM_OK)
            continue;
        if ((drop && !strcmp(x.name, drop)) || (add && !strcmp(x.name, add->name)))
            continue;
        t[kept++] = x;
    }
    if (add)
        t[kept++] = *add;
    FMT_CHECK(hum_safetensors_write(path, t, kept, NULL) == HUM_OK, "rewrite %s: %s", path, hum_last_error());
    free(t);
    hum_safetensors_close(st);
}

/* The listing's entry for `name` in `list`, or NULL. */
static const hum_layer_summary *entry(const hum_layer_list *list, const char *name)
{
    for (int64_t i = 0; i < list->count; i++)
        if (!strcmp(list->items[i].name, name))
            return &list->items[i];
    return NULL;
}

/* `name` is listed as not convertible, with every needle (NULL-terminated) in the reason; the reason
 * is the one loading the layer gives; `hum inspect DIR` prints it on the layer's line and exits 0. */
static void refused(const char *dir, const char *name, const char *what, ...)
{
    hum_layer_list list = {0};
    hum_status s = fmt_list(dir, &list);
    FMT_CHECK(s == HUM_OK, "%s: listing: %s", what, hum_last_error());
    const hum_layer_summary *l = entry(&list, name);
    FMT_CHECK(l && l->error[0], "%s: %s %s in the listing (%lld entries)", what, name,
              l ? "is convertible" : "is missing", (long long)list.count);
    va_list ap;
    va_start(ap, what);
    for (const char *needle; l && (needle = va_arg(ap, const char *)) != NULL;)
        FMT_CHECK(strstr(l->error, needle), "%s: the listed reason lacks \"%s\": %s", what, needle, l->error);
    va_end(ap);
    hum_standard_weight w;
    s = fmt_load(dir, name, &w);
    FMT_CHECK(s != HUM_OK, "%s: %s converts although the listing refuses it", what, name);
    if (s == HUM_OK)
        hum_standard_free(&w);
    else if (l && l->error[0])
        FMT_CHECK(strstr(hum_last_error(), l->error), "%s: --layer says\n  %s\nthe listing\n  %s", what,
                  hum_last_error(), l->error);
    char args[8192];
    snprintf(args, sizeof args, "inspect %s", dir);
    const int rc = cli_hum(args);
    printf("$ hum %s\n%s\n", args, cli_output);
    const char *line = strstr(cli_output, name);
    FMT_CHECK(rc == 0 && line && strstr(line, "cannot be converted: ") && strstr(cli_output, "1 of which cannot"),
              "%s: hum inspect (exit %d):\n%s", what, rc, cli_output);
    hum_layer_list_free(&list);
}

/* --- missing companions ---------------------------------------------------------------------- */

static void missing_fp8_block_scales(void)
{
    uint8_t codes[128 * 128] = {0};
    float scale = 0.5f;
    char *dir = fmt_tmpdir("agree-fp8");
    fx_fp8_block fx = {.n = 128, .k = 128, .block_n = 128, .block_k = 128, .codes = codes, .scale = &scale,
                       .scale_dtype = "F32"};
    FMT_CHECK(fx_write_fp8_block(dir, layer, &fx) == 0, "fp8 fixture");
    rewrite(dir, fx_name(layer, "weight_scale_inv"), NULL);
    refused(dir, layer, "fp8 without weight_scale_inv", "tensor model.layers.0.mlp.up_proj.weight (F8_E4M3 [128, 128])",
            "has no model.layers.0.mlp.up_proj.weight_scale_inv beside it (its block scales)", NULL);
    /* the dense BF16 weights beside it (embeddings, lm_head) have no scale either: no layers */
    hum_layer_list list = {0};
    FMT_CHECK(fmt_list(dir, &list) == HUM_OK && list.count == 1, "fp8: %lld layers listed, expected 1",
              (long long)list.count);
    hum_layer_list_free(&list);
    fmt_rmtree(dir);
    free(dir);
}

static void missing_modelopt_scales(const char *algo)
{
    uint8_t codes[32 * 64] = {0}, scale8[32 * 4] = {0};
    float scale = 0.25f;
    char *dir = fmt_tmpdir("agree-modelopt");
    int nvfp4 = !strcmp(algo, "NVFP4");
    fx_modelopt fx = {.algo = algo, .n = 32, .k = 64, .group_size = 16, .codes = codes,
                      .scale = nvfp4 ? (const void *)scale8 : (const void *)&scale, .scale_2 = 0.5f};
    FMT_CHECK(fx_write_modelopt(dir, layer, &fx) == 0, "modelopt fixture");
    rewrite(dir, fx_name(layer, "weight_scale"), NULL);
    char what[64];
    snprintf(what, sizeof what, "modelopt %s without weight_scale", algo);
    refused(dir, layer, what, nvfp4 ? "model.layers.0.mlp.up_proj.weight (U8 [32, 32])"
                                    : "model.layers.0.mlp.up_proj.weight (F8_E4M3 [32, 64])",
            "has no model.layers.0.mlp.up_proj.weight_scale beside it", NULL);
    fmt_rmtree(dir);
    free(dir);
}

static void missing_bitnet_scale(void)
{
    int8_t t[16 * 32] = {0};
    char *dir = fmt_tmpdir("agree-bitnet");
    fx_bitnet fx = {.n = 16, .k = 32, .t = t, .scale = fx_bf16_bits(1.5), .linear_class = "bitlinear"};
    FMT_CHECK(fx_write_bitnet(dir, layer, &fx) == 0, "bitnet fixture");
    rewrite(dir, fx_name(layer, "weight_scale"), NULL);
    refused(dir, layer, "bitnet without weight_scale", "model.layers.0.mlp.up_proj.weight (U8 [4, 32])",
            "has no model.layers.0.mlp.up_proj.weight_scale beside it (its scale)", NULL);
    fmt_rmtree(dir);
    free(dir);
}

static void missing_gptoss_scales(void)
{
    const char *proj = "model.layers.0.mlp.experts.down_proj";
    uint8_t codes[2 * 8 * 32] = {0}, scales[2 * 8] = {0};
    uint16_t bias[2 * 8] = {0};
    char *dir = fmt_tmpdir("agree-gptoss");
    fx_gptoss fx = {.experts = 2, .n = 8, .k = 32, .codes = codes, .scales = scales, .bias = bias};
    FMT_CHECK(fx_write_gptoss(dir, proj, &fx) == 0, "gpt-oss fixture");
    char scales_name[128];
    snprintf(scales_name, sizeof scales_name, "%s_scales", proj);
    rewrite(dir, scales_name, NULL);
    refused(dir, proj, "gpt-oss without _scales", "model.layers.0.mlp.experts.down_proj_blocks (U8 [2, 8, 1, 16])",
            "has no model.layers.0.mlp.experts.down_proj_scales beside it", NULL);
    fmt_rmtree(dir);
    free(dir);
}

static void missing_ct_scale(void)
{
    uint8_t codes[16 * 32] = {0};
    uint16_t scale[16];
    for (int i = 0; i < 16; i++)
        scale[i] = fx_bf16_bits(0.5);
    char *dir = fmt_tmpdir("agree-ct");
    fx_ct fx = {.format = "float-quantized", .version = "0.18.0", .type = "float", .strategy = "channel", .bits = 8,
                .sym = 1, .n = 16, .k = 32, .q_codes = codes, .scale = scale, .scale_dtype = "BF16",
                .scale_rows = 16, .scale_cols = 1};
    FMT_CHECK(fx_write_ct(dir, layer, &fx) == 0, "compressed-tensors fixture");
    rewrite(dir, fx_name(layer, "weight_scale"), NULL);
    refused(dir, layer, "compressed-tensors float-quantized without weight_scale",
            "model.layers.0.mlp.up_proj.weight (F8_E4M3 [16, 32])",
            "has no model.layers.0.mlp.up_proj.weight_scale beside it", NULL);
    fmt_rmtree(dir);
    free(dir);
}

static void missing_gptq_zeros(void)
{
    uint8_t q[32 * 64] = {0}, zero[32] = {0};
    uint16_t scale[32];
    int32_t g_idx[64] = {0};
    for (int i = 0; i < 32; i++)
        scale[i] = fx_f16_bits(0.5), zero[i] = 8;
    char *dir = fmt_tmpdir("agree-gptq");
    fx_gptq fx = {.bits = 4, .group_size = -1, .n = 32, .k = 64, .sym = 1, .q = q, .zero = zero, .scale = scale,
                  .g_idx = g_idx};
    FMT_CHECK(fx_write_gptq(dir, layer, &fx) == 0, "gptq fixture");
    rewrite(dir, fx_name(layer, "qzeros"), NULL);
    refused(dir, layer, "gptq without qzeros", "tensor model.layers.0.mlp.up_proj.qweight (I32 [8, 32])",
            "has no model.layers.0.mlp.up_proj.qzeros beside it (its zero points)", NULL);
    fmt_rmtree(dir);
    free(dir);
}

/* --- header facts the listing checks as conversion does ----------------------------------------- */

static void modelopt_header_facts(void)
{
    uint8_t codes[32 * 64] = {0}, scale8[32 * 4] = {0};
    char *dir = fmt_tmpdir("agree-modelopt-s2");
    fx_modelopt fx = {.algo = "NVFP4", .n = 32, .k = 64, .group_size = 16, .codes = codes, .scale = scale8,
                      .scale_2 = 0.5f};
    FMT_CHECK(fx_write_modelopt(dir, layer, &fx) == 0, "modelopt fixture");
    const float two[2] = {0.5f, 0.25f};
    hum_safetensors_tensor s2 = {.name = fx_name(layer, "weight_scale_2"), .dtype = HUM_DTYPE_FLOAT32, .rank = 1,
                                 .shape = {2}, .data = two};
    rewrite(dir, NULL, &s2);
    refused(dir, layer, "NVFP4 weight_scale_2 of two values",
            "model.layers.0.mlp.up_proj.weight_scale_2 must be a scalar (it holds 2 values)", NULL);
    fmt_rmtree(dir);
    free(dir);

    float inf = INFINITY;
    dir = fmt_tmpdir("agree-modelopt-inf");
    fx_modelopt fp8 = {.algo = "FP8", .n = 32, .k = 64, .codes = codes, .scale = &inf};
    FMT_CHECK(fx_write_modelopt(dir, layer, &fp8) == 0, "modelopt fixture");
    refused(dir, layer, "FP8 weight_scale inf",
            "tensor model.layers.0.mlp.up_proj.weight_scale holds inf, expected a global scale >= 0 that float32 "
            "holds",
            NULL);
    fmt_rmtree(dir);
    free(dir);

    /* a static scheme's input_scale missing: named as what the scheme asks for */
    float one = 1.0f;
    dir = fmt_tmpdir("agree-modelopt-static");
    fp8.scale = &one;
    FMT_CHECK(fx_write_modelopt(dir, layer, &fp8) == 0, "modelopt fixture");
    rewrite(dir, fx_name(layer, "input_scale"), NULL);
    refused(dir, layer, "FP8 without input_scale",
            "has no model.layers.0.mlp.up_proj.input_scale beside it (the static activation scale of quant_algo FP8)",
            NULL);
    fmt_rmtree(dir);
    free(dir);
}

/* BitLinear divides by weight_scale: 1 / the smallest bfloat16 is past float32, and 1 / inf
 * (bfloat16 0x7F80) made a weight of zeros. */
static void bitnet_tiny_scale(void)
{
    int8_t t[16 * 32] = {0};
    char *dir = fmt_tmpdir("agree-bitnet-tiny");
    fx_bitnet fx = {.n = 16, .k = 32, .t = t, .scale = 0x0001, .linear_class = "bitlinear"};
    FMT_CHECK(fx_write_bitnet(dir, layer, &fx) == 0, "bitnet fixture");
    refused(dir, layer, "bitnet 1 / tiny weight_scale", "tensor model.layers.0.mlp.up_proj.weight_scale holds ",
            "expected a global scale >= 0 that float32 holds once inverted", NULL);
    fx.scale = 0x7F80;
    FMT_CHECK(fx_write_bitnet(dir, layer, &fx) == 0, "bitnet fixture");
    refused(dir, layer, "bitnet weight_scale inf",
            "tensor model.layers.0.mlp.up_proj.weight_scale holds inf, expected a finite positive divisor", NULL);
    fmt_rmtree(dir);
    free(dir);
}

static void ct_header_facts(void)
{
    uint8_t codes[16 * 32] = {0}, scale8[16 * 2] = {0};
    char *dir = fmt_tmpdir("agree-ct-nvfp4");
    fx_ct fx = {.format = "nvfp4-pack-quantized", .version = "0.18.0", .type = "float", .strategy = "tensor_group",
                .bits = 4, .sym = 1, .group_size = 16, .n = 16, .k = 32, .q_codes = codes, .scale = scale8,
                .scale_dtype = "F8_E4M3", .scale_rows = 16, .scale_cols = 2, .global = 0.0f};
    FMT_CHECK(fx_write_ct(dir, layer, &fx) == 0, "compressed-tensors fixture");
    refused(dir, layer, "compressed-tensors NVFP4 global 0",
            "tensor model.layers.0.mlp.up_proj.weight_global_scale holds 0, expected a finite positive divisor", NULL);
    fx.global = INFINITY; /* 1 / inf made a weight of zeros */
    FMT_CHECK(fx_write_ct(dir, layer, &fx) == 0, "compressed-tensors fixture");
    refused(dir, layer, "compressed-tensors NVFP4 global inf",
            "tensor model.layers.0.mlp.up_proj.weight_global_scale holds inf, expected a finite positive divisor", NULL);
    /* a checkpoint-wide refusal is every layer's reason */
    fx.global = 448.0f;
    FMT_CHECK(fx_write_ct(dir, layer, &fx) == 0, "compressed-tensors fixture");
    size_t size = 0;
    unsigned char *bytes = fmt_read_bytes(fmt_path(dir, "config.json"), &size);
    char *config = bytes ? calloc(size + 1, 1) : NULL; /* as a string */
    if (config)
        memcpy(config, bytes, size);
    free(bytes);
    char *status = config ? strstr(config, "\"quantization_status\": \"compressed\"") : NULL;
    FMT_CHECK(status != NULL, "the fixture's quantization_status");
    if (status) {
        memcpy(strstr(status, "\"compressed\""), "\"frozen\"    ", 12);
        fmt_write_text(fmt_path(dir, "config.json"), config);
        refused(dir, layer, "compressed-tensors quantization_status frozen", "quantization_status \"frozen\"",
                "only compressed checkpoints hold quantized weights", NULL);
    }
    free(config);
    fmt_rmtree(dir);
    free(dir);
}

static void empty_weight(void)
{
    uint8_t codes[1] = {0};
    float scale = 0.5f;
    char *dir = fmt_tmpdir("agree-empty");
    fx_fp8_block fx = {.n = 0, .k = 128, .block_n = 128, .block_k = 128, .codes = codes, .scale = &scale,
                       .scale_dtype = "F32"};
    FMT_CHECK(fx_write_fp8_block(dir, layer, &fx) == 0, "fp8 fixture");
    refused(dir, layer, "fp8 weight of N = 0", "the checkpoint's tensors give an empty weight: N = 0, K = 128", NULL);
    fmt_rmtree(dir);
    free(dir);
}

/* Experts 0 and 1 of an FP8 block set; expert 1's weight [n1, 128] with block scales [rows1, 1]. */
static char *expert_set(int64_t n1, int64_t rows1)
{
    static uint8_t codes[256 * 128];
    static const float scales[2] = {0.5f, 0.25f};
    char *dir = fmt_tmpdir("agree-experts");
    fx_fp8_block fx = {.n = 128, .k = 128, .block_n = 128, .block_k = 128, .codes = codes, .scale = scales,
                       .scale_dtype = "F32"};
    FMT_CHECK(fx_write_fp8_block(dir, "model.layers.0.mlp.experts.0.up_proj", &fx) == 0, "fp8 fixture");
    hum_safetensors_tensor w = {.name = "model.layers.0.mlp.experts.1.up_proj.weight", .dtype_name = "F8_E4M3",
                                .rank = 2, .shape = {n1, 128}, .data = codes};
    hum_safetensors_tensor s = {.name = "model.layers.0.mlp.experts.1.up_proj.weight_scale_inv",
                                .dtype = HUM_DTYPE_FLOAT32, .rank = 2, .shape = {rows1, 1}, .data = scales};
    rewrite(dir, NULL, &w);
    rewrite(dir, NULL, &s);
    return dir;
}

static void expert_sets(void)
{
    const char *set = "model.layers.0.mlp.experts.*.up_proj";
    char *dir = expert_set(128, 1);
    hum_layer_list list = {0};
    FMT_CHECK(fmt_list(dir, &list) == HUM_OK && list.count == 1 && !list.items[0].error[0] &&
                  list.items[0].num_experts == 2,
              "a sound set of 2 experts: %s", list.count ? list.items[0].error : hum_last_error());
    hum_layer_list_free(&list);
    fmt_rmtree(dir);
    free(dir);
    dir = expert_set(128, 2);
    refused(dir, set, "expert 1 with block scales of the wrong shape",
            "model.layers.0.mlp.experts.1.up_proj.weight_scale_inv has shape [2, 1], expected [1, 1]", NULL);
    fmt_rmtree(dir);
    free(dir);
    dir = expert_set(256, 2);
    refused(dir, set, "expert 1 of another N", "expert 1 differs from expert 0 in n (256 vs 128)", NULL);
    fmt_rmtree(dir);
    free(dir);
}

/* --- values only a conversion reads ------------------------------------------------------------- */

static void bitnet_codes_out_of_range(void)
{
    int8_t t[16 * 32] = {0};
    char *dir = fmt_tmpdir("agree-bitnet-codes");
    fx_bitnet fx = {.n = 16, .k = 32, .t = t, .scale = fx_bf16_bits(1.5), .linear_class = "bitlinear"};
    FMT_CHECK(fx_write_bitnet(dir, layer, &fx) == 0, "bitnet fixture");
    uint8_t bytes[4 * 32];
    memset(bytes, 0x55, sizeof bytes); /* every field 1: t = 0 */
    bytes[5] = 0xFF;                   /* field 3: no ternary value */
    hum_safetensors_tensor w = {.name = fx_name(layer, "weight"), .dtype_name = "U8", .rank = 2, .shape = {4, 32},
                                .data = bytes};
    rewrite(dir, NULL, &w);
    char args[8192];
    snprintf(args, sizeof args, "inspect %s", dir);
    int rc = cli_hum(args);
    printf("$ hum %s\n%s\n", args, cli_output);
    const char *line = strstr(cli_output, layer);
    FMT_CHECK(rc == 0 && line && !strstr(line, "cannot be converted") &&
                  strstr(cli_output, "note: a layer's codes, scales and zero points are checked when it is converted "
                                     "(--layer NAME), not here"),
              "bitnet codes out of range: the listing must carry the note (exit %d):\n%s", rc, cli_output);
    snprintf(args, sizeof args, "inspect %s --json", dir);
    rc = cli_hum(args);
    FMT_CHECK(rc == 0 && strstr(cli_output, "\"values_checked\":\tfalse"), "--json: values_checked (exit %d):\n%s",
              rc, cli_output);
    snprintf(args, sizeof args, "inspect %s --layer %s", dir, layer);
    rc = cli_hum(args);
    FMT_CHECK(rc == 1 && strstr(cli_output, "outside [0, 2]"), "--layer of codes out of range (exit %d):\n%s", rc,
              cli_output);
    /* a converted layer's values were checked */
    rewrite(dir, NULL, &(hum_safetensors_tensor){.name = fx_name(layer, "weight"), .dtype_name = "U8", .rank = 2,
                                                 .shape = {4, 32}, .data = memset(bytes, 0x55, sizeof bytes)});
    snprintf(args, sizeof args, "inspect %s --layer %s --json", dir, layer);
    rc = cli_hum(args);
    FMT_CHECK(rc == 0 && strstr(cli_output, "\"values_checked\":\ttrue"), "--layer --json (exit %d):\n%s", rc,
              cli_output);
    fmt_rmtree(dir);
    free(dir);
}

int main(void)
{
    missing_fp8_block_scales();
    missing_modelopt_scales("NVFP4");
    missing_modelopt_scales("FP8");
    missing_bitnet_scale();
    missing_gptoss_scales();
    missing_ct_scale();
    missing_gptq_zeros();
    modelopt_header_facts();
    bitnet_tiny_scale();
    ct_header_facts();
    empty_weight();
    expert_sets();
    bitnet_codes_out_of_range();
    fmt_runtime_destroy();
    return fmt_finish("test_inspect_agree");
}
