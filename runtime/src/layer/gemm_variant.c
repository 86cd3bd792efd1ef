/* The shape and resource rules of the GEMM, the fitting of a policy's tuning to a layer, and the
 * constants header of a variant (see gemm_variant.h). kernels/gemm/config.cuh and the kernels
 * keep static_asserts of the same rules as a backstop; a broken rule is refused here, at
 * planning time, naming the rule. */
#include "gemm_variant.h"

#include "gemm_family.h"
#include "gemm_wgmma.h"
#include "internal.h"
#include "layer.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RULE(status, cond, ...)                        \
    do {                                               \
        if (!(cond))                                   \
            return hum_fail(status, __VA_ARGS__);      \
    } while (0)

static const char *gemm_type_name(int32_t type)
{
    static const char *const names[] = {"dense", "indexed", "grouped_contiguous", "grouped_masked"};
    return type >= 0 && type < 4 ? names[type] : "unknown";
}

static int pow2(int64_t x)
{
    return x > 0 && (x & (x - 1)) == 0;
}

int32_t hum_gemm_load_warps(const hum_gemm_variant *v)
{
    const hum_gemm_family *f = hum_gemm_family_of(v->tuning->kernel);
    return f ? f->load_warps : 0;
}

int32_t hum_gemm_threads(const hum_gemm_variant *v)
{
    const hum_tuning *t = v->tuning;
    return 32 * ((t->block_m / t->warp_m) * (t->block_n / t->warp_n) * (t->block_k / t->warp_k) +
                 hum_gemm_load_warps(v));
}

int64_t hum_gemm_smem_bytes(const hum_gemm_variant *v)
{
    const hum_gemm_family *f = hum_gemm_family_of(v->tuning->kernel);
    const int64_t epilogue = f && f->epilogue_smem ? f->epilogue_smem(v) : 0;
    return hum_gemm_pipeline_bytes(v) + (f ? f->extra_smem : 0) + epilogue;
}

/* The MoE types' tables in the kernel's static shared memory (kernels/gemm/rows.cuh): grouped,
 * each expert's first block; indexed, a block's rows of A, for the math threads with 8-bit A
 * (block_m ints), its rows of C for the wgmma kernels' epilogue (block_m ints) and for a producer
 * warpgroup (block_m addresses). The dynamic buffer after them starts
 * aligned as the kernel declares it (1024 bytes for wgmma's swizzle atoms, 128 for mma.sync),
 * so they take whole multiples of that (the cubins' .nv.shared sections, sm_90a). */
static int64_t block_table_bytes(const hum_gemm_variant *v)
{
    const int32_t t = v->compute->gemm_type;
    const hum_gemm_family *f = hum_gemm_family_of(v->tuning->kernel);
    int64_t bytes = 0;
    if (t == HUM_GEMM_MOE_GROUPED_CONTIGUOUS || t == HUM_GEMM_MOE_GROUPED_MASKED)
        bytes = 4 * (v->layer->num_experts + 1);
    else if (t == HUM_GEMM_MOE_INDEXED)
        bytes = v->tuning->block_m * ((hum_gemm_a8(v->layer) ? 4 : 0) + (f && f->c_row_table ? 4 : 0) +
                                      (hum_gemm_load_warps(v) > 0 ? 8 : 0));
    const int64_t align = f ? f->smem_align : 1024;
    return (bytes + align - 1) / align * align;
}

int64_t hum_gemm_cta_smem_bytes(const hum_gemm_variant *v)
{
    const hum_gemm_family *f = hum_gemm_family_of(v->tuning->kernel);
    return hum_gemm_smem_bytes(v) + (f ? f->static_smem : 0) + block_table_bytes(v);
}

/* What a policy may write in a tuning, before it is fitted to a layer (HUM_ERR_POLICY). */
static hum_status check_policy_values(const hum_tuning *t)
{
    RULE(HUM_ERR_POLICY, t->block_m >= 1 && t->warp_m >= 1, "block_m = %d, warp_m = %d: expected positive integers",
         t->block_m, t->warp_m);
    RULE(HUM_ERR_POLICY, pow2(t->block_n) && t->block_n >= 16 && pow2(t->block_k) && t->block_k >= 16,
         "block_n = %d, block_k = %d: expected powers of two >= 16", t->block_n, t->block_k);
    RULE(HUM_ERR_POLICY, pow2(t->warp_n) && t->warp_n >= 8, "warp_n = %d: expected a power of two >= 8", t->warp_n);
    RULE(HUM_ERR_POLICY, pow2(t->warp_k) && t->warp_k >= 16, "warp_k = %d: expected a power of two >= 16",
         t->warp_k);
    const int32_t block[3] = {t->block_m, t->block_n, t->block_k}, warp[3] = {t->warp_m, t->warp_n, t->warp_k};
    for (int d = 0; d < 3; d++)
        RULE(HUM_ERR_POLICY, block[d] % warp[d] == 0 && pow2(block[d] / warp[d]),
             "block_%c = %d is not warp_%c = %d times a power of two", "mnk"[d], block[d], "mnk"[d], warp[d]);
    RULE(HUM_ERR_POLICY, t->stages >= 2 && t->stages <= 8, "stages = %d: expected an integer in 2..8", t->stages);
    RULE(HUM_ERR_POLICY, t->ctas_per_sm >= 1 && t->ctas_per_sm <= 8, "ctas_per_sm = %d: expected an integer in 1..8",
         t->ctas_per_sm);
    RULE(HUM_ERR_POLICY, t->stream_k == 0 || t->stream_k == 1, "stream_k = %d: expected 0 or 1", t->stream_k);
    RULE(HUM_ERR_POLICY, hum_gemm_family_of(t->kernel), "kernel = %d: no such kernel family", t->kernel);
    RULE(HUM_ERR_POLICY, t->stream_k_sum == 0 || t->stream_k_sum == 1, "stream_k_sum = %d: expected 0 (output) or 1 "
         "(workspace)", t->stream_k_sum);
    RULE(HUM_ERR_POLICY, t->promote_k == 0 || (t->promote_k >= 128 && t->promote_k % 128 == 0),
         "promote_k = %d: expected 0 (every 128 of K) or a multiple of 128", t->promote_k);
    RULE(HUM_ERR_POLICY, t->whole_fill >= 0 && t->whole_fill <= 100, "whole_fill = %d: expected a percent in 0..100",
         t->whole_fill);
    RULE(HUM_ERR_POLICY, t->group_m >= 0 && t->group_m <= 64, "group_m = %d: expected 0 (8) or m-blocks in 1..64",
         t->group_m);
    return HUM_OK;
}

/* What 8-bit activations run on: the k32 tensor-core products (mma.sync m16n8k32 with int8 from
 * sm_80 and e4m3 from sm_89, wgmma k32 on sm_90a) of 8-bit weights of the same kind (e4m3 x
 * e4m3; int8 x uint8 codes around the midpoint 128) or of 4-bit codes decoded to it in
 * registers (W4A8: uint4 around 8; e2m1 with e4m3), A in 16-byte chunks (K a multiple of 16),
 * the weight's scales per channel or per tensor, or MXFP4's e8m0 groups folded into the codes
 * (hum_gemm_fold_scales), and the activations' per token or per tensor (all applied to the
 * float accumulators; expert GEMMs per token or MXFP8 group: each gathered row brings its own), no zero
 * point, no act-order. Scales that change along K are applied in float32 where the accumulators
 * are promoted (hum_gemm_kscale_k): the weight's per group along K (hum_gemm_block_scales: FP8
 * block-wise 128 x 128, W4A8's uint4 groups; int8 A's exact int32 sums promoted into float32
 * totals) and e4m3 A's own per group of 32 or more columns (MXFP8's e8m0, FP8 block-wise's
 * 1 x 128), the groups nesting. */
static hum_status a_type_rule(const hum_layer_config *c, const char *arch)
{
    if (!hum_gemm_a8(c))
        return HUM_OK;
    const char *a = hum_dtype_name(c->a_dtype);
    const int fp8 = c->a_dtype == HUM_DTYPE_FLOAT8_E4M3FN, need = fp8 ? 89 : 80;
    RULE(HUM_ERR_UNSUPPORTED, !arch || strncmp(arch, "sm_", 3) != 0 || atoi(arch + 3) >= need,
         "%s activations need sm_%d or newer (the target is %s)", a, need, arch);
    RULE(HUM_ERR_UNSUPPORTED,
         c->weight_dtype == HUM_DTYPE_UINT4 ||
             (fp8 ? c->weight_dtype == HUM_DTYPE_FLOAT8_E4M3FN || c->weight_dtype == HUM_DTYPE_FLOAT4_E2M1
                  : c->weight_dtype == HUM_DTYPE_UINT8),
         "%s weights with %s activations (expected %s or uint4 weights)", hum_dtype_name(c->weight_dtype), a,
         fp8 ? "float8_e4m3fn, float4_e2m1" : "uint8");
    /* expert GEMMs: each gathered row of A brings its own scales, per token or per group along K
     * (the MoE layer quantizes its hidden and activation rows so); a static per-tensor scale has
     * no MoE layer that calibrates it */
    RULE(HUM_ERR_UNSUPPORTED, c->num_experts == 0 || c->a_scale != HUM_ACT_SCALE_TENSOR,
         "%s activations per tensor with %lld experts (a MoE layer quantizes per token or per group along K)", a,
         (long long)c->num_experts);
    RULE(HUM_ERR_UNSUPPORTED, !c->has_zero_point && !c->act_order, "%s with %s activations",
         c->act_order ? "act-order" : "a zero point", a);
    RULE(HUM_ERR_UNSUPPORTED, c->k % 16 == 0, "K = %lld with %s activations (expected a multiple of 16)",
         (long long)c->k, a);
    RULE(HUM_ERR_UNSUPPORTED,
         !c->has_scale || c->kernel_group >= c->padded_k || hum_gemm_fold_scales(c) || hum_gemm_block_scales(c),
         "%s weight scales in groups of %lld along K with %s activations (expected per channel or per tensor, "
         "groups along K with integer or float8_e4m3fn weights, or e8m0 groups of a multiple of 32 with "
         "float4_e2m1 weights and float8_e4m3fn activations)",
         hum_dtype_name(c->scale_dtype), (long long)c->kernel_group, a);
    RULE(HUM_ERR_UNSUPPORTED, c->a_group == 0 || fp8,
         "%s activation scales in groups of %lld along K (expected one per row; groups take float8_e4m3fn)", a,
         (long long)c->a_group);
    const int64_t p = hum_gemm_kscale_k(c), wg = hum_gemm_block_scales(c) ? c->kernel_group : 0;
    RULE(HUM_ERR_UNSUPPORTED,
         !p || (p % 32 == 0 && 128 % p == 0 && c->a_group % p == 0 && wg % p == 0),
         "scale groups of %lld (activations) and %lld (weight, along K) columns with %s activations (expected 0 or "
         "multiples of 32 whose smaller one divides 128 and the other)",
         (long long)c->a_group, (long long)wg, a);
    return HUM_OK;
}

/* mxfp8 computed in 16-bit (a_round): the forward rounds the host's 16-bit A into the workspace
 * (kernels/prep/quantize_a.cu) for the 16-bit GEMM; act-order's A is permuted on its way to the
 * GEMM (a dense layer's in the workspace, permute_a.cu; experts' gathered by the GEMM), which no
 * path combines with the rounding yet. */
static hum_status round_rule(const hum_layer_config *c)
{
    if (c->a_round == HUM_A_ROUND_NONE)
        return HUM_OK;
    RULE(HUM_ERR_UNSUPPORTED, c->a_round == HUM_A_ROUND_MXFP8, "a_round %d: no such rounding", c->a_round);
    RULE(HUM_ERR_UNSUPPORTED,
         hum_dtype_is_activation(c->a_dtype) && c->a_scale == HUM_ACT_SCALE_TOKEN && c->a_group == 0,
         "mxfp8 rounding with %s activations (expected float16 or bfloat16, the type it rounds to, with no scales)",
         hum_dtype_name(c->a_dtype));
    RULE(HUM_ERR_UNSUPPORTED, !c->act_order, "mxfp8 rounding with act-order (A is permuted on its way to the "
         "GEMM, which no path combines with the rounding)");
    return HUM_OK;
}

hum_status hum_gemm_kernel_takes(int32_t kernel, const hum_layer_config *c, const hum_compute_config *compute,
                                 const char *arch)
{
    const hum_gemm_family *f = hum_gemm_family_of(kernel);
    RULE(HUM_ERR_UNSUPPORTED, f, "kernel %d: no such kernel family", kernel);
    RULE(HUM_ERR_UNSUPPORTED, !arch || !f->arch || strcmp(arch, f->arch) == 0,
         "the %s kernel runs on %s only (the target is %s)", f->name, f->arch, arch);
    hum_status st = round_rule(c);
    if (st == HUM_OK)
        st = a_type_rule(c, arch);
    if (st != HUM_OK)
        return st;
    return f->takes ? f->takes(c, compute) : HUM_OK;
}

hum_status hum_gemm_variant_check(const hum_gemm_variant *v, const char *arch)
{
    const hum_layer_config *c = v->layer;
    const hum_tuning *t = v->tuning;
    hum_status st = check_policy_values(t);
    if (st != HUM_OK)
        return st;
    const hum_gemm_family *f = hum_gemm_family_of(t->kernel);
    if ((st = hum_gemm_kernel_takes(t->kernel, c, v->compute, arch)) != HUM_OK)
        return st;
    const int32_t type = v->compute->gemm_type;
    RULE(HUM_ERR_UNSUPPORTED, type >= HUM_GEMM_DENSE && type <= HUM_GEMM_MOE_GROUPED_MASKED,
         "GEMM type %d: no such type", type);
    RULE(HUM_ERR_UNSUPPORTED, (type == HUM_GEMM_DENSE) == (c->num_experts == 0),
         "GEMM type %s with %lld experts: the dense type has none, the MoE types at least one", gemm_type_name(type),
         (long long)c->num_experts);
    RULE(HUM_ERR_UNSUPPORTED, type == HUM_GEMM_DENSE || !c->has_global_scale,
         "%s expert GEMM with a global scale: the expert GEMMs apply none (a weight's global scales are "
         "folded into its scales when the layer is made, hum_expert_gemm_from_standard)", gemm_type_name(type));
    RULE(HUM_ERR_UNSUPPORTED, !v->compute->f16_accum, "float16 accumulation: the GEMM kernels accumulate in float32");
    RULE(HUM_ERR_UNSUPPORTED, c->weight_bits >= 1 && c->weight_bits <= 8, "weight width %d bits (expected 1..8)",
         c->weight_bits);
    RULE(HUM_ERR_UNSUPPORTED, t->stages >= f->min_stages, "%d pipeline stages (the %s kernel needs at least %d)",
         t->stages, f->name, f->min_stages);
    if (f->check && (st = f->check(v)) != HUM_OK)
        return st;
    /* warp M: each family's check (mma.sync: 8 or m16 fragments; wgmma's N, 8 or a multiple of 16) */
    RULE(HUM_ERR_UNSUPPORTED, t->warp_n % 16 == 0 && t->warp_k % 16 == 0,
         "warp tile %dx%dx%d must be a multiple of 16 in N and K", t->warp_m, t->warp_n, t->warp_k);
    RULE(HUM_ERR_UNSUPPORTED, t->block_n % 64 == 0 && (t->block_k == 64 || t->block_k == 128 || t->block_k == 256),
         "block N %d must be a multiple of 64 and block K %d 64, 128 or 256", t->block_n, t->block_k);
    RULE(HUM_ERR_UNSUPPORTED, c->padded_n % t->block_n == 0 && c->padded_k % t->block_k == 0,
         "padded N %" PRId64 " / K %" PRId64 " must be multiples of block N %d / K %d", c->padded_n, c->padded_k,
         t->block_n, t->block_k);
    RULE(HUM_ERR_UNSUPPORTED,
         c->kernel_group % t->block_k == 0 || (t->block_k % c->kernel_group == 0 && c->kernel_group % 16 == 0),
         "scale group %" PRId64 " and block K %d must divide one another (group a multiple of 16)", c->kernel_group,
         t->block_k);
    const int wk = t->block_k / t->warp_k;
    RULE(HUM_ERR_UNSUPPORTED, wk <= f->max_warps_k, "%d warps along K (the %s kernel takes at most %d)", wk, f->name,
         f->max_warps_k);
    /* 8-bit A: 128-byte rows of A in a stage (the chunk swizzle, the wgmma atom), k32 steps; its
     * stream-K slices sum in the workspace: through the 16-bit C (a bfloat16 rounding per slice)
     * they missed 8-bit A's 1e-3 by a few times on the H200 */
    RULE(HUM_ERR_UNSUPPORTED, !hum_gemm_a8(c) || (t->block_k >= 128 && t->warp_k % 32 == 0),
         "block K %d and warp K %d with 8-bit activations (expected at least 128 and a multiple of 32)", t->block_k,
         t->warp_k);
    RULE(HUM_ERR_UNSUPPORTED, !hum_gemm_a8(c) || !t->stream_k || t->stream_k_sum == 1,
         "stream-K with 8-bit activations summing through the 16-bit output (expected stream_k_sum workspace)");
    RULE(HUM_ERR_UNSUPPORTED, t->stream_k || !t->stream_k_sum, "stream_k_sum workspace without stream-K");
    /* a period within K nests with block K (a period at or above K is fitted to the padded K) */
    RULE(HUM_ERR_UNSUPPORTED, t->promote_k == 0 || t->promote_k == c->padded_k || pow2(t->promote_k),
         "promote_k %d within K %lld (expected a power of two, or at least K: never promoted)", t->promote_k,
         (long long)c->padded_k);
    /* a warp applies the K-group scales of whole promotion periods */
    const int64_t period = hum_gemm_kscale_k(c);
    RULE(HUM_ERR_UNSUPPORTED, !period || t->warp_k % period == 0,
         "warp K %d with accumulators promoted every %lld of K (expected a multiple)", t->warp_k,
         (long long)period);
    const int32_t threads = hum_gemm_threads(v);
    RULE(HUM_ERR_UNSUPPORTED, threads <= 1024, "%d threads per CTA (at most 1024)", threads);
    /* element loads: rows that are not 16-byte multiples, and act-order experts' columns (a
     * dense act-order layer's A is permuted before the GEMM) */
    const int gather = c->k % 8 != 0 || (c->act_order && v->compute->gemm_type != HUM_GEMM_DENSE);
    RULE(HUM_ERR_UNSUPPORTED, !gather || (int64_t)t->block_m * t->block_k % threads == 0,
         "gathered activation tile %dx%d does not split over %d threads", t->block_m, t->block_k, threads);
    return HUM_OK;
}

hum_status hum_gemm_fit(const hum_layer_config *c, const hum_compute_config *compute, const hum_tuning *in,
                        const char *arch, int64_t smem_budget, const char *device_name, hum_tuning *out)
{
    hum_status st = check_policy_values(in);
    if (st != HUM_OK)
        return st;
    const hum_gemm_family *f = hum_gemm_family_of(in->kernel);
    if ((st = hum_gemm_kernel_takes(in->kernel, c, compute, arch)) != HUM_OK)
        return st;
    hum_tuning t = *in;
    t.block_n = t.block_n > 64 ? t.block_n : 64;
    while (t.block_n > 64 && c->padded_n % t.block_n != 0)
        t.block_n /= 2;
    t.block_k = t.block_k >= 256 && c->padded_k % 256 == 0 ? 256 : t.block_k >= 128 ? 128 : 64;
    if (c->kernel_group < c->padded_k && c->kernel_group % t.block_k != 0 && t.block_k % c->kernel_group != 0)
        t.block_k = 64;
    if (hum_gemm_a8(c) && t.block_k < 128) { /* the same warps along K over the wider block */
        t.warp_k *= 128 / t.block_k;
        t.block_k = 128;
    }
    if (hum_gemm_a8(c) && !t.stream_k_sum)
        t.stream_k = 0;
    if (!t.stream_k)
        t.stream_k_sum = 0;
    /* a launch without the workspace's slices runs whole anyway; an expert GEMM's launch knows
     * only a bound on its row blocks (hum_gemm_launch), not the tiles that fill its waves */
    if (!t.stream_k_sum || (compute && compute->gemm_type != HUM_GEMM_DENSE))
        t.whole_fill = 0;
    t.warp_k = t.warp_k < t.block_k ? t.warp_k : t.block_k;
    const int64_t period = hum_gemm_kscale_k(c);
    while (t.block_k / t.warp_k > f->max_warps_k || (hum_gemm_a8(c) && t.warp_k < 32) || (period && t.warp_k % period))
        t.warp_k *= 2;
    if (t.group_m == 8) /* the default: one kernel whatever a policy wrote */
        t.group_m = 0;
    /* promote_k: e4m3 A's alone (scales along K set their own period); 128 is the default, and a
     * period at or above K the padded K (one accumulator set: one kernel whatever a policy wrote) */
    if (c->a_dtype != HUM_DTYPE_FLOAT8_E4M3FN || period || t.promote_k == 128)
        t.promote_k = 0;
    else if (t.promote_k > c->padded_k)
        t.promote_k = (int32_t)c->padded_k;
    if (f->fit)
        f->fit(c, compute, &t);
    const hum_gemm_variant v = {c, compute, &t};
    while (hum_gemm_cta_smem_bytes(&v) * t.ctas_per_sm > smem_budget && t.stages > f->min_stages)
        t.stages--;
    if ((st = hum_gemm_variant_check(&v, arch)) != HUM_OK)
        return st;
    const int64_t smem = hum_gemm_cta_smem_bytes(&v);
    RULE(HUM_ERR_UNSUPPORTED, smem * t.ctas_per_sm <= smem_budget,
         "%d CTAs of %lld bytes of shared memory do not fit the %lld bytes of %s", t.ctas_per_sm, (long long)smem,
         (long long)smem_budget, device_name);
    *out = t;
    return HUM_OK;
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
    put(out, cap, &len, "// hum_constants.h: one GEMM variant (runtime/src/gemm_variant.c)\n#pragma once\n"
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
    /* Figures derived from the fields: the 16-bit type of C (and of A when A is 16-bit), the
     * 8-bit A types, the power of two scale-less weights carry (hum_layer_scale_exponent),
     * whether folded MXFP4 groups all lie in the byte tables' window (fold_window: only where
     * the scales are folded, so that no other kernel differs by it), whether promoted totals live
     * in shared memory (hum_gemm_wgmma_smem_totals: wgmma_ws only), whether they alternate between
     * two sets stage by stage (hum_gemm_wgmma_stage_sets: wgmma_ws only), the launch shape, and
     * whether the weights go straight to registers (mma_direct). */
    const hum_layer_config *c = v->layer;
    put(out, cap, &len,
        "constexpr bool kBF16 = %s;\n"
        "constexpr bool kAFp8 = %s;\n"
        "constexpr bool kAInt8 = %s;\n"
        "constexpr bool kAScaleE8m0 = %s;\n"
        "constexpr int kConstScaleExp = %d;\n"
        "constexpr bool kFoldWindow = %s;\n"
        "constexpr bool kSmemTotals = %s;\n"
        "constexpr bool kStageSets = %s;\n"
        "constexpr int kThreads = %d;\n"
        "constexpr int kLoadWarps = %d;\n"
        "constexpr bool kDirectB = %s;\n"
        "constexpr int kSmemBytes = %lld;\n"
        "}\n",
        c->c_dtype == HUM_DTYPE_BFLOAT16 ? "true" : "false", c->a_dtype == HUM_DTYPE_FLOAT8_E4M3FN ? "true" : "false",
        c->a_dtype == HUM_DTYPE_INT8 ? "true" : "false",
        hum_gemm_a8(c) && hum_gemm_a_scale_dtype(c) == HUM_DTYPE_FLOAT8_E8M0 ? "true" : "false",
        c->has_scale ? 0 : hum_layer_scale_exponent(c, 1.0, 0.0),
        c->fold_window && hum_gemm_fold_scales(c) ? "true" : "false",
        hum_gemm_wgmma_smem_totals(c, v->tuning) ? "true" : "false",
        hum_gemm_wgmma_stage_sets(c, v->tuning) ? "true" : "false", hum_gemm_threads(v),
        hum_gemm_load_warps(v), hum_gemm_direct(v) ? "true" : "false", (long long)hum_gemm_pipeline_bytes(v));
    if (len >= cap)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_gemm_constants: %zu bytes are too few for the header", cap);
    return HUM_OK;
}
