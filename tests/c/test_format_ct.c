/* compressed-tensors checkpoints -> standard format -> reference dequantizer. Each case writes
 * the exact on-disk layout of one format (pack-quantized in both the <= 0.17 and >= 0.18 layouts,
 * int-, naive-, float-quantized, nvfp4- and mxfp4-pack-quantized) from raw values; every element
 * must equal compressed-tensors' own rule on those values:
 *   int:   (q - zp) * s            (q, zp signed; zp = 0 when symmetric)
 *   float: decode(q) * s
 *   nvfp4: e2m1(q) * e4m3(s) / weight_global_scale
 *   mxfp4: e2m1(q) * 2^(u - 127) */
#include "fixture.h"
#include "formats_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *layer = "model.layers.2.mlp.down_proj";

typedef struct ct_case {
    const char *format, *version, *type, *strategy;
    int bits, sym, actorder;
    int64_t group_size, block_n, block_k, experts, n, k;
    const char *scale_dtype;
    float global;
    const char *act;      /* input_activations JSON (NULL: null) */
    const char *act_text; /* the listing's activations ("" for NULL) */
} ct_case;

static double bf16_random(fmt_rng *r) { return (double)fmt_rand_range(r, -255, 255) / 4096.0; }

static void run_case(const ct_case *c, unsigned seed)
{
    char what[200];
    snprintf(what, sizeof what, "%s %s %s %d-bit %s g%lld %s%s E=%lld N=%lld K=%lld", c->format, c->version, c->type,
             c->bits, c->strategy, (long long)c->group_size, c->sym ? "sym" : "asym", c->actorder ? " actorder" : "",
             (long long)c->experts, (long long)c->n, (long long)c->k);
    fmt_rng r = {seed * 104729u + 11};
    int64_t e = c->experts ? c->experts : 1, n = c->n, k = c->k, total = e * n * k;
    int is_int = strcmp(c->type, "int") == 0, fp4 = !is_int && c->bits == 4;
    int64_t gk = !strcmp(c->strategy, "group") || !strcmp(c->strategy, "tensor_group") ? c->group_size
                 : !strcmp(c->strategy, "block")                                      ? c->block_k
                                                                                      : k;
    int64_t gn = !strcmp(c->strategy, "block") ? c->block_n : 1;
    int64_t rows = !strcmp(c->strategy, "tensor") ? 1 : (n + gn - 1) / gn, cols = (k + gk - 1) / gk;
    int8_t *qi = malloc((size_t)total), *zero = calloc((size_t)(e * n * cols), 1);
    uint8_t *qc = malloc((size_t)total);
    int64_t half = 1 << (c->bits - 1);
    for (int64_t i = 0; i < total; i++) {
        qi[i] = (int8_t)fmt_rand_range(&r, -half, half - 1);
        do
            qc[i] = (uint8_t)fmt_rand_range(&r, 0, fp4 ? 15 : 255);
        while (!fp4 && (qc[i] & 0x7f) == 0x7f); /* e4m3fn NaN codes are not weights */
    }
    if (!c->sym)
        for (int64_t i = 0; i < e * n * cols; i++)
            zero[i] = (int8_t)fmt_rand_range(&r, -half, half - 1);
    /* Scales in their stored dtype, and their values. */
    int64_t ns = !strcmp(c->strategy, "tensor") ? e : e * rows * cols;
    double *sv = malloc(sizeof *sv * (size_t)ns);
    void *scale = malloc(4 * (size_t)ns);
    for (int64_t i = 0; i < ns; i++) {
        if (!strcmp(c->scale_dtype, "F8_E4M3")) {
            uint8_t code = (uint8_t)fmt_rand_range(&r, 0x08, 0x7e);
            ((uint8_t *)scale)[i] = code;
            sv[i] = fx_e4m3_value(code);
        } else if (!strcmp(c->scale_dtype, "U8")) {
            uint8_t u = (uint8_t)fmt_rand_range(&r, 110, 140);
            ((uint8_t *)scale)[i] = u;
            sv[i] = ldexp(1.0, u - 127);
        } else if (!strcmp(c->scale_dtype, "F32")) {
            float v = (float)bf16_random(&r) * 3.0f;
            ((float *)scale)[i] = v;
            sv[i] = v;
        } else {
            sv[i] = bf16_random(&r);
            ((uint16_t *)scale)[i] = !strcmp(c->scale_dtype, "F16") ? fx_f16_bits(sv[i]) : fx_bf16_bits(sv[i]);
        }
    }
    int32_t *g_idx = malloc(sizeof *g_idx * (size_t)k);
    for (int64_t i = 0; i < k; i++)
        g_idx[i] = (int32_t)(i / (c->group_size > 0 ? c->group_size : k));
    if (c->actorder) /* swap channels across groups: each group keeps its size */
        for (int64_t i = 0; i + c->group_size < k; i += 3) {
            int32_t t = g_idx[i];
            g_idx[i] = g_idx[i + c->group_size];
            g_idx[i + c->group_size] = t;
        }
    char *dir = fmt_tmpdir("ct");
    fx_ct fx = {.format = c->format, .version = c->version, .type = c->type, .strategy = c->strategy,
                .bits = c->bits, .sym = c->sym, .actorder = c->actorder, .group_size = c->group_size,
                .block_n = c->block_n, .block_k = c->block_k, .experts = c->experts, .n = n, .k = k, .q_int = qi,
                .q_codes = qc, .zero = zero, .scale = scale, .scale_dtype = c->scale_dtype, .scale_rows = rows,
                .scale_cols = cols, .global = c->global, .g_idx = g_idx, .input_activations = c->act};
    FMT_CHECK(fx_write_ct(dir, layer, &fx) == 0, "%s: fixture", what);
    hum_standard_weight w;
    hum_status st = fmt_load(dir, layer, &w);
    FMT_CHECK(st == HUM_OK, "%s: load: %s", what, hum_last_error());
    if (st == HUM_OK) {
        FMT_CHECK(w.num_experts == c->experts && w.n == n && w.k == k, "%s: dims", what);
        double *want = malloc(sizeof *want * (size_t)(n * k));
        for (int64_t x = 0; x < e; x++) {
            double *got = fmt_dequant(&w, x);
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < k; j++) {
                    int64_t at = (x * n + i) * k + j, grp = c->actorder ? g_idx[j] : j / gk;
                    double s = !strcmp(c->strategy, "tensor") ? sv[x] : sv[(x * rows + i / gn) * cols + grp];
                    double v;
                    if (is_int)
                        v = ((double)qi[at] - (double)zero[(x * n + i) * cols + grp]) * s;
                    else if (fp4)
                        v = fx_e2m1_value(qc[at]) * s;
                    else
                        v = fx_e4m3_value(qc[at]) * s;
                    if (!strcmp(c->format, "nvfp4-pack-quantized"))
                        v = v / (double)c->global;
                    want[i * k + j] = v;
                }
            /* nvfp4: the standard global scale is 1/weight_global_scale rounded to float32, so
             * the product may differ from the division by one float32 rounding. */
            double tol = !strcmp(c->format, "nvfp4-pack-quantized") ? ldexp(1.0, -24) : 0;
            if (got)
                fmt_compare(got, want, n * k, tol, what);
            free(got);
        }
        free(want);
        /* the activation scheme: static per-tensor ones carry the fixture's input_scale 2^-4 */
        const char *text = c->act_text ? c->act_text : "";
        const int tensor_act = strstr(text, "tensor") != NULL;
        FMT_CHECK((w.act_dtype != 0) == (text[0] != 0) &&
                      (tensor_act ? w.input_scale.data && *(const float *)w.input_scale.data == 0.0625f
                                  : w.input_scale.data == NULL),
                  "%s: activations %s (mode %d, group %d), expected '%s'", what,
                  w.act_dtype ? hum_dtype_name(w.act_dtype) : "none", (int)w.act_scale, (int)w.act_group, text);
        hum_standard_free(&w);
    }
    hum_layer_list list;
    st = fmt_list(dir, &list);
    char fmt_name[80];
    snprintf(fmt_name, sizeof fmt_name, "compressed-tensors/%s", c->format);
    FMT_CHECK(st == HUM_OK && list.count == 1, "%s: listing: %s", what, hum_last_error());
    if (st == HUM_OK && list.count == 1) {
        const hum_layer_summary *l = &list.items[0];
        FMT_CHECK(!strcmp(l->name, layer) && !strcmp(l->format, fmt_name) && l->bits == c->bits && l->n == n &&
                      l->k == k && l->num_experts == c->experts && l->symmetric == c->sym &&
                      l->act_order == c->actorder && !strcmp(l->activations, c->act_text ? c->act_text : ""),
                  "%s: summary %s %s %d '%s'", what, l->name, l->format, l->bits, l->activations);
    }
    hum_layer_list_free(&list);
    fmt_rmtree(dir);
    free(dir);
    free(qi);
    free(qc);
    free(zero);
    free(sv);
    free(scale);
    free(g_idx);
}

/* A 0.18 (dense) 3-bit checkpoint whose config claims 0.17: the word count gives it away. */
static void test_version_lie(void)
{
    int64_t n = 8, k = 96;
    int8_t q[8 * 96] = {0};
    uint16_t s[8 * 3];
    for (int i = 0; i < 24; i++)
        s[i] = fx_bf16_bits(0.5);
    char *dir = fmt_tmpdir("ct-lie");
    fx_ct fx = {.format = "pack-quantized", .version = "0.18.0", .type = "int", .strategy = "group", .bits = 3,
                .sym = 1, .group_size = 32, .n = n, .k = k, .q_int = q, .scale = s, .scale_dtype = "BF16",
                .scale_rows = n, .scale_cols = 3};
    fx_write_ct(dir, layer, &fx);
    size_t size = 0;
    char *cfg = (char *)fmt_read_bytes(fmt_path(dir, "config.json"), &size);
    char *v = cfg ? strstr(cfg, "\"0.18.0\"") : NULL;
    if (v) {
        memcpy(v, "\"0.17.1\"", 8);
        fmt_write_bytes(fmt_path(dir, "config.json"), cfg, size);
    }
    hum_standard_weight w;
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &w), HUM_ERR_FORMAT, "version lie", "weight_packed has 9 words per row",
                     "self-contradictory");
    free(cfg);
    fmt_rmtree(dir);
    free(dir);
}

/* A fresh directory holding one small pack-quantized int4 layer (16 x 64, group 32), whose
 * config.json the caller writes; with `nan_scale` its scale of row 2, group 1 is a NaN. */
static char *small_int4_layer(const char *name, int nan_scale)
{
    int64_t n = 16, k = 64;
    int8_t q[16 * 64];
    uint16_t s[16 * 2];
    for (int i = 0; i < n * k; i++)
        q[i] = (int8_t)(i % 16 - 8);
    for (int i = 0; i < 32; i++)
        s[i] = fx_bf16_bits(0.25);
    if (nan_scale)
        s[2 * 2 + 1] = 0x7FC0; /* bfloat16 NaN */
    char *dir = fmt_tmpdir(name);
    fx_ct fx = {.format = "pack-quantized", .version = "0.18.0", .type = "int", .strategy = "group", .bits = 4,
                .sym = 1, .group_size = 32, .n = n, .k = k, .q_int = q, .scale = s, .scale_dtype = "BF16",
                .scale_rows = n, .scale_cols = 2};
    fx_write_ct(dir, layer, &fx);
    return dir;
}

/* Config groups chosen by target: exact name over regex over class name; ties and regexes
 * outside the supported subset are named. */
static void test_targets(void)
{
    char *dir = small_int4_layer("ct-targets", 0);
    static const char *fmt =
        "{\"quantization_config\": {\"quant_method\": \"compressed-tensors\", \"format\": \"pack-quantized\", "
        "\"version\": \"0.18.0\", \"quantization_status\": \"compressed\", \"ignore\": [\"lm_head\"], "
        "\"config_groups\": {\"group_0\": {\"targets\": [%s], \"weights\": {\"num_bits\": 8, \"type\": \"int\", "
        "\"symmetric\": true, \"strategy\": \"channel\"}}, \"group_1\": {\"targets\": [%s], \"weights\": "
        "{\"num_bits\": 4, \"type\": \"int\", \"symmetric\": true, \"strategy\": \"group\", \"group_size\": 32}}}}}";
    static const struct {
        const char *g0, *g1;
        hum_status want;
        const char *needle;
    } cases[] = {
        {"\"Linear\"", "\"re:.*mlp\\\\.down_proj$\"", HUM_OK, NULL},
        {"\"re:.*self_attn.*\"", "\"Linear\"", HUM_OK, NULL},
        {"\"re:.*mlp.*\"", "\"model.layers.2.mlp.down_proj\"", HUM_OK, NULL},
        {"\"re:.*down_proj\"", "\"re:^model\\\\.layers\\\\.\\\\d+\\\\.mlp.*\"", HUM_ERR_FORMAT, "both target layer"},
        {"\"re:.*(up|down)_proj\"", "\"Linear\"", HUM_ERR_UNSUPPORTED, "regex outside the supported subset"},
        /* sixteen ".*" before a letter the name lacks: Lua's backtracking patterns took hours */
        {"\"re:.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*Z\"", "\"Linear\"", HUM_OK, NULL},
        /* lazy quantifiers match where greedy ones do (re.match only asks whether) */
        {"\"Linear\"", "\"re:.*?mlp\\\\.[a-z_]+?proj$\"", HUM_OK, NULL},
        {"\"Linear\"", "\"re:.*??mlp\"", HUM_ERR_UNSUPPORTED, "regex outside the supported subset"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fx_write_json(dir, "config.json", fmt, cases[i].g0, cases[i].g1);
        hum_standard_weight w;
        hum_status st = fmt_load(dir, layer, &w);
        char what[64];
        snprintf(what, sizeof what, "targets case %zu", i);
        if (cases[i].want == HUM_OK) {
            FMT_CHECK(st == HUM_OK && w.group_size == 32, "%s: %s", what, hum_last_error());
            hum_standard_free(&w);
        } else {
            FMT_EXPECT_ERROR(st, cases[i].want, what, cases[i].needle);
        }
    }
    fmt_rmtree(dir);
    free(dir);
}

/* A JSON string or number where a config's boolean belongs is refused by name: Lua reads "false"
 * and 0 as true, which took asymmetric weights for symmetric ones. */
static void test_flags(void)
{
    char *dir = small_int4_layer("ct-flags", 0);
    static const char *fmt =
        "{\"quantization_config\": {\"quant_method\": \"compressed-tensors\", \"format\": \"pack-quantized\", "
        "\"version\": \"0.18.0\", \"quantization_status\": \"compressed\", \"config_groups\": {\"group_0\": "
        "{\"targets\": [\"Linear\"], \"weights\": {\"num_bits\": 4, \"type\": \"int\", \"symmetric\": %s, "
        "\"strategy\": \"group\", \"group_size\": 32}, \"input_activations\": %s}}}}";
    static const struct {
        const char *sym, *act, *needle;
    } cases[] = {
        {"\"false\"", "null",
         "config group \"group_0\": weights.symmetric is \"false\" (a string), expected true or false"},
        {"true", "{\"num_bits\": 8, \"type\": \"float\", \"strategy\": \"token\", \"symmetric\": 1}",
         "config group \"group_0\": input_activations.symmetric is 1, expected true or false"},
        {"true", "{\"num_bits\": 8, \"type\": \"float\", \"strategy\": \"tensor\", \"dynamic\": \"yes\"}",
         "input_activations.dynamic is \"yes\" (a string), expected true, false or \"local\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fx_write_json(dir, "config.json", fmt, cases[i].sym, cases[i].act);
        hum_standard_weight w;
        char what[64];
        snprintf(what, sizeof what, "flags case %zu", i);
        FMT_EXPECT_ERROR(fmt_load(dir, layer, &w), HUM_ERR_FORMAT, what, cases[i].needle);
    }
    /* a group size that is no whole number was cut (32.5 read as 32) */
    fx_write_json(dir, "config.json",
                  "{\"quantization_config\": {\"quant_method\": \"compressed-tensors\", \"format\": "
                  "\"pack-quantized\", \"version\": \"0.18.0\", \"quantization_status\": \"compressed\", "
                  "\"config_groups\": {\"group_0\": {\"targets\": [\"Linear\"], \"weights\": {\"num_bits\": 4, "
                  "\"type\": \"int\", \"symmetric\": true, \"strategy\": \"group\", \"group_size\": 32.5}}}}}");
    hum_standard_weight w;
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &w), HUM_ERR_FORMAT, "fractional group size",
                     "weights.group_size is 32.5, expected a positive integer below 2^31");
    fmt_rmtree(dir);
    free(dir);
    /* a NaN scale made its whole group NaN, converted without a word */
    dir = small_int4_layer("ct-nan-scale", 1);
    fx_write_json(dir, "config.json",
                  "{\"quantization_config\": {\"quant_method\": \"compressed-tensors\", \"format\": "
                  "\"pack-quantized\", \"version\": \"0.18.0\", \"quantization_status\": \"compressed\", "
                  "\"config_groups\": {\"group_0\": {\"targets\": [\"Linear\"], \"weights\": {\"num_bits\": 4, "
                  "\"type\": \"int\", \"symmetric\": true, \"strategy\": \"group\", \"group_size\": 32}}}}}");
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &w), HUM_ERR_FORMAT, "NaN scale",
                     "the weight's scales hold nan at N 2, K group 1");
    fmt_rmtree(dir);
    free(dir);
}

/* A name longer than the listing's field is shown cut with "...", never as a shorter name that
 * --layer would not find (or that another layer's could share). */
static void test_long_name(void)
{
    char name[9000];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    memcpy(name, "model.layers.0.", 15);
    int8_t q[16 * 64] = {0};
    uint16_t s[16 * 2];
    for (int i = 0; i < 32; i++)
        s[i] = fx_bf16_bits(0.25);
    char *dir = fmt_tmpdir("ct-long-name");
    fx_ct fx = {.format = "pack-quantized", .version = "0.18.0", .type = "int", .strategy = "group", .bits = 4,
                .sym = 1, .group_size = 32, .n = 16, .k = 64, .q_int = q, .scale = s, .scale_dtype = "BF16",
                .scale_rows = 16, .scale_cols = 2};
    FMT_CHECK(fx_write_ct(dir, name, &fx) == 0, "long name: fixture");
    hum_layer_list list;
    hum_status st = fmt_list(dir, &list);
    FMT_CHECK(st == HUM_OK && list.count == 1, "long name: listing: %s", hum_last_error());
    if (st == HUM_OK && list.count == 1) {
        const char *got = list.items[0].name;
        const size_t cap = sizeof list.items[0].name;
        FMT_CHECK(strlen(got) == cap - 1 && !strncmp(got, name, cap - 4) && !strcmp(got + cap - 4, "..."),
                  "long name: listed as '%.40s...' (%zu bytes), expected the first %zu bytes and \"...\"", got,
                  strlen(got), cap - 4);
        hum_layer_list_free(&list);
    }
    /* the whole name loads, also where a regex target picks its config group (the matcher recursed
     * once per byte of the name and overflowed the stack at 8,500) */
    hum_standard_weight w;
    st = fmt_load(dir, name, &w);
    FMT_CHECK(st == HUM_OK, "long name: load: %s", hum_last_error());
    if (st == HUM_OK)
        hum_standard_free(&w);
    fx_write_json(dir, "config.json",
                  "{\"quantization_config\": {\"quant_method\": \"compressed-tensors\", \"format\": "
                  "\"pack-quantized\", \"version\": \"0.18.0\", \"quantization_status\": \"compressed\", "
                  "\"config_groups\": {\"group_0\": {\"targets\": [\"re:model\\\\..*a$\"], \"weights\": "
                  "{\"num_bits\": 4, \"type\": \"int\", \"symmetric\": true, \"strategy\": \"group\", "
                  "\"group_size\": 32}}}}}");
    st = fmt_load(dir, name, &w);
    FMT_CHECK(st == HUM_OK && w.group_size == 32, "long name by a regex target: load: %s", hum_last_error());
    if (st == HUM_OK)
        hum_standard_free(&w);
    fmt_rmtree(dir);
    free(dir);
}

int main(void)
{
    static const ct_case cases[] = {
        /* format version type strategy bits sym act gs bn bk E N K scale global act act_text */
        {"pack-quantized", "0.18.0", "int", "group", 4, 1, 0, 128, 0, 0, 0, 64, 256, "BF16", 0, NULL, NULL},
        {"pack-quantized", "0.18.0", "int", "group", 4, 0, 1, 32, 0, 0, 0, 48, 128, "BF16", 0, NULL, NULL},
        {"pack-quantized", "0.17.1", "int", "group", 3, 0, 0, 32, 0, 0, 0, 50, 160, "BF16", 0, NULL, NULL},
        {"pack-quantized", "0.18.0", "int", "group", 3, 0, 1, 32, 0, 0, 0, 50, 160, "BF16", 0, NULL, NULL},
        {"pack-quantized", "0.17.0", "int", "channel", 5, 1, 0, 0, 0, 0, 0, 40, 100, "BF16", 0, NULL, NULL},
        {"pack-quantized", "0.18.1", "int", "channel", 6, 0, 0, 0, 0, 0, 0, 24, 70, "F16", 0, NULL, NULL},
        {"pack-quantized", "0.16.0", "int", "group", 7, 1, 0, 16, 0, 0, 0, 16, 64, "BF16", 0, NULL, NULL},
        {"pack-quantized", "0.18.0", "int", "channel", 8, 1, 0, 0, 0, 0, 2, 32, 64, "BF16", 0, NULL, NULL},
        {"pack-quantized", "0.17.1", "int", "group", 2, 0, 0, 64, 0, 0, 3, 16, 128, "BF16", 0, NULL, NULL},
        {"int-quantized", "0.18.0", "int", "channel", 8, 1, 0, 0, 0, 0, 0, 64, 96, "BF16", 0, NULL, NULL},
        {"int-quantized", "0.18.0", "int", "group", 4, 0, 0, 32, 0, 0, 0, 32, 96, "BF16", 0, NULL, NULL},
        {"naive-quantized", "0.18.0", "int", "tensor", 8, 1, 0, 0, 0, 0, 0, 16, 48, "F32", 0, NULL, NULL},
        {"float-quantized", "0.18.0", "float", "tensor", 8, 1, 0, 0, 0, 0, 0, 32, 64, "F32", 0, NULL, NULL},
        {"float-quantized", "0.18.0", "float", "channel", 8, 1, 0, 0, 0, 0, 0, 32, 72, "BF16", 0, NULL, NULL},
        {"float-quantized", "0.18.0", "float", "block", 8, 1, 0, 0, 128, 128, 0, 200, 300, "BF16", 0, NULL, NULL},
        {"naive-quantized", "0.18.0", "float", "channel", 8, 1, 0, 0, 0, 0, 0, 8, 40, "BF16", 0, NULL, NULL},
        {"nvfp4-pack-quantized", "0.18.0", "float", "tensor_group", 4, 1, 0, 16, 0, 0, 0, 32, 128, "F8_E4M3", 3000.5f,
         NULL, NULL},
        {"nvfp4-pack-quantized", "0.18.0", "float", "tensor_group", 4, 1, 0, 16, 0, 0, 2, 16, 64, "F8_E4M3", 2048.0f,
         NULL, NULL},
        {"mxfp4-pack-quantized", "0.18.0", "float", "group", 4, 1, 0, 32, 0, 0, 0, 32, 128, "U8", 0, NULL, NULL},
        /* W8A8 and W4A4: the input_activations of the config group */
        {"float-quantized", "0.18.0", "float", "tensor", 8, 1, 0, 0, 0, 0, 0, 32, 64, "F32", 0,
         "{\"num_bits\": 8, \"type\": \"float\", \"strategy\": \"tensor\", \"dynamic\": false, \"symmetric\": true}",
         "e4m3 tensor"},
        {"float-quantized", "0.18.0", "float", "channel", 8, 1, 0, 0, 0, 0, 0, 32, 72, "BF16", 0,
         "{\"num_bits\": 8, \"type\": \"float\", \"strategy\": \"token\", \"dynamic\": true, \"symmetric\": true}",
         "e4m3 token"},
        {"float-quantized", "0.18.0", "float", "block", 8, 1, 0, 0, 128, 128, 0, 200, 300, "BF16", 0,
         "{\"num_bits\": 8, \"type\": \"float\", \"strategy\": \"group\", \"group_size\": 128, \"dynamic\": true}",
         "e4m3 group 128"},
        {"int-quantized", "0.18.0", "int", "channel", 8, 1, 0, 0, 0, 0, 0, 64, 96, "BF16", 0,
         "{\"num_bits\": 8, \"type\": \"int\", \"strategy\": \"token\", \"dynamic\": true, \"symmetric\": true}",
         "int8 token"},
        {"int-quantized", "0.18.0", "int", "channel", 8, 1, 0, 0, 0, 0, 0, 64, 96, "BF16", 0,
         "{\"num_bits\": 8, \"type\": \"int\", \"strategy\": \"tensor\", \"dynamic\": false, \"symmetric\": true}",
         "int8 tensor"},
        {"naive-quantized", "0.18.0", "int", "channel", 8, 1, 0, 0, 0, 0, 0, 16, 48, "BF16", 0,
         "{\"num_bits\": 8, \"type\": \"int\", \"strategy\": \"tensor\", \"dynamic\": true, \"symmetric\": true}",
         "int8 token"},
        /* asymmetric activations are not a scheme hum runs: weight-only */
        {"int-quantized", "0.18.0", "int", "channel", 8, 1, 0, 0, 0, 0, 0, 64, 96, "BF16", 0,
         "{\"num_bits\": 8, \"type\": \"int\", \"strategy\": \"token\", \"dynamic\": true, \"symmetric\": false}",
         NULL},
        {"nvfp4-pack-quantized", "0.18.0", "float", "tensor_group", 4, 1, 0, 16, 0, 0, 0, 32, 128, "F8_E4M3", 3000.5f,
         "{\"num_bits\": 4, \"type\": \"float\", \"strategy\": \"tensor_group\", \"group_size\": 16, "
         "\"dynamic\": \"local\", \"symmetric\": true}",
         "nvfp4"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], (unsigned)i + 1);
    test_version_lie();
    test_targets();
    test_flags();
    test_long_name();
    fmt_runtime_destroy();
    return fmt_finish("test_format_ct");
}
