/* Launch figures, shape rules and the constants header of one GEMM kernel variant. The rules
 * repeat the static_asserts of kernels/gemm/config.cuh so that a bad tuning is refused at
 * prepare time with its name, not as an NVRTC error. */
#include "gemm_variant.h"

#include "gemm_family.h"
#include "internal.h"
#include "layer.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

static int pow2(int64_t x)
{
    return x > 0 && (x & (x - 1)) == 0;
}

int32_t hum_gemm_threads(const hum_gemm_variant *v)
{
    const hum_tuning *t = v->tuning;
    return 32 * (t->block_m / t->warp_m) * (t->block_n / t->warp_n) * (t->block_k / t->warp_k);
}

/* The pipeline's stages (and the k-warp reduction buffer): what "hum_constants.h" calls kSmemBytes. */
static int64_t pipeline_bytes(const hum_gemm_variant *v)
{
    const hum_layer_config *c = v->layer;
    const hum_tuning *t = v->tuning;
    const int64_t rows = c->kernel_group >= t->block_k ? 1 : t->block_k / c->kernel_group;
    const int64_t a = (int64_t)t->block_m * t->block_k * 2;
    const int64_t b = (int64_t)t->block_k / 16 * (t->block_n / 64) * 32 * c->weight_bits * 4;
    const int64_t s = c->has_scale ? rows * t->block_n * 2 : 0;
    const int64_t z = c->has_zero_point ? rows * t->block_n * 2 : 0;
    const int64_t red = (int64_t)(t->block_k / t->warp_k - 1) * t->block_m * t->block_n * 4;
    return t->stages * (a + b + s + z) + red;
}

int64_t hum_gemm_smem_bytes(const hum_gemm_variant *v)
{
    return pipeline_bytes(v) + hum_gemm_family_of(v->tuning->kernel)->extra_smem;
}

hum_status hum_gemm_variant_check(const hum_gemm_variant *v)
{
#define RULE(cond, ...)                                           \
    do {                                                          \
        if (!(cond))                                              \
            return hum_fail(HUM_ERR_UNSUPPORTED, __VA_ARGS__);    \
    } while (0)
    const hum_layer_config *c = v->layer;
    const hum_tuning *t = v->tuning;
    RULE(c->weight_bits >= 1 && c->weight_bits <= 8, "weight width %d bits (expected 1..8)", c->weight_bits);
    RULE(t->block_m > 0 && t->block_n > 0 && t->block_k > 0 && t->warp_m > 0 && t->warp_n > 0 && t->warp_k > 0,
         "tile shapes must be positive");
    const hum_gemm_family *family = hum_gemm_family_of(t->kernel);
    RULE(family, "kernel %d: no such kernel family", t->kernel);
    if (family->check) {
        const hum_status st = family->check(v);
        if (st != HUM_OK)
            return st;
    }
    RULE(t->block_m % t->warp_m == 0 && t->block_n % t->warp_n == 0 && t->block_k % t->warp_k == 0,
         "block %dx%dx%d is not a multiple of warp %dx%dx%d", t->block_m, t->block_n, t->block_k, t->warp_m,
         t->warp_n, t->warp_k);
    RULE(t->warp_m % 16 == 0 && t->warp_n % 16 == 0 && t->warp_k % 16 == 0,
         "warp tile %dx%dx%d must be a multiple of 16 in M, N and K", t->warp_m, t->warp_n, t->warp_k);
    RULE(t->block_n % 64 == 0 && (t->block_k == 64 || t->block_k == 128 || t->block_k == 256),
         "block N %d must be a multiple of 64 and block K %d 64, 128 or 256", t->block_n, t->block_k);
    RULE(pow2(t->warp_n) && pow2(t->warp_k), "warp N %d and warp K %d must be powers of two", t->warp_n, t->warp_k);
    RULE(c->padded_n % t->block_n == 0 && c->padded_k % t->block_k == 0, "padded N %" PRId64 " / K %" PRId64
         " must be multiples of block N %d / K %d", c->padded_n, c->padded_k, t->block_n, t->block_k);
    RULE(c->kernel_group % t->block_k == 0 || (t->block_k % c->kernel_group == 0 && c->kernel_group % 16 == 0),
         "scale group %" PRId64 " and block K %d must divide one another (group a multiple of 16)", c->kernel_group,
         t->block_k);
    const int wk = t->block_k / t->warp_k;
    RULE(wk == 1 || wk == 2 || wk == 4, "%d warps along K (expected 1, 2 or 4)", wk);
    RULE(t->stages >= 2, "%d pipeline stages (at least 2)", t->stages);
    RULE(t->ctas_per_sm >= 1, "%d CTAs per SM (at least 1)", t->ctas_per_sm);
    const int32_t threads = hum_gemm_threads(v);
    RULE(threads <= 1024, "%d threads per CTA (at most 1024)", threads);
    const int gather = c->act_order || c->k % 8 != 0;
    RULE(!gather || (int64_t)t->block_m * t->block_k % threads == 0,
         "gathered activation tile %dx%d does not split over %d threads", t->block_m, t->block_k, threads);
    return HUM_OK;
#undef RULE
}

/* Appends to out[*len .. cap); the caller checks *len < cap once at the end. */
static void put(char *out, size_t cap, size_t *len, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put(char *out, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(out + (*len < cap ? *len : cap), *len < cap ? cap - *len : 0, fmt, ap);
    va_end(ap);
    *len += n > 0 ? (size_t)n : 0;
}

hum_status hum_gemm_constants(const hum_gemm_variant *v, char *out, size_t cap)
{
    static const char *const types[] = {"int", "bool", "unsigned", "int"}; /* by hum_field_kind */
    const void *configs[] = {v->layer, v->compute, v->tuning};             /* by hum_config_id */
    size_t len = 0;
    put(out, cap, &len, "// hum_constants.h: one GEMM variant (runtime/src/layer/gemm_variant.c)\n#pragma once\n"
                        "namespace hum_cfg {\n");
    int32_t count;
    const hum_config_field *f = hum_config_fields(&count);
    for (int32_t i = 0; i < count; i++, f++) {
        if (!f->constant[0])
            continue;
        const char *at = (const char *)configs[f->config] + f->offset;
        const int64_t value = f->size == 8 ? *(const int64_t *)at : *(const int32_t *)at;
        if (f->kind == HUM_FIELD_BOOL)
            put(out, cap, &len, "constexpr bool %s = %s;\n", f->constant, value ? "true" : "false");
        else if (f->kind == HUM_FIELD_DTYPE)
            put(out, cap, &len, "constexpr unsigned %s = 0x%08xu;\n", f->constant, (unsigned)(uint32_t)value);
        else
            put(out, cap, &len, "constexpr %s %s = %lld;\n", types[f->kind], f->constant, (long long)value);
    }
    /* Figures derived from the fields: the 16-bit type of A and C, the power of two scale-less
     * weights carry (hum_layer_scale_exponent), and the launch shape. */
    const hum_layer_config *c = v->layer;
    put(out, cap, &len,
        "constexpr bool kBF16 = %s;\n"
        "constexpr int kConstScaleExp = %d;\n"
        "constexpr int kThreads = %d;\n"
        "constexpr int kSmemBytes = %lld;\n"
        "}\n",
        c->a_dtype == HUM_DTYPE_BFLOAT16 ? "true" : "false", c->has_scale ? 0 : hum_layer_scale_exponent(c, 1.0, 0.0),
        hum_gemm_threads(v), (long long)pipeline_bytes(v));
    if (len >= cap)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_gemm_constants: %zu bytes are too few for the header", cap);
    return HUM_OK;
}
