/* Rules of the wgmma GEMM family (see gemm_wgmma.h). */
#include "gemm_wgmma.h"

#include "internal.h"

#define RULE(cond, ...)                                                          \
    do {                                                                         \
        if (!(cond))                                                             \
            return hum_fail(HUM_ERR_UNSUPPORTED, "wgmma kernel: " __VA_ARGS__); \
    } while (0)

hum_status hum_gemm_wgmma_takes(const hum_layer_config *c, const hum_compute_config *compute)
{
    RULE(c->k % 8 == 0, "K %lld is not a multiple of 8", (long long)c->k);
    RULE(!c->act_order || compute->gemm_type == HUM_GEMM_DENSE,
         "act-order experts (their columns are gathered per expert, on mma.sync)");
    return HUM_OK;
}

/* wgmma_ws alone on its SM: its math threads have 232 registers (setmaxnreg), of which
 * WGMMA_ALONE_ACC_REGS may be accumulators (gemm_wgmma.h, hum_gemm_wgmma_acc_budget) */
static int alone_ws(const hum_tuning *t)
{
    return t->kernel == HUM_GEMM_KERNEL_WGMMA_WS && t->ctas_per_sm == 1;
}

enum { WGMMA_ALONE_ACC_REGS = 192 };

int hum_gemm_wgmma_acc_budget(const hum_layer_config *c, const hum_tuning *t)
{
    return alone_ws(t) && (!hum_gemm_kscale_k(c) || hum_gemm_wgmma_stage_sets(c, t)) ? WGMMA_ALONE_ACC_REGS : 128;
}

/* Whether the totals could live in shared memory: warp-specialised, alone on its SM, e4m3
 * accumulators promoted with no K-group scales (those multiply them per period, in registers),
 * at stage ends only (a period of block K or more: the kernel's `fresh` overwrites them at a
 * stage's first step). */
static int totals_may_leave(const hum_layer_config *c, const hum_tuning *t)
{
    const int period = t->promote_k ? t->promote_k : 128;
    return alone_ws(t) && hum_gemm_promotes(c, t) && !hum_gemm_kscale_k(c) && period >= t->block_k;
}

int hum_gemm_wgmma_smem_totals(const hum_layer_config *c, const hum_tuning *t)
{
    /* one slab: the shape test_gemm_a8's rows256 pass runs on the GPU */
    return totals_may_leave(c, t) && t->warp_n == 16 && t->block_m > hum_gemm_wgmma_acc_budget(c, t);
}

int hum_gemm_wgmma_stage_sets(const hum_layer_config *c, const hum_tuning *t)
{
    const int set = (t->warp_n / 16) * (t->block_m / 2);
    if (3 * set > WGMMA_ALONE_ACC_REGS || !alone_ws(t) || !hum_gemm_promotes(c, t))
        return 0;
    /* K-group scales: their period, SS weights and no A multicast (kernels/gemm/gemm_wgmma.cu,
     * kStageSets: beside three sets the 128-row tile spilled with register fragments, and with the
     * multicast's remote releases) */
    const int64_t kk = hum_gemm_kscale_k(c);
    if (kk)
        return kk == t->block_k && t->weights_ss && !t->multicast_a;
    return (t->promote_k ? t->promote_k : 128) == t->block_k && !hum_gemm_wgmma_smem_totals(c, t);
}

int hum_gemm_wgmma_acc_regs(const hum_layer_config *c, const hum_tuning *t)
{
    /* promoted: float32 totals beside the accumulators (half of them, the rest in shared memory,
     * where all do not fit); promotion periods under 128 of K: two accumulator sets, one in flight
     * while the other is promoted (kernels/gemm/gemm_wgmma.cu, kPingPong), and so at stage ends where
     * they fit (hum_gemm_wgmma_stage_sets) */
    const int64_t kk = hum_gemm_kscale_k(c);
    const int set = (t->warp_n / 16) * (t->block_m / 2);
    if (hum_gemm_wgmma_smem_totals(c, t))
        return set + set / 2;
    if (hum_gemm_wgmma_stage_sets(c, t))
        return 3 * set;
    return (!hum_gemm_promotes(c, t) ? 1 : kk && kk < 128 ? 3 : 2) * set;
}

/* The registers the launch bounds leave a thread of each of ctas_per_sm CTAs, in steps of 8
 * (kernels/gemm/gemm_wgmma.cu, kBoundRegs and kLaunchRegs). At two CTAs per SM ptxas holds the
 * warp-specialised kernel's math warps to them too, whatever their setmaxnreg asks (at one it
 * lets them have it: hum_gemm_wgmma_acc_budget). */
static int launch_regs(const hum_tuning *t)
{
    const int ws = t->kernel == HUM_GEMM_KERNEL_WGMMA_WS;
    const int threads = 32 * t->block_n / t->warp_n + (ws ? 128 : 0);
    const int regs = 65536 / (t->ctas_per_sm > 1 ? t->ctas_per_sm : 1) / threads / 8 * 8;
    const int cap = ws ? 240 : 255;
    return regs < cap ? regs : cap;
}

/* Registers a math thread needs beside its accumulators (fragments, descriptors, addresses): ptxas
 * asked for 94 to compile wgmma_ws 128 x 128 x 64 (64 accumulators) at two CTAs per SM, which leave
 * it 80 (C7602), and 96 x 128 x 64 (48) compiles within them. */
enum { WGMMA_REGS_BESIDE = 32 };

/* Rows of C per split where the epilogue stages C in the last stage's A slot (c_tile "stage";
 * kernels/gemm/gemm_wgmma.cu, kCSplitRows): as many multiples of 8 as the slot holds, at most
 * block_m; 0 where the tile cannot go there (another family, or the totals' tile). */
static int c_split_rows(const hum_layer_config *c, const hum_tuning *t)
{
    if (t->kernel != HUM_GEMM_KERNEL_WGMMA_WS || hum_gemm_wgmma_smem_totals(c, t))
        return 0;
    const int64_t rows = (int64_t)t->block_k * (hum_gemm_a8(c) ? 1 : 2) * t->block_m / (2 * t->block_n);
    return rows >= t->block_m ? t->block_m : (int)(rows / 8 * 8);
}

/* Whether A's tile may be multicast to two CTAs of a cluster (kernels/gemm/config.cuh, kClusterN):
 * wgmma_ws on dense A (by TMA); a cluster's CTAs walk one schedule over pairs of n-blocks (padded N
 * a multiple of two block N), stream-K slices included; each CTA's half of the rows whole 8-row
 * swizzle atoms (block M a multiple of 16). */
static int multicast_fits(const hum_layer_config *c, const hum_compute_config *compute, const hum_tuning *t)
{
    return t->kernel == HUM_GEMM_KERNEL_WGMMA_WS && (!compute || compute->gemm_type == HUM_GEMM_DENSE) &&
           c->padded_n % (2 * t->block_n) == 0 && t->block_m % 16 == 0;
}

/* Whether the weights may be wgmma's shared-memory operand (kernels/gemm/gemm_wgmma.cu, kSS):
 * wgmma_ws on a dense layer (the producer's TMA of the stage, one box of block_n x 16 bytes by
 * block_k / 16 rows: block_n at most 128, a box row at most 256 eight-byte words), e4m3 codes
 * beside e4m3 A, which the MMA takes as they sit (int8 A flips its uint8 codes, 4-bit codes are
 * widened: both need registers). */
static int weights_ss_fits(const hum_layer_config *c, const hum_compute_config *compute, const hum_tuning *t)
{
    return t->kernel == HUM_GEMM_KERNEL_WGMMA_WS && (!compute || compute->gemm_type == HUM_GEMM_DENSE) &&
           c->a_dtype == HUM_DTYPE_FLOAT8_E4M3FN && c->weight_float && c->weight_bits == 8 && c->weight_exp == 4 &&
           t->block_n <= 128;
}

/* quantize_a: the GEMM quantizes its own A (kernels/gemm/quant_a.cuh): wgmma_ws, a dense layer
 * whose 8-bit A is quantized per token (kernels/contract/quantize_args.h's mode 0, not rounded),
 * without scales along K. */
static int quantize_a_fits(const hum_layer_config *c, const hum_compute_config *compute, const hum_tuning *t)
{
    return t->kernel == HUM_GEMM_KERNEL_WGMMA_WS && (!compute || compute->gemm_type == HUM_GEMM_DENSE) &&
           hum_gemm_a8(c) && c->a_scale == HUM_ACT_SCALE_TOKEN && c->a_group == 0 && c->a_round == HUM_A_ROUND_NONE;
}

void hum_gemm_wgmma_fit(const hum_layer_config *c, const hum_compute_config *compute, hum_tuning *t)
{
    /* promoted accumulators beside their totals, block_m / 2 registers each (one slab): 128 rows,
     * or up to 192 asked for where the budget is 192; more with the totals in shared memory */
    if (hum_gemm_promotes(c, t) && t->block_m > hum_gemm_wgmma_acc_budget(c, t) && !totals_may_leave(c, t))
        t->block_m = 128;
    /* K-group scales applied more than once per 128 of K (A groups of 32, weight groups of 64): a
     * scale per token held beside them; block_m 128 spills (period 32: 496 bytes of local memory
     * per thread on plain wgmma, ptxas for sm_90a; period 64 on wgmma_ws: 64 bytes), and so do two
     * CTAs per SM, which leave a thread 128 registers (MoE MXFP8 64 x 128 x 128: 392 bytes at two
     * CTAs, 16 at one). An expert GEMM whose MoE layer's other GEMM holds them (its A fell back
     * from 8 bits on the other K) takes that GEMM's block too: both walk one routing layout. */
    const int64_t kk = hum_gemm_kscale_k(c), layer_kk = compute->moe_kscale_k;
    if ((kk && kk < 128) || (layer_kk && layer_kk < 128))
        t->block_m = t->block_m < 64 ? t->block_m : 64;
    if (kk && kk < 128)
        t->ctas_per_sm = 1;
    t->warp_m = t->block_m;
    t->warp_k = t->block_k;
    t->warp_n = t->warp_n < t->block_n / 4 ? t->warp_n : t->block_n / 4;
    t->warp_n = t->warp_n > 16 ? t->warp_n : 16;
    if (hum_gemm_promotes(c, t) && hum_gemm_wgmma_acc_regs(c, t) > hum_gemm_wgmma_acc_budget(c, t)) {
        t->warp_n = 16;
        if (t->block_n > 8 * t->warp_n) /* at most 2 warpgroups: the narrower warps span less */
            t->block_n = 8 * t->warp_n;
    }
    if (t->ctas_per_sm > 1 && hum_gemm_wgmma_acc_regs(c, t) + WGMMA_REGS_BESIDE > launch_regs(t))
        t->ctas_per_sm = 1;
    if (t->c_tile && c_split_rows(c, t) < 8)
        t->c_tile = 0;
    if (t->multicast_a && !multicast_fits(c, compute, t))
        t->multicast_a = 0;
    if (t->weights_ss && !weights_ss_fits(c, compute, t))
        t->weights_ss = 0;
    if (t->quantize_a && !quantize_a_fits(c, compute, t))
        t->quantize_a = 0;
}

hum_status hum_gemm_wgmma_check(const hum_gemm_variant *v)
{
    const hum_tuning *t = v->tuning;
    RULE(t->warp_m == t->block_m && t->warp_k == t->block_k,
         "warp_m %d and warp_k %d must equal block_m %d and block_k %d", t->warp_m, t->warp_k, t->block_m,
         t->block_k);
    /* block_m is the instructions' N: one wgmma per 128 tokens and one for the rest (160 = 128 + 32);
     * or 8, one n8 instruction (a MoE block of ~1 row per expert pads half the rows of 16) */
    RULE(t->block_m == 8 || (t->block_m % 16 == 0 && t->block_m >= 16 && t->block_m <= 256),
         "block_m %d (expected 8 or a multiple of 16 from 16 to 256)", t->block_m);
    RULE((t->block_n / t->warp_n) % 4 == 0, "block_n %d / warp_n %d is not a whole number of warpgroups",
         t->block_n, t->warp_n);
    /* Registers: at most 128 accumulator registers (totals and ping-pong sets included; 192 where
     * hum_gemm_wgmma_acc_budget says) and 4 slabs per thread and 2 warpgroups per CTA keep ptxas
     * within 255 registers without spills or serialized wgmma (checked with -Xptxas -v; four slabs
     * of 64 rows, Humming's indexed MoE warp: 255 registers, no local memory, sm_90a). */
    RULE(t->warp_n <= 64 && t->block_n / t->warp_n <= 8,
         "warp_n %d, block_n %d: at most 4 slabs (warp_n 64) and 2 warpgroups (block_n / warp_n <= 8) per thread",
         t->warp_n, t->block_n);
    RULE(hum_gemm_wgmma_acc_regs(v->layer, t) <= hum_gemm_wgmma_acc_budget(v->layer, t),
         "warp_n %d, block_m %d: %d accumulator registers per thread (%s activations); at most %d accumulators, "
         "totals and ping-pong sets included", t->warp_n, t->block_m, hum_gemm_wgmma_acc_regs(v->layer, t),
         hum_dtype_name(v->layer->a_dtype), hum_gemm_wgmma_acc_budget(v->layer, t));
    RULE(t->ctas_per_sm == 1 || hum_gemm_wgmma_acc_regs(v->layer, t) + WGMMA_REGS_BESIDE <= launch_regs(t),
         "%d accumulator registers per thread and %d beside them exceed the %d registers that %d CTAs per SM "
         "leave a thread", hum_gemm_wgmma_acc_regs(v->layer, t), WGMMA_REGS_BESIDE, launch_regs(t), t->ctas_per_sm);
    /* the plain kernel stages C in the drained pipeline; the warp-specialised one has its own tile */
    const int64_t tile = hum_gemm_wgmma_c_tile_bytes(v);
    const int64_t pipeline = hum_gemm_pipeline_bytes(v);
    RULE(t->kernel != HUM_GEMM_KERNEL_WGMMA || tile <= pipeline,
         "the %lld-byte epilogue tile exceeds the %lld bytes of the pipeline", (long long)tile, (long long)pipeline);
    RULE(!t->multicast_a || multicast_fits(v->layer, v->compute, t),
         "multicast_a: A multicast to a 2-CTA cluster needs wgmma_ws, dense A, padded N %lld a multiple of 2 x "
         "block_n %d, block_m %d a multiple of 16", (long long)v->layer->padded_n, t->block_n,
         t->block_m);
    RULE(!t->weights_ss || weights_ss_fits(v->layer, v->compute, t),
         "weights_ss: weights in shared memory need wgmma_ws, a dense layer, e4m3 weights beside e4m3 A (got %d-bit "
         "%s weights, %s A) and block_n %d at most 128", v->layer->weight_bits,
         v->layer->weight_float ? "float" : "integer", hum_dtype_name(v->layer->a_dtype), t->block_n);
    RULE(!t->quantize_a || quantize_a_fits(v->layer, v->compute, t),
         "quantize_a: the GEMM quantizes its A on wgmma_ws, in a dense layer of 8-bit A per token (got %s A, "
         "scales %s)", hum_dtype_name(v->layer->a_dtype),
         v->layer->a_scale == HUM_ACT_SCALE_TOKEN ? "per token" : v->layer->a_scale == HUM_ACT_SCALE_TENSOR
                                                                     ? "per tensor" : "per group");
    RULE(!t->c_tile || c_split_rows(v->layer, t) >= 8,
         "c_tile \"stage\": C in the last stage's A slot needs wgmma_ws without totals in shared memory and room "
         "for 8 rows of C in the slot (block_m %d x block_k %d of A, block_n %d)", t->block_m, t->block_k, t->block_n);
    return HUM_OK;
}

int64_t hum_gemm_wgmma_c_tile_bytes(const hum_gemm_variant *v)
{
    return (int64_t)v->tuning->block_m * v->tuning->block_n * 2;
}

int64_t hum_gemm_wgmma_epilogue_smem(const hum_gemm_variant *v)
{
    return v->tuning->c_tile ? 0 : hum_gemm_wgmma_c_tile_bytes(v);
}
