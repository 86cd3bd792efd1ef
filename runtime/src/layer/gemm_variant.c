/* Launch figures, shape rules and the constants header of one GEMM kernel variant. The rules
 * repeat the static_asserts of kernels/gemm/config.cuh so that a bad tuning is refused at
 * prepare time with its name, not as an NVRTC error. */
#include "gemm_variant.h"

#include "internal.h"

#include <inttypes.h>
#include <stdio.h>

static int pow2(int64_t x)
{
    return x > 0 && (x & (x - 1)) == 0;
}

int32_t hum_gemm_variant_kernel(const hum_gemm_variant *v)
{
    return v->wgmma ? HUM_GEMM_KERNEL_WGMMA : HUM_GEMM_KERNEL_MMA;
}

int32_t hum_gemm_threads(const hum_gemm_variant *v)
{
    return 32 * (v->block_m / v->warp_m) * (v->block_n / v->warp_n) * (v->block_k / v->warp_k);
}

int64_t hum_gemm_pipeline_bytes(const hum_gemm_variant *v)
{
    const int64_t rows = v->group >= v->block_k ? 1 : v->block_k / v->group;
    const int64_t a = (int64_t)v->block_m * v->block_k * 2;
    const int64_t b = (int64_t)v->block_k / 16 * (v->block_n / 64) * 32 * v->weight_bits * 4;
    const int64_t s = v->has_scale ? rows * v->block_n * 2 : 0;
    const int64_t z = v->zero_point ? rows * v->block_n * 2 : 0;
    const int64_t red = (int64_t)(v->block_k / v->warp_k - 1) * v->block_m * v->block_n * 4;
    return v->stages * (a + b + s + z) + red;
}

hum_status hum_gemm_variant_check(const hum_gemm_variant *v, hum_status (*family_check)(const hum_gemm_variant *v))
{
#define RULE(cond, ...)                                           \
    do {                                                          \
        if (!(cond))                                              \
            return hum_fail(HUM_ERR_UNSUPPORTED, __VA_ARGS__);    \
    } while (0)
    RULE(v->weight_bits >= 1 && v->weight_bits <= 8, "weight width %d bits (expected 1..8)", v->weight_bits);
    RULE(v->block_m > 0 && v->block_n > 0 && v->block_k > 0 && v->warp_m > 0 && v->warp_n > 0 && v->warp_k > 0,
         "tile shapes must be positive");
    if (family_check) {
        const hum_status st = family_check(v);
        if (st != HUM_OK)
            return st;
    }
    RULE(v->block_m % v->warp_m == 0 && v->block_n % v->warp_n == 0 && v->block_k % v->warp_k == 0,
         "block %dx%dx%d is not a multiple of warp %dx%dx%d", v->block_m, v->block_n, v->block_k, v->warp_m,
         v->warp_n, v->warp_k);
    RULE(v->warp_m % 16 == 0 && v->warp_n % 16 == 0 && v->warp_k % 16 == 0,
         "warp tile %dx%dx%d must be a multiple of 16 in M, N and K", v->warp_m, v->warp_n, v->warp_k);
    RULE(v->block_n % 64 == 0 && (v->block_k == 64 || v->block_k == 128 || v->block_k == 256),
         "block N %d must be a multiple of 64 and block K %d 64, 128 or 256", v->block_n, v->block_k);
    RULE(pow2(v->warp_n) && pow2(v->warp_k), "warp N %d and warp K %d must be powers of two", v->warp_n, v->warp_k);
    RULE(v->n % v->block_n == 0 && v->k % v->block_k == 0, "padded N %" PRId64 " / K %" PRId64
         " must be multiples of block N %d / K %d", v->n, v->k, v->block_n, v->block_k);
    RULE(v->group % v->block_k == 0 || (v->block_k % v->group == 0 && v->group % 16 == 0),
         "scale group %" PRId64 " and block K %d must divide one another (group a multiple of 16)", v->group,
         v->block_k);
    const int wk = v->block_k / v->warp_k;
    RULE(wk == 1 || wk == 2 || wk == 4, "%d warps along K (expected 1, 2 or 4)", wk);
    RULE(v->stages >= 2, "%d pipeline stages (at least 2)", v->stages);
    RULE(v->ctas_per_sm >= 1, "%d CTAs per SM (at least 1)", v->ctas_per_sm);
    const int32_t threads = hum_gemm_threads(v);
    RULE(threads <= 1024, "%d threads per CTA (at most 1024)", threads);
    RULE(v->ctas_per_sm <= HUM_MAX_CTAS_PER_SM, "%d CTAs per SM (no GPU keeps more than %d resident)", v->ctas_per_sm,
         HUM_MAX_CTAS_PER_SM);
    RULE(v->k_real % 8 == 0 || (int64_t)v->block_m * v->block_k % threads == 0,
         "gathered activation tile %dx%d does not split over %d threads", v->block_m, v->block_k, threads);
    return HUM_OK;
#undef RULE
}

hum_status hum_gemm_constants(const hum_gemm_variant *v, char *out, size_t cap)
{
    const int n = snprintf(
        out, cap,
        "// hum_constants.h: one dense GEMM variant (runtime/src/layer/gemm_variant.c)\n"
        "#pragma once\n"
        "namespace hum_cfg {\n"
        "constexpr bool kBF16 = %s;\n"
        "constexpr bool kWeightFloat = %s;\n"
        "constexpr int kWeightBits = %d;\n"
        "constexpr int kWeightExp = %d;\n"
        "constexpr int kN = %" PRId64 ", kK = %" PRId64 ", kNReal = %" PRId64 ", kKReal = %" PRId64 ";\n"
        "constexpr int kGroup = %" PRId64 ";\n"
        "constexpr bool kHasScale = %s;\n"
        "constexpr int kConstScaleExp = %d;\n"
        "constexpr bool kZeroPoint = %s;\n"
        "constexpr bool kBias = %s;\n"
        "constexpr int kBM = %d, kBN = %d, kBK = %d, kWM = %d, kWN = %d, kWK = %d;\n"
        "constexpr int kStages = %d;\n"
        "constexpr bool kStreamK = %s;\n"
        "constexpr int kCtasPerSm = %d;\n"
        "constexpr int kThreads = %d;\n"
        "constexpr int kSmemBytes = %" PRId64 ";\n"
        "}\n",
        v->bf16 ? "true" : "false", v->weight_float ? "true" : "false", v->weight_bits, v->weight_exp, v->n, v->k,
        v->n_real, v->k_real, v->group, v->has_scale ? "true" : "false", v->const_scale_exp,
        v->zero_point ? "true" : "false", v->bias ? "true" : "false", v->block_m,
        v->block_n, v->block_k, v->warp_m, v->warp_n, v->warp_k, v->stages, v->stream_k ? "true" : "false",
        v->ctas_per_sm, hum_gemm_threads(v), hum_gemm_pipeline_bytes(v));
    if (n < 0 || (size_t)n >= cap)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_gemm_constants: %zu bytes are too few for the header", cap);
    return HUM_OK;
}
