/* A planned layer's weights onto the GPU: raw standard tensors are uploaded and turned into the
 * kernel's layout by kernels/prep/repack.cu (runtime/src/quant/repack.c is its CPU twin); the small
 * tensors (bias, k_perm) are prepared on the host. The E experts of an expert GEMM are E such
 * weights back to back (kernels/contract/moe_layout.h), one scale exponent for them all. */
#include "layer.h"

#include "contract/moe_layout.h"
#include "internal.h"
#include "standard.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hum_layer_buffers_free(hum_layer_buffers *buf)
{
    hum_device_free(buf->weight);
    hum_device_free(buf->scale);
    hum_device_free(buf->zero);
    hum_device_free(buf->bias);
    hum_device_free(buf->col_scale);
    hum_device_free(buf->k_perm);
    hum_device_free(buf->input_scale);
    memset(buf, 0, sizeof *buf);
}

/* Largest magnitude a weight code decodes to before any scale: |q - z| for ints, the largest
 * finite value for floats read as all-finite codes (hum.h, standard format). */
static double decoded_max(const hum_layer_config *cfg, double zero_max)
{
    const int b = cfg->weight_bits;
    if (cfg->weight_float) {
        const int e = cfg->weight_exp, m = b - 1 - e, bias = (1 << (e - 1)) - 1;
        return ldexp(2.0 - ldexp(1.0, -m), (1 << e) - 1 - bias);
    }
    switch (cfg->zero_point) {
    case HUM_ZERO_POINT_INT: return ldexp(1.0, b) - 1.0;
    case HUM_ZERO_POINT_FLOAT: return ldexp(1.0, b) + zero_max;
    default: return ldexp(1.0, b - 1);
    }
}

int32_t hum_layer_scale_exponent(const hum_layer_config *cfg, double scale_max, double zero_max)
{
    if ((!cfg->has_scale && !cfg->weight_float) || hum_gemm_a8(cfg))
        return 0;
    const double s = cfg->has_scale && scale_max > 0 ? scale_max : 1.0;
    const int by_weight = (int)floor(log2(16384.0 / (decoded_max(cfg, zero_max) * s))) + cfg->exp_compensation;
    const int by_scale = (int)floor(log2(16384.0 / s));
    return by_weight < by_scale ? by_weight : by_scale;
}

/* Largest |x| and smallest nonzero |x| of `count` values of `dtype` (NaN ignored). */
static hum_status magnitude_range(const void *data, hum_dtype dtype, int64_t count, double *max_abs,
                                  double *min_abs)
{
    float *f = malloc((size_t)count * sizeof *f);
    if (!f)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "scale statistics of %lld values", (long long)count);
    hum_status st = hum_dtype_to_float(dtype, data, count, f);
    *max_abs = 0;
    *min_abs = INFINITY;
    for (int64_t i = 0; st == HUM_OK && i < count; i++) {
        const double a = fabs((double)f[i]);
        if (a > *max_abs)
            *max_abs = a;
        if (a > 0 && a < *min_abs)
            *min_abs = a;
    }
    free(f);
    return st;
}

static hum_status upload(int32_t ordinal, const void *host, size_t bytes, void **dptr, int64_t *total)
{
    hum_status st = hum_device_alloc(ordinal, bytes, dptr);
    if (st == HUM_OK && host)
        st = hum_memcpy_htod(*dptr, host, bytes);
    if (st == HUM_OK)
        *total += (int64_t)bytes;
    return st;
}

typedef struct prep_kernels {
    hum_kernel *repack, *params;
} prep_kernels;

static hum_status load_prep_kernels(hum_runtime *rt, int32_t ordinal, const char *arch, int32_t bits,
                                    prep_kernels *k)
{
    char repack[32];
    snprintf(repack, sizeof repack, "hum_repack_weight<%d>", bits);
    const char *const names[2] = {repack, "hum_prep_params"};
    hum_jit_request reqs[2];
    hum_jit_result res[2];
    memset(reqs, 0, sizeof reqs);
    for (int i = 0; i < 2; i++) {
        reqs[i].source = "kernels/prep/repack.cu";
        reqs[i].kernel_name = names[i];
        reqs[i].arch = arch;
    }
    hum_status st = hum_jit_compile_many(hum_runtime_cache_dir(rt), reqs, 2, res, 2);
    if (st != HUM_OK)
        return st;
    st = hum_kernel_load(ordinal, &res[0], 0, &k->repack);
    if (st == HUM_OK && (st = hum_kernel_load(ordinal, &res[1], 0, &k->params)) != HUM_OK)
        hum_kernel_destroy(k->repack);
    hum_jit_result_free(&res[0]);
    hum_jit_result_free(&res[1]);
    return st;
}

static hum_launch_config grid_for(int64_t work)
{
    hum_launch_config cfg;
    memset(&cfg, 0, sizeof cfg);
    const int64_t blocks = (work + 255) / 256;
    cfg.grid[0] = (uint32_t)(blocks < 8192 ? blocks : 8192);
    cfg.block[0] = 256;
    return cfg;
}

/* Scales or zero points of `experts` experts -> [experts][scale_rows][padded_n] activation dtype
 * on the device. */
static hum_status prep_params(const prep_kernels *k, int32_t ordinal, const hum_layer_config *c, int64_t experts,
                              const hum_tensor *src, hum_dtype dtype, int packed_bits, int64_t groups,
                              int64_t n_div, int exp_adjust, void **out, int64_t *total)
{
    int64_t count = 1;
    for (int32_t i = 0; i < src->rank; i++)
        count *= src->shape[i];
    const size_t src_bytes = (size_t)(count / experts * hum_dtype_code_size(src->dtype));
    const int64_t stride = hum_moe_param_stride(c->padded_n, c->scale_rows);
    void *raw = NULL;
    int64_t ignored = 0;
    hum_status st = upload(ordinal, src->data, src_bytes * (size_t)experts, &raw, &ignored);
    if (st == HUM_OK)
        st = upload(ordinal, NULL, (size_t)(experts * stride * 2), out, total);
    for (int64_t e = 0; st == HUM_OK && e < experts; e++) {
        uint32_t dt = dtype;
        int n = (int)c->n, g = (int)groups, nd = (int)n_div, np = (int)c->padded_n, gp = (int)c->scale_rows;
        int bf16 = c->a_dtype == HUM_DTYPE_BFLOAT16, adj = exp_adjust;
        void *from = (char *)raw + e * src_bytes, *to = (char *)*out + e * stride * 2;
        void *args[] = {&from, &dt, &packed_bits, &n, &g, &nd, &np, &gp, &bf16, &adj, &to};
        hum_launch_config cfg = grid_for(stride);
        st = hum_kernel_launch(k->params, &cfg, args);
    }
    if (st == HUM_OK)
        st = hum_stream_synchronize(NULL);
    hum_device_free(raw);
    return st;
}

static hum_status prep_weight(const prep_kernels *k, int32_t ordinal, const hum_layer_config *c, int64_t experts,
                              const hum_standard_weight *w, int64_t row_words, hum_layer_buffers *buf)
{
    void *raw = NULL;
    int64_t ignored = 0;
    const int64_t words = hum_moe_code_stride(c->padded_n, c->padded_k, c->weight_bits);
    const size_t src_bytes = (size_t)(c->n * row_words * 4);
    hum_status st = upload(ordinal, w->weight.data, src_bytes * (size_t)experts, &raw, &ignored);
    if (st == HUM_OK)
        st = upload(ordinal, NULL, (size_t)(experts * words * 4), &buf->weight, &buf->bytes);
    for (int64_t e = 0; st == HUM_OK && e < experts; e++) {
        int64_t rw = row_words;
        int n = (int)c->n, kk = (int)c->k, np = (int)c->padded_n, kp = (int)c->padded_k;
        void *from = (char *)raw + e * src_bytes, *to = (char *)buf->weight + e * words * 4;
        int a8 = hum_gemm_repack_order(c);
        void *args[] = {&from, &rw, &n, &kk, &np, &kp, &a8, &to};
        hum_launch_config cfg = grid_for(c->padded_k / 16 * (c->padded_n / 64) * 32);
        st = hum_kernel_launch(k->repack, &cfg, args);
    }
    if (st == HUM_OK)
        st = hum_stream_synchronize(NULL);
    hum_device_free(raw);
    return st;
}

/* A folded e8m0 group exponent e of a row whose largest is top (hum_gemm_fold_scales): 2^(e - top
 * + 6) as an e8m0 byte, 0 for groups more than 2^133 below (their codes then vanish too). */
static uint8_t fold_rel(int e, int top)
{
    return (uint8_t)(e + 133 - top > 0 ? e + 133 - top : 0);
}

/* The smallest fold_rel the e4m3 byte tables decode: 2^-5 (kernels/gemm/dequant.cuh,
 * fp4_window: d = r + 6 >= 1). */
enum { FOLD_WINDOW_MIN = 127 - 5 };

int hum_layer_fold_window(const hum_standard_weight *w)
{
    hum_standard_view view;
    if (w->weight_dtype != HUM_DTYPE_FLOAT4_E2M1 || w->scale_dtype != HUM_DTYPE_FLOAT8_E8M0 || !w->scale.data ||
        hum_standard_view_init(w, &view) != HUM_OK)
        return 0;
    const int64_t rows = view.scale_rows * view.experts, groups = view.scale_cols;
    for (int64_t i = 0; i < rows; i++) {
        const uint8_t *e = (const uint8_t *)w->scale.data + i * groups;
        int top = 0, low = 255;
        for (int64_t g = 0; g < groups; g++) {
            top = e[g] > top ? e[g] : top;
            low = e[g] < low ? e[g] : low;
        }
        if (fold_rel(low, top) < FOLD_WINDOW_MIN)
            return 0;
    }
    return 1;
}

/* 8-bit A's weight scales: the float32 factor of each column of each expert (col_scale
 * [experts][padded_n], zeros past N; a BLOCK scale row serves its row_group columns) and, when
 * folded (hum_gemm_fold_scales), float16 rows of each e8m0 group's power of two relative to it. A
 * column's factor is 2^(its largest group exponent - 6): relative exponents are at most 6, so
 * that e2m1 codes times them are exact e4m3 values (6 x 2^6 <= 448), down to groups 2^14 below
 * the largest (e4m3's smallest subnormal). */
static hum_status prep_a8_scales(const prep_kernels *k, int32_t ordinal, const hum_layer_config *c,
                                 const hum_standard_weight *w, const hum_standard_view *view, hum_layer_buffers *buf)
{
    const int64_t experts = view->experts, rows = view->scale_rows * experts, groups = view->scale_cols;
    const int fold = hum_gemm_fold_scales(c);
    float *f = calloc((size_t)(experts * c->padded_n), sizeof *f), *r = malloc((size_t)rows * sizeof *r);
    uint8_t *rel = fold ? malloc((size_t)(rows * groups)) : NULL;
    hum_status st = f && r && (rel || !fold) ? HUM_OK
                                            : hum_fail(HUM_ERR_OUT_OF_MEMORY, "scales of %lld columns",
                                                       (long long)(experts * c->padded_n));
    for (int64_t i = 0; st == HUM_OK && fold && i < rows; i++) {
        const uint8_t *e = (const uint8_t *)w->scale.data + i * groups;
        int top = 0;
        for (int64_t g = 0; g < groups; g++)
            top = e[g] > top ? e[g] : top;
        for (int64_t g = 0; g < groups; g++)
            rel[i * groups + g] = fold_rel(e[g], top);
        r[i] = (float)ldexp(1.0, top - 133);
    }
    if (st == HUM_OK && !fold)
        st = hum_dtype_to_float(w->scale_dtype, w->scale.data, rows, r);
    for (int64_t e = 0; st == HUM_OK && e < experts; e++)
        for (int64_t n = 0; n < c->n; n++)
            f[e * c->padded_n + n] = r[e * view->scale_rows + n / view->row_group];
    if (st == HUM_OK)
        st = upload(ordinal, f, (size_t)(experts * c->padded_n) * sizeof *f, &buf->col_scale, &buf->bytes);
    if (st == HUM_OK && fold) {
        hum_tensor t = w->scale;
        t.data = rel;
        st = prep_params(k, ordinal, c, experts, &t, HUM_DTYPE_FLOAT8_E8M0, 0, groups, view->row_group, 0,
                         &buf->scale, &buf->bytes);
    }
    free(f);
    free(r);
    free(rel);
    return st;
}

/* 8-bit A's weight scales per group along K (hum_gemm_block_scales): float32 rows
 * [experts][scale_rows][padded_n], row g column n the scale of n's row block and of K group g,
 * zeros past N (and in rows past the checkpoint's groups, whose padded K is zero), read where
 * the accumulators are promoted (kernels/gemm/kscale.cuh, which may read a column's factor for
 * its whole block, past N included: those columns' codes are zero); kept in float32, never
 * rounded. */
static hum_status prep_block_scales(int32_t ordinal, const hum_layer_config *c, const hum_standard_weight *w,
                                    const hum_standard_view *view, hum_layer_buffers *buf)
{
    const int64_t E = view->experts, rows = c->scale_rows, stride = hum_moe_param_stride(c->padded_n, rows);
    const int64_t groups = view->scale_cols, count = E * view->scale_rows * groups;
    float *src = malloc((size_t)count * sizeof *src), *f = calloc((size_t)(E * stride), sizeof *f);
    hum_status st = src && f ? hum_dtype_to_float(w->scale_dtype, w->scale.data, count, src)
                             : hum_fail(HUM_ERR_OUT_OF_MEMORY, "block scales of %lld columns", (long long)c->padded_n);
    for (int64_t e = 0; st == HUM_OK && e < E; e++)
        for (int64_t g = 0; g < rows && g < groups; g++)
            for (int64_t n = 0; n < c->n; n++)
                f[e * stride + g * c->padded_n + n] = src[(e * view->scale_rows + n / view->row_group) * groups + g];
    if (st == HUM_OK)
        st = upload(ordinal, f, (size_t)(E * stride) * sizeof *f, &buf->scale, &buf->bytes);
    free(src);
    free(f);
    return st;
}

/* float32 [experts][padded_n] from the param-dtype bias; zeros past N. */
static hum_status prep_bias(int32_t ordinal, const hum_layer_config *c, int64_t experts, const hum_tensor *bias,
                            hum_layer_buffers *buf)
{
    float *f = calloc((size_t)(experts * c->padded_n), sizeof *f);
    if (!f)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "bias of %lld values", (long long)(experts * c->padded_n));
    hum_status st = HUM_OK;
    const size_t size = (size_t)hum_dtype_code_size(bias->dtype);
    for (int64_t e = 0; st == HUM_OK && e < experts; e++)
        st = hum_dtype_to_float(bias->dtype, (const char *)bias->data + e * c->n * size, c->n, f + e * c->padded_n);
    if (st == HUM_OK)
        st = upload(ordinal, f, (size_t)(experts * c->padded_n) * sizeof *f, &buf->bias, &buf->bytes);
    free(f);
    return st;
}


hum_status hum_layer_upload(hum_layer *layer, int32_t ordinal, hum_layer_buffers *buf)
{
    const hum_standard_weight *w = &layer->weight;
    const hum_layer_config *c = &layer->plan.config;
    hum_standard_view view;
    hum_status st = hum_standard_view_init(w, &view);
    if (st != HUM_OK)
        return st;

    const int64_t E = view.experts;
    double scale_max = 0, scale_min = INFINITY, zero_max = 0, unused;
    if (c->has_scale)
        st = magnitude_range(w->scale.data, w->scale_dtype, E * view.scale_rows * view.scale_cols, &scale_max,
                             &scale_min);
    if (st == HUM_OK && c->zero_point == HUM_ZERO_POINT_FLOAT)
        st = magnitude_range(w->zero_point.data, w->zero_point.dtype, E * view.zp_rows * view.scale_cols, &zero_max,
                             &unused);
    if (st != HUM_OK)
        return st;
    const int32_t x = hum_layer_scale_exponent(c, scale_max, zero_max);
    if (c->has_scale && c->a_dtype == HUM_DTYPE_FLOAT16 && scale_min < INFINITY &&
        ldexp(scale_min, x) < ldexp(1.0, -24))
        return hum_fail(HUM_ERR_UNSUPPORTED,
                        "scales from %g to %g span more than float16 activations can carry (use bfloat16)", scale_min,
                        scale_max);
    double factor = ldexp(1.0, c->exp_compensation - x);
    if (w->global_scale.data)
        factor *= ((const float *)w->global_scale.data)[0];

    prep_kernels k;
    memset(&k, 0, sizeof k);
    if ((st = load_prep_kernels(layer->rt, ordinal, layer->plan.arch, c->weight_bits, &k)) != HUM_OK)
        return st;
    memset(buf, 0, sizeof *buf);
    st = prep_weight(&k, ordinal, c, E, w, view.row_words, buf);
    if (st == HUM_OK && hum_gemm_block_scales(c))
        st = prep_block_scales(ordinal, c, w, &view, buf);
    else if (st == HUM_OK && c->has_scale && hum_gemm_a8(c))
        st = prep_a8_scales(&k, ordinal, c, w, &view, buf);
    else if (st == HUM_OK && c->has_scale)
        st = prep_params(&k, ordinal, c, E, &w->scale, w->scale_dtype, 0, view.scale_cols, view.row_group, x,
                         &buf->scale, &buf->bytes);
    if (st == HUM_OK && c->zero_point != HUM_ZERO_POINT_NONE) {
        const int packed = c->zero_point == HUM_ZERO_POINT_INT ? c->weight_bits : 0;
        st = prep_params(&k, ordinal, c, E, &w->zero_point, w->zero_point.dtype, packed, view.scale_cols, 1, 0,
                         &buf->zero, &buf->bytes);
    }
    if (st == HUM_OK && c->has_bias)
        st = prep_bias(ordinal, c, E, &w->bias, buf);
    if (st == HUM_OK && c->act_order)
        st = upload(ordinal, w->k_perm.data, (size_t)(E * c->k) * 4, &buf->k_perm, &buf->bytes); /* [E][K'] */
    /* an 8-bit layer that quantizes per tensor uses the checkpoint's static scale (a dense
     * layer's one value) */
    if (st == HUM_OK && hum_gemm_a8(c) && c->a_scale == HUM_ACT_SCALE_TENSOR) {
        if (!w->input_scale.data)
            st = hum_fail(HUM_ERR_INVALID_ARG, "%s activations per tensor need the weight's input_scale (the static "
                          "scale the checkpoint was calibrated with)", hum_dtype_name(c->a_dtype));
        else
            st = upload(ordinal, w->input_scale.data, 4, &buf->input_scale, &buf->bytes);
    }
    hum_kernel_destroy(k.repack);
    hum_kernel_destroy(k.params);
    if (st != HUM_OK) {
        hum_layer_buffers_free(buf);
        return st;
    }
    layer->scale_exponent = x;
    layer->out_factor = (float)factor;
    return HUM_OK;
}
