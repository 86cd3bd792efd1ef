/* The reference quantizer: float weights to a standard weight, by the rules documented at
 * hum_quantize_reference in hum.h. Every scale type is handled as a grid of scale cells
 * (row_group x col_group elements), so one pass computes the cell ranges and a second one the
 * codes. Both passes run on bands of whole cell rows, on threads: a band reads and writes only its
 * own rows' cells, codes and words, so the result is the one a single thread gives (an 8192 x 8192
 * layer took 2-3 s on one). */
#include "internal.h"
#include "standard.h"
#include "threadpool.h"

#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct plan {
    const hum_quant_spec *spec;
    int64_t experts, n, k;
    int is_int, bits;
    double levels;                 /* 2^b - 1 */
    int64_t rows, cols;            /* the cell grid */
    int64_t row_group, col_group;  /* elements per cell along N and K */
    hum_codec weight, scale, param, f32;
    int mx;                        /* e8m0 scales with FP weights: the OCP MX scale rule */
    double scale_range;            /* GROUP_TENSOR: R */
} plan;

/* Nearest code to x > 0, moved one code up when it came out below x, unless that code is not
 * finite (saturation): the scale never shrinks the range it has to cover. */
static uint64_t round_up(const hum_codec *c, double x)
{
    uint64_t code = hum_codec_encode(c, x);
    if (hum_codec_decode(c, code) < x && isfinite(hum_codec_decode(c, code + 1)))
        code++;
    return code;
}

static void store(void *data, int32_t size, int64_t i, uint64_t code)
{
    switch (size) {
    case 1: ((uint8_t *)data)[i] = (uint8_t)code; break;
    case 2: ((uint16_t *)data)[i] = (uint16_t)code; break;
    default: ((uint32_t *)data)[i] = (uint32_t)code; break;
    }
}

static hum_status check_spec(const float *w, int64_t n, int64_t k, const hum_quant_spec *spec, plan *p)
{
    memset(p, 0, sizeof *p);
    if (w == NULL || spec == NULL)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_reference: NULL %s", w == NULL ? "weights" : "spec");
    if (n < 1 || k < 1 || n > (INT64_C(1) << 31) || k > (INT64_C(1) << 31) || spec->num_experts < 0 ||
        spec->num_experts > (INT64_C(1) << 20))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_reference: N = %" PRId64 ", K = %" PRId64
                        ", num_experts = %" PRId64 " (expected N, K in 1..2^31, experts in 0..2^20)", n, k,
                        spec->num_experts);
    const hum_dtype wt = spec->weight_dtype;
    const int kind = (int)((wt >> 24) & 0xF);
    p->bits = hum_dtype_bits(wt);
    if (!hum_dtype_is_weight(wt))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_reference: weight_dtype %s (expected uint1..uint8 or a "
                        "float of 8 bits or fewer)", hum_dtype_name(wt));
    if (!hum_dtype_is_activation(spec->param_dtype))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_reference: param_dtype %s (expected float16 or bfloat16)",
                        hum_dtype_name(spec->param_dtype));
    p->spec = spec;
    p->experts = spec->num_experts > 0 ? spec->num_experts : 1;
    p->n = n;
    p->k = k;
    p->is_int = kind == HUM_KIND_UINT;
    p->levels = ldexp(1.0, p->bits) - 1.0;
    hum_codec_init(wt, &p->weight);
    hum_codec_init(spec->param_dtype, &p->param);
    hum_codec_init(HUM_DTYPE_FLOAT32, &p->f32);

    const hum_scale_type st = spec->scale_type;
    if (st < HUM_SCALE_CHANNEL || st > HUM_SCALE_GROUP_TENSOR)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_reference: unknown scale_type %d", (int)st);
    const int grouped = st == HUM_SCALE_GROUP || st == HUM_SCALE_GROUP_TENSOR || st == HUM_SCALE_BLOCK;
    if (grouped ? spec->group_size < 1 : spec->group_size != 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_reference: group_size %" PRId64 " (expected %s)",
                        spec->group_size,
                        grouped ? ">= 1 for GROUP, GROUP_TENSOR and BLOCK" : "0 for CHANNEL and TENSOR");
    if (st == HUM_SCALE_BLOCK ? spec->group_size_n < 1 : spec->group_size_n != 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_reference: group_size_n %" PRId64 " (expected %s)",
                        spec->group_size_n, st == HUM_SCALE_BLOCK ? ">= 1 for BLOCK" : "0 unless BLOCK");
    if (spec->zero_point < HUM_ZERO_POINT_NONE || spec->zero_point > HUM_ZERO_POINT_FLOAT)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_reference: unknown zero_point kind %d",
                        (int)spec->zero_point);
    if (spec->zero_point != HUM_ZERO_POINT_NONE && (!p->is_int || st == HUM_SCALE_BLOCK || st == HUM_SCALE_TENSOR))
        return hum_fail(HUM_ERR_UNSUPPORTED,
                        "hum_quantize_reference: a zero point with %s weights and %s scales "
                        "(zero points need an integer weight and CHANNEL, GROUP or GROUP_TENSOR scales)",
                        hum_dtype_name(wt),
                        st == HUM_SCALE_BLOCK ? "BLOCK" : st == HUM_SCALE_TENSOR ? "TENSOR" : "these");

    hum_dtype sd = spec->scale_dtype;
    if (st == HUM_SCALE_TENSOR)
        sd = HUM_DTYPE_FLOAT32;
    else if (sd == HUM_DTYPE_INVALID)
        sd = st == HUM_SCALE_BLOCK ? HUM_DTYPE_FLOAT32 : spec->param_dtype;
    if (!hum_dtype_is_scale(sd) ||
        (st == HUM_SCALE_BLOCK && sd != HUM_DTYPE_FLOAT32))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_reference: scale_dtype %s (expected %s)", hum_dtype_name(sd),
                        st == HUM_SCALE_BLOCK
                            ? "float32 for BLOCK"
                            : "float16, bfloat16, float32, float8_e4m3fn, float8_e5m2 or float8_e8m0");
    hum_codec_init(sd, &p->scale);
    p->mx = sd == HUM_DTYPE_FLOAT8_E8M0 && !p->is_int;
    p->scale_range = p->scale.max_finite <= 65536.0 ? p->scale.max_finite : 1.0;

    p->col_group = st == HUM_SCALE_CHANNEL || st == HUM_SCALE_TENSOR ? k : spec->group_size;
    p->row_group = st == HUM_SCALE_BLOCK ? spec->group_size_n : st == HUM_SCALE_TENSOR ? n : 1;
    p->cols = hum_ceil_div(k, p->col_group);
    p->rows = hum_ceil_div(n, p->row_group);

    const int64_t total = p->experts * n * k;
    for (int64_t i = 0; i < total; i++)
        if (!isfinite(w[i]))
            return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_reference: weight %g at index %" PRId64 " is not finite",
                            (double)w[i], i);
    if (spec->bias != NULL)
        for (int64_t i = 0; i < p->experts * n; i++)
            if (!isfinite(spec->bias[i]))
                return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_reference: bias %g at index %" PRId64
                                " is not finite", (double)spec->bias[i], i);
    if (spec->k_perm != NULL)
        return hum_check_permutation(spec->k_perm, k, "hum_quantize_reference: k_perm");
    return HUM_OK;
}

static hum_status alloc_tensors(const plan *p, hum_standard_weight *out)
{
    const hum_quant_spec *s = p->spec;
    const int64_t E = s->num_experts;
    out->num_experts = E;
    out->n = p->n;
    out->k = p->k;
    out->weight_dtype = s->weight_dtype;
    out->param_dtype = s->param_dtype;
    out->scale_type = s->scale_type;
    out->group_size = s->group_size;
    out->group_size_n = s->group_size_n;
    out->scale_dtype = p->scale.dtype;
    out->has_zero_point = s->zero_point != HUM_ZERO_POINT_NONE;
    out->zero_point_is_float = s->zero_point == HUM_ZERO_POINT_FLOAT;
    /* Shapes with the expert dim in front when E > 0: lead = 1 skips it. */
    const int lead = E > 0 ? 0 : 1;
    int64_t shape[3] = {E, p->n, (p->k * p->bits + 31) / 32};
    hum_status st = hum_host_tensor_alloc(&out->weight, HUM_DTYPE_INT32, 3 - lead, shape + lead);
    if (st == HUM_OK && s->scale_type != HUM_SCALE_TENSOR) {
        int64_t sshape[3] = {E, p->rows, p->cols};
        st = hum_host_tensor_alloc(&out->scale, p->scale.dtype, 3 - lead, sshape + lead);
    }
    if (st == HUM_OK && out->has_zero_point) {
        int64_t zshape[3] = {E, out->zero_point_is_float ? p->n : (p->n * p->bits + 31) / 32, p->cols};
        st = hum_host_tensor_alloc(&out->zero_point, out->zero_point_is_float ? s->param_dtype : HUM_DTYPE_INT32,
                                   3 - lead, zshape + lead);
    }
    if (st == HUM_OK && (s->scale_type == HUM_SCALE_TENSOR || s->scale_type == HUM_SCALE_GROUP_TENSOR))
        st = hum_host_tensor_alloc(&out->global_scale, HUM_DTYPE_FLOAT32, 1, &p->experts);
    if (st == HUM_OK && s->bias != NULL) {
        int64_t bshape[2] = {E, p->n};
        st = hum_host_tensor_alloc(&out->bias, s->param_dtype, 2 - lead, bshape + lead);
    }
    if (st == HUM_OK && s->k_perm != NULL) { /* every expert quantized in the one order */
        int64_t pshape[2] = {E, p->k};
        st = hum_host_tensor_alloc(&out->k_perm, HUM_DTYPE_INT32, 2 - lead, pshape + lead);
        for (int64_t e = 0; st == HUM_OK && e < p->experts; e++)
            memcpy((int32_t *)out->k_perm.data + e * p->k, s->k_perm, (size_t)p->k * sizeof(int32_t));
    }
    return st;
}

/* Scratch for one expert: per cell the low / high value, the scale S and the zero point. */
typedef struct cells {
    double *lo, *hi, *scale, *zero;
    uint8_t *codes; /* one row of weight codes per band, K each; then the int zero points, rows x cols */
} cells;

/* Rows a band holds: whole cell rows (a BLOCK scale's group of rows; TENSOR's one cell is all the
 * rows), QUANT_BAND or the most of them that fit in it, a cell row when it is longer. */
enum { QUANT_BAND = 64 };

static int64_t band_rows(const plan *p)
{
    return p->row_group >= QUANT_BAND ? p->row_group : p->row_group * (QUANT_BAND / p->row_group);
}

static int64_t band_count(const plan *p)
{
    const int64_t b = band_rows(p);
    return (p->n + b - 1) / b;
}

/* The rows [*r0, *r1) of band `band`. */
static void band_span(const plan *p, int32_t band, int64_t *r0, int64_t *r1)
{
    *r0 = band * band_rows(p);
    *r1 = *r0 + band_rows(p) < p->n ? *r0 + band_rows(p) : p->n;
}

/* What one expert's bands share: the inputs, the cells, the output, and the first failure (a
 * band's message is in its own thread's error, so it is copied here). */
typedef struct bands {
    const plan *p;
    const float *w;
    int64_t e;
    cells *c;
    hum_standard_weight *out;
    atomic_int failed;
    hum_status status;
    char why[4096]; /* the size of a thread's error (core/error.c) */
} bands;

/* The range r of a cell, as in hum.h. */
static double cell_range(const plan *p, double lo, double hi)
{
    if (!p->is_int)
        return fmax(-lo, hi) / p->weight.max_finite;
    if (p->spec->zero_point == HUM_ZERO_POINT_NONE)
        return fmax(-lo, hi) / (p->levels / 2.0);
    return (fmax(hi, 0.0) - fmin(lo, 0.0)) / p->levels;
}

static double weight_at(const plan *p, const float *w, int64_t e, int64_t n, int64_t j)
{
    const int64_t col = p->spec->k_perm ? p->spec->k_perm[j] : j;
    return (double)w[(e * p->n + n) * p->k + col];
}

/* The first pass on band `band`: the ranges of its rows' cells. */
static void range_band(void *ctx, int32_t band)
{
    bands *b = ctx;
    const plan *p = b->p;
    cells *c = b->c;
    int64_t r0, r1;
    band_span(p, band, &r0, &r1);
    for (int64_t n = r0; n < r1; n++)
        for (int64_t j = 0; j < p->k; j++) {
            const int64_t i = (n / p->row_group) * p->cols + j / p->col_group;
            const double x = weight_at(p, b->w, b->e, n, j);
            c->lo[i] = fmin(c->lo[i], x);
            c->hi[i] = fmax(c->hi[i], x);
        }
}

/* The second pass on band `band`: its rows' codes, packed into the weight's words. */
static void code_band(void *ctx, int32_t band)
{
    bands *b = ctx;
    const plan *p = b->p;
    const cells *c = b->c;
    uint8_t *codes = c->codes + band * p->k;
    const int64_t row_words = (p->k * p->bits + 31) / 32;
    int64_t r0, r1;
    band_span(p, band, &r0, &r1);
    for (int64_t n = r0; n < r1; n++) {
        for (int64_t j = 0; j < p->k; j++) {
            const int64_t i = (n / p->row_group) * p->cols + j / p->col_group;
            const double x = weight_at(p, b->w, b->e, n, j) / c->scale[i];
            if (p->is_int) {
                const double zf = p->spec->zero_point == HUM_ZERO_POINT_FLOAT ? c->zero[i] : 0.0;
                const double zi = p->spec->zero_point == HUM_ZERO_POINT_FLOAT ? 0.0 : c->zero[i];
                const double q = hum_round_half_even(x + zf) + zi;
                codes[j] = (uint8_t)fmin(fmax(q, 0.0), p->levels);
            } else {
                const double m = p->weight.max_finite;
                codes[j] = (uint8_t)hum_codec_encode(&p->weight, fmin(fmax(x, -m), m));
            }
        }
        const hum_status st =
            hum_pack_bits(codes, (const int64_t[3]){1, 1, p->k}, p->bits, HUM_PACK_ALONG_COLS, HUM_PACK_DENSE,
                          (int32_t *)b->out->weight.data + (b->e * p->n + n) * row_words);
        if (st != HUM_OK) {
            if (atomic_exchange(&b->failed, 1) == 0) {
                b->status = st;
                snprintf(b->why, sizeof b->why,
                         "hum_quantize_reference: packing the codes of row %" PRId64 " (expert %" PRId64 "): %s", n,
                         b->e, hum_last_error());
            }
            return;
        }
    }
}

/* HUM_OK, or the status of a failed hum_pack_bits (its message kept): the caller must not hand
 * back a weight whose codes were never packed. */
static hum_status quantize_expert(const plan *p, const float *w, int64_t e, cells *c, hum_standard_weight *out)
{
    const int64_t ncells = p->rows * p->cols;
    for (int64_t i = 0; i < ncells; i++) {
        c->lo[i] = 0.0;
        c->hi[i] = 0.0;
    }
    bands b = {.p = p, .w = w, .e = e, .c = c, .out = out};
    atomic_init(&b.failed, 0);
    hum_parallel_for((int32_t)band_count(p), 0, range_band, &b);

    const hum_scale_type st = p->spec->scale_type;
    double global = 1.0;
    if (st == HUM_SCALE_TENSOR || st == HUM_SCALE_GROUP_TENSOR) {
        double top = 0.0;
        for (int64_t i = 0; i < ncells; i++)
            top = fmax(top, cell_range(p, c->lo[i], c->hi[i]));
        if (st == HUM_SCALE_GROUP_TENSOR)
            top /= p->scale_range;
        const uint64_t code = top > 0.0 ? round_up(&p->f32, top) : hum_codec_encode(&p->f32, 1.0);
        global = hum_codec_decode(&p->f32, code);
        ((uint32_t *)out->global_scale.data)[e] = (uint32_t)code;
    }
    const int32_t scale_size = hum_dtype_code_size(p->scale.dtype);
    for (int64_t i = 0; i < ncells; i++) {
        const double r = cell_range(p, c->lo[i], c->hi[i]);
        double s = 1.0;
        if (st != HUM_SCALE_TENSOR) {
            uint64_t code;
            if (r == 0.0) {
                code = hum_codec_encode(&p->scale, 1.0);
            } else if (p->mx) {
                int ex;
                frexp(fmax(-c->lo[i], c->hi[i]) / global, &ex);
                const int x = ex - 1 - p->weight.emax;
                code = hum_codec_encode(&p->scale, ldexp(1.0, x < -127 ? -127 : x > 127 ? 127 : x));
            } else {
                code = round_up(&p->scale, r / global);
            }
            s = hum_codec_decode(&p->scale, code);
            store(out->scale.data, scale_size, e * ncells + i, code);
        }
        c->scale[i] = s * global;
        c->zero[i] = p->is_int ? ldexp(1.0, p->bits - 1) : 0.0;
        if (p->spec->zero_point == HUM_ZERO_POINT_INT) {
            const double z = hum_round_half_even(-fmin(c->lo[i], 0.0) / c->scale[i]);
            c->zero[i] = fmin(fmax(z, 0.0), p->levels);
        } else if (p->spec->zero_point == HUM_ZERO_POINT_FLOAT) {
            const uint64_t code = hum_codec_encode(&p->param, -fmin(c->lo[i], 0.0) / c->scale[i]);
            c->zero[i] = hum_codec_decode(&p->param, code);
            ((uint16_t *)out->zero_point.data)[e * ncells + i] = (uint16_t)code;
        }
    }

    hum_parallel_for((int32_t)band_count(p), 0, code_band, &b);
    if (atomic_load(&b.failed))
        return hum_fail(b.status, "%s", b.why);
    if (p->spec->zero_point == HUM_ZERO_POINT_INT) {
        uint8_t *z = c->codes + band_count(p) * p->k;
        for (int64_t i = 0; i < ncells; i++)
            z[i] = (uint8_t)c->zero[i];
        const int64_t zp_rows = (p->n * p->bits + 31) / 32;
        hum_status st = hum_pack_bits(z, (const int64_t[3]){1, p->n, p->cols}, p->bits, HUM_PACK_ALONG_ROWS,
                                      HUM_PACK_DENSE, (int32_t *)out->zero_point.data + e * zp_rows * p->cols);
        if (st != HUM_OK)
            return hum_fail_context(st, "hum_quantize_reference: packing the zero points (expert %" PRId64 ")", e);
    }
    return HUM_OK;
}

hum_status hum_quantize_reference(const float *w, int64_t n, int64_t k, const hum_quant_spec *spec,
                                  hum_standard_weight *out)
{
    if (out == NULL)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_reference: NULL out");
    memset(out, 0, sizeof *out);
    plan p;
    hum_status st = check_spec(w, n, k, spec, &p);
    if (st != HUM_OK)
        return st;
    const int64_t ncells = p.rows * p.cols;
    cells c = {0};
    c.lo = malloc((size_t)ncells * sizeof(double));
    c.hi = malloc((size_t)ncells * sizeof(double));
    c.scale = malloc((size_t)ncells * sizeof(double));
    c.zero = malloc((size_t)ncells * sizeof(double));
    c.codes = malloc((size_t)(band_count(&p) * k + ncells));
    if (c.lo == NULL || c.hi == NULL || c.scale == NULL || c.zero == NULL || c.codes == NULL)
        st = hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_quantize_reference: scratch for %" PRId64 " scale cells", ncells);
    if (st == HUM_OK)
        st = alloc_tensors(&p, out);
    if (st == HUM_OK) {
        /* A failed expert stops here; hum_standard_free below then leaves `out` zeroed. */
        for (int64_t e = 0; e < p.experts && st == HUM_OK; e++)
            st = quantize_expert(&p, w, e, &c, out);
        if (st == HUM_OK && spec->bias != NULL) {
            const float *b = spec->bias;
            for (int64_t i = 0; i < p.experts * n; i++)
                ((uint16_t *)out->bias.data)[i] = (uint16_t)hum_codec_encode(&p.param, (double)b[i]);
        }
    }
    free(c.lo);
    free(c.hi);
    free(c.scale);
    free(c.zero);
    free(c.codes);
    if (st != HUM_OK)
        hum_standard_free(out);
    return st;
}
