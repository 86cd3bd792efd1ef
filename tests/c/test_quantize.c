/* Reference quantizer: exact codes and scales for small cases worked out by hand (GPTQ-style
 * symmetric and asymmetric int, NVFP4, MX), then the error bounds of quantize -> dequantize
 * over every integer width, zero-point kind and scale type on fresh random weights (with
 * experts and act-order), FP weights likewise, and bad input. */
#include "hum/hum_tools.h"
#include "quant_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t word(const hum_standard_weight *w, int64_t i) { return ((const uint32_t *)w->weight.data)[i]; }

static void check_known_int(void)
{
    /* uint4 symmetric, CHANNEL, float16: amax 3.75 -> s = 2 * 3.75 / 15 = 0.5; codes
     * rne(w / s) + 8 = {10, 4, 9, rne(7.5) + 8 = 16 -> 15}. */
    const float w[4] = {1.0f, -2.0f, 0.5f, 3.75f};
    hum_quant_spec spec = {.weight_dtype = HUM_DTYPE_UINT4, .param_dtype = HUM_DTYPE_FLOAT16,
                           .scale_type = HUM_SCALE_CHANNEL};
    hum_standard_weight q;
    QUANT_CHECK(hum_quantize_reference(w, 1, 4, &spec, &q) == HUM_OK, "%s", hum_last_error());
    QUANT_CHECK(word(&q, 0) == 0xF94A, "uint4 sym word 0x%x", word(&q, 0));
    QUANT_CHECK(*(uint16_t *)q.scale.data == 0x3800, "scale 0.5 as float16, got 0x%x", *(uint16_t *)q.scale.data);
    QUANT_CHECK(!q.has_zero_point && q.zero_point.data == NULL && q.global_scale.data == NULL, "no zp, no global");
    double d[4];
    QUANT_CHECK(hum_reference_dequant(&q, 0, d) == HUM_OK, "%s", hum_last_error());
    QUANT_CHECK(d[0] == 1.0 && d[1] == -2.0 && d[2] == 0.5 && d[3] == 3.5, "dequant %g %g %g %g", d[0], d[1], d[2],
                d[3]);
    hum_standard_free(&q);

    /* uint2 asymmetric, GROUP 4, int zero point: lo -1, hi 2 -> s = 3 / 3 = 1, z = 1;
     * codes rne(w) + 1 = {0, 1, rne(0.5) + 1 = 1, 3}. */
    const float a[4] = {-1.0f, 0.0f, 0.5f, 2.0f};
    spec = (hum_quant_spec){.weight_dtype = HUM_DTYPE_UINT2, .param_dtype = HUM_DTYPE_BFLOAT16,
                            .scale_type = HUM_SCALE_GROUP, .group_size = 4, .zero_point = HUM_ZERO_POINT_INT};
    QUANT_CHECK(hum_quantize_reference(a, 1, 4, &spec, &q) == HUM_OK, "%s", hum_last_error());
    QUANT_CHECK(word(&q, 0) == 0xD4, "uint2 asym word 0x%x", word(&q, 0));
    QUANT_CHECK(*(uint16_t *)q.scale.data == 0x3F80, "scale 1 as bfloat16");
    QUANT_CHECK(q.has_zero_point && !q.zero_point_is_float && *(int32_t *)q.zero_point.data == 1, "zero point 1");
    hum_standard_free(&q);

    /* Float zero point: same weights, zf = 1 / 1 = 1 exactly, but the rounding is of
     * w / s + zf: rne({0, 1, 1.5, 3}) = {0, 1, 2, 3}. */
    spec.zero_point = HUM_ZERO_POINT_FLOAT;
    QUANT_CHECK(hum_quantize_reference(a, 1, 4, &spec, &q) == HUM_OK, "%s", hum_last_error());
    QUANT_CHECK(q.zero_point_is_float && *(uint16_t *)q.zero_point.data == 0x3F80, "float zero point 1.0");
    QUANT_CHECK(word(&q, 0) == 0xE4, "float zp codes 0x%x", word(&q, 0));
    hum_standard_free(&q);
}

static void check_known_fp(void)
{
    /* NVFP4 (ModelOpt): global = amax / (6 * 448) = 2688 / 2688 = 1; group 0 local =
     * (2688 / 6) / 1 = 448 (e4m3fn 0x7E): codes 2688/448 = 6 (0x7), -1 (0xA), 0.5 (0x1),
     * 2.5 -> tie between 2 (0x4) and 3 (0x5): even 0x4. Group 1: amax 3 -> local 0.5 (0x30),
     * 3 / 0.5 = 6 (0x7). */
    float w[32] = {0};
    w[0] = 2688.0f;
    w[1] = -448.0f;
    w[2] = 224.0f;
    w[3] = 1120.0f;
    w[16] = 3.0f;
    hum_quant_spec spec = {.weight_dtype = HUM_DTYPE_FLOAT4_E2M1, .param_dtype = HUM_DTYPE_BFLOAT16,
                           .scale_type = HUM_SCALE_GROUP_TENSOR, .group_size = 16,
                           .scale_dtype = HUM_DTYPE_FLOAT8_E4M3FN};
    hum_standard_weight q;
    QUANT_CHECK(hum_quantize_reference(w, 1, 32, &spec, &q) == HUM_OK, "%s", hum_last_error());
    QUANT_CHECK(*(float *)q.global_scale.data == 1.0f, "global %g", (double)*(float *)q.global_scale.data);
    const uint8_t *s = q.scale.data;
    QUANT_CHECK(s[0] == 0x7E && s[1] == 0x30, "e4m3 scales 0x%02x 0x%02x", s[0], s[1]);
    QUANT_CHECK(word(&q, 0) == 0x41A7, "nvfp4 word 0 = 0x%08x", word(&q, 0));
    QUANT_CHECK(word(&q, 1) == 0 && word(&q, 2) == 0x7 && word(&q, 3) == 0, "nvfp4 words 1-3");
    hum_standard_free(&q);

    /* MX: e2m1 with e8m0 group-32 scales: amax 5 -> 2^(floor(log2 5) - 2) = 1 (code 127),
     * 5 ties between 4 (0x6) and 6 (0x7): even 0x6. Group 1: amax 7.9 -> scale 1 again and
     * 7.9 saturates to 6 (0x7), as the MX spec clamps. */
    float m[64] = {0};
    m[0] = 5.0f;
    m[32] = -7.9f;
    spec = (hum_quant_spec){.weight_dtype = HUM_DTYPE_FLOAT4_E2M1, .param_dtype = HUM_DTYPE_BFLOAT16,
                            .scale_type = HUM_SCALE_GROUP, .group_size = 32, .scale_dtype = HUM_DTYPE_FLOAT8_E8M0};
    QUANT_CHECK(hum_quantize_reference(m, 1, 64, &spec, &q) == HUM_OK, "%s", hum_last_error());
    s = q.scale.data;
    QUANT_CHECK(s[0] == 127 && s[1] == 127, "e8m0 scales %u %u", s[0], s[1]);
    QUANT_CHECK(word(&q, 0) == 0x6 && word(&q, 4) == 0xF, "mx words 0x%x 0x%x", word(&q, 0), word(&q, 4));
    hum_standard_free(&q);
}

/* The effective scale S = s * global that applies to stored element (e, n, j), read from the
 * struct's layout here, independently of the dequantizer. */
static double effective_scale(const hum_standard_weight *q, int64_t e, int64_t n, int64_t j)
{
    double g = 1.0;
    if (q->global_scale.data)
        g = ((const float *)q->global_scale.data)[q->global_scale.shape[0] == 1 ? 0 : e];
    if (q->scale_type == HUM_SCALE_TENSOR)
        return g;
    const int64_t rows = q->scale.shape[q->scale.rank - 2], cols = q->scale.shape[q->scale.rank - 1];
    const int64_t r = q->scale_type == HUM_SCALE_BLOCK ? n / q->group_size_n : n;
    const int64_t c = q->group_size ? j / q->group_size : 0;
    const int64_t idx = (e * rows + r) * cols + c;
    const int size = hum_dtype_code_size(q->scale_dtype);
    double s;
    hum_dtype_decode(q->scale_dtype, (const uint8_t *)q->scale.data + idx * size, 1, &s);
    return s * g;
}

typedef struct config {
    hum_dtype weight;
    hum_scale_type type;
    int64_t group, group_n;
    hum_dtype scale;
    hum_zero_point_kind zp;
    int64_t experts;
    int act_order;
} config;

static void check_bounds(quant_rng *rng, const config *cf, int64_t n, int64_t k)
{
    const int64_t E = cf->experts > 0 ? cf->experts : 1;
    float *w = malloc((size_t)(E * n * k) * sizeof *w);
    double *d = malloc((size_t)(n * k) * sizeof *d);
    int32_t *perm = malloc((size_t)k * sizeof *perm);
    float *bias = malloc((size_t)(E * n) * sizeof *bias);
    /* per-row offsets and magnitudes so asymmetric ranges and rows of very different size occur */
    for (int64_t r = 0; r < E * n; r++) {
        const double mag = exp(4.0 * quant_rng_uniform(rng) - 2.0), shift = quant_rng_normal(rng) * mag;
        for (int64_t j = 0; j < k; j++)
            w[r * k + j] = (float)(quant_rng_normal(rng) * mag + (cf->zp ? shift : 0.0));
        bias[r] = (float)quant_rng_normal(rng);
    }
    for (int64_t j = 0; j < k; j++)
        perm[j] = (int32_t)j;
    for (int64_t j = k - 1; j > 0; j--) {
        const int64_t o = quant_rng_below(rng, j + 1);
        const int32_t t = perm[j];
        perm[j] = perm[o];
        perm[o] = t;
    }
    hum_quant_spec spec = {.num_experts = cf->experts, .weight_dtype = cf->weight, .param_dtype = HUM_DTYPE_FLOAT16,
                           .scale_type = cf->type, .group_size = cf->group, .group_size_n = cf->group_n,
                           .scale_dtype = cf->scale, .zero_point = cf->zp, .bias = bias,
                           .k_perm = cf->act_order ? perm : NULL};
    hum_standard_weight q;
    char what[160];
    snprintf(what, sizeof what, "%s type %d group %lld/%lld scale %s zp %d E %lld act-order %d",
             hum_dtype_name(cf->weight), (int)cf->type, (long long)cf->group, (long long)cf->group_n,
             hum_dtype_name(cf->scale), (int)cf->zp, (long long)cf->experts, cf->act_order);
    if (!QUANT_CHECK(hum_quantize_reference(w, n, k, &spec, &q) == HUM_OK, "%s: %s", what, hum_last_error()))
        goto done;
    QUANT_CHECK(hum_standard_validate(&q) == HUM_OK, "%s: output validates: %s", what, hum_last_error());
    const int is_int = ((cf->weight >> 24) & 0xF) == HUM_KIND_UINT;
    const int man = (int)((cf->weight >> 16) & 0xFF), ebits = (int)((cf->weight >> 8) & 0xFF);
    const double emin = is_int ? 0.0 : 2.0 - (double)(1 << (ebits - 1)); /* 1 - bias */
    const double top = hum_dtype_max_finite(cf->weight);
    /* Float zero points are rounded to float16: at most half an ulp of a value below 2^b. */
    const double zp_slack = cf->zp == HUM_ZERO_POINT_FLOAT ? ldexp(1.0, hum_dtype_bits(cf->weight) - 11) : 0.0;
    int bad = 0;
    for (int64_t e = 0; e < E && bad < 3; e++) {
        QUANT_CHECK(hum_reference_dequant(&q, e, d) == HUM_OK, "%s", hum_last_error());
        for (int64_t r = 0; r < n && bad < 3; r++)
            for (int64_t j = 0; j < k && bad < 3; j++) {
                const int64_t col = cf->act_order ? perm[j] : j;
                const double x = w[(e * n + r) * k + col], got = d[r * k + col];
                const double S = fabs(effective_scale(&q, e, r, j));
                double bound;
                if (is_int)
                    bound = S * (0.5 + zp_slack);
                else if (fabs(x) / S > top)
                    bound = fabs(x) - top * S; /* MX: saturated */
                else /* half an ulp of x / S: relative in the normal range, absolute below it */
                    bound = fmax(ldexp(fabs(x), -man - 1), S * ldexp(1.0, (int)emin - man - 1));
                if (fabs(x - got) > bound * (1.0 + 1e-12))
                    bad +=
                        !QUANT_CHECK(0, "%s: w[%lld][%lld][%lld] = %.9g dequantizes to %.9g, |error| > %.3g (S %.3g)",
                                     what, (long long)e, (long long)r, (long long)col, x, got, bound, S);
            }
    }
    /* GEMM of the last expert against a naive product of the dequantized weight. */
    const int64_t m = 3;
    double *a = malloc((size_t)(m * k) * sizeof *a), *c = malloc((size_t)(m * n) * sizeof *c),
           *ref = malloc((size_t)(m * n) * sizeof *ref);
    uint16_t *a16 = malloc((size_t)(m * k) * sizeof *a16);
    QUANT_CHECK(quant_fill_activations(rng, HUM_DTYPE_BFLOAT16, m * k, 1.0, a16, a) == 0, "activations");
    quant_poison(c, (size_t)(m * n) * sizeof *c);
    QUANT_CHECK(hum_reference_gemm(&q, E - 1, a, m, c) == HUM_OK, "%s", hum_last_error());
    free(a16);
    double bv[512];
    hum_dtype_decode(HUM_DTYPE_FLOAT16, (const uint16_t *)q.bias.data + (E - 1) * n, n, bv);
    for (int64_t i = 0; i < m; i++)
        for (int64_t r = 0; r < n; r++) {
            double acc = bv[r];
            for (int64_t j = 0; j < k; j++)
                acc += a[i * k + j] * d[r * k + j];
            ref[i * n + r] = acc;
        }
    QUANT_CHECK(quant_rel_error(c, ref, m * n) < 1e-13, "%s: gemm rel error %g", what, quant_rel_error(c, ref, m * n));
    free(a);
    free(c);
    free(ref);
    hum_standard_free(&q);
done:
    free(w);
    free(d);
    free(perm);
    free(bias);
}

static void check_errors(void)
{
    float w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    hum_standard_weight q;
    memset(&q, 0x5A, sizeof q);
    hum_quant_spec spec = {.weight_dtype = HUM_DTYPE_UINT4, .param_dtype = HUM_DTYPE_FLOAT16,
                           .scale_type = HUM_SCALE_GROUP, .group_size = 4};
    w[5] = NAN;
    QUANT_CHECK(hum_quantize_reference(w, 2, 4, &spec, &q) == HUM_ERR_INVALID_ARG, "NaN weight refused");
    QUANT_CHECK(strstr(hum_last_error(), "index 5") != NULL, "message: %s", hum_last_error());
    QUANT_CHECK(q.weight.data == NULL && q.n == 0, "out zeroed on error");
    w[5] = 6;
    spec.group_size = 0;
    QUANT_CHECK(hum_quantize_reference(w, 2, 4, &spec, &q) == HUM_ERR_INVALID_ARG &&
                    strstr(hum_last_error(), "group_size") != NULL,
                "GROUP without group_size: %s", hum_last_error());
    spec.group_size = 4;
    spec.zero_point = HUM_ZERO_POINT_INT;
    spec.weight_dtype = HUM_DTYPE_FLOAT8_E4M3FN;
    QUANT_CHECK(hum_quantize_reference(w, 2, 4, &spec, &q) == HUM_ERR_UNSUPPORTED, "zero point with FP weights");
    spec.weight_dtype = HUM_DTYPE_UINT4;
    spec.scale_type = HUM_SCALE_BLOCK;
    spec.group_size_n = 2;
    QUANT_CHECK(hum_quantize_reference(w, 2, 4, &spec, &q) == HUM_ERR_UNSUPPORTED, "zero point with BLOCK");
    spec.zero_point = HUM_ZERO_POINT_NONE;
    spec.scale_dtype = HUM_DTYPE_FLOAT16;
    QUANT_CHECK(hum_quantize_reference(w, 2, 4, &spec, &q) == HUM_ERR_INVALID_ARG &&
                    strstr(hum_last_error(), "float32") != NULL,
                "BLOCK with float16 scales: %s", hum_last_error());
    spec = (hum_quant_spec){.weight_dtype = HUM_DTYPE_UINT4, .param_dtype = HUM_DTYPE_FLOAT16,
                            .scale_type = HUM_SCALE_CHANNEL, .k_perm = (const int32_t[]){0, 1, 1, 3}};
    QUANT_CHECK(hum_quantize_reference(w, 2, 4, &spec, &q) == HUM_ERR_INVALID_ARG &&
                    strstr(hum_last_error(), "k_perm[2]") != NULL,
                "k_perm with a repeat: %s", hum_last_error());
    spec.k_perm = NULL;
    spec.bias = (const float[]){1.0f, INFINITY};
    QUANT_CHECK(hum_quantize_reference(w, 2, 4, &spec, &q) == HUM_ERR_INVALID_ARG, "infinite bias refused");
    spec.bias = NULL;
    spec.weight_dtype = HUM_DTYPE_INT4;
    QUANT_CHECK(hum_quantize_reference(w, 2, 4, &spec, &q) == HUM_ERR_INVALID_ARG, "int4 (signed) weight refused");
    spec.weight_dtype = HUM_DTYPE_UINT4;
    QUANT_CHECK(hum_quantize_reference(w, 0, 4, &spec, &q) == HUM_ERR_INVALID_ARG, "N = 0 refused");
    QUANT_CHECK(hum_quantize_reference(w, 2, 4, NULL, &q) == HUM_ERR_INVALID_ARG, "NULL spec refused");
    /* a group past K is one group (K + group - 1 wrapped near INT64_MAX: scales [N, 0], written past) */
    spec = (hum_quant_spec){.weight_dtype = HUM_DTYPE_UINT4, .param_dtype = HUM_DTYPE_FLOAT16,
                            .scale_type = HUM_SCALE_GROUP, .group_size = INT64_MAX};
    if (QUANT_CHECK(hum_quantize_reference(w, 2, 4, &spec, &q) == HUM_OK, "group INT64_MAX: %s", hum_last_error())) {
        QUANT_CHECK(q.scale.shape[0] == 2 && q.scale.shape[1] == 1 && hum_standard_validate(&q) == HUM_OK,
                    "group INT64_MAX: scales [%lld, %lld], %s", (long long)q.scale.shape[0],
                    (long long)q.scale.shape[1], hum_last_error());
        hum_standard_free(&q);
    }
}

/* The quantizer runs bands of rows on threads (64 rows, or whole blocks of rows): its result must
 * be the one of quantizing the rows alone, one row at a time for GROUP scales and one block of
 * rows at a time for BLOCK scales, on N = 300 (five bands of 64 rows, three of 128). */
static void check_bands(quant_rng *rng)
{
    enum { N = 300, K = 96 };
    float *w = malloc((size_t)N * K * sizeof *w);
    if (!QUANT_CHECK(w != NULL, "out of memory"))
        return;
    quant_fill_normal_f32(rng, w, (int64_t)N * K, 1.0);
    const struct {
        hum_quant_spec spec;
        int64_t rows;          /* rows quantized alone at a time */
        int64_t words, scales; /* a row's weight words, a row group's scale bytes */
    } cases[2] = {
        {{.weight_dtype = HUM_DTYPE_UINT4, .param_dtype = HUM_DTYPE_FLOAT16, .scale_type = HUM_SCALE_GROUP,
          .group_size = 32},
         1, K * 4 / 32, K / 32 * 2},
        {{.weight_dtype = HUM_DTYPE_FLOAT8_E4M3FN, .param_dtype = HUM_DTYPE_BFLOAT16, .scale_type = HUM_SCALE_BLOCK,
          .group_size = 32, .group_size_n = 128},
         128, K * 8 / 32, K / 32 * 4},
    };
    for (int c = 0; c < 2; c++) {
        hum_standard_weight all, part;
        if (!QUANT_CHECK(hum_quantize_reference(w, N, K, &cases[c].spec, &all) == HUM_OK, "bands %d: %s", c,
                         hum_last_error()))
            continue;
        for (int64_t r0 = 0; r0 < N; r0 += cases[c].rows) {
            const int64_t rows = r0 + cases[c].rows < N ? cases[c].rows : N - r0, g0 = r0 / cases[c].rows;
            if (!QUANT_CHECK(hum_quantize_reference(w + r0 * K, rows, K, &cases[c].spec, &part) == HUM_OK,
                             "bands %d rows %lld: %s", c, (long long)r0, hum_last_error()))
                break;
            const int64_t groups = (rows + cases[c].rows - 1) / cases[c].rows;
            QUANT_CHECK(!memcmp((const uint32_t *)all.weight.data + r0 * cases[c].words, part.weight.data,
                                (size_t)(rows * cases[c].words * 4)) &&
                            !memcmp((const uint8_t *)all.scale.data + g0 * cases[c].scales, part.scale.data,
                                    (size_t)(groups * cases[c].scales)),
                        "bands %d: rows %lld..%lld quantized alone differ from the whole layer's", c, (long long)r0,
                        (long long)(r0 + rows - 1));
            hum_standard_free(&part);
        }
        hum_standard_free(&all);
    }
    free(w);
}

int main(void)
{
    quant_rng rng = quant_rng_fresh("test_quantize");
    check_known_int();
    check_known_fp();
    check_bands(&rng);
    int i = 0;
    /* Integer weights: every width x zero-point kind x scale type; then the scale dtypes. */
    for (int bits = 1; bits <= 8; bits++) {
        const hum_dtype wt = hum_dtype_make(HUM_KIND_UINT, bits, 0, 0, HUM_SPECIAL_IEEE);
        for (int zp = HUM_ZERO_POINT_NONE; zp <= HUM_ZERO_POINT_FLOAT; zp++) {
            const config cfs[3] = {
                {wt, HUM_SCALE_CHANNEL, 0, 0, HUM_DTYPE_INVALID, zp, 0, 0},
                {wt, HUM_SCALE_GROUP, 32, 0, HUM_DTYPE_INVALID, zp, 0, 0},
                {wt, HUM_SCALE_GROUP_TENSOR, 16, 0, HUM_DTYPE_FLOAT8_E4M3FN, zp, 0, 0},
            };
            for (int c = 0; c < 3; c++, i++) {
                config cf = cfs[c];
                cf.experts = i % 3 == 0 ? 2 : 0;
                cf.act_order = i % 2;
                check_bounds(&rng, &cf, 37, 100);
            }
        }
        const config others[7] = {
            {wt, HUM_SCALE_BLOCK, 32, 16, HUM_DTYPE_INVALID, 0, 2, 0},
            {wt, HUM_SCALE_TENSOR, 0, 0, HUM_DTYPE_INVALID, 0, 0, 1},
            {wt, HUM_SCALE_GROUP, 32, 0, HUM_DTYPE_BFLOAT16, 0, 0, 1},
            {wt, HUM_SCALE_GROUP, 32, 0, HUM_DTYPE_FLOAT32, 0, 2, 0},
            {wt, HUM_SCALE_GROUP, 32, 0, HUM_DTYPE_FLOAT8_E4M3FN, 0, 0, 0},
            {wt, HUM_SCALE_GROUP, 32, 0, HUM_DTYPE_FLOAT8_E5M2, HUM_ZERO_POINT_INT, 0, 1},
            {wt, HUM_SCALE_GROUP, 64, 0, HUM_DTYPE_FLOAT8_E8M0, 0, 0, 0},
        };
        for (int c = 0; c < 7; c++)
            check_bounds(&rng, &others[c], 37, 100);
    }
    /* FP weights over the scale types, MX and NVFP4 among them. */
    const hum_dtype fps[6] = {HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT8_E5M2, HUM_DTYPE_FLOAT4_E2M1,
                              HUM_DTYPE_FLOAT6_E3M2, HUM_DTYPE_FLOAT6_E2M3,
                              hum_dtype_make(HUM_KIND_FLOAT, 4, 1, 2, HUM_SPECIAL_FINITE)};
    for (int f = 0; f < 6; f++) {
        const config cfs[6] = {
            {fps[f], HUM_SCALE_CHANNEL, 0, 0, HUM_DTYPE_INVALID, 0, 0, 1},
            {fps[f], HUM_SCALE_GROUP, 32, 0, HUM_DTYPE_INVALID, 0, 2, 0},
            {fps[f], HUM_SCALE_GROUP, 32, 0, HUM_DTYPE_FLOAT8_E8M0, 0, 0, 1},
            {fps[f], HUM_SCALE_GROUP_TENSOR, 16, 0, HUM_DTYPE_FLOAT8_E4M3FN, 0, 2, 1},
            {fps[f], HUM_SCALE_BLOCK, 64, 8, HUM_DTYPE_INVALID, 0, 0, 0},
            {fps[f], HUM_SCALE_TENSOR, 0, 0, HUM_DTYPE_INVALID, 0, 2, 0},
        };
        for (int c = 0; c < 6; c++)
            check_bounds(&rng, &cfs[c], 37, 100);
    }
    check_errors();
    return quant_test_result("test_quantize");
}
