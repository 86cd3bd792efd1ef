/* Shape rules of the mma.sync GEMM family (see gemm_mma.h). */
#include "gemm_mma.h"

#include "internal.h"

static int container_bits(int b)
{
    return b <= 1 ? 1 : b <= 2 ? 2 : b <= 4 ? 4 : 8;
}

void hum_gemm_mma_fit(const hum_layer_config *c, const hum_compute_config *compute, hum_tuning *t)
{
    (void)compute; /* block M is the policy's: nothing of an expert GEMM's MoE layer changes it */
    const int cont = container_bits(c->weight_bits);
    const int min_warp_n = cont != c->weight_bits ? 64 : (64 / cont > 16 ? 64 / cont : 16);
    t->warp_n = t->warp_n > min_warp_n ? t->warp_n : min_warp_n;
    t->warp_n = t->warp_n < t->block_n ? t->warp_n : t->block_n;
    /* promoted accumulators: more, narrower warps over the same block */
    while (hum_gemm_promotes(c, t) && t->warp_m * t->warp_n / 32 > 64)
        if (t->warp_n > min_warp_n && t->warp_n > 16)
            t->warp_n /= 2;
        else
            t->warp_m /= 2;
    t->c_tile = 0; /* the warps write C from their registers: no tile to place */
    t->multicast_a = 0;
    t->weights_ss = 0;
    t->quantize_a = 0;
}

hum_status hum_gemm_mma_check(const hum_gemm_variant *v)
{
    const int bits = v->layer->weight_bits, warp_n = v->tuning->warp_n;
    const int cont = container_bits(bits);
    if (v->tuning->c_tile)
        return hum_fail(HUM_ERR_UNSUPPORTED, "c_tile \"stage\" on the mma.sync kernel, which writes C from its "
                        "registers (wgmma_ws only)");
    if (v->tuning->multicast_a)
        return hum_fail(HUM_ERR_UNSUPPORTED, "multicast_a on the mma.sync kernel (wgmma_ws only)");
    if (v->tuning->weights_ss)
        return hum_fail(HUM_ERR_UNSUPPORTED, "weights_ss on the mma.sync kernel, whose weights are register "
                        "fragments (wgmma_ws only)");
    if (v->tuning->quantize_a)
        return hum_fail(HUM_ERR_UNSUPPORTED, "quantize_a on the mma.sync kernel, whose A is quantized before it "
                        "(wgmma_ws only)");
    if (v->tuning->warp_m != 8 && v->tuning->warp_m % 16 != 0)
        return hum_fail(HUM_ERR_UNSUPPORTED,
                        "warp M %d (expected 8, the weights as the m16 operand, or a multiple of 16: m16 fragments)",
                        v->tuning->warp_m);
    if ((int64_t)warp_n * cont < 64)
        return hum_fail(HUM_ERR_UNSUPPORTED,
                        "warp N %d too narrow for %d-bit weights (warp N times %d container bits must reach 64)",
                        warp_n, bits, cont);
    if (cont != bits && warp_n % 64 != 0)
        return hum_fail(HUM_ERR_UNSUPPORTED, "%d-bit weights need warp N a multiple of 64 (got %d)", bits, warp_n);
    const int acc = v->tuning->warp_m * warp_n / 32;
    if (hum_gemm_promotes(v->layer, v->tuning) && acc > 64)
        return hum_fail(HUM_ERR_UNSUPPORTED,
                        "warp tile %dx%d: %d accumulators per thread, at most 64 when they are promoted (%s "
                        "activations)",
                        v->tuning->warp_m, warp_n, acc, hum_dtype_name(v->layer->a_dtype));
    return HUM_OK;
}

/* Registers a thread of mma_direct holds per ring item (kernels/gemm/gemm_mma.cu, DirectItem): per
 * k16 step of its warp K the lane's stored code words (warp N x width / 64) and two words of A, and
 * its columns' scale and zero-point words of the group (warp N / 16 each). */
static int direct_item_regs(const hum_layer_config *c, const hum_tuning *t)
{
    return t->warp_k / 16 * (t->warp_n * c->weight_bits / 64 + 2) + 2 * (t->warp_n / 16);
}

void hum_gemm_mma_direct_fit(const hum_layer_config *c, const hum_compute_config *compute, hum_tuning *t)
{
    hum_gemm_mma_fit(c, compute, t);
    /* a ring that does not fit the registers beside the rest of the kernel spills to local memory:
     * fewer items instead. The rest took 94 .. 110 registers on sm_90a (HUM_PTXAS_REPORT, uint4 g128
     * on 8 x 64 x 256, warps 8 x 64 x 32, rings of 4 and 8 items: 190 and 254 registers, no spill) */
    const int threads = 32 * (t->block_m / t->warp_m) * (t->block_n / t->warp_n) * (t->block_k / t->warp_k);
    int regs = 65536 / (threads * t->ctas_per_sm);
    regs = regs < 255 ? regs : 255;
    while (t->stages > 2 && t->stages * direct_item_regs(c, t) > regs - 88)
        t->stages--;
}

hum_status hum_gemm_mma_direct_takes(const hum_layer_config *c, const hum_compute_config *compute)
{
    (void)compute; /* a MoE layer's expert GEMMs have experts: refused below */
    if (c->num_experts != 0)
        return hum_fail(HUM_ERR_UNSUPPORTED, "mma_direct with %lld experts (dense layers only)",
                        (long long)c->num_experts);
    if (hum_gemm_a8(c))
        return hum_fail(HUM_ERR_UNSUPPORTED, "mma_direct with %s activations (expected float16 or bfloat16)",
                        hum_dtype_name(c->a_dtype));
    if (c->k % 8 != 0)
        return hum_fail(HUM_ERR_UNSUPPORTED, "mma_direct with K = %lld (expected a multiple of 8: A in whole 16-byte rows)",
                        (long long)c->k);
    if (c->weight_float || !c->has_scale || c->act_order)
        return hum_fail(HUM_ERR_UNSUPPORTED, "mma_direct with %s %s weights%s (expected integer codes with scales, "
                        "no act-order)",
                        c->has_scale ? "scaled" : "unscaled", hum_dtype_name(c->weight_dtype),
                        c->act_order ? " in act-order" : "");
    return HUM_OK;
}

hum_status hum_gemm_mma_direct_check(const hum_gemm_variant *v)
{
    const hum_status st = hum_gemm_mma_check(v);
    if (st != HUM_OK)
        return st;
    const hum_tuning *t = v->tuning;
    if (t->warp_m != 8)
        return hum_fail(HUM_ERR_UNSUPPORTED, "mma_direct on warp M %d (expected 8: the weights the m16 operand)",
                        t->warp_m);
    if (v->layer->kernel_group % t->warp_k != 0)
        return hum_fail(HUM_ERR_UNSUPPORTED,
                        "mma_direct with scale groups of %lld and warp K %d (expected a group a multiple of warp K: "
                        "a warp's scales one per column)",
                        (long long)v->layer->kernel_group, t->warp_k);
    return HUM_OK;
}
