/* The MoE layer in float64 (hum_tools.h, hum_moe_reference): the independent reference the GPU
 * forward is tested against. Tokens are grouped per expert so that each expert's weights are
 * dequantized once per projection (hum_reference_gemm). */
#include "hum/hum_tools.h"

#include "internal.h"
#include "moe.h"
#include "standard.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double activate(const hum_moe_options *o, double g, double u)
{
    switch (o->activation) {
    case HUM_MOE_SILU:
        return g / (1.0 + exp(-g)) * u;
    case HUM_MOE_SWIGLU_OAI:
        g = fmin(g, o->limit);
        u = fmax(fmin(u, o->limit), -o->limit);
        return g / (1.0 + exp(-(double)o->alpha * g)) * (u + o->beta);
    case HUM_MOE_RELU2:
        g = fmax(g, 0.0);
        return g * g;
    default:
        return 0.5 * g * (1.0 + erf(g / sqrt(2.0))) * u;
    }
}

static int is_a8(hum_dtype a) { return a == HUM_DTYPE_FLOAT8_E4M3FN || a == HUM_DTYPE_INT8; }

/* The type the gate/up GEMM (down 0) or the down GEMM holds float codes' weights in: a 16-bit A's
 * (hum_reference_gemm_held); exact for 8-bit A (its tensor cores take the codes, the scales on the
 * float32 sums) or float64 throughout (as_run NULL). */
static hum_dtype weights_held(const hum_moe_numerics *as_run, int down)
{
    if (!as_run)
        return HUM_DTYPE_INVALID;
    return is_a8(down ? as_run->down_a : as_run->gate_up_a) ? HUM_DTYPE_INVALID : as_run->held;
}

/* A's scale groups as the quantizer takes them: none, or e4m3 groups of a power of two 8..256 */
static int group_ok(hum_dtype a, int32_t group)
{
    return group == 0 || (a == HUM_DTYPE_FLOAT8_E4M3FN && group >= 8 && group <= 256 && !(group & (group - 1)));
}

/* n rows of k values (x, in place) as a GEMM of A type `a` multiplies them: rounded to the
 * layer's 16-bit type `held` (or float32, the activation kernel's registers) and, for 8-bit A,
 * quantized per token (group 0) or per group of `group` columns (the CPU twin of the layer's
 * quantizers) and dequantized; or (round: a 16-bit type) rounded through mxfp8 into `round` as
 * the quantizer's rounding does it. */
static hum_status as_held(double *x, int64_t n, int64_t k, hum_dtype held, hum_dtype a, int32_t group,
                          hum_dtype round)
{
    if (n == 0)
        return HUM_OK;
    const int q8 = is_a8(a) && !round, f32 = held == HUM_DTYPE_FLOAT32;
    const int64_t groups = group > 0 ? (k + group - 1) / group : 1;
    const hum_dtype sdt = a == HUM_DTYPE_FLOAT8_E4M3FN && group == 32 ? HUM_DTYPE_FLOAT8_E8M0 : HUM_DTYPE_FLOAT32;
    void *h = malloc((size_t)(n * k) * (f32 ? 4 : 2));
    /* the codes, or the rounded 16-bit values */
    uint8_t *q = q8 || round ? malloc((size_t)(n * k) * (round ? 2 : 1)) : NULL;
    void *s = q8 ? malloc((size_t)(n * groups) * 4) : NULL;
    double *f = q8 ? malloc((size_t)(n * groups) * sizeof *f) : NULL;
    hum_status st = h && (!q8 || (s && f)) && (!(q8 || round) || q) ? HUM_OK
                                                                       : hum_fail(HUM_ERR_OUT_OF_MEMORY, "rows of A");
    for (int64_t i = 0; st == HUM_OK && f32 && i < n * k; i++)
        ((float *)h)[i] = (float)x[i];
    if (st == HUM_OK && !f32)
        st = hum_dtype_encode(held, x, n * k, h);
    if (st == HUM_OK && !q8 && !f32)
        st = hum_dtype_decode(held, h, n * k, x);
    if (st == HUM_OK && round) {
        const hum_tensor th = {.data = h, .dtype = held, .rank = 2, .shape = {n, k}, .memory = HUM_MEMORY_HOST};
        const hum_tensor tr = {.data = q, .dtype = round, .rank = 2, .shape = {n, k}, .memory = HUM_MEMORY_HOST};
        const hum_act_quant mx = {HUM_DTYPE_FLOAT8_E4M3FN, HUM_ACT_SCALE_GROUP, 32, HUM_DTYPE_FLOAT8_E8M0};
        if ((st = hum_quantize_activations(&th, &mx, 0.0f, &tr, NULL)) == HUM_OK)
            st = hum_dtype_decode(round, q, n * k, x);
    } else if (st == HUM_OK && q8) {
        const hum_tensor th = {.data = h, .dtype = held, .rank = 2, .shape = {n, k}, .memory = HUM_MEMORY_HOST};
        const hum_tensor tq = {.data = q, .dtype = a, .rank = 2, .shape = {n, k}, .memory = HUM_MEMORY_HOST};
        const hum_tensor ts = {.data = s, .dtype = sdt, .rank = group > 0 ? 2 : 1,
                               .shape = {n, group > 0 ? groups : 0}, .memory = HUM_MEMORY_HOST};
        const hum_act_quant how = {a, group > 0 ? HUM_ACT_SCALE_GROUP : HUM_ACT_SCALE_TOKEN, group, sdt};
        if ((st = hum_quantize_activations(&th, &how, 0.0f, &tq, &ts)) == HUM_OK &&
            (st = hum_dtype_decode(a, q, n * k, x)) == HUM_OK &&
            (st = hum_dtype_decode(sdt, s, n * groups, f)) == HUM_OK)
            for (int64_t i = 0; i < n * k; i++)
                x[i] *= f[i / k * groups + (group > 0 ? i % k / group : 0)];
    }
    free(h);
    free(q);
    free(s);
    free(f);
    return st;
}

hum_status hum_moe_reference(const hum_standard_weight *w13, const hum_standard_weight *w2,
                             const hum_moe_options *opts, const double *hidden, const hum_tensor *topk_ids,
                             const float *topk_weights, const int32_t *expert_map, const hum_moe_numerics *as_run,
                             double *out)
{
    if (!w13 || !w2 || !opts || !topk_ids || (topk_ids->shape[0] > 0 && (!hidden || !topk_weights || !out)))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_reference: a NULL argument");
    if (as_run && (!hum_dtype_is_activation(as_run->held) ||
                   (as_run->gate_up_round && (as_run->gate_up_round != HUM_A_ROUND_MXFP8 ||
                                              as_run->gate_up_a != as_run->held || as_run->gate_up_group)) ||
                   (as_run->down_round && (as_run->down_round != HUM_A_ROUND_MXFP8 ||
                                           as_run->down_a != as_run->held || as_run->down_group)) ||
                   (as_run->gate_up_a != as_run->held && !is_a8(as_run->gate_up_a)) ||
                   (as_run->down_a != as_run->held && !is_a8(as_run->down_a)) ||
                   !group_ok(as_run->gate_up_a, as_run->gate_up_group) ||
                   !group_ok(as_run->down_a, as_run->down_group)))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_reference: as_run held %s, A types %s and %s, groups %d and %d "
                        "(expected float16 or bfloat16 held, each A that type, float8_e4m3fn or int8, groups 0 or "
                        "with float8_e4m3fn a power of two in 8..256; a rounding GEMM's A held, group 0)",
                        hum_dtype_name(as_run->held), hum_dtype_name(as_run->gate_up_a),
                        hum_dtype_name(as_run->down_a), as_run->gate_up_group, as_run->down_group);
    const int64_t E = w13->num_experts, H = w2->n, I = w2->k, N13 = w13->n;
    const int64_t gated = hum_moe_gated(opts->activation);
    if (E < 1 || w2->num_experts != E || w13->k != H || N13 != gated * I)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_reference: w13 [%lld, %lld, %lld] and w2 [%lld, %lld, %lld] "
                        "do not chain", (long long)E, (long long)N13, (long long)w13->k, (long long)w2->num_experts,
                        (long long)H, (long long)I);
    const int64_t M = topk_ids->shape[0], top_k = topk_ids->shape[1];
    const int64_t e_global = opts->global_experts ? opts->global_experts : E;
    if (topk_ids->rank != 2 || top_k != opts->top_k ||
        (topk_ids->dtype != HUM_DTYPE_INT32 && topk_ids->dtype != HUM_DTYPE_INT64) || M < 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_reference: topk_ids must be int32 or int64 [M, %d]",
                        opts->top_k);
    if (M == 0)
        return HUM_OK;
    memset(out, 0, (size_t)(M * H) * sizeof *out);
    int32_t *tok = malloc((size_t)(M * top_k) * sizeof *tok);
    double *a = malloc((size_t)(M * top_k * (H > N13 ? H : N13)) * sizeof *a);
    double *mid = malloc((size_t)(M * top_k * N13) * sizeof *mid);
    double *act = malloc((size_t)(M * top_k * I) * sizeof *act);
    double *y = malloc((size_t)(M * top_k * H) * sizeof *y);
    hum_status st = tok && a && mid && act && y ? HUM_OK
                                                : hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_moe_reference: scratch");
    for (int64_t e = 0; st == HUM_OK && e < E; e++) {
        /* the slots of expert e, in slot order */
        int64_t n = 0;
        for (int64_t s = 0; s < M * top_k; s++) {
            const int64_t g = topk_ids->dtype == HUM_DTYPE_INT64 ? ((const int64_t *)topk_ids->data)[s]
                                                                 : ((const int32_t *)topk_ids->data)[s];
            const int64_t l = g < 0 || g >= e_global ? -1 : expert_map ? expert_map[g] : g;
            if (l == e)
                tok[n++] = (int32_t)s;
        }
        if (n == 0)
            continue;
        for (int64_t i = 0; i < n; i++)
            memcpy(a + i * H, hidden + tok[i] / top_k * H, (size_t)H * sizeof *a);
        if (as_run && (is_a8(as_run->gate_up_a) || as_run->gate_up_round) &&
            (st = as_held(a, n, H, as_run->held, as_run->gate_up_a, as_run->gate_up_group,
                          as_run->gate_up_round ? as_run->held : HUM_DTYPE_INVALID)) != HUM_OK)
            break;
        if ((st = hum_reference_gemm_held(w13, e, weights_held(as_run, 0), a, n, mid)) != HUM_OK)
            break;
        if (as_run && (st = as_held(mid, n, N13, as_run->held, as_run->held, 0, HUM_DTYPE_INVALID)) != HUM_OK)
            break;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < I; j++) {
                const double *r = mid + i * N13;
                const int inter = opts->gate_up == HUM_MOE_GATE_UP_INTERLEAVED;
                act[i * I + j] = gated == 1 ? activate(opts, r[j], 0)
                                            : activate(opts, r[inter ? 2 * j : j], r[inter ? 2 * j + 1 : I + j]);
            }
        /* 8-bit and rounded rows come from the activation kernel's float32 registers */
        if (as_run && (st = as_held(act, n, I,
                                    is_a8(as_run->down_a) || as_run->down_round ? HUM_DTYPE_FLOAT32 : as_run->held,
                                    as_run->down_a, as_run->down_group,
                                    as_run->down_round ? as_run->held : HUM_DTYPE_INVALID)) != HUM_OK)
            break;
        if ((st = hum_reference_gemm_held(w2, e, weights_held(as_run, 1), act, n, y)) != HUM_OK)
            break;
        for (int64_t i = 0; i < n; i++) {
            const double w = topk_weights[tok[i]];
            double *o = out + tok[i] / top_k * H;
            for (int64_t h = 0; h < H; h++)
                o[h] += w * y[i * H + h];
        }
    }
    free(tok);
    free(a);
    free(mid);
    free(act);
    free(y);
    return st == HUM_OK ? HUM_OK : hum_fail_context(st, "hum_moe_reference");
}
