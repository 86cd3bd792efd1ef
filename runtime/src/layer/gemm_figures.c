/* The launch figures every family shares (gemm_variant.h): the pipeline's shared memory and
 * the activation and weight kinds it depends on. Apart from the rules, so that a family's own
 * rules can use them (threads per CTA, which need the family's row, live in gemm_variant.c). */
#include "gemm_variant.h"

int hum_gemm_a8(const hum_layer_config *c)
{
    return c->a_dtype == HUM_DTYPE_FLOAT8_E4M3FN || c->a_dtype == HUM_DTYPE_INT8;
}

int hum_gemm_quantizes_a(const hum_layer_config *c)
{
    return hum_gemm_a8(c) || c->a_round != HUM_A_ROUND_NONE;
}

int hum_gemm_promotes(const hum_layer_config *c, const hum_tuning *t)
{
    /* kernels/gemm/config.cuh, kPromote: scales along K, which are applied at promotions whatever K
     * is, or e4m3's period (promote_k, 0 meaning 128) short of the padded K */
    const int32_t period = t->promote_k ? t->promote_k : 128;
    return hum_gemm_kscale_k(c) || (c->a_dtype == HUM_DTYPE_FLOAT8_E4M3FN && period < c->padded_k);
}

int hum_gemm_fold_scales(const hum_layer_config *c)
{
    return c->a_dtype == HUM_DTYPE_FLOAT8_E4M3FN && c->weight_float && c->weight_bits == 4 && c->has_scale &&
           c->kernel_group < c->padded_k && c->scale_dtype == HUM_DTYPE_FLOAT8_E8M0 && c->kernel_group % 32 == 0;
}

int hum_gemm_repack_order(const hum_layer_config *c)
{
    if (!hum_gemm_a8(c))
        return 0;
    return c->a_dtype == HUM_DTYPE_FLOAT8_E4M3FN && c->weight_float && c->weight_bits == 4 ? 2 : 1;
}

int hum_gemm_block_scales(const hum_layer_config *c)
{
    return hum_gemm_a8(c) && c->has_scale && c->kernel_group < c->padded_k && !(c->weight_float && c->weight_bits == 4);
}

int64_t hum_gemm_kscale_k(const hum_layer_config *c)
{
    const int a_groups = c->a_dtype == HUM_DTYPE_FLOAT8_E4M3FN && c->a_group > 0, block = hum_gemm_block_scales(c);
    if (!a_groups && !block)
        return 0;
    int64_t p = 128;
    if (a_groups && c->a_group < p)
        p = c->a_group;
    if (block && c->kernel_group < p)
        p = c->kernel_group;
    return p;
}

hum_dtype hum_gemm_a_scale_dtype(const hum_layer_config *c)
{
    return c->a_dtype == HUM_DTYPE_FLOAT8_E4M3FN && c->a_group == 32 ? HUM_DTYPE_FLOAT8_E8M0 : HUM_DTYPE_FLOAT32;
}

int hum_gemm_scales_staged(const hum_layer_config *c)
{
    return c->has_scale && (!hum_gemm_a8(c) || hum_gemm_fold_scales(c));
}

int hum_gemm_direct(const hum_gemm_variant *v)
{
    return v->tuning->kernel == HUM_GEMM_KERNEL_MMA_DIRECT;
}

int64_t hum_gemm_pipeline_bytes(const hum_gemm_variant *v)
{
    const hum_layer_config *c = v->layer;
    const hum_tuning *t = v->tuning;
    const int64_t rows = c->kernel_group >= t->block_k ? 1 : t->block_k / c->kernel_group;
    const int64_t a = (int64_t)t->block_m * t->block_k * (hum_gemm_a8(c) ? 1 : 2);
    const int64_t b = (int64_t)t->block_k / 16 * (t->block_n / 64) * 32 * c->weight_bits * 4;
    const int64_t s = hum_gemm_scales_staged(c) ? rows * t->block_n * 2 : 0;
    const int64_t z = c->has_zero_point ? rows * t->block_n * 2 : 0;
    const int64_t red = (int64_t)(t->block_k / t->warp_k - 1) * t->block_m * t->block_n * 4;
    /* K-group scales, staged with the codes (kernels/gemm/kscale.cuh, copy_kscales): per row of
     * the block the 4-byte words of A's scales of the k-block (e8m0 bytes: the aligned window
     * around them, up to 3 bytes in), then the weight's float32 rows of the k-block's K groups;
     * 16-byte aligned */
    int64_t ks = 0;
    if (hum_gemm_kscale_k(c) > 0) {
        const int64_t groups = c->a_group > 0 ? (t->block_k >= c->a_group ? t->block_k / c->a_group : 1) : 0;
        const int64_t words = hum_gemm_a_scale_dtype(c) == HUM_DTYPE_FLOAT8_E8M0 ? (groups + 6) / 4 : groups;
        ks = (int64_t)t->block_m * words * 4 + (hum_gemm_block_scales(c) ? rows * t->block_n * 4 : 0);
        ks = (ks + 15) / 16 * 16;
    }
    /* mma_direct holds its stages in registers: only the warps along K meet in shared memory */
    return (hum_gemm_direct(v) ? 0 : t->stages * (a + b + s + z + ks)) + red;
}
