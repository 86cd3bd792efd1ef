/* The MoE hot path (hum_moe_forward, hum_moe_forward_quantized): check the tensors, then per
 * chunk of tokens the workspace holds: the routing layout, the gate/up expert GEMM (after the
 * hidden rows' quantization when it takes 8-bit A the host did not quantize), the activation
 * (quantizing its output when the down GEMM takes 8-bit A), the down expert GEMM and the
 * combine, all on the host's stream. No allocation, no Lua, no host sync; messages are formatted
 * on error paths only. */
#include "moe.h"

#include "act_quant.h"
#include "internal.h"
#include "layer.h"
#include "workspace.h"

#include <stdint.h>

static const char *const FN = "hum_moe_forward";

hum_status hum_moe_check_tensor(const char *fn, const hum_tensor *t, const char *name, hum_dtype dtype, hum_dtype alt,
                                int64_t rows, int64_t cols, int contiguous, int64_t *ld)
{
    if (!t || t->memory != HUM_MEMORY_DEVICE || !t->data)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: %s must be a device tensor (non-NULL)", fn, name);
    if (t->dtype != dtype && (!alt || t->dtype != alt))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: %s is %s, expected %s%s%s", fn, name, hum_dtype_name(t->dtype),
                        hum_dtype_name(dtype), alt ? " or " : "", alt ? hum_dtype_name(alt) : "");
    if (t->rank != 2 || t->shape[0] != rows || t->shape[1] != cols)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: %s has rank %d shape [%lld, %lld], expected [%lld, %lld]", fn, name,
                        t->rank, (long long)t->shape[0], (long long)t->shape[1], (long long)rows, (long long)cols);
    *ld = t->strides[0] ? t->strides[0] : cols;
    if ((t->strides[1] != 0 && t->strides[1] != 1) || *ld < cols || (contiguous && *ld != cols))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: %s strides [%lld, %lld]: expected %s", fn, name,
                        (long long)t->strides[0], (long long)t->strides[1],
                        contiguous ? "contiguous rows" : "contiguous rows at least a row apart");
    return HUM_OK;
}

/* The most tokens (<= m) whose forward fits ws, or 0; *areas: ws's areas for that many, past
 * the GEMMs' part sized once (a reload between the sizes of the search must not make the chunk
 * found and the areas laid out for it disagree). */
static int64_t chunk_tokens(const hum_moe *moe, hum_workspace *ws, int64_t m, hum_moe_areas *areas)
{
    const int64_t limit = hum_moe_max_tokens(moe), gemm = hum_moe_gemm_bytes_in(moe, ws);
    if (m > limit)
        m = limit;
    hum_moe_areas_in(moe, ws, gemm, m, areas);
    if (areas->bytes <= ws->bytes)
        return m;
    int64_t lo = 0, hi = m; /* bytes(lo) fits, bytes(hi) does not */
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        hum_moe_areas_past(moe, gemm, mid, areas);
        if (areas->bytes <= ws->bytes)
            lo = mid;
        else
            hi = mid;
    }
    if (lo > 0)
        hum_moe_areas_past(moe, gemm, lo, areas);
    return lo;
}

hum_tensor hum_moe_act_scales(const hum_layer_config *down, void *scales, int64_t rows)
{
    const int64_t ld = hum_moe_act_scale_ld(down);
    return down->a_group ? (hum_tensor){.data = scales, .dtype = hum_gemm_a_scale_dtype(down), .rank = 2,
                                        .shape = {rows, ld}, .memory = HUM_MEMORY_DEVICE}
                         : (hum_tensor){.data = scales, .dtype = HUM_DTYPE_FLOAT32, .rank = 1, .shape = {rows},
                                        .memory = HUM_MEMORY_DEVICE};
}

hum_status hum_moe_quantize_hidden(const hum_moe *moe, void *area, struct CUstream_st *stream, const void *hidden,
                                   int64_t ldh, int64_t mc, hum_tensor *codes, hum_tensor *scale)
{
    const hum_layer *g = moe->gate_up;
    const hum_layer_config *cfg = &g->plan.config;
    /* per token, or per group of a_group columns (MXFP8's e8m0, or float32 scales); or rounded
     * through mxfp8 into 16-bit rows of K (a_round), no scales */
    hum_act_quant how;
    int round;
    hum_act_quant_of(cfg, &how, &round);
    const int group = how.scale == HUM_ACT_SCALE_GROUP;
    const int64_t ldq = round ? cfg->k : hum_workspace_codes_stride(cfg);
    const int64_t groups = group ? (cfg->k + how.group - 1) / how.group : 1;
    const hum_dtype sdt = how.scale_dtype;
    char *q = area;
    char *s = round ? NULL : q + hum_workspace_codes_bytes(cfg, mc);
    const hum_act_quant_out out = {.q = q, .ldq = ldq, .kq = cfg->k, .scale = s, .scale_row = groups,
                                   .scale_group = 1, .round = round};
    hum_quantize_args args;
    hum_status st = hum_act_quant_args(&how, hidden, moe->activation_dtype, ldh, mc, g->input_k, &out, &args);
    if (st == HUM_OK)
        st = hum_act_quant_launch(g->quantize, &args, moe->sm_count, stream, 0);
    *codes = (hum_tensor){.data = q, .dtype = cfg->a_dtype, .rank = 2, .shape = {mc, g->input_k}, .strides = {ldq, 1},
                          .memory = HUM_MEMORY_DEVICE};
    if (round) {
        *scale = (hum_tensor){0};
        return st;
    }
    *scale = group ? (hum_tensor){.data = s, .dtype = sdt, .rank = 2, .shape = {mc, groups},
                                  .memory = HUM_MEMORY_DEVICE}
                   : (hum_tensor){.data = s, .dtype = sdt, .rank = 1, .shape = {mc}, .memory = HUM_MEMORY_DEVICE};
    return st;
}

/* The forward of every entry (fn: its name, which the messages carry). */
static hum_status forward_steps(const char *fn, hum_moe *moe, hum_workspace *ws, struct CUstream_st *stream,
                                const hum_tensor *hidden, const hum_tensor *hidden_scale, const hum_tensor *topk_ids,
                                const hum_tensor *topk_weights, const hum_tensor *expert_map, const hum_tensor *out,
                                int32_t accumulate, int32_t first, int32_t last)
{
    if (!moe || !ws)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: NULL %s", fn, !moe ? "layer" : "workspace");
    if (first < HUM_MOE_STEP_ALIGN || last >= HUM_MOE_STEPS || first > last)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: steps %d..%d (expected 0 <= first <= last <= %d)", fn,
                        first, last, HUM_MOE_STEPS - 1);
    if (!moe->prepared)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: the layer is not prepared (hum_moe_prepare)", fn);
    if (moe->opts.gemm_type != HUM_GEMM_MOE_INDEXED)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: the layer takes rows already grouped by expert "
                        "(hum_moe_options.gemm_type %d: hum_moe_forward_grouped)", fn, moe->opts.gemm_type);
    if (ws->rt != moe->rt)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: the workspace belongs to another runtime", fn);
    if (!hidden || hidden->rank != 2)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: hidden must be a rank-2 tensor [M, %lld]", fn,
                        (long long)moe->hidden);
    const int64_t m = hidden->shape[0], H = moe->hidden, top_k = moe->opts.top_k;
    const int32_t e_global = moe->opts.global_experts, e_local = (int32_t)moe->experts;
    /* the host's codes (hum_moe_options.hidden_dtype) with their scales, or 16-bit rows */
    const hum_dtype hidden_dtype = moe->opts.hidden_dtype ? moe->opts.hidden_dtype : moe->activation_dtype;
    const int64_t hidden_bytes = moe->opts.hidden_dtype ? 1 : 2;
    int64_t ldh, ldo, ld, lds = 0;
    hum_status st = hum_moe_check_tensor(fn, hidden, "hidden", hidden_dtype, 0, m, H, 0, &ldh);
    if (st == HUM_OK && moe->opts.hidden_dtype)
        st = hum_expert_gemm_check_a_scale(fn, "hidden_scale", &moe->gate_up->plan.config, hidden_scale, m, &lds);
    else if (st == HUM_OK && hidden_scale)
        st = hum_fail(HUM_ERR_INVALID_ARG, "%s: hidden_scale must be NULL for %s hidden", fn,
                      hum_dtype_name(hidden_dtype));
    /* the gate/up GEMM's alignment rule, checked before anything is launched */
    if (st == HUM_OK)
        st = hum_expert_gemm_check_a_align(fn, "hidden", moe->gate_up, hidden->data, ldh);
    if (st == HUM_OK)
        st = hum_moe_check_tensor(fn, topk_ids, "topk_ids", HUM_DTYPE_INT32, HUM_DTYPE_INT64, m, top_k, 1, &ld);
    if (st == HUM_OK)
        st = hum_moe_check_tensor(fn, topk_weights, "topk_weights", HUM_DTYPE_FLOAT32, 0, m, top_k, 1, &ld);
    if (st == HUM_OK)
        st = hum_moe_check_tensor(fn, out, "out", moe->activation_dtype, 0, m, H, 0, &ldo);
    if (st != HUM_OK)
        return st;
    if (expert_map && (expert_map->memory != HUM_MEMORY_DEVICE || !expert_map->data ||
                       expert_map->dtype != HUM_DTYPE_INT32 || expert_map->rank != 1 ||
                       expert_map->shape[0] != e_global || expert_map->strides[0] > 1))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: expert_map must be a contiguous device int32 tensor "
                        "[%d] (the global experts)", fn, e_global);
    if (m == 0)
        return HUM_OK;
    hum_moe_areas areas;
    const int64_t chunk = chunk_tokens(moe, ws, m, &areas);
    if (chunk < 1)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: the workspace of %lld bytes holds no token "
                        "(hum_moe_workspace_size)", fn, (long long)ws->bytes);
    if (chunk < m && (first > HUM_MOE_STEP_ALIGN || last < HUM_MOE_STEP_COMBINE))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: steps %d..%d of %lld tokens need a workspace "
                        "that holds them in one pass (it holds %lld)", fn, first, last, (long long)m, (long long)chunk);
#define STEP(s) (st == HUM_OK && first <= (s) && (s) <= last)

    const int32_t ids64 = topk_ids->dtype == HUM_DTYPE_INT64;
    const int32_t *map = expert_map ? expert_map->data : NULL;
    const int64_t n13 = hum_moe_gated(moe->opts.activation) * moe->intermediate;
    /* each GEMM's A type as its plan chose it (lua/hum/activation.lua): 8-bit A quantized per
     * token (or group), or 16-bit A rounded through mxfp8 (a_round): the hidden rows before the
     * gate/up GEMM, the activation's output inside it */
    const int up8 = hum_gemm_a8(&moe->gate_up->plan.config), down8 = hum_gemm_a8(&moe->down->plan.config);
    const int up_made = hum_moe_makes_hidden(moe);
    const hum_layer_config *down_cfg = &moe->down->plan.config;
    const int64_t act_ld = hum_moe_act_scale_ld(down_cfg);
    char *base = ws->base;
    char *made = base + areas.hidden, *route_area = base + areas.route, *inter = base + areas.inter;
    char *act = base + areas.act, *y = base + areas.y;
    char *act_scale = down8 ? base + areas.act_scale : NULL;
    for (int64_t t0 = 0; st == HUM_OK && t0 < m; t0 += chunk) {
        const int64_t mc = m - t0 < chunk ? m - t0 : chunk, routed = mc * top_k;
        hum_expert_routing r = {.m = mc, .top_k = (int32_t)top_k};
        int32_t block_m = 0;
        if ((st = hum_expert_gemm_block_m(moe->gate_up, ws, &r, &block_m)) != HUM_OK)
            break;
        r.block_m = block_m;
        hum_moe_route route;
        hum_moe_route_place(route_area, routed, e_local, block_m, &route);
        const void *ids = (const char *)topk_ids->data + t0 * top_k * (ids64 ? 8 : 4);
        if (STEP(HUM_MOE_STEP_ALIGN))
            st = hum_moe_align_launch(&moe->align, stream, ids, ids64, map, e_global, e_local, block_m, routed, &route);
        r.sorted_token_ids = route.sorted;
        r.expert_ids = route.expert_ids;
        r.num_tokens_post_padded = route.post_padded;
        r.capacity = hum_moe_align_rows(routed, e_local, block_m);
        hum_tensor a1 = {.data = (char *)hidden->data + t0 * ldh * hidden_bytes, .dtype = hidden_dtype, .rank = 2,
                         .shape = {mc, H}, .strides = {ldh, 1}, .memory = HUM_MEMORY_DEVICE};
        hum_tensor s1 = {0};
        if (moe->opts.hidden_dtype) {
            s1 = *hidden_scale;
            s1.data = (char *)hidden_scale->data + t0 * lds * hum_dtype_bits(hidden_scale->dtype) / 8;
            s1.shape[0] = mc;
        }
        const hum_tensor c1 = {.data = inter, .dtype = moe->activation_dtype, .rank = 2, .shape = {routed, n13},
                               .memory = HUM_MEMORY_DEVICE};
        /* the quantization belongs to the gate/up step: a step timed alone includes it */
        if (STEP(HUM_MOE_STEP_GATE_UP) && up_made)
            st = hum_moe_quantize_hidden(moe, made, stream, a1.data, ldh, mc, &a1, &s1);
        if (STEP(HUM_MOE_STEP_GATE_UP))
            st = hum_expert_gemm_forward_in(moe->gate_up, ws, areas.gemm, stream, &a1, up8 ? &s1 : NULL, &c1, &r);
        if (STEP(HUM_MOE_STEP_ACT))
            st = hum_moe_act_launch(moe->act, stream, moe->sm_count, inter, act, hum_gemm_quantizes_a(down_cfg),
                                    act_scale, act_ld, route.sorted,
                                    route.post_padded, r.capacity, moe->intermediate, (int32_t)routed, &moe->opts);
        hum_expert_routing r2 = r;
        r2.m = routed;
        r2.top_k = 1;
        const hum_tensor a2 = {.data = act, .dtype = down8 ? down_cfg->a_dtype : moe->activation_dtype, .rank = 2,
                               .shape = {routed, moe->intermediate}, .memory = HUM_MEMORY_DEVICE};
        const hum_tensor s2 = hum_moe_act_scales(down_cfg, act_scale, routed);
        const hum_tensor c2 = {.data = y, .dtype = moe->activation_dtype, .rank = 2, .shape = {routed, H},
                               .memory = HUM_MEMORY_DEVICE};
        if (STEP(HUM_MOE_STEP_DOWN))
            st = hum_expert_gemm_forward_in(moe->down, ws, areas.gemm, stream, &a2, down8 ? &s2 : NULL, &c2, &r2);
        const hum_moe_combine_args ca = {.y = y, .ids = ids, .ids64 = ids64, .map = map, .e_global = e_global,
                                         .e_local = e_local, .weights = (const float *)topk_weights->data + t0 * top_k,
                                         .top_k = (int32_t)top_k, .m = (int32_t)mc,
                                         .out = (char *)out->data + t0 * ldo * 2, .ldo = ldo,
                                         .accumulate = accumulate != 0};
        if (STEP(HUM_MOE_STEP_COMBINE))
            st = hum_moe_combine_launch(moe->combine, stream, moe->sm_count, H, &ca);
    }
#undef STEP
    return st == HUM_OK ? HUM_OK : hum_fail_context(st, "%s", fn);
}

hum_status hum_moe_forward_steps(hum_moe *moe, hum_workspace *ws, struct CUstream_st *stream,
                                 const hum_tensor *hidden, const hum_tensor *hidden_scale, const hum_tensor *topk_ids,
                                 const hum_tensor *topk_weights, const hum_tensor *expert_map, const hum_tensor *out,
                                 int32_t accumulate, int32_t first, int32_t last)
{
    return forward_steps("hum_moe_forward_steps", moe, ws, stream, hidden, hidden_scale, topk_ids, topk_weights,
                         expert_map, out, accumulate, first, last);
}

hum_status hum_moe_forward(hum_moe *moe, hum_workspace *ws, struct CUstream_st *stream, const hum_tensor *hidden,
                           const hum_tensor *topk_ids, const hum_tensor *topk_weights, const hum_tensor *expert_map,
                           const hum_tensor *out, int32_t accumulate)
{
    if (moe && moe->opts.hidden_dtype)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: the layer takes hidden quantized to %s by the host, with its scales "
                        "(hum_moe_forward_quantized)", FN, hum_dtype_name(moe->opts.hidden_dtype));
    return forward_steps(FN, moe, ws, stream, hidden, NULL, topk_ids, topk_weights, expert_map, out, accumulate,
                         HUM_MOE_STEP_ALIGN, HUM_MOE_STEP_COMBINE);
}

hum_status hum_moe_forward_quantized(hum_moe *moe, hum_workspace *ws, struct CUstream_st *stream,
                                     const hum_tensor *hidden, const hum_tensor *hidden_scale,
                                     const hum_tensor *topk_ids, const hum_tensor *topk_weights,
                                     const hum_tensor *expert_map, const hum_tensor *out, int32_t accumulate)
{
    if (moe && !moe->opts.hidden_dtype)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_forward_quantized: the layer takes %s hidden (hum_moe_forward; "
                        "hum_moe_options.hidden_dtype makes a layer of quantized hidden)",
                        hum_dtype_name(moe->activation_dtype));
    return forward_steps("hum_moe_forward_quantized", moe, ws, stream, hidden, hidden_scale, topk_ids, topk_weights,
                         expert_map, out, accumulate, HUM_MOE_STEP_ALIGN, HUM_MOE_STEP_COMBINE);
}
