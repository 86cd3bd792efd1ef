/* Expert GEMMs (hum_tools.h, HUM-SECTION experts): a hum_layer of a MoE GEMM type over E experts,
 * planned, compiled and uploaded as a dense layer is; its forward fills the routing fields of
 * the kernel argument (kernels/contract/gemm_args.h) and sizes the persistent grid for the most
 * blocks the routing can hold (kernels/contract/moe_layout.h). */
#include "layer.h"

#include "contract/moe_layout.h"
#include "internal.h"
#include "workspace.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *const FN = "hum_expert_gemm_forward";

hum_status hum_expert_gemm_from_standard(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
                                         hum_gemm_type type, hum_layer **out)
{
    if (out)
        *out = NULL;
    if (!rt || !w || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_expert_gemm_from_standard: NULL %s",
                        !rt ? "runtime" : !w ? "weight" : "out");
    if (type != HUM_GEMM_MOE_INDEXED && type != HUM_GEMM_MOE_GROUPED_CONTIGUOUS && type != HUM_GEMM_MOE_GROUPED_MASKED)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_expert_gemm_from_standard: GEMM type %d (expected indexed, "
                        "grouped_contiguous or grouped_masked)", (int)type);
    return hum_layer_create(rt, w, opts, type, "hum_expert_gemm_from_standard", out);
}

int64_t hum_expert_gemm_rows(const hum_layer_config *config, hum_gemm_type type, int64_t m, int32_t top_k)
{
    const int indexed = type == HUM_GEMM_MOE_INDEXED;
    if (!config || m < 0 ||
        (!indexed && type != HUM_GEMM_MOE_GROUPED_CONTIGUOUS && type != HUM_GEMM_MOE_GROUPED_MASKED))
        return -1;
    const int64_t e = config->num_experts > 0 ? config->num_experts : 1;
    /* top_k is the indexed type's alone (a grouped routing leaves it 0) */
    if (indexed && (top_k < 1 || m > (INT64_MAX - e) / top_k))
        return -1;
    const int64_t rows = type == HUM_GEMM_MOE_INDEXED             ? (m * top_k + e - 1) / e
                         : type == HUM_GEMM_MOE_GROUPED_CONTIGUOUS ? (m + e - 1) / e
                                                                   : m;
    return rows > 1 ? rows : 1;
}

/* The checks every entry point shares: a prepared expert GEMM, a workspace of its runtime. */
static hum_status check_gemm(const char *fn, const hum_layer *g, const hum_workspace *ws, const hum_expert_routing *r)
{
    if (!g || !ws || !r)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: NULL %s", fn, !g ? "layer" : !ws ? "workspace" : "routing");
    if (!g->prepared)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: the layer is not prepared (hum_layer_prepare)", fn);
    if (g->gemm_type == HUM_GEMM_DENSE)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: the layer is dense (hum_layer_forward)", fn);
    if (ws->rt != g->rt)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: the workspace belongs to another runtime", fn);
    if (r->m < 0 || r->m > INT32_MAX)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: routing m = %lld (expected 0 .. 2^31 - 1)", fn, (long long)r->m);
    if (g->gemm_type == HUM_GEMM_MOE_INDEXED && (r->top_k < 1 || r->m * r->top_k > INT32_MAX))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: routing top_k = %d with m = %lld (expected top_k >= 1 and m * top_k "
                        "below 2^31)", fn, r->top_k, (long long)r->m);
    return HUM_OK;
}

hum_status hum_expert_gemm_block_m(hum_layer *gemm, hum_workspace *ws, const hum_expert_routing *r, int32_t *block_m)
{
    hum_status st = check_gemm("hum_expert_gemm_block_m", gemm, ws, r);
    if (st != HUM_OK)
        return st;
    if (!block_m)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_expert_gemm_block_m: NULL block_m");
    const hum_dispatch_table *t = hum_hazard_pin(&ws->slot, &gemm->table);
    const int64_t rows = hum_expert_gemm_rows(&t->plan.config, gemm->gemm_type, r->m, r->top_k);
    *block_m = hum_dispatch_entry_for(t, rows)->block_m;
    hum_hazard_unpin(&ws->slot);
    return HUM_OK;
}

/* The blocks of block_m rows the routing can hold at most, and the routing fields of args;
 * HUM_ERR_INVALID_ARG naming what is missing or short. */
static hum_status routing_args(const hum_layer *g, const hum_expert_routing *r, int32_t block_m, int64_t a_rows,
                               int64_t c_rows, hum_gemm_args *args, int64_t *blocks)
{
    const int64_t E = g->plan.config.num_experts;
    int64_t want_a = r->m, want_c = r->m;
    switch (g->gemm_type) {
    case HUM_GEMM_MOE_INDEXED: {
        const int64_t routed = r->m * r->top_k;
        want_c = routed;
        if (!r->sorted_token_ids || !r->expert_ids || !r->num_tokens_post_padded)
            return hum_fail(HUM_ERR_INVALID_ARG, "%s: indexed routing needs sorted_token_ids, expert_ids and "
                            "num_tokens_post_padded (device int32)", FN);
        if (r->block_m != block_m)
            return hum_fail(HUM_ERR_INVALID_ARG, "%s: the sorted ids are padded to block_m %d but the entry for %lld "
                            "rows per expert runs block_m %d (hum_expert_gemm_block_m)", FN, r->block_m,
                            (long long)hum_expert_gemm_rows(&g->plan.config, g->gemm_type, r->m, r->top_k), block_m);
        const int64_t capacity = hum_moe_indexed_capacity(routed, E, block_m);
        if (r->capacity < capacity)
            return hum_fail(HUM_ERR_INVALID_ARG, "%s: sorted_token_ids holds %lld entries, %lld routed rows over %lld "
                            "experts in blocks of %d need %lld (hum_moe_indexed_capacity)", FN, (long long)r->capacity,
                            (long long)routed, (long long)E, block_m, (long long)capacity);
        args->sorted_token_ids = r->sorted_token_ids;
        args->expert_ids = r->expert_ids;
        args->num_tokens_post_padded = r->num_tokens_post_padded;
        args->top_k = r->top_k;
        *blocks = capacity / block_m;
        break;
    }
    case HUM_GEMM_MOE_GROUPED_CONTIGUOUS:
        if (!r->expert_offsets)
            return hum_fail(HUM_ERR_INVALID_ARG, "%s: grouped_contiguous routing needs expert_offsets (device int64 "
                            "[%lld])", FN, (long long)E + 1);
        args->expert_offsets = (const long long *)r->expert_offsets;
        *blocks = hum_moe_grouped_blocks(r->m, E, block_m);
        break;
    default:
        if (!r->expert_counts)
            return hum_fail(HUM_ERR_INVALID_ARG, "%s: grouped_masked routing needs expert_counts (device int32 "
                            "[%lld])", FN, (long long)E);
        if (r->m > INT32_MAX / E)
            return hum_fail(HUM_ERR_INVALID_ARG, "%s: %lld experts of %lld rows exceed 2^31 - 1 rows", FN,
                            (long long)E, (long long)r->m);
        args->expert_counts = r->expert_counts;
        want_a = want_c = E * r->m;
        *blocks = E * ((r->m + block_m - 1) / block_m);
        break;
    }
    if (a_rows != want_a || c_rows != want_c)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: a has %lld rows and c %lld, the routing needs %lld and %lld", FN,
                        (long long)a_rows, (long long)c_rows, (long long)want_a, (long long)want_c);
    return HUM_OK;
}

hum_status hum_expert_gemm_check_a_scale(const char *fn, const char *name, const hum_layer_config *cfg,
                                        const hum_tensor *s, int64_t rows, int64_t *ld)
{
    const char *a = hum_dtype_name(cfg->a_dtype);
    *ld = 0;
    if (!hum_gemm_a8(cfg))
        return s ? hum_fail(HUM_ERR_INVALID_ARG, "%s: %s must be NULL for %s activations", fn, name, a) : HUM_OK;
    const int64_t groups = cfg->a_group ? (cfg->k + cfg->a_group - 1) / cfg->a_group : 0;
    const hum_dtype dtype = hum_gemm_a_scale_dtype(cfg);
    /* float32 scales are read a word at a time */
    if (s && s->data && s->dtype == HUM_DTYPE_FLOAT32 && ((uintptr_t)s->data & 3))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: %s must be 4-byte aligned (got %p)", fn, name, s->data);
    if (groups) {
        if (!s || s->memory != HUM_MEMORY_DEVICE || !s->data || s->dtype != dtype || s->rank != 2 ||
            s->shape[0] != rows || s->shape[1] != groups || (s->strides[1] != 0 && s->strides[1] != 1) ||
            (s->strides[0] != 0 && s->strides[0] < groups))
            return hum_fail(HUM_ERR_INVALID_ARG, "%s: %s activations in groups of %lld need %s, a %s device "
                            "tensor [%lld, %lld] (one scale per row and group) with contiguous rows%s", fn, a,
                            (long long)cfg->a_group, name, hum_dtype_name(dtype), (long long)rows,
                            (long long)groups, s ? "" : ": got NULL");
        *ld = s->strides[0] ? s->strides[0] : groups;
        return HUM_OK;
    }
    if (!s || s->memory != HUM_MEMORY_DEVICE || !s->data || s->dtype != HUM_DTYPE_FLOAT32 || s->rank != 1 ||
        s->shape[0] != rows || (s->strides[0] != 0 && s->strides[0] != 1))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: %s activations need %s, a contiguous float32 device tensor "
                        "[%lld] (one scale per row)%s", fn, a, name, (long long)rows, s ? "" : ": got NULL");
    *ld = 1;
    return HUM_OK;
}

hum_status hum_expert_gemm_check_a_align(const char *fn, const char *name, const hum_layer *gemm, const void *a,
                                        int64_t lda)
{
    const int a_bytes = hum_gemm_a8(&gemm->plan.config) ? 1 : 2;
    if (gemm->a_vector && (((uintptr_t)a | (uintptr_t)(lda * a_bytes)) & 15))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: %s must be 16-byte aligned with a row stride that is a multiple of %d "
                        "elements (got %p, stride %lld)", fn, name, 16 / a_bytes, a, (long long)lda);
    return HUM_OK;
}

hum_status hum_expert_gemm_forward_in(hum_layer *gemm, hum_workspace *ws, int64_t bytes, struct CUstream_st *stream,
                                      const hum_tensor *a, const hum_tensor *a_scale, const hum_tensor *c,
                                      const hum_expert_routing *r)
{
    hum_status st = check_gemm(FN, gemm, ws, r);
    if (st != HUM_OK)
        return st;
    if (!a || !c)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: NULL %s", FN, !a ? "a" : "c");
    const hum_layer_config *cfg = &gemm->plan.config;
    int64_t lda, ldc, a_scale_ld;
    if ((st = hum_layer_check_tensor(FN, a, "a", cfg->a_dtype, gemm->input_k, &lda)) != HUM_OK ||
        (st = hum_layer_check_tensor(FN, c, "c", cfg->c_dtype, cfg->n, &ldc)) != HUM_OK ||
        (st = hum_expert_gemm_check_a_scale(FN, "a_scale", cfg, a_scale, a->shape[0], &a_scale_ld)) != HUM_OK)
        return st;
    if ((st = hum_expert_gemm_check_a_align(FN, "a", gemm, a->data, lda)) != HUM_OK)
        return st;
    if (cfg->n % 2 == 0 && (((uintptr_t)c->data | (uintptr_t)(ldc * 2)) & 3))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: c must be 4-byte aligned with an even row stride (got %p, stride "
                        "%lld)", FN, c->data, (long long)ldc);
    if (r->m == 0)
        return a->shape[0] == 0 && c->shape[0] == 0
                   ? HUM_OK
                   : hum_fail(HUM_ERR_INVALID_ARG, "%s: routing m = 0 but a has %lld rows and c %lld", FN,
                              (long long)a->shape[0], (long long)c->shape[0]);

    /* the table in force stays loaded until unpinned, whatever a reload does meanwhile */
    const hum_dispatch_table *t = hum_hazard_pin(&ws->slot, &gemm->table);
    const hum_dispatch_entry *e = hum_dispatch_entry_for(t, hum_expert_gemm_rows(cfg, gemm->gemm_type, r->m, r->top_k));
    const hum_layer_buffers *b = &gemm->buf;
    hum_gemm_args args = {.a = a->data, .a_scale = a_scale ? a_scale->data : NULL, .lda = lda,
                          .a_scale_ld = a_scale_ld, .b = b->weight, .b_scale = b->scale, .zero = b->zero,
                          .bias = b->bias, .col_scale = b->col_scale, .k_perm = b->k_perm, .c = c->data, .ldc = ldc,
                          .m = (int)r->m, .out_factor = gemm->out_factor};
    int64_t blocks = 0;
    st = routing_args(gemm, r, e->block_m, a->shape[0], c->shape[0], &args, &blocks);
    if (st == HUM_OK)
        st = hum_gemm_launch(e, ws, stream, &args, hum_workspace_partials(ws, bytes, t->partial_bytes), blocks);
    hum_hazard_unpin(&ws->slot);
    return st;
}

int64_t hum_expert_gemm_bytes_in(hum_layer *gemm, hum_workspace *ws)
{
    const hum_dispatch_table *t = hum_hazard_pin(&ws->slot, &gemm->table);
    const int64_t bytes = ws->lock_bytes + t->partial_bytes;
    hum_hazard_unpin(&ws->slot);
    return bytes;
}

hum_status hum_expert_gemm_forward(hum_layer *gemm, hum_workspace *ws, struct CUstream_st *stream, const hum_tensor *a,
                                   const hum_tensor *a_scale, const hum_tensor *c, const hum_expert_routing *r)
{
    return hum_expert_gemm_forward_in(gemm, ws, ws ? ws->bytes : 0, stream, a, a_scale, c, r);
}

hum_status hum_expert_gemm_compile_spec(hum_runtime *rt, const hum_layer_spec *spec, int64_t experts,
                                        hum_gemm_type type, const char *arch, hum_layer_info *out)
{
    return hum_layer_compile_spec_as(rt, spec, &experts, type, arch, out, "hum_expert_gemm_compile_spec");
}
