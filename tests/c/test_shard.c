/* Tensor- and expert-parallel shards (hum_standard_shard) of one checkpoint of every format hum
 * reads (fixture writers: GPTQ with and without act-order, AWQ, compressed-tensors pack-quantized,
 * block FP8, NVFP4 and MXFP4 and MoE, ModelOpt FP8 and NVFP4, DeepSeek FP8 blocks, gpt-oss MXFP4
 * experts, BitNet), with random codes and scales. For every split of N and of K over 1, 2, 4 and
 * 8 ranks, each shard's dequantized weight must equal, bit for bit, the matching slice of the
 * full layer's (its columns in checkpoint order for row shards); the float64 GEMMs of the row
 * shards on their slices of A must sum to the full GEMM, bias once. Splits that would cut a scale
 * group or block are refused, each one listed per case, except act-order ones: a rank holding
 * part of a group stores it as a run padded to 16 columns (k_perm -1), whose codes must be the
 * group's zero, and a layer still plans from such a shard. */
#include "fixture.h"
#include "formats_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *layer = "model.layers.0.mlp.down_proj";

static uint16_t f16_random(fmt_rng *r) { return fx_f16_bits((double)fmt_rand_range(r, 1, 255) / 4096.0); }
static uint16_t bf16_random(fmt_rng *r) { return fx_bf16_bits((double)fmt_rand_range(r, -255, 255) / 4096.0); }

static uint8_t *codes(fmt_rng *r, int64_t count, int lo, int hi)
{
    uint8_t *c = malloc((size_t)(count > 0 ? count : 1));
    for (int64_t i = 0; i < count; i++)
        c[i] = (uint8_t)fmt_rand_range(r, lo, hi);
    return c;
}

static uint8_t *fp8_codes(fmt_rng *r, int64_t count)
{
    uint8_t *c = codes(r, count, 0, 255);
    for (int64_t i = 0; i < count; i++)
        if ((c[i] & 0x7f) == 0x7f)
            c[i] = 0x3c; /* e4m3fn NaN codes are no weights */
    return c;
}

static uint16_t *halves(fmt_rng *r, int64_t count, int bf16)
{
    uint16_t *h = malloc(2 * (size_t)count);
    for (int64_t i = 0; i < count; i++)
        h[i] = bf16 ? bf16_random(r) : f16_random(r);
    return h;
}

/* g_idx of GPTQ act-order: channel perm[j] is in group j / gs; perm shuffles within spans of
 * `span` channels (span K: anywhere). */
static int32_t *act_order_g_idx(fmt_rng *r, int64_t k, int64_t gs, int64_t span)
{
    int32_t *perm = malloc(sizeof *perm * (size_t)k), *g_idx = malloc(sizeof *g_idx * (size_t)k);
    for (int64_t j = 0; j < k; j++)
        perm[j] = (int32_t)j;
    for (int64_t s = 0; s < k; s += span)
        for (int64_t j = span - 1; j > 0; j--) {
            int64_t i = fmt_rand_range(r, 0, j);
            int32_t t = perm[s + j];
            perm[s + j] = perm[s + i];
            perm[s + i] = t;
        }
    for (int64_t j = 0; j < k; j++)
        g_idx[perm[j]] = (int32_t)(j / gs);
    free(perm);
    return g_idx;
}

/* --- writers: one checkpoint per case in `dir`, N x K (x E), random values -------------- */

typedef struct shard_case {
    const char *what;
    int64_t experts, n, k;
    const char *refused; /* splits that must be refused: "c4" = N over 4 ranks, "r8" = K over 8 */
    int (*write)(const struct shard_case *c, const char *dir, fmt_rng *r);
    int bits, sym, v2;
    int64_t group_size, act_span;
    const char *algo;
} shard_case;

static int write_gptq(const shard_case *c, const char *dir, fmt_rng *r)
{
    int64_t n = c->n, k = c->k, gs = c->group_size, g = gs > 0 ? (k + gs - 1) / gs : 1;
    uint8_t *q = codes(r, k * n, 0, (1 << c->bits) - 1);
    uint8_t *zero =
        c->sym ? codes(r, g * n, 1 << (c->bits - 1), 1 << (c->bits - 1)) : codes(r, g * n, 1, (1 << c->bits) - 1);
    uint16_t *scale = halves(r, g * n, 0), *bias = halves(r, n, 0);
    int32_t *g_idx = c->act_span ? act_order_g_idx(r, k, gs, c->act_span) : malloc(sizeof(int32_t) * (size_t)k);
    for (int64_t i = 0; !c->act_span && i < k; i++)
        g_idx[i] = (int32_t)(gs > 0 ? i / gs : 0);
    fx_gptq fx = {.bits = c->bits, .group_size = gs, .n = n, .k = k, .sym = c->sym, .desc_act = c->act_span > 0,
                  .v2 = c->v2, .q = q, .zero = zero, .scale = scale, .g_idx = g_idx, .bias = bias};
    int rc = fx_write_gptq(dir, layer, &fx);
    free(q), free(zero), free(scale), free(bias), free(g_idx);
    return rc;
}

static int write_awq(const shard_case *c, const char *dir, fmt_rng *r)
{
    int64_t n = c->n, k = c->k, g = k / c->group_size;
    uint8_t *q = codes(r, k * n, 0, 15), *zero = codes(r, g * n, 0, 15);
    uint16_t *scale = halves(r, g * n, 0);
    fx_awq fx = {.group_size = c->group_size, .n = n, .k = k, .q = q, .zero = zero, .scale = scale};
    int rc = fx_write_awq(dir, layer, &fx);
    free(q), free(zero), free(scale);
    return rc;
}

/* compressed-tensors: algo names the format; int pack-quantized asym, fp8 blocks, nvfp4, mxfp4. */
static int write_ct(const shard_case *c, const char *dir, fmt_rng *r)
{
    int64_t e = c->experts ? c->experts : 1, n = c->n, k = c->k, total = e * n * k;
    int is_int = !strcmp(c->algo, "pack-quantized"), block = !strcmp(c->algo, "float-quantized");
    int nvfp4 = !strcmp(c->algo, "nvfp4-pack-quantized");
    int64_t gk = block ? 128 : c->group_size, gn = block ? 128 : 1;
    int64_t rows = (n + gn - 1) / gn, cols = (k + gk - 1) / gk, ns = e * rows * cols;
    int8_t *qi = malloc((size_t)total), *zero = malloc((size_t)(e * n * cols));
    for (int64_t i = 0; i < total; i++)
        qi[i] = (int8_t)fmt_rand_range(r, -8, 7);
    for (int64_t i = 0; i < e * n * cols; i++)
        zero[i] = (int8_t)fmt_rand_range(r, -8, 7);
    uint8_t *qc = block ? fp8_codes(r, total) : codes(r, total, 0, 15);
    void *scale;
    const char *dtype;
    if (block) {
        float *s = malloc(4 * (size_t)ns);
        for (int64_t i = 0; i < ns; i++)
            s[i] = (float)fmt_rand_range(r, 1, 1 << 12) / 65536.0f;
        scale = s, dtype = "F32";
    } else if (nvfp4) {
        scale = codes(r, ns, 0x08, 0x7e), dtype = "F8_E4M3";
    } else if (!is_int) {
        scale = codes(r, ns, 110, 140), dtype = "U8";
    } else {
        scale = halves(r, ns, 1), dtype = "BF16";
    }
    fx_ct fx = {.format = c->algo, .version = "0.18.0", .type = is_int ? "int" : "float",
                .strategy = block ? "block" : nvfp4 ? "tensor_group" : "group", .bits = is_int ? 4 : block ? 8 : 4,
                .sym = !is_int, .group_size = gk, .block_n = gn, .block_k = gk, .experts = c->experts, .n = n, .k = k,
                .q_int = qi, .q_codes = qc, .zero = zero, .scale = scale, .scale_dtype = dtype, .scale_rows = rows,
                .scale_cols = cols, .global = 1536.25f};
    int rc = fx_write_ct(dir, layer, &fx);
    free(qi), free(zero), free(qc), free(scale);
    return rc;
}

static int write_modelopt(const shard_case *c, const char *dir, fmt_rng *r)
{
    int nvfp4 = !strcmp(c->algo, "NVFP4");
    uint8_t *q = nvfp4 ? codes(r, c->n * c->k, 0, 15) : fp8_codes(r, c->n * c->k);
    uint8_t *s8 = codes(r, c->n * c->k / 16, 0x20, 0x70);
    float s32 = 0.0078125f;
    fx_modelopt fx = {.algo = c->algo, .n = c->n, .k = c->k, .group_size = nvfp4 ? 16 : 0, .codes = q,
                      .scale = nvfp4 ? (const void *)s8 : (const void *)&s32, .scale_2 = 0.000244140625f};
    int rc = fx_write_modelopt(dir, layer, &fx);
    free(q), free(s8);
    return rc;
}

static int write_fp8_block(const shard_case *c, const char *dir, fmt_rng *r)
{
    int64_t rows = (c->n + 127) / 128, cols = (c->k + 127) / 128;
    uint8_t *q = fp8_codes(r, c->n * c->k);
    float *s = malloc(4 * (size_t)(rows * cols));
    for (int64_t i = 0; i < rows * cols; i++)
        s[i] = (float)fmt_rand_range(r, 1, 1 << 12) / 65536.0f;
    fx_fp8_block fx = {.n = c->n, .k = c->k, .block_n = 128, .block_k = 128, .codes = q, .scale = s,
                       .scale_dtype = "F32"};
    int rc = fx_write_fp8_block(dir, layer, &fx);
    free(q), free(s);
    return rc;
}

static const char *gptoss_proj = "model.layers.0.mlp.experts.gate_up_proj";

static int write_gptoss(const shard_case *c, const char *dir, fmt_rng *r)
{
    int64_t e = c->experts, n = c->n, k = c->k;
    uint8_t *q = codes(r, e * n * k, 0, 15), *s = codes(r, e * n * k / 32, 115, 135);
    uint16_t *bias = halves(r, e * n, 1);
    fx_gptoss fx = {.experts = e, .n = n, .k = k, .codes = q, .scales = s, .bias = bias};
    int rc = fx_write_gptoss(dir, gptoss_proj, &fx);
    free(q), free(s), free(bias);
    return rc;
}

static int write_bitnet(const shard_case *c, const char *dir, fmt_rng *r)
{
    int8_t *t = malloc((size_t)(c->n * c->k));
    for (int64_t i = 0; i < c->n * c->k; i++)
        t[i] = (int8_t)fmt_rand_range(r, -1, 1);
    fx_bitnet fx = {.n = c->n, .k = c->k, .t = t, .scale = fx_bf16_bits(0.75), .linear_class = "autobitlinear"};
    int rc = fx_write_bitnet(dir, layer, &fx);
    free(t);
    return rc;
}

/* --- checks ------------------------------------------------------------------------------ */

static int refused(const char *list, char dim, int world)
{
    char token[8];
    snprintf(token, sizeof token, "%c%d", dim, world);
    for (const char *p = list; (p = strstr(p, token)) != NULL; p += strlen(token))
        if (p[strlen(token)] == '\0' || p[strlen(token)] == ' ')
            return 1;
    return 0;
}

static size_t bias_bytes(const hum_standard_weight *w) { return w->bias.data ? (size_t)w->n * 2 : 0; }

/* Shard expert x (source expert src) against the full weight's dequant `full` ([E][N][K]). */
static void compare_shard(const hum_standard_weight *full, const double *dq, const hum_standard_weight *part,
                          int64_t x, int64_t src, int64_t n0, int64_t k0, const char *what)
{
    double *got = fmt_dequant(part, x);
    if (!got)
        return;
    double *want = malloc(sizeof *want * (size_t)(part->n * part->k));
    for (int64_t i = 0; i < part->n; i++)
        for (int64_t j = 0; j < part->k; j++)
            want[i * part->k + j] = dq[(src * full->n + n0 + i) * full->k + k0 + j];
    fmt_compare(got, want, part->n * part->k, 0, what);
    free(got);
    free(want);
}

/* A padded act-order row shard (hum.h, hum_shard): group size 16 when its groups were cut, each
 * padding column's code the zero point of its group (or the midpoint), so that it dequantizes to
 * 0; a layer plans from it with A's width K and the GEMM's K'. */
static void check_padding(const hum_standard_weight *part, const char *what)
{
    const int64_t ks = part->k_perm.data ? part->k_perm.shape[part->k_perm.rank - 1] : part->k;
    if (ks == part->k)
        return;
    FMT_CHECK(ks % 16 == 0 && part->group_size == 16 && part->scale.shape[part->scale.rank - 1] == ks / 16,
              "%s: padded to K' %lld with group %lld", what, (long long)ks, (long long)part->group_size);
    const int bits = (int)(part->weight_dtype & 0xFF);
    uint8_t *codes = malloc((size_t)(part->n * ks)), *zeros = malloc((size_t)(part->n * ks / 16));
    FMT_CHECK(hum_unpack_bits(part->weight.data, (const int64_t[]){1, part->n, ks}, bits, HUM_PACK_ALONG_COLS,
                              HUM_PACK_DENSE, codes) == HUM_OK, "%s: unpack", what);
    if (part->has_zero_point)
        FMT_CHECK(hum_unpack_bits(part->zero_point.data, (const int64_t[]){1, part->n, ks / 16}, bits,
                                  HUM_PACK_ALONG_ROWS, HUM_PACK_DENSE, zeros) == HUM_OK, "%s: unpack zeros", what);
    const int32_t *perm = part->k_perm.data;
    int64_t pads = 0, bad = 0;
    for (int64_t j = 0; j < ks; j++) {
        if (perm[j] >= 0)
            continue;
        pads++;
        for (int64_t r = 0; r < part->n; r++)
            bad += codes[r * ks + j] != (part->has_zero_point ? zeros[r * (ks / 16) + j / 16] : 1u << (bits - 1));
    }
    FMT_CHECK(pads == ks - part->k && bad == 0, "%s: %lld padding columns (expected %lld), %lld codes not zero", what,
              (long long)pads, (long long)(ks - part->k), (long long)bad);
    free(codes);
    free(zeros);
    hum_layer_dispatch plan;
    FMT_CHECK(hum_layer_describe_plan(fmt_runtime(), part, NULL, "sm_90a", &plan) == HUM_OK && plan.row_count > 0,
              "%s: layer plan: %s", what, hum_last_error());
    hum_layer *l = NULL;
    hum_layer_info info;
    hum_status st = hum_layer_from_standard(fmt_runtime(), part, NULL, &l);
    if (st == HUM_OK)
        st = hum_layer_get_info(l, &info);
    FMT_CHECK(st == HUM_OK && info.config.k == ks && info.input_k == part->k && info.config.act_order,
              "%s: layer: %s; config.k %lld input_k %lld", what, st == HUM_OK ? "ok" : hum_last_error(),
              (long long)info.config.k, (long long)info.input_k);
    hum_layer_destroy(l);
}

/* Sum over the row shards of their float64 GEMMs on A's column slices equals the full GEMM. */
static void check_row_sum(const hum_standard_weight *full, hum_standard_weight *parts, int world, const char *what)
{
    const int64_t m = 3, n = full->n, k = full->k, ks = k / world;
    fmt_rng r = {77};
    double *a = malloc(sizeof *a * (size_t)(m * k)), *as = malloc(sizeof *as * (size_t)(m * ks));
    double *want = malloc(sizeof *want * (size_t)(m * n)), *c = malloc(sizeof *c * (size_t)(m * n));
    double *sum = calloc((size_t)(m * n), sizeof *sum);
    for (int64_t i = 0; i < m * k; i++)
        a[i] = fmt_rand_double(&r, -1, 1);
    FMT_CHECK(hum_reference_gemm(full, 0, a, m, want) == HUM_OK, "%s: full gemm: %s", what, hum_last_error());
    for (int p = 0; p < world; p++) {
        for (int64_t i = 0; i < m; i++)
            memcpy(as + i * ks, a + i * k + p * ks, sizeof *as * (size_t)ks);
        FMT_CHECK(hum_reference_gemm(&parts[p], 0, as, m, c) == HUM_OK, "%s: shard gemm: %s", what, hum_last_error());
        for (int64_t i = 0; i < m * n; i++)
            sum[i] += c[i];
    }
    double err = 0, ref = 0;
    for (int64_t i = 0; i < m * n; i++) {
        err += (sum[i] - want[i]) * (sum[i] - want[i]);
        ref += want[i] * want[i];
    }
    FMT_CHECK(sqrt(err) <= 1e-12 * sqrt(ref), "%s: sum of row-shard GEMMs is off by %g relative", what,
              sqrt(err / ref));
    free(a), free(as), free(want), free(c), free(sum);
}

static void check_splits(const shard_case *c, const hum_standard_weight *full, const char *name)
{
    const int64_t e = full->num_experts ? full->num_experts : 1;
    double *dq = malloc(sizeof *dq * (size_t)(e * full->n * full->k));
    for (int64_t x = 0; x < e; x++) {
        double *one = fmt_dequant(full, x);
        if (one)
            memcpy(dq + x * full->n * full->k, one, sizeof *dq * (size_t)(full->n * full->k));
        free(one);
    }
    static const int worlds[] = {1, 2, 4, 8};
    for (int dim = HUM_SHARD_COLUMN; dim <= HUM_SHARD_ROW; dim++)
        for (size_t wi = 0; wi < sizeof worlds / sizeof worlds[0]; wi++) {
            const int world = worlds[wi];
            const char d = dim == HUM_SHARD_COLUMN ? 'c' : 'r';
            const int expect_refusal = refused(c->refused, d, world);
            hum_standard_weight parts[8];
            memset(parts, 0, sizeof parts);
            int all_ok = 1;
            for (int p = 0; p < world; p++) {
                char what[160];
                snprintf(what, sizeof what, "%s: %s shard %d of %d", c->what, d == 'c' ? "column" : "row", p, world);
                hum_status st =
                    hum_standard_shard(full, &(hum_shard){.dim = dim, .rank = p, .world = world}, &parts[p]);
                if (expect_refusal) {
                    FMT_EXPECT_ERROR(st, HUM_ERR_UNSUPPORTED, what, d == 'c' ? "group_size_n" : "whole groups");
                    all_ok = 0;
                    continue;
                }
                FMT_CHECK(st == HUM_OK, "%s: %s", what, hum_last_error());
                if (st != HUM_OK) {
                    all_ok = 0;
                    continue;
                }
                const int64_t n0 = d == 'c' ? p * full->n / world : 0, k0 = d == 'r' ? p * full->k / world : 0;
                FMT_CHECK(parts[p].n == (d == 'c' ? full->n / world : full->n) &&
                              parts[p].k == (d == 'r' ? full->k / world : full->k) &&
                              parts[p].num_experts == full->num_experts,
                          "%s: dims %lld x %lld", what, (long long)parts[p].n, (long long)parts[p].k);
                for (int64_t x = 0; x < e; x++)
                    compare_shard(full, dq, &parts[p], x, x, n0, k0, what);
                if (d == 'r' && full->num_experts == 0)
                    check_padding(&parts[p], what);
                /* bias: the column slice; row shards keep it on rank 0 only */
                if (d == 'c' && full->bias.data)
                    FMT_CHECK(parts[p].bias.data && !memcmp(parts[p].bias.data, (const char *)full->bias.data + n0 * 2,
                                                            bias_bytes(&parts[p])),
                              "%s: bias slice", what);
                if (d == 'r')
                    FMT_CHECK((parts[p].bias.data != NULL) == (p == 0 && full->bias.data != NULL), "%s: bias on rank 0",
                              what);
            }
            if (all_ok && d == 'r' && full->num_experts == 0)
                check_row_sum(full, parts, world, c->what);
            for (int p = 0; p < world; p++)
                hum_standard_free(&parts[p]);
        }
    (void)name;
    free(dq);
}

/* Expert parallelism: experts {last, 0} of a MoE weight, alone and with a column split. */
static void check_experts(const shard_case *c, const hum_standard_weight *full)
{
    const int64_t e = full->num_experts;
    double *dq = malloc(sizeof *dq * (size_t)(e * full->n * full->k));
    for (int64_t x = 0; x < e; x++) {
        double *one = fmt_dequant(full, x);
        if (one)
            memcpy(dq + x * full->n * full->k, one, sizeof *dq * (size_t)(full->n * full->k));
        free(one);
    }
    const int32_t local[2] = {(int32_t)(e - 1), 0};
    for (int dim = HUM_SHARD_NONE; dim <= HUM_SHARD_COLUMN; dim++) {
        char what[160];
        snprintf(what, sizeof what, "%s: experts {%d, 0}%s", c->what, local[0], dim ? ", column shard 1 of 2" : "");
        hum_standard_weight part;
        hum_shard s = {.dim = dim, .rank = 1, .world = 2, .experts = local, .expert_count = 2};
        hum_status st = hum_standard_shard(full, &s, &part);
        FMT_CHECK(st == HUM_OK, "%s: %s", what, hum_last_error());
        if (st != HUM_OK)
            continue;
        FMT_CHECK(part.num_experts == 2 && part.n == (dim ? full->n / 2 : full->n), "%s: dims", what);
        for (int64_t x = 0; x < 2; x++)
            compare_shard(full, dq, &part, x, local[x], dim ? full->n / 2 : 0, 0, what);
        for (int64_t x = 0; x < 2 && full->bias.data; x++)
            FMT_CHECK(part.bias.data && !memcmp((const char *)part.bias.data + x * part.n * 2,
                                                (const char *)full->bias.data +
                                                    (local[x] * full->n + (dim ? full->n / 2 : 0)) * 2,
                                                (size_t)part.n * 2),
                      "%s: bias of local expert %lld", what, (long long)x);
        hum_standard_free(&part);
    }
    hum_standard_weight part;
    FMT_EXPECT_ERROR(
        hum_standard_shard(full, &(hum_shard){.experts = (const int32_t[]){0, 0}, .expert_count = 2}, &part),
        HUM_ERR_INVALID_ARG, "repeated expert", "a repeat");
    FMT_EXPECT_ERROR(hum_standard_shard(full, &(hum_shard){.experts = (const int32_t[]){(int32_t)e}, .expert_count = 1},
                                        &part),
                     HUM_ERR_INVALID_ARG, "expert out of range", "out of range");
    FMT_CHECK(part.weight.data == NULL, "a refused shard leaves out zeroed");
    free(dq);
}

/* Bad requests on a dense weight: each names what is wrong; through the layer options too. */
static void check_errors(const char *dir, const hum_standard_weight *full)
{
    hum_standard_weight part;
    FMT_EXPECT_ERROR(hum_standard_shard(full, &(hum_shard){.dim = HUM_SHARD_ROW, .rank = 2, .world = 2}, &part),
                     HUM_ERR_INVALID_ARG, "rank past world", "rank 2 of world 2");
    FMT_EXPECT_ERROR(hum_standard_shard(full, &(hum_shard){.dim = HUM_SHARD_COLUMN, .world = 0}, &part),
                     HUM_ERR_INVALID_ARG, "world 0", "world >= 1");
    FMT_EXPECT_ERROR(hum_standard_shard(full, &(hum_shard){.dim = 7, .world = 2}, &part), HUM_ERR_INVALID_ARG, "dim 7",
                     "dim 7");
    FMT_EXPECT_ERROR(hum_standard_shard(full, &(hum_shard){.dim = HUM_SHARD_ROW, .world = 3}, &part),
                     HUM_ERR_UNSUPPORTED, "K over 3", "K = 512 is not a multiple of world 3");
    FMT_EXPECT_ERROR(hum_standard_shard(full, &(hum_shard){.experts = (const int32_t[]){0}, .expert_count = 1}, &part),
                     HUM_ERR_INVALID_ARG, "experts of a dense weight", "dense weight");
    FMT_EXPECT_ERROR(hum_standard_shard(NULL, &(hum_shard){0}, &part), HUM_ERR_INVALID_ARG, "NULL weight",
                     "NULL weight");

    /* The loader's options: a layer holds its shard (N halves), a bad one fails naming it. */
    hum_layer *l = NULL;
    hum_layer_options o = {.shard = {.dim = HUM_SHARD_COLUMN, .rank = 1, .world = 2}};
    hum_status st = hum_layer_from_safetensors(fmt_runtime(), dir, layer, &o, &l);
    FMT_CHECK(st == HUM_OK, "layer column shard: %s", hum_last_error());
    hum_layer_info info;
    if (st == HUM_OK && hum_layer_get_info(l, &info) == HUM_OK)
        FMT_CHECK(info.config.n == full->n / 2 && info.config.k == full->k, "layer shard dims %lld x %lld",
                  (long long)info.config.n, (long long)info.config.k);
    hum_layer_destroy(l);
    /* planning (and compiling) sees the shard too */
    st = hum_layer_compile(fmt_runtime(), full, &o, "sm_80", &info);
    FMT_CHECK(st == HUM_OK && info.config.n == full->n / 2 && info.config.padded_k == 512,
              "compiled shard: %s; dims %lld x %lld", hum_last_error(), (long long)info.config.n,
              (long long)info.config.k);
    o.shard = (hum_shard){.dim = HUM_SHARD_ROW, .rank = 0, .world = 3};
    FMT_EXPECT_ERROR(hum_layer_from_safetensors(fmt_runtime(), dir, layer, &o, &l), HUM_ERR_UNSUPPORTED,
                     "layer row shard over 3", "not a multiple of world 3");
    FMT_CHECK(l == NULL, "a refused layer shard leaves *out NULL");
}

static const shard_case cases[] = {
    {"gptq 4-bit g128 asym", 0, 256, 512, "r8", write_gptq, 4, 0, 0, 128, 0, NULL},
    {"gptq_v2 3-bit g32 sym act-order within quarters", 0, 256, 512, "", write_gptq, 3, 1, 1, 32, 128, NULL},
    {"gptq 4-bit g128 act-order across K", 0, 256, 512, "", write_gptq, 4, 0, 0, 128, 512, NULL},
    {"gptq 8-bit g64 sym act-order across K", 0, 128, 768, "", write_gptq, 8, 1, 0, 64, 768, NULL},
    {"gptq 8-bit channel sym", 0, 256, 512, "", write_gptq, 8, 1, 0, -1, 0, NULL},
    {"awq 4-bit g128", 0, 256, 512, "r8", write_awq, 4, 0, 0, 128, 0, NULL},
    {"compressed-tensors pack-quantized int4 g64 asym", 0, 256, 512, "", write_ct, 4, 0, 0, 64, 0, "pack-quantized"},
    {"compressed-tensors fp8 128x128 blocks", 0, 256, 512, "c4 c8 r8", write_ct, 8, 1, 0, 128, 0, "float-quantized"},
    {"compressed-tensors nvfp4", 0, 256, 512, "", write_ct, 4, 1, 0, 16, 0, "nvfp4-pack-quantized"},
    {"compressed-tensors mxfp4", 0, 256, 512, "", write_ct, 4, 1, 0, 32, 0, "mxfp4-pack-quantized"},
    {"compressed-tensors int4 g128 MoE", 4, 128, 256, "r4 r8", write_ct, 4, 0, 0, 128, 0, "pack-quantized"},
    {"modelopt FP8", 0, 256, 512, "", write_modelopt, 8, 1, 0, 0, 0, "FP8"},
    {"modelopt NVFP4", 0, 256, 512, "", write_modelopt, 4, 1, 0, 16, 0, "NVFP4"},
    {"fp8 128x128 blocks", 0, 256, 512, "c4 c8 r8", write_fp8_block, 8, 1, 0, 128, 0, NULL},
    {"gpt-oss mxfp4 experts", 4, 128, 256, "", write_gptoss, 4, 1, 0, 32, 0, NULL},
    {"bitnet", 0, 256, 512, "", write_bitnet, 2, 1, 0, 0, 0, NULL},
};

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const shard_case *c = &cases[i];
        fmt_rng r = {0x5eed + i * 7919};
        char *dir = fmt_tmpdir("shard");
        FMT_CHECK(c->write(c, dir, &r) == 0, "%s: fixture", c->what);
        const char *name = c->write == write_gptoss ? gptoss_proj : layer;
        hum_standard_weight full;
        hum_status st = fmt_load(dir, name, &full);
        FMT_CHECK(st == HUM_OK, "%s: load %s: %s", c->what, name, hum_last_error());
        if (st == HUM_OK) {
            FMT_CHECK(full.n == c->n && full.k == c->k && full.num_experts == c->experts, "%s: dims", c->what);
            check_splits(c, &full, name);
            if (c->experts)
                check_experts(c, &full);
            if (i == 0)
                check_errors(dir, &full);
            hum_standard_free(&full);
        }
        fmt_rmtree(dir);
        free(dir);
    }
    fmt_runtime_destroy();
    return fmt_finish("shard");
}
