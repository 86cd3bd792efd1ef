/* MoE layers of every quantized format, as the tools that make them store experts:
 *  - one Linear per expert ("...mlp.experts.<e>.gate_proj"), GPTQ (act-order with a g_idx of its
 *    own per expert, as GPTQModel desc_act writes them; sym and asym; 2/3/4/8 bits) and AWQ,
 *    written by libhum's own writers (hum_checkpoint_write_gptq / _awq) from standard weights
 *    the reference quantizer made: the MoE layer "...experts.*.gate_proj" lists once with its
 *    expert count and act-order, loads as [E, ...] with k_perm [E, K], and each expert's
 *    dequantized weight equals the float64 reference of the weight written, exactly;
 *  - fused 3-D compressed-tensors WNA16 ("...mlp.experts.gate_up_proj", weight_packed
 *    [E, N, words]) of 2, 3, 5, 6 and 7 bits, sym and asym, with a weight_g_idx [E, K] per
 *    expert: each expert against w = (q - z) * s[g_idx[k]] computed here from the raw values;
 *  - one module per expert of ModelOpt NVFP4 and DeepSeek FP8 blocks: each expert of the MoE
 *    layer equals the module loaded alone (whose conversion test_format_float checks).
 * An expert map keeps only its experts (hum_layer_load_shard), in its order: modules per expert
 * convert only those modules, fused compressed-tensors and gpt-oss MXFP4 tensors only those
 * experts' slices; a bad id is named. */
#define _GNU_SOURCE
#include "fixture.h"
#include "formats_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *set_name = "model.layers.0.mlp.experts.*.gate_proj";

static char *member(int e)
{
    char *s = NULL;
    if (asprintf(&s, "model.layers.0.mlp.experts.%d.gate_proj", e) < 0)
        abort();
    return s;
}

static int32_t *shuffled(fmt_rng *r, int64_t k)
{
    int32_t *p = malloc(sizeof *p * (size_t)k);
    for (int64_t j = 0; j < k; j++)
        p[j] = (int32_t)j;
    for (int64_t j = k - 1; j > 0; j--) {
        int64_t i = fmt_rand_range(r, 0, j);
        int32_t t = p[j];
        p[j] = p[i];
        p[i] = t;
    }
    return p;
}

/* Each loaded expert against the float64 reference of the weight it was written from. */
static void compare_experts(const hum_standard_weight *moe, const hum_standard_weight *src, const int32_t *ids,
                            int64_t count, const char *what)
{
    for (int64_t x = 0; x < count; x++) {
        double *got = fmt_dequant(moe, x), *want = fmt_dequant(&src[ids ? ids[x] : x], 0);
        char w[256];
        snprintf(w, sizeof w, "%s: expert %lld", what, (long long)(ids ? ids[x] : x));
        if (got && want)
            fmt_compare(got, want, moe->n * moe->k, 0, w);
        free(got);
        free(want);
    }
}

/* --- GPTQ / AWQ: one Linear per expert, written by libhum ---------------------------------- */

typedef struct writer_case {
    const char *what;
    int awq, bits, sym, v2, act_order;
    int64_t group_size; /* 0: channel */
} writer_case;

static void per_expert(const writer_case *c, unsigned seed)
{
    enum { E = 4 };
    const int64_t n = 64, k = 256;
    fmt_rng r = {seed};
    hum_standard_weight src[E];
    char *names[E];
    memset(src, 0, sizeof src);
    float *w = malloc(sizeof *w * (size_t)(n * k)), *bias = malloc(sizeof *bias * (size_t)n);
    for (int e = 0; e < E; e++) {
        for (int64_t i = 0; i < n * k; i++)
            w[i] = (float)fmt_rand_double(&r, -0.05, 0.05);
        for (int64_t i = 0; i < n; i++)
            bias[i] = (float)fmt_rand_double(&r, -1, 1);
        int32_t *perm = c->act_order ? shuffled(&r, k) : NULL;
        hum_quant_spec q = {.weight_dtype = HUM_DTYPE_UINT1 + (c->bits - 1), .param_dtype = HUM_DTYPE_FLOAT16,
                            .scale_type = c->group_size ? HUM_SCALE_GROUP : HUM_SCALE_CHANNEL,
                            .group_size = c->group_size,
                            .zero_point = c->sym ? HUM_ZERO_POINT_NONE : HUM_ZERO_POINT_INT,
                            .bias = c->awq ? NULL : bias, .k_perm = perm};
        FMT_CHECK(hum_quantize_reference(w, n, k, &q, &src[e]) == HUM_OK, "%s: quantize: %s", c->what,
                  hum_last_error());
        names[e] = member(e);
        free(perm);
    }
    char *dir = fmt_tmpdir("moe-writer");
    hum_checkpoint_write_options o = {.gptq_v2 = c->v2, .architecture = "Qwen3MoeForCausalLM"};
    hum_status st = c->awq ? hum_checkpoint_write_awq(dir, (const char *const *)names, src, E, &o)
                           : hum_checkpoint_write_gptq(dir, (const char *const *)names, src, E, &o);
    FMT_CHECK(st == HUM_OK, "%s: write: %s", c->what, hum_last_error());

    hum_layer_list list;
    st = fmt_list(dir, &list);
    FMT_CHECK(st == HUM_OK && list.count == 1 && !strcmp(list.items[0].name, set_name) &&
                  list.items[0].num_experts == E && list.items[0].act_order == c->act_order &&
                  list.items[0].n == n && list.items[0].k == k,
              "%s: listed once with its %d experts: %s", c->what, E, st == HUM_OK ? "" : hum_last_error());
    if (st == HUM_OK)
        hum_layer_list_free(&list);

    hum_standard_weight moe;
    st = fmt_load(dir, set_name, &moe);
    FMT_CHECK(st == HUM_OK, "%s: load: %s", c->what, hum_last_error());
    if (st == HUM_OK) {
        FMT_CHECK(moe.num_experts == E && moe.weight.rank == 3 && moe.weight.shape[0] == E &&
                      (moe.bias.data != NULL) == !c->awq,
                  "%s: stacked shapes", c->what);
        if (c->act_order) {
            FMT_CHECK(moe.k_perm.rank == 2 && moe.k_perm.shape[0] == E && moe.k_perm.shape[1] == k &&
                          memcmp(moe.k_perm.data, (int32_t *)moe.k_perm.data + k, sizeof(int32_t) * (size_t)k) != 0,
                      "%s: one k_perm row per expert", c->what);
        }
        compare_experts(&moe, src, NULL, E, c->what);
        hum_standard_free(&moe);
    }
    /* expert parallelism: experts {3, 1} only, in that order */
    const int32_t local[2] = {3, 1};
    st = hum_layer_load_shard(fmt_runtime(), dir, set_name, &(hum_shard){.experts = local, .expert_count = 2}, &moe);
    FMT_CHECK(st == HUM_OK && moe.num_experts == 2, "%s: experts {3, 1}: %s", c->what, hum_last_error());
    if (st == HUM_OK) {
        char what[160];
        snprintf(what, sizeof what, "%s: experts {3, 1}", c->what);
        compare_experts(&moe, src, local, 2, what);
        hum_standard_free(&moe);
    }
    fmt_rmtree(dir);
    free(dir);
    for (int e = 0; e < E; e++) {
        hum_standard_free(&src[e]);
        free(names[e]);
    }
    free(w);
    free(bias);
}

/* --- compressed-tensors: fused 3-D expert tensors -------------------------------------------- */

/* An expert map {2, 0} of a fused layer: the converter reads only those experts' slices; each
 * equals the whole layer's expert; a bad id is named. */
static void fused_shard(const char *dir, const char *layer, const hum_standard_weight *moe, const char *what)
{
    const int32_t local[2] = {2, 0};
    hum_standard_weight part;
    hum_status st = hum_layer_load_shard(fmt_runtime(), dir, layer, &(hum_shard){.experts = local, .expert_count = 2},
                                         &part);
    FMT_CHECK(st == HUM_OK && part.num_experts == 2, "%s: experts {2, 0}: %s", what, hum_last_error());
    for (int x = 0; st == HUM_OK && x < 2; x++) {
        double *got = fmt_dequant(&part, x), *want = fmt_dequant(moe, local[x]);
        if (got && want)
            fmt_compare(got, want, moe->n * moe->k, 0, what);
        free(got);
        free(want);
    }
    if (st == HUM_OK)
        hum_standard_free(&part);
    const int32_t bad[2] = {0, (int32_t)moe->num_experts};
    FMT_EXPECT_ERROR(hum_layer_load_shard(fmt_runtime(), dir, layer, &(hum_shard){.experts = bad, .expert_count = 2},
                                          &part),
                     HUM_ERR_INVALID_ARG, what, "out of range");
}

static void gptoss(void)
{
    enum { E = 4 };
    const int64_t n = 64, k = 128;
    const char *proj = "model.layers.0.mlp.experts.gate_up_proj";
    fmt_rng r = {41};
    uint8_t *q = malloc((size_t)(E * n * k)), *s = malloc((size_t)(E * n * k / 32));
    uint16_t *bias = malloc(2 * (size_t)(E * n));
    for (int64_t i = 0; i < E * n * k; i++)
        q[i] = (uint8_t)fmt_rand_range(&r, 0, 15);
    for (int64_t i = 0; i < E * n * k / 32; i++)
        s[i] = (uint8_t)fmt_rand_range(&r, 118, 132);
    for (int64_t i = 0; i < E * n; i++)
        bias[i] = fx_bf16_bits((double)fmt_rand_range(&r, -64, 64) / 64.0);
    fx_gptoss fx = {.experts = E, .n = n, .k = k, .codes = q, .scales = s, .bias = bias};
    char *dir = fmt_tmpdir("moe-gptoss");
    FMT_CHECK(fx_write_gptoss(dir, proj, &fx) == 0, "gpt-oss: fixture");
    hum_standard_weight moe;
    hum_status st = fmt_load(dir, proj, &moe);
    FMT_CHECK(st == HUM_OK && moe.num_experts == E, "gpt-oss: load: %s", hum_last_error());
    if (st == HUM_OK) {
        fused_shard(dir, proj, &moe, "gpt-oss mxfp4 experts");
        hum_standard_free(&moe);
    }
    fmt_rmtree(dir);
    free(dir);
    free(q), free(s), free(bias);
}

/* Expert tensors with E = 0 (gpt-oss's _blocks [0, N, K/32, 16]) are refused by name: read as a
 * dense layer they took N x K codes from a tensor of no bytes (a heap overflow in the conversion;
 * compressed-tensors' [E, N, K] weights share the rule, Checkpoint:experts). */
static void no_experts(void)
{
    const int64_t n = 64, k = 128;
    const char *proj = "model.layers.0.mlp.experts.down_proj";
    uint8_t none = 0;
    uint16_t no_bias = 0;
    fx_gptoss fx = {.experts = 0, .n = n, .k = k, .codes = &none, .scales = &none, .bias = &no_bias};
    char *dir = fmt_tmpdir("moe-e0");
    FMT_CHECK(fx_write_gptoss(dir, proj, &fx) == 0, "gpt-oss E = 0: fixture");
    hum_standard_weight w;
    FMT_EXPECT_ERROR(fmt_load(dir, proj, &w), HUM_ERR_FORMAT, "gpt-oss E = 0: load",
                     "model.layers.0.mlp.experts.down_proj_blocks has shape [0, 64, 4, 16]: 0 experts, expected at "
                     "least 1");
    fmt_rmtree(dir);
    free(dir);
}

static void fused_ct(int bits, int sym, int act_order, unsigned seed)
{
    enum { E = 3 };
    const int64_t n = 48, k = 128, gs = 32, g = k / gs, half = 1 << (bits - 1);
    const char *layer = "model.layers.0.mlp.experts.gate_up_proj";
    char what[96];
    snprintf(what, sizeof what, "compressed-tensors fused experts int%d %s%s", bits, sym ? "sym" : "asym",
             act_order ? " act-order" : "");
    fmt_rng r = {seed};
    int8_t *q = malloc((size_t)(E * n * k)), *zero = malloc((size_t)(E * n * g));
    uint16_t *scale = malloc(2 * (size_t)(E * n * g));
    int32_t *g_idx = malloc(sizeof *g_idx * (size_t)(E * k));
    for (int64_t i = 0; i < E * n * k; i++)
        q[i] = (int8_t)fmt_rand_range(&r, -half, half - 1);
    for (int64_t i = 0; i < E * n * g; i++) {
        zero[i] = (int8_t)fmt_rand_range(&r, -half, half - 1);
        scale[i] = fx_bf16_bits((double)fmt_rand_range(&r, 1, 255) / 1024.0);
    }
    for (int x = 0; x < E; x++) { /* expert x: channel perm[j] in group j / gs */
        int32_t *perm = shuffled(&r, k);
        for (int64_t j = 0; j < k; j++)
            g_idx[x * k + perm[j]] = (int32_t)(act_order ? j / gs : perm[j] / gs);
        free(perm);
    }
    fx_ct fx = {.format = "pack-quantized", .version = "0.18.0", .type = "int", .strategy = "group", .bits = bits,
                .sym = sym, .actorder = act_order, .group_size = gs, .experts = E, .n = n, .k = k, .q_int = q,
                .zero = zero, .scale = scale, .scale_dtype = "BF16", .scale_rows = n, .scale_cols = g,
                .g_idx = g_idx};
    char *dir = fmt_tmpdir("moe-ct");
    FMT_CHECK(fx_write_ct(dir, layer, &fx) == 0, "%s: fixture", what);
    hum_layer_list list;
    hum_status st = fmt_list(dir, &list);
    FMT_CHECK(st == HUM_OK && list.count == 1 && !strcmp(list.items[0].name, layer) && list.items[0].num_experts == E &&
                  list.items[0].bits == bits && list.items[0].act_order == act_order,
              "%s: listing", what);
    if (st == HUM_OK)
        hum_layer_list_free(&list);
    hum_standard_weight moe;
    st = fmt_load(dir, layer, &moe);
    FMT_CHECK(st == HUM_OK, "%s: load: %s", what, hum_last_error());
    double *want = malloc(sizeof *want * (size_t)(n * k));
    for (int x = 0; st == HUM_OK && x < E; x++) {
        for (int64_t row = 0; row < n; row++)
            for (int64_t c = 0; c < k; c++) {
                const int64_t grp = g_idx[x * k + c];
                const double z = sym ? 0 : zero[(x * n + row) * g + grp];
                want[row * k + c] = (q[(x * n + row) * k + c] - z) * fx_bf16_value(scale[(x * n + row) * g + grp]);
            }
        double *got = fmt_dequant(&moe, x);
        char w[128];
        snprintf(w, sizeof w, "%s: expert %d", what, x);
        if (got)
            fmt_compare(got, want, n * k, 0, w);
        free(got);
    }
    if (st == HUM_OK) {
        FMT_CHECK(act_order ? moe.k_perm.rank == 2 && moe.k_perm.shape[0] == E : moe.k_perm.data == NULL,
                  "%s: k_perm [E, K]", what);
        fused_shard(dir, layer, &moe, what);
        hum_standard_free(&moe);
    }
    free(want);
    fmt_rmtree(dir);
    free(dir);
    free(q), free(zero), free(scale), free(g_idx);
}

/* --- one module per expert of formats without a libhum writer: merged fixture files ---------- */

typedef int (*module_writer)(const char *dir, const char *layer, int expert, fmt_rng *r);

static int modelopt_nvfp4(const char *dir, const char *layer, int e, fmt_rng *r)
{
    const int64_t n = 32, k = 64;
    uint8_t q[32 * 64], s[32 * 4];
    for (size_t i = 0; i < sizeof q; i++)
        q[i] = (uint8_t)fmt_rand_range(r, 0, 15);
    for (size_t i = 0; i < sizeof s; i++)
        s[i] = (uint8_t)fmt_rand_range(r, 0x20, 0x60);
    /* gate and up of one expert, and experts, carry different global scales (vLLM issue 54974) */
    fx_modelopt fx = {.algo = "NVFP4", .n = n, .k = k, .group_size = 16, .codes = q, .scale = s,
                      .scale_2 = 0.000244140625f * (float)(e + 1)};
    return fx_write_modelopt(dir, layer, &fx);
}

static int fp8_blocks(const char *dir, const char *layer, int e, fmt_rng *r)
{
    (void)e;
    const int64_t n = 256, k = 256;
    uint8_t *q = malloc((size_t)(n * k));
    for (int64_t i = 0; i < n * k; i++) {
        q[i] = (uint8_t)fmt_rand_range(r, 0, 255);
        if ((q[i] & 0x7f) == 0x7f)
            q[i] = 0x3c;
    }
    float s[4];
    for (int i = 0; i < 4; i++)
        s[i] = (float)fmt_rand_range(r, 1, 1 << 12) / 65536.0f;
    fx_fp8_block fx = {.n = n, .k = k, .block_n = 128, .block_k = 128, .codes = q, .scale = s, .scale_dtype = "F32"};
    int rc = fx_write_fp8_block(dir, layer, &fx);
    free(q);
    return rc;
}

/* Writes each expert with `write` into its own directory as "...experts.<e>.gate_proj" and
 * merges them into `dir` (fx_merge). */
static int merge_experts(const char *dir, int count, module_writer write, fmt_rng *r)
{
    char *tmp[8];
    int rc = 0;
    for (int e = 0; e < count; e++) {
        char *m = member(e);
        tmp[e] = fmt_tmpdir("moe-part");
        rc |= write(tmp[e], m, e, r);
        free(m);
    }
    rc |= fx_merge(dir, (const char *const *)tmp, count);
    for (int e = 0; e < count; e++) {
        fmt_rmtree(tmp[e]);
        free(tmp[e]);
    }
    return rc;
}

static void merged(const char *what, module_writer write, unsigned seed)
{
    enum { E = 3 };
    fmt_rng r = {seed};
    char *dir = fmt_tmpdir("moe-merged");
    FMT_CHECK(merge_experts(dir, E, write, &r) == 0, "%s: fixture: %s", what, hum_last_error());
    hum_layer_list list;
    hum_status st = fmt_list(dir, &list);
    FMT_CHECK(st == HUM_OK && list.count == 1 && !strcmp(list.items[0].name, set_name) &&
                  list.items[0].num_experts == E,
              "%s: listed once with its experts", what);
    if (st == HUM_OK)
        hum_layer_list_free(&list);
    hum_standard_weight moe, alone[E];
    memset(alone, 0, sizeof alone);
    st = fmt_load(dir, set_name, &moe);
    FMT_CHECK(st == HUM_OK && moe.num_experts == E, "%s: load: %s", what, hum_last_error());
    for (int e = 0; e < E; e++) {
        char *m = member(e);
        FMT_CHECK(fmt_load(dir, m, &alone[e]) == HUM_OK, "%s: expert %d alone: %s", what, e, hum_last_error());
        free(m);
    }
    if (st == HUM_OK) {
        compare_experts(&moe, alone, NULL, E, what);
        hum_standard_free(&moe);
    }
    for (int e = 0; e < E; e++)
        hum_standard_free(&alone[e]);
    fmt_rmtree(dir);
    free(dir);
}

/* --- gate and up stacked along N into w13 (hum_standard_concat) ------------------------------ */

static void gate_up(int bits, hum_scale_type scale, hum_zero_point_kind zp, int act_order, unsigned seed)
{
    enum { E = 3 };
    const int64_t n = 40, k = 128; /* 40 rows of 3 bits: the zero points' words straddle the parts */
    char what[96];
    snprintf(what, sizeof what, "w13 of uint%d scale %d zp %d%s", bits, (int)scale, (int)zp,
             act_order ? " act-order" : "");
    fmt_rng r = {seed};
    float *w = malloc(sizeof *w * (size_t)(E * n * k)), *bias = malloc(sizeof *bias * (size_t)(E * n));
    int32_t *perm = act_order ? shuffled(&r, k) : NULL;
    hum_standard_weight parts[2], w13;
    for (int p = 0; p < 2; p++) {
        for (int64_t i = 0; i < E * n * k; i++)
            w[i] = (float)fmt_rand_double(&r, -0.05, 0.05);
        for (int64_t i = 0; i < E * n; i++)
            bias[i] = (float)fmt_rand_double(&r, -1, 1);
        hum_quant_spec q = {.num_experts = E, .weight_dtype = HUM_DTYPE_UINT1 + (bits - 1),
                            .param_dtype = HUM_DTYPE_BFLOAT16, .scale_type = scale,
                            .group_size = scale == HUM_SCALE_GROUP ? 32 : 0, .zero_point = zp, .bias = bias,
                            .k_perm = perm};
        FMT_CHECK(hum_quantize_reference(w, n, k, &q, &parts[p]) == HUM_OK, "%s: quantize: %s", what, hum_last_error());
    }
    hum_status st = hum_standard_concat(parts, 2, &w13);
    FMT_CHECK(st == HUM_OK && w13.n == 2 * n && w13.k == k && w13.num_experts == E, "%s: %s", what, hum_last_error());
    for (int x = 0; st == HUM_OK && x < E; x++) {
        double *got = fmt_dequant(&w13, x), *gate = fmt_dequant(&parts[0], x), *up = fmt_dequant(&parts[1], x);
        char wx[128];
        snprintf(wx, sizeof wx, "%s: expert %d", what, x);
        if (got && gate && up) {
            fmt_compare(got, gate, n * k, 0, wx);
            fmt_compare(got + n * k, up, n * k, 0, wx);
        }
        const uint16_t *b = w13.bias.data, *bg = parts[0].bias.data, *bu = parts[1].bias.data;
        FMT_CHECK(!memcmp(b + x * 2 * n, bg + x * n, 2 * (size_t)n) &&
                      !memcmp(b + x * 2 * n + n, bu + x * n, 2 * (size_t)n),
                  "%s: bias rows", wx);
        free(got), free(gate), free(up);
    }
    hum_standard_free(&w13);
    /* parts quantized differently are named */
    hum_standard_weight other;
    hum_quant_spec q = {.num_experts = E, .weight_dtype = HUM_DTYPE_UINT8, .param_dtype = HUM_DTYPE_BFLOAT16,
                        .scale_type = HUM_SCALE_CHANNEL};
    FMT_CHECK(hum_quantize_reference(w, n, k, &q, &other) == HUM_OK, "%s: %s", what, hum_last_error());
    hum_standard_weight mixed[2] = {parts[0], other};
    FMT_EXPECT_ERROR(hum_standard_concat(mixed, 2, &w13), HUM_ERR_UNSUPPORTED, what, "part 1 differs from part 0");
    FMT_CHECK(w13.weight.data == NULL, "%s: a refused concat leaves out zeroed", what);
    hum_standard_free(&other);
    for (int p = 0; p < 2; p++)
        hum_standard_free(&parts[p]);
    free(w), free(bias), free(perm);
}

int main(void)
{
    gate_up(3, HUM_SCALE_GROUP, HUM_ZERO_POINT_INT, 1, 31);
    gate_up(4, HUM_SCALE_CHANNEL, HUM_ZERO_POINT_NONE, 0, 32);
    gate_up(4, HUM_SCALE_GROUP, HUM_ZERO_POINT_FLOAT, 0, 33);
    static const writer_case writers[] = {
        {"gptq int4 g32 asym act-order, own g_idx per expert", 0, 4, 0, 0, 1, 32},
        {"gptq_v2 int3 g64 sym act-order", 0, 3, 1, 1, 1, 64},
        {"gptq int2 g16 asym act-order", 0, 2, 0, 0, 1, 16},
        {"gptq int8 channel sym", 0, 8, 1, 0, 0, 0},
        {"awq int4 g64", 1, 4, 0, 0, 0, 64},
    };
    for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++)
        per_expert(&writers[i], 0x6d6f65u + (unsigned)i);
    static const int widths[] = {2, 3, 5, 6, 7};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        fused_ct(widths[i], 1, 1, 0x700u + (unsigned)i);
        fused_ct(widths[i], 0, i % 2, 0x800u + (unsigned)i);
    }
    merged("modelopt NVFP4 experts", modelopt_nvfp4, 11);
    merged("fp8 128x128 block experts", fp8_blocks, 12);
    gptoss();
    no_experts();
    fmt_runtime_destroy();
    return fmt_finish("test_format_moe");
}
