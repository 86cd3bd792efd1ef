/* The hot path of a grouped MoE layer (hum_moe_forward_grouped): rows a dispatcher already
 * grouped by expert go through the gate/up expert GEMM, the activation and the down expert GEMM,
 * which writes the host's out itself (no routing layout, no combine: the host's combine applies
 * the router weights). No allocation, no Lua, no host sync; messages on error paths only. */
#include "moe.h"

#include "internal.h"
#include "layer.h"
#include "workspace.h"

#include <stdint.h>

static const char *const FN = "hum_moe_forward_grouped";

/* HUM_ERR_INVALID_ARG unless t (hidden or out) is [rows, H] (contiguous: rank 2, any row stride
 * of at least H) or [E, T, H] (masked: rank 3, packed); *ld its row stride. */
static hum_status check_rows(const hum_moe *moe, const hum_tensor *t, const char *name, int masked, int64_t t_rows,
                             int64_t *ld)
{
    if (!masked)
        return hum_moe_check_tensor(FN, t, name, moe->activation_dtype, 0, t_rows, moe->hidden, 0, ld);
    const int64_t H = moe->hidden;
    if (!t || t->rank != 3 || t->shape[0] != moe->experts || t->shape[1] != t_rows || t->shape[2] != H ||
        ((t->strides[0] | t->strides[1] | t->strides[2]) != 0 &&
         (t->strides[0] != t_rows * H || t->strides[1] != H || t->strides[2] != 1)))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: %s must be a packed rank-3 tensor [%lld, %lld, %lld] (experts, rows "
                        "per expert, H)", FN, name, (long long)moe->experts, (long long)t_rows, (long long)H);
    const hum_tensor rows = {.data = t->data, .dtype = t->dtype, .rank = 2, .shape = {moe->experts * t_rows, H},
                             .memory = t->memory};
    return hum_moe_check_tensor(FN, &rows, name, moe->activation_dtype, 0, rows.shape[0], H, 1, ld);
}

hum_status hum_moe_forward_grouped(hum_moe *moe, hum_workspace *ws, struct CUstream_st *stream,
                                   const hum_tensor *hidden, const hum_tensor *layout, const hum_tensor *out)
{
    if (!moe || !ws || !hidden || !layout || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: NULL %s", FN,
                        !moe ? "layer" : !ws ? "workspace" : !hidden ? "hidden" : !layout ? "layout" : "out");
    if (!moe->prepared)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: the layer is not prepared (hum_moe_prepare)", FN);
    if (moe->opts.gemm_type == HUM_GEMM_MOE_INDEXED)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: the layer routes tokens by their top-k ids (an indexed layer: "
                        "hum_moe_forward; hum_moe_options.gemm_type picks a grouped one)", FN);
    if (ws->rt != moe->rt)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: the workspace belongs to another runtime", FN);
    const int masked = moe->opts.gemm_type == HUM_GEMM_MOE_GROUPED_MASKED;
    const int64_t E = moe->experts, H = moe->hidden, I = moe->intermediate;
    if (hidden->rank != (masked ? 3 : 2))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: hidden has rank %d, expected %s", FN, hidden->rank,
                        masked ? "3: [E, T, H]" : "2: [T, H]");
    const int64_t T = hidden->shape[masked ? 1 : 0], rows = masked ? E * T : T;
    int64_t ldh = 0, ldo = 0;
    hum_status st = check_rows(moe, hidden, "hidden", masked, T, &ldh);
    if (st == HUM_OK)
        st = check_rows(moe, out, "out", masked, T, &ldo);
    if (st != HUM_OK)
        return st;
    const hum_dtype want = masked ? HUM_DTYPE_INT32 : HUM_DTYPE_INT64;
    if (layout->memory != HUM_MEMORY_DEVICE || !layout->data || layout->dtype != want || layout->rank != 1 ||
        layout->shape[0] != (masked ? E : E + 1) || layout->strides[0] > 1)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: layout must be a contiguous device %s tensor [%lld] (%s)", FN,
                        hum_dtype_name(want), (long long)(masked ? E : E + 1),
                        masked ? "each expert's row count" : "each expert's first row, then the end of the last");
    if (T == 0)
        return HUM_OK;
    hum_moe_areas areas = {0};
    if (T <= hum_moe_max_tokens(moe))
        hum_moe_areas_in(moe, ws, hum_moe_gemm_bytes_in(moe, ws), T, &areas);
    if (T > hum_moe_max_tokens(moe) || areas.bytes > ws->bytes)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: the workspace of %lld bytes does not hold %lld rows%s (%lld bytes: "
                        "hum_moe_workspace_size)", FN, (long long)ws->bytes, (long long)T,
                        masked ? " per expert" : "", (long long)areas.bytes);

    const int64_t n13 = hum_moe_gated(moe->opts.activation) * I;
    /* each GEMM's A type as its plan chose it: 8-bit A quantized per row (or 16-bit A rounded
     * through mxfp8, a_round), hidden before the gate/up GEMM (every row: the GEMM reads those of
     * the experts), the activation's output inside its kernel */
    const int up8 = hum_gemm_a8(&moe->gate_up->plan.config), down8 = hum_gemm_a8(&moe->down->plan.config);
    char *made = (char *)ws->base + areas.hidden;
    char *inter = (char *)ws->base + areas.inter, *act = (char *)ws->base + areas.act;
    char *act_scale = down8 ? (char *)ws->base + areas.act_scale : NULL;
    hum_expert_routing r = {.m = T};
    if (masked)
        r.expert_counts = layout->data;
    else
        r.expert_offsets = layout->data;
    hum_tensor a1 = {.data = hidden->data, .dtype = moe->activation_dtype, .rank = 2, .shape = {rows, H},
                     .strides = {ldh, 1}, .memory = HUM_MEMORY_DEVICE};
    hum_tensor s1;
    const hum_tensor c1 = {.data = inter, .dtype = moe->activation_dtype, .rank = 2, .shape = {rows, n13},
                           .memory = HUM_MEMORY_DEVICE};
    const hum_tensor a2 = {.data = act, .dtype = down8 ? moe->down->plan.config.a_dtype : moe->activation_dtype,
                           .rank = 2, .shape = {rows, I}, .memory = HUM_MEMORY_DEVICE};
    const hum_tensor s2 = hum_moe_act_scales(&moe->down->plan.config, act_scale, rows);
    const hum_tensor c2 = {.data = out->data, .dtype = moe->activation_dtype, .rank = 2, .shape = {rows, H},
                           .strides = {ldo, 1}, .memory = HUM_MEMORY_DEVICE};
    if (hum_moe_makes_hidden(moe))
        st = hum_moe_quantize_hidden(moe, made, stream, hidden->data, ldh, rows, &a1, &s1);
    if (st == HUM_OK)
        st = hum_expert_gemm_forward_in(moe->gate_up, ws, areas.gemm, stream, &a1, up8 ? &s1 : NULL, &c1, &r);
    if (st == HUM_OK)
        st = hum_moe_act_launch(moe->act, stream, moe->sm_count, inter, act,
                                hum_gemm_quantizes_a(&moe->down->plan.config), act_scale,
                                hum_moe_act_scale_ld(&moe->down->plan.config), layout->data, NULL, rows, I,
                                (int32_t)T, &moe->opts);
    if (st == HUM_OK)
        st = hum_expert_gemm_forward_in(moe->down, ws, areas.gemm, stream, &a2, down8 ? &s2 : NULL, &c2, &r);
    return st == HUM_OK ? HUM_OK : hum_fail_context(st, "%s", FN);
}
