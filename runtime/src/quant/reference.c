/* Float64 reference dequantization and GEMM of the standard format: the rule in hum.h
 * (HUM-SECTION standard) written out plainly, one weight row at a time. */
#include "bitstream.h"
#include "internal.h"
#include "standard.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

static double global_scale(const hum_standard_weight *w, int64_t e)
{
    if (w->global_scale.data == NULL)
        return 1.0;
    const float *g = w->global_scale.data;
    return w->global_scale.shape[0] == 1 ? (double)g[0] : (double)g[e];
}

typedef struct reader {
    hum_standard_view v;
    uint8_t *codes;     /* one weight row's codes, K */
    double values[256]; /* FP weights: the value of each code (read as all-finite) */
    hum_dtype held;     /* FP weights as a 16-bit GEMM of this type holds them (dequant_row); INVALID: exact */
} reader;

/* v rounded to nearest even at the significand of the 16-bit type `held` (11 bits for float16, 8
 * for bfloat16), its exponent unbounded: the layer holds its scales shifted by a power of two that
 * keeps them inside the type's normal range (layer_upload.c, prep_params), which changes no
 * rounding there. */
static double held_value(hum_dtype held, double v)
{
    int e;
    const int p = held == HUM_DTYPE_FLOAT16 ? 11 : 8;
    const double m = frexp(v, &e);
    return ldexp(nearbyint(ldexp(m, p)), e - p);
}

/* Row n of expert e, dequantized into row[K] in checkpoint column order, as
 * (q - z) * s * global (int) or decode(q) * s * global (FP), left to right; padding columns
 * (k_perm -1) are no input column and are skipped. FP with r->held set: as a MoE layer's 16-bit
 * GEMM holds them, the global scale folded into each scale in float32 (hum_standard_fold_global),
 * that rounded to `held`, and decode(q) times it rounded to `held` again. */
static void dequant_row(const hum_standard_weight *w, reader *r, int64_t e, int64_t n, double *row)
{
    const hum_standard_view *v = &r->v;
    uint8_t *codes = r->codes;
    const int32_t *words = (const int32_t *)w->weight.data + (e * v->n + n) * v->row_words;
    hum_unpack_bits(words, (const int64_t[3]){1, 1, v->k}, v->bits, HUM_PACK_ALONG_COLS, HUM_PACK_DENSE, codes);
    const double global = global_scale(w, e);
    const int32_t *k_perm = w->k_perm.data ? (const int32_t *)w->k_perm.data + e * v->k : NULL;
    const double midpoint = (double)(1u << (v->bits - 1));
    for (int64_t g = 0; g < v->scale_cols; g++) {
        double s = 1.0;
        if (v->scale_rows > 0) {
            const int64_t idx = (e * v->scale_rows + n / v->row_group) * v->scale_cols + g;
            const int32_t size = hum_dtype_code_size(w->scale_dtype);
            const uint8_t *base = (const uint8_t *)w->scale.data + idx * size;
            uint64_t code = size == 1 ? *base : size == 2 ? *(const uint16_t *)base : *(const uint32_t *)base;
            s = hum_codec_decode(&v->scale, code);
        }
        double z = midpoint;
        if (w->has_zero_point && w->zero_point_is_float) {
            const uint16_t *zf = w->zero_point.data;
            z = hum_codec_decode(&v->param, zf[(e * v->n + n) * v->scale_cols + g]);
        } else if (w->has_zero_point) {
            const int32_t *zw = (const int32_t *)w->zero_point.data + e * v->zp_rows * v->scale_cols + g;
            z = (double)hum_bits_get(zw, v->scale_cols, n * v->bits, v->bits);
        }
        const int held = !v->is_int && r->held != HUM_DTYPE_INVALID;
        const double sh = held ? held_value(r->held, (double)(float)(s * global)) : 0.0;
        const int64_t j_end = (g + 1) * v->col_group < v->k ? (g + 1) * v->col_group : v->k;
        for (int64_t j = g * v->col_group; j < j_end; j++) {
            const double q = v->is_int ? (double)codes[j] - z : r->values[codes[j]];
            const double x = held ? held_value(r->held, q * sh) : q * s * global;
            if (!k_perm)
                row[j] = x;
            else if (k_perm[j] >= 0)
                row[k_perm[j]] = x;
        }
    }
}

static hum_status reader_open(const char *fn, const hum_standard_weight *w, int64_t expert, reader *r)
{
    r->held = HUM_DTYPE_INVALID;
    hum_status st = hum_standard_view_init(w, &r->v);
    if (st != HUM_OK)
        return hum_fail_context(st, "%s", fn);
    if (expert < 0 || expert >= r->v.experts)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: expert %" PRId64 " outside [0, %" PRId64 ")", fn, expert,
                        r->v.experts);
    for (uint32_t c = 0; c < (1u << r->v.bits); c++)
        r->values[c] = hum_codec_decode(&r->v.weight, c);
    r->codes = malloc((size_t)r->v.k);
    if (r->codes == NULL)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: %" PRId64 " bytes of scratch", fn, r->v.k);
    return HUM_OK;
}

hum_status hum_reference_dequant(const hum_standard_weight *w, int64_t expert, double *out)
{
    reader r;
    if (out == NULL)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_reference_dequant: NULL out");
    hum_status st = reader_open("hum_reference_dequant", w, expert, &r);
    if (st != HUM_OK)
        return st;
    for (int64_t n = 0; n < r.v.n; n++)
        dequant_row(w, &r, expert, n, out + n * r.v.input_k);
    free(r.codes);
    return HUM_OK;
}

/* c[j * ldc] = b + sum over k of a[j * K + k] * row[k] for the `rows` rows of a, each sum in the order
 * of k (the same bits whatever `rows` is): one sum's adds wait on each other, several sums' do not,
 * so a constant `rows` of 4 or 8 runs 3-4x faster (the GPU tests' references, M = 520 at K = 8192,
 * took 4 s a case one row at a time). */
static inline void dot_rows(int rows, const double *a, int64_t K, const double *row, double b, double *c, int64_t ldc)
{
    double sum[8] = {0.0};
    for (int64_t k = 0; k < K; k++)
        for (int j = 0; j < rows; j++)
            sum[j] += a[j * K + k] * row[k];
    for (int j = 0; j < rows; j++)
        c[j * ldc] = sum[j] + b;
}

hum_status hum_reference_gemm(const hum_standard_weight *w, int64_t expert, const double *a, int64_t m, double *c)
{
    return hum_reference_gemm_held(w, expert, HUM_DTYPE_INVALID, a, m, c);
}

hum_status hum_reference_gemm_held(const hum_standard_weight *w, int64_t expert, hum_dtype held, const double *a,
                                   int64_t m, double *c)
{
    reader r;
    if (m < 0 || (m > 0 && (a == NULL || c == NULL)))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_reference_gemm: M = %" PRId64 " with %s", m,
                        m < 0 ? "a negative count" : "a NULL matrix");
    if (held != HUM_DTYPE_INVALID && held != HUM_DTYPE_FLOAT16 && held != HUM_DTYPE_BFLOAT16)
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "hum_reference_gemm_held: weights held in %s (expected float16 or bfloat16)",
                        hum_dtype_name(held));
    hum_status st = reader_open("hum_reference_gemm", w, expert, &r);
    if (st != HUM_OK)
        return st;
    r.held = held;
    const int64_t N = r.v.n, K = r.v.input_k;
    double *row = malloc((size_t)K * sizeof *row);
    if (row == NULL) {
        free(r.codes);
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_reference_gemm: %" PRId64 " doubles of scratch", K);
    }
    const uint16_t *bias = w->bias.data;
    for (int64_t n = 0; n < N; n++) {
        dequant_row(w, &r, expert, n, row);
        const double b = bias ? hum_codec_decode(&r.v.param, bias[expert * N + n]) : 0.0;
        int64_t i = 0;
        for (; i + 8 <= m; i += 8)
            dot_rows(8, a + i * K, K, row, b, c + i * N + n, N);
        for (; i + 4 <= m; i += 4)
            dot_rows(4, a + i * K, K, row, b, c + i * N + n, N);
        for (; i < m; i++)
            dot_rows(1, a + i * K, K, row, b, c + i * N + n, N);
    }
    free(row);
    free(r.codes);
    return HUM_OK;
}
