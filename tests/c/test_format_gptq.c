/* GPTQ checkpoints (AutoGPTQ / optimum layout) -> standard format -> reference dequantizer, for
 * 2/3/4/8 bits, sym and asym, v1 and v2 zero conventions, act-order and not: every element must
 * equal GPTQ's own rule s[g_idx[k]][n] * (q[k][n] - z[g_idx[k]][n]) computed here from the raw
 * values the fixture was written from. */
#include "fixture.h"
#include "formats_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *layer = "model.layers.0.self_attn.q_proj";

typedef struct gptq_case {
    int bits;
    int64_t group_size, n, k;
    int sym, desc_act, v2, bias;
    int gptqmodel; /* v1 zeros written by GPTQModel's whole-word subtraction */
} gptq_case;

typedef struct raw {
    uint8_t *q, *zero;
    uint16_t *scale, *bias;
    int32_t *g_idx;
} raw;

static void make_raw(const gptq_case *c, fmt_rng *r, raw *w)
{
    int64_t n = c->n, k = c->k, gs = c->group_size > 0 ? c->group_size : k, g = (k + gs - 1) / gs;
    int top = (1 << c->bits) - 1;
    w->q = malloc((size_t)(k * n));
    w->zero = malloc((size_t)(g * n));
    w->scale = malloc(sizeof *w->scale * (size_t)(g * n));
    w->bias = malloc(sizeof *w->bias * (size_t)n);
    w->g_idx = malloc(sizeof *w->g_idx * (size_t)k);
    for (int64_t i = 0; i < k * n; i++)
        w->q[i] = (uint8_t)fmt_rand_range(r, 0, top);
    for (int64_t i = 0; i < g * n; i++) {
        /* asym zeros include 0, which v1 stores as -1 (all ones in the field) */
        w->zero[i] = c->sym ? (uint8_t)(1 << (c->bits - 1)) : (uint8_t)fmt_rand_range(r, 0, top);
        w->scale[i] = fx_f16_bits((double)fmt_rand_range(r, -2048, 2047) / 65536.0);
    }
    /* every 3rd zero 0: each one borrows from the field above it in a GPTQModel v1 word */
    if (!c->sym)
        for (int64_t i = 0; i < g * n; i += 3)
            w->zero[i] = 0;
    for (int64_t i = 0; i < n; i++)
        w->bias[i] = fx_f16_bits((double)fmt_rand_range(r, -512, 511) / 64.0);
    /* act-order: columns visited in a random order, groups of gs consecutive visited columns. */
    int32_t *order = malloc(sizeof *order * (size_t)k);
    for (int64_t i = 0; i < k; i++)
        order[i] = (int32_t)i;
    if (c->desc_act)
        for (int64_t i = k - 1; i > 0; i--) {
            int64_t j = fmt_rand_range(r, 0, i);
            int32_t t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    for (int64_t j = 0; j < k; j++)
        w->g_idx[order[j]] = (int32_t)(j / gs);
    free(order);
}

static void free_raw(raw *w)
{
    free(w->q);
    free(w->zero);
    free(w->scale);
    free(w->bias);
    free(w->g_idx);
}

static void run_case(const gptq_case *c, unsigned seed)
{
    char what[160];
    snprintf(what, sizeof what, "gptq%s%s %d-bit g%lld %s%s N=%lld K=%lld", c->v2 ? "_v2" : "",
             c->gptqmodel ? " (GPTQModel)" : "", c->bits, (long long)c->group_size, c->sym ? "sym" : "asym",
             c->desc_act ? " act-order" : "", (long long)c->n, (long long)c->k);
    fmt_rng rng = {seed * 2654435761u + 1};
    raw w;
    make_raw(c, &rng, &w);
    char *dir = fmt_tmpdir("gptq");
    fx_gptq fx = {.bits = c->bits, .group_size = c->group_size, .n = c->n, .k = c->k, .sym = c->sym,
                  .desc_act = c->desc_act, .v2 = c->v2, .gptqmodel = c->gptqmodel, .q = w.q, .zero = w.zero,
                  .scale = w.scale, .g_idx = w.g_idx, .bias = c->bias ? w.bias : NULL};
    FMT_CHECK(fx_write_gptq(dir, layer, &fx) == 0, "%s: writing the fixture", what);
    hum_standard_weight std;
    hum_status s = fmt_load(dir, layer, &std);
    FMT_CHECK(s == HUM_OK, "%s: load: %s", what, hum_last_error());
    if (s == HUM_OK) {
        FMT_CHECK(std.n == c->n && std.k == c->k && std.num_experts == 0, "%s: shape", what);
        FMT_CHECK(std.has_zero_point == !c->sym, "%s: has_zero_point %d", what, std.has_zero_point);
        FMT_CHECK((std.k_perm.data != NULL) == (c->desc_act && c->group_size > 0), "%s: k_perm", what);
        FMT_CHECK((std.bias.data != NULL) == c->bias, "%s: bias", what);
        double *got = fmt_dequant(&std, 0);
        double *want = malloc(sizeof *want * (size_t)(c->n * c->k));
        for (int64_t n = 0; n < c->n; n++)
            for (int64_t k = 0; k < c->k; k++) {
                int64_t g = w.g_idx[k];
                want[n * c->k + k] =
                    fx_f16_value(w.scale[g * c->n + n]) * ((double)w.q[k * c->n + n] - (double)w.zero[g * c->n + n]);
            }
        if (got)
            fmt_compare(got, want, c->n * c->k, 0, what);
        if (c->bias) {
            const uint16_t *b = std.bias.data;
            FMT_CHECK(std.bias.dtype == HUM_DTYPE_FLOAT16 && memcmp(b, w.bias, 2 * (size_t)c->n) == 0,
                      "%s: bias values", what);
        }
        free(got);
        free(want);
        hum_standard_free(&std);
    }
    /* The listing agrees with what was written. */
    hum_layer_list list;
    s = fmt_list(dir, &list);
    FMT_CHECK(s == HUM_OK && list.count == 1, "%s: list: %s", what, hum_last_error());
    if (s == HUM_OK && list.count == 1) {
        const hum_layer_summary *l = &list.items[0];
        FMT_CHECK(strcmp(l->name, layer) == 0 && l->bits == c->bits && l->n == c->n && l->k == c->k &&
                      l->symmetric == c->sym && l->act_order == (c->desc_act && c->group_size > 0) &&
                      l->group_size == (c->group_size > 0 ? c->group_size : 0) &&
                      strcmp(l->format, c->v2 ? "gptq_v2" : "gptq") == 0,
                  "%s: summary %s %s bits %d N %lld K %lld sym %d act %d g %lld", what, l->name, l->format, l->bits,
                  (long long)l->n, (long long)l->k, l->symmetric, l->act_order, (long long)l->group_size);
    }
    hum_layer_list_free(&list);
    fmt_rmtree(dir);
    free(dir);
    free_raw(&w);
}

/* A checkpoint written correctly, then one of its files replaced by a lie. */
static void expect_load_error(const char *what, const char *file, const char *text, hum_status want, const char *needle)
{
    gptq_case c = {.bits = 4, .group_size = 32, .n = 64, .k = 128, .sym = 1};
    fmt_rng rng = {99};
    raw w;
    make_raw(&c, &rng, &w);
    char *dir = fmt_tmpdir("gptq-bad");
    fx_gptq fx = {.bits = 4, .group_size = 32, .n = 64, .k = 128, .sym = 1, .q = w.q, .zero = w.zero,
                  .scale = w.scale, .g_idx = w.g_idx};
    fx_write_gptq(dir, layer, &fx);
    if (file)
        fmt_write_text(fmt_path(dir, file), text);
    /* A lie in config.json alone: without AutoGPTQ's copy, which would contradict it first. */
    if (file && strcmp(file, "config.json") == 0)
        remove(fmt_path(dir, "quantize_config.json"));
    hum_standard_weight std;
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &std), want, what, needle);
    FMT_CHECK(std.weight.data == NULL && std.scale.data == NULL, "%s: partial result left behind", what);
    fmt_rmtree(dir);
    free(dir);
    free_raw(&w);
}

/* Weights without any config file beside them (a bare .safetensors copied out of its checkpoint):
 * the message must not send the user to a config.json that does not exist. */
static void test_no_config_files(void)
{
    gptq_case c = {.bits = 4, .group_size = 32, .n = 64, .k = 128, .sym = 1};
    fmt_rng rng = {99};
    raw w;
    make_raw(&c, &rng, &w);
    char *dir = fmt_tmpdir("gptq-bare");
    fx_gptq fx = {.bits = 4, .group_size = 32, .n = 64, .k = 128, .sym = 1, .q = w.q, .zero = w.zero,
                  .scale = w.scale, .g_idx = w.g_idx};
    fx_write_gptq(dir, layer, &fx);
    remove(fmt_path(dir, "config.json"));
    remove(fmt_path(dir, "quantize_config.json"));
    hum_standard_weight std;
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &std), HUM_ERR_FORMAT, "no config files",
                     "no config.json, hf_quant_config.json, quantize_config.json or quant_config.json beside");
    fmt_rmtree(dir);
    free(dir);
    free_raw(&w);
}

static void test_errors(void)
{
    expect_load_error("unknown method", "config.json", "{\"quantization_config\": {\"quant_method\": \"hqq\"}}",
                      HUM_ERR_FORMAT, "quant_method \"hqq\" is not a format hum converts");
    expect_load_error("contradiction", "quantize_config.json", "{\"bits\": 8, \"group_size\": 32}", HUM_ERR_FORMAT,
                      "quantization_config.bits = 4 but quantize_config.json bits = 8");
    expect_load_error("bad bits", "config.json",
                      "{\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 5, \"group_size\": 32}}",
                      HUM_ERR_FORMAT, "bits is 5");
    /* a missing or string bits is named as such, not printed as "nil" or a bare word */
    expect_load_error("no bits", "config.json",
                      "{\"quantization_config\": {\"quant_method\": \"gptq\", \"group_size\": 32}}",
                      HUM_ERR_FORMAT, "quantization_config.bits is missing, expected 2, 3, 4 or 8");
    expect_load_error("string bits", "config.json",
                      "{\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": \"4\", \"group_size\": 32}}",
                      HUM_ERR_FORMAT, "quantization_config.bits is \"4\" (a string)");
    /* a JSON list where a number or a name belongs is named by its type, not by a Lua address;
     * a group size past int32 (2^64 + 128 here) is refused before it can wrap in C */
    expect_load_error("list bits", "config.json",
                      "{\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": [4], \"group_size\": 32}}",
                      HUM_ERR_FORMAT, "quantization_config.bits is a table, expected 2, 3, 4 or 8");
    expect_load_error("list format", "config.json",
                      "{\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 32, "
                      "\"checkpoint_format\": [\"gptq\"]}}",
                      HUM_ERR_UNSUPPORTED, "GPTQ checkpoint_format a table is not converted");
    expect_load_error("huge group", "config.json",
                      "{\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4, "
                      "\"group_size\": 18446744073709551744}}",
                      HUM_ERR_FORMAT, "group_size = 1.844674407371e+19, expected -1 or a positive integer below 2^31");
    /* a JSON string or number where a boolean belongs: Lua reads "false" and 0 as true */
    expect_load_error("string sym", "config.json",
                      "{\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 32, "
                      "\"sym\": \"false\"}}",
                      HUM_ERR_FORMAT, "quantization_config.sym is \"false\" (a string), expected true or false");
    expect_load_error("numeric marlin flag", "config.json",
                      "{\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 32, "
                      "\"is_marlin_format\": 0}}",
                      HUM_ERR_FORMAT, "quantization_config.is_marlin_format is 0, expected true or false");
    expect_load_error("numeric method", "config.json", "{\"quantization_config\": {\"quant_method\": 5}}",
                      HUM_ERR_FORMAT, "quant_method 5 is not a format hum converts");
    /* a name's newline stays on the message's line */
    expect_load_error("newline format", "config.json",
                      "{\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 32, "
                      "\"checkpoint_format\": \"gptq\\nv3\"}}",
                      HUM_ERR_UNSUPPORTED, "GPTQ checkpoint_format \"gptq\\x0av3\" is not converted");
    expect_load_error("marlin", "config.json",
                      "{\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 32, "
                      "\"checkpoint_format\": \"marlin\"}}",
                      HUM_ERR_UNSUPPORTED, "Marlin");
    expect_load_error("group size lie", "config.json",
                      "{\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 64}}",
                      HUM_ERR_FORMAT, "model.layers.0.self_attn.q_proj.scales has shape [4, 64], expected [2, 64]");
    expect_load_error("bad json", "config.json", "{\"quantization_config\": {", HUM_ERR_FORMAT,
                      "config.json:1: not valid JSON");
    expect_load_error("no method", "config.json", "{\"quantization_config\": {\"bits\": 4}}", HUM_ERR_FORMAT,
                      "has no quant_method");

    /* sym = true with zero points other than the midpoint, and an impossible g_idx. */
    gptq_case c = {.bits = 4, .group_size = 32, .n = 64, .k = 128, .desc_act = 1};
    fmt_rng rng = {7};
    raw w;
    make_raw(&c, &rng, &w);
    char *dir = fmt_tmpdir("gptq-bad");
    fx_gptq fx = {.bits = 4, .group_size = 32, .n = 64, .k = 128, .sym = 1, .desc_act = 1, .q = w.q,
                  .zero = w.zero, .scale = w.scale, .g_idx = w.g_idx};
    fx_write_gptq(dir, layer, &fx);
    hum_standard_weight std;
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &std), HUM_ERR_FORMAT, "sym with asym zeros", "sym = true but qzeros hold");
    fx.sym = 0;
    w.g_idx[5] = w.g_idx[6] == 0 ? 1 : 0; /* one group one channel short, another one too many */
    w.g_idx[6] = w.g_idx[5];
    fx_write_gptq(dir, layer, &fx);
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &std), HUM_ERR_FORMAT, "bad g_idx", "g_idx", "not an act-order grouping");
    FMT_EXPECT_ERROR(fmt_load(dir, "model.layers.9.mlp.up_proj", &std), HUM_ERR_FORMAT, "no such layer",
                     "no quantized layer \"model.layers.9.mlp.up_proj\" (it has 1, e.g. " /* name follows */);
    fmt_rmtree(dir);
    free(dir);
    free_raw(&w);
}

int main(void)
{
    static const gptq_case cases[] = {
        /* bits  gs   N    K   sym act v2 bias gptqmodel */
        {4, 128, 64, 256, 1, 1, 0, 1, 0},  /* the common one: W4 g128 act-order, v1 sym */
        {4, 32, 64, 256, 0, 0, 0, 0, 0},   /* v1 asym: zeros of 0 stored as all-ones fields */
        {4, 32, 64, 256, 0, 1, 1, 1, 0},   /* v2 asym act-order */
        {4, -1, 32, 128, 1, 0, 0, 0, 0},   /* one group over K: channel scales */
        {4, -1, 32, 128, 0, 1, 1, 0, 0},   /* desc_act with a single group is no permutation */
        {3, 32, 96, 256, 1, 0, 0, 0, 0},   /* 3-bit streams straddle words */
        {3, 64, 64, 192, 0, 1, 0, 1, 0},   /* 3-bit asym act-order, v1 */
        {3, 64, 32, 128, 0, 0, 1, 0, 0},
        {2, 32, 64, 128, 1, 1, 0, 0, 0},
        {2, 16, 48, 96, 0, 0, 1, 0, 0},
        {8, 64, 64, 128, 1, 0, 0, 1, 0},
        {8, 32, 32, 128, 0, 1, 0, 0, 0},
        {8, 32, 32, 64, 0, 0, 1, 0, 0},
        /* GPTQModel v1 asym: zeros of 0 borrow across fields, decoded by whole words */
        {4, 32, 64, 256, 0, 0, 0, 0, 1},
        {4, 32, 64, 256, 0, 1, 0, 1, 1},
        {2, 16, 48, 96, 0, 0, 0, 0, 1},
        {8, 32, 32, 128, 0, 0, 0, 0, 1},
        {3, 64, 64, 192, 0, 0, 0, 0, 1}, /* 3-bit: GPTQModel corrects field by field too */
        {4, 128, 64, 256, 1, 1, 0, 1, 1}, /* sym: the word and field rules agree */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], (unsigned)i + 1);
    test_errors();
    test_no_config_files();
    fmt_runtime_destroy();
    return fmt_finish("test_format_gptq");
}
