/* The hot path: check the tensors, pick the dispatch entry for M, size the persistent grid,
 * launch (act-order: gather A into the workspace first). No allocation, no Lua, no locks;
 * messages are only formatted on error paths. */
#include "layer.h"

#include "act_quant.h"
#include "internal.h"
#include "workspace.h"

#include <stdint.h>
#include <string.h>

/* Row stride of a rank-2 tensor in elements (strides[0], 0 meaning packed), or -1 when its
 * inner dimension is not contiguous (strides[1] other than 0 or 1). */
static int64_t row_stride(const hum_tensor *t)
{
    if (t->strides[1] != 0 && t->strides[1] != 1)
        return -1;
    return t->strides[0] ? t->strides[0] : t->shape[1];
}

hum_status hum_layer_check_tensor(const char *fn, const hum_tensor *t, const char *name, hum_dtype dtype, int64_t cols,
                                  int64_t *ld)
{
    if (t->memory != HUM_MEMORY_DEVICE || !t->data)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: %s must be device memory (non-NULL)", fn, name);
    if (t->dtype != dtype)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: %s is %s, the layer runs %s", fn, name, hum_dtype_name(t->dtype),
                        hum_dtype_name(dtype));
    if (t->rank != 2 || t->shape[1] != cols || t->shape[0] < 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: %s has rank %d shape [%lld, %lld], expected [M, %lld]", fn, name,
                        t->rank, (long long)t->shape[0], (long long)t->shape[1], (long long)cols);
    *ld = row_stride(t);
    if (*ld < cols)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: %s strides [%lld, %lld]: rows must be contiguous and at least %lld "
                        "apart", fn, name, (long long)t->strides[0], (long long)t->strides[1], (long long)cols);
    return HUM_OK;
}

const hum_dispatch_entry *hum_dispatch_entry_for(const hum_dispatch_table *t, int64_t m)
{
    const hum_dispatch_entry *e = t->entries;
    while (m > e->m_max)
        ++e;
    return e;
}

hum_gemm_grid hum_gemm_grid_for(const hum_dispatch_entry *e, int64_t blocks, int have_partials)
{
    const int64_t tiles = blocks * e->n_blocks;
    const int64_t cap = e->cluster_n > 1 ? e->cluster_grid : e->max_grid;
    const int64_t waves = cap > 0 ? (tiles + cap - 1) / cap : 0;
    const int fills = e->whole_fill > 0 && cap > 0 && tiles * 100 >= waves * cap * e->whole_fill;
    hum_gemm_grid g = {.sums = e->stream_k_sum && have_partials && !fills};
    const int64_t work = e->stream_k && (!e->stream_k_sum || g.sums) ? tiles * e->k_blocks : tiles;
    g.ctas = work < cap ? work : cap;
    g.ctas -= g.ctas % e->cluster_n;
    return g;
}

hum_status hum_gemm_launch(const hum_dispatch_entry *e, hum_workspace *ws, struct CUstream_st *stream,
                           hum_gemm_args *args, void *partials, int64_t blocks)
{
    const hum_gemm_grid g = hum_gemm_grid_for(e, blocks, partials != NULL);
    args->locks = ws->base;
    args->partials = g.sums ? partials : NULL;
    void *params[] = {args};
    /* after the kernel that writes A (act-order's permutation, 8-bit A's quantization) the GEMM's
     * launch latency hides behind it: the kernels wait for it before their first load
     * (kernels/ptx/griddep.cuh) */
    hum_launch_config launch = {.grid = {(uint32_t)g.ctas, 1, 1}, .block = {e->threads, 1, 1},
                                .cluster = {(uint32_t)e->cluster_n, 1, 1}, .dynamic_smem_bytes = e->smem_bytes,
                                .stream = stream, .overlap_previous = args->overlaps};
    return hum_kernel_launch(e->kernel, &launch, params);
}

/* 8-bit A's scales in device memory: float32 [M] (per token), [1] (per tensor), or [M, ceil(K /
 * a_group)] with activation groups (float32, or e8m0 bytes in groups of 32:
 * hum_gemm_a_scale_dtype); 16-bit A takes none. *ld: elements from one row's scales to the next
 * (0 for one per tensor). */
static hum_status check_a_scale(const hum_layer_config *cfg, const hum_tensor *s, int64_t m, int64_t *ld)
{
    *ld = 0;
    const char *a = hum_dtype_name(cfg->a_dtype);
    if (!hum_gemm_a8(cfg))
        return s ? hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: a_scale must be NULL for %s activations", a)
                 : HUM_OK;
    const int64_t groups = cfg->a_group ? (cfg->k + cfg->a_group - 1) / cfg->a_group : 0;
    const hum_dtype dtype = hum_gemm_a_scale_dtype(cfg);
    if (!s)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: %s activations need a_scale (%s %s)", a,
                        hum_dtype_name(dtype), groups ? "[M, ceil(K / group)]" : "[M] per token or [1] per tensor");
    if (s->memory != HUM_MEMORY_DEVICE || !s->data || s->dtype != dtype)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: a_scale must be %s device memory (got %s%s)",
                        hum_dtype_name(dtype), hum_dtype_name(s->dtype),
                        s->memory != HUM_MEMORY_DEVICE || !s->data ? ", not on the device" : "");
    if (groups) {
        if (s->rank != 2 || s->shape[0] != m || s->shape[1] != groups || row_stride(s) < groups)
            return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: a_scale has rank %d shape [%lld, %lld], expected "
                            "[M, ceil(K / %lld)] = [%lld, %lld] with contiguous rows", s->rank,
                            (long long)s->shape[0], (long long)(s->rank > 1 ? s->shape[1] : 0),
                            (long long)cfg->a_group, (long long)m, (long long)groups);
        *ld = row_stride(s);
        return HUM_OK;
    }
    if (s->rank != 1 || (s->shape[0] != m && s->shape[0] != 1) || (s->strides[0] != 0 && s->strides[0] != 1))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: a_scale has rank %d shape [%lld%s], expected [M] = "
                        "[%lld] (per token) or [1] (per tensor), contiguous", s->rank, (long long)s->shape[0],
                        s->rank > 1 ? ", ..." : "", (long long)m);
    *ld = s->shape[0] == m && m > 1 ? 1 : 0;
    return HUM_OK;
}

/* Where the GEMM reads a chunk of A that the forward made in the workspace (permuted, quantized or
 * rounded), or the host's A as it is. */
typedef struct staged_a {
    const void *a;
    int64_t lda;           /* elements of A's type from one row to the next */
    const float *a_scale;  /* 8-bit A's scales (or the layer's input_scale per tensor); NULL for 16-bit A */
    int64_t a_scale_ld;    /* scales per row (0: one per row or the tensor's) */
    const void *a16;       /* the host's 16-bit rows the GEMM quantizes into a and a_scale itself
                            * (quantize_a), NULL when A arrives made */
    int64_t lda16;
    int overlaps;          /* A comes from the kernel launched just before (permutation, quantization) */
} staged_a;

/* One GEMM launch of M rows (1 .. 2^31 - 1) of A as g says into C with table t (partials:
 * hum_gemm_launch). */
static hum_status launch_gemm(const hum_layer *layer, const hum_dispatch_table *t, hum_workspace *ws, void *partials,
                              struct CUstream_st *stream, const staged_a *g, void *c, int64_t ldc, int64_t m)
{
    const hum_dispatch_entry *e = hum_dispatch_entry_for(t, m);
    const hum_layer_buffers *b = &layer->buf;
    /* k_perm stays NULL: an act-order A arrives permuted (launch_permute) */
    hum_gemm_args args = {.a = g->a, .a_scale = g->a_scale, .lda = g->lda, .a_scale_ld = g->a_scale_ld,
                          .b = b->weight, .b_scale = b->scale, .zero = b->zero, .bias = b->bias,
                          .col_scale = b->col_scale, .c = c, .ldc = ldc, .m = (int)m,
                          .out_factor = layer->out_factor, .overlaps = g->overlaps, .a16 = g->a16,
                          .lda16 = g->lda16, .a_ready = g->a16 ? hum_workspace_ready(ws) : NULL};
    if (e->weights_ss)
        memcpy(&args.b_map, &e->b_map, sizeof args.b_map);
    hum_status st;
    /* with A multicast each CTA of a cluster copies 1 / cluster_n of the block's rows */
    if (e->family->bind && (st = e->family->bind(&ws->bind, layer->plan.config.a_dtype, layer->plan.config.k,
                                                 e->block_m / e->cluster_n, &args)) != HUM_OK)
        return hum_fail_context(st, "hum_layer_forward");
    return hum_gemm_launch(e, ws, stream, &args, partials, (m + e->block_m - 1) / e->block_m);
}

/* Gathers M rows of A into `rows` in the prepared K order (kernels/prep/permute_a.cu) before
 * entry e's GEMM reads them. A row is cut into slices of 2048 columns, one block each, until
 * there are two blocks per SM: each slice stages the whole row again, so more slices than that
 * only read more of L2. The GEMM is let in at the permutation's start when it runs one CTA per
 * SM (a CTA without room waits for its SM's permutation blocks, then starts: H200, n = k = 8192
 * act-order, M 16 / 32 / 64 / 128: 24.37 / 27.14 / 30.82 / 41.97 us against 24.50 / 28.08 /
 * 31.50 / 42.34 let in at the end, bench/NOTES.md session 8), or when all its CTAs fit on an SM
 * beside the permutation's blocks (their count per SM as the grid spreads them); CTAs of a
 * GEMM of several per SM let in without that room cost 10 us (permute_a.cu). */
static hum_status launch_permute(const hum_layer *layer, const hum_dispatch_entry *e, void *rows,
                                 struct CUstream_st *stream, const void *a, int64_t lda, int64_t m)
{
    int32_t k = (int32_t)layer->plan.config.k, cols = (int32_t)layer->input_k,
            staged = hum_permute_staged(layer->input_k), m32 = (int32_t)m;
    const int64_t sms = layer->plan.sm_count;
    const int64_t per_row = (k + 2047) / 2048, fill = (2 * sms + m - 1) / m;
    const uint32_t slices = (uint32_t)(per_row < fill ? per_row : fill), grid_y = (uint32_t)(m < 65535 ? m : 65535);
    const int64_t per_sm = ((int64_t)slices * grid_y + sms - 1) / sms;
    const int32_t ctas_per_sm = (int32_t)(e->max_grid / sms);
    int32_t early = ctas_per_sm == 1 || per_sm <= hum_kernel_blocks_beside(e->kernel, e->threads, e->smem_bytes,
                                                                           ctas_per_sm, layer->permute, 256,
                                                                           (uint32_t)staged * 2);
    void *args[] = {(void *)&a, &lda, (void *)&layer->buf.k_perm, &rows, &k, &cols, &staged, &m32, &early};
    hum_launch_config launch = {.grid = {slices, grid_y, 1}, .block = {256, 1, 1},
                                .dynamic_smem_bytes = (uint32_t)staged * 2, .stream = stream};
    return hum_kernel_launch(layer->permute, &launch, args);
}

/* Makes rows of the host's 16-bit A (row stride lda) into `area` for the GEMM: quantized
 * (kernels/prep/quantize_a.cu) as the layer's plan says, to a_dtype codes per token, per tensor
 * (the checkpoint's input_scale) or per group of a_group columns, their scales after the codes;
 * or rounded through mxfp8 into a_dtype, rows of K (a_round). Where table t's entry for M
 * quantizes its own A (quantize_a) and can take these rows, nothing is launched: g tells the
 * GEMM where to write the codes and scales. */
static hum_status launch_quantize(const hum_layer *layer, const hum_dispatch_table *t, char *area,
                                  struct CUstream_st *stream, const void *a, hum_dtype a_dtype, int64_t lda, int64_t m,
                                  staged_a *g)
{
    const hum_layer_config *cfg = &layer->plan.config;
    hum_act_quant how;
    int round;
    hum_act_quant_of(cfg, &how, &round);
    const int64_t groups = how.scale == HUM_ACT_SCALE_GROUP ? (cfg->k + how.group - 1) / how.group : 1;
    float *scales = round || how.scale == HUM_ACT_SCALE_TENSOR ? NULL
                                                               : (float *)(area + hum_workspace_codes_bytes(cfg, m));
    *g = (staged_a){.a = area, .lda = round ? cfg->k : hum_workspace_codes_stride(cfg),
                    .a_scale = round ? NULL : scales ? scales : layer->buf.input_scale,
                    .a_scale_ld = scales ? groups : 0, .overlaps = 1};
    /* the GEMM quantizes the rows itself where it can take them: C's type, 16-byte rows, no more
     * row blocks than the workspace counts (kernels/gemm/quant_a.cuh) */
    const hum_dispatch_entry *e = hum_dispatch_entry_for(t, m);
    if (e->quantize_a && a_dtype == cfg->c_dtype && layer->input_k == cfg->k && !((uintptr_t)a % 16) &&
        !((lda * 2) % 16) && (m + e->block_m - 1) / e->block_m <= HUM_WORKSPACE_READY_BLOCKS) {
        g->a16 = a;
        g->lda16 = lda;
        g->overlaps = 0;
        return HUM_OK;
    }
    const hum_act_quant_out out = {.q = area, .ldq = g->lda, .kq = cfg->k, .scale = scales, .scale_row = groups,
                                   .scale_group = 1, .input_scale = layer->buf.input_scale, .round = round};
    hum_quantize_args args;
    /* A's input_k columns, the GEMM's K' zero-filled past them */
    hum_status st = hum_act_quant_args(&how, a, a_dtype, lda, m, layer->input_k, &out, &args);
    return st == HUM_OK ? hum_act_quant_launch(layer->quantize, &args, layer->plan.sm_count, stream, 0) : st;
}

hum_status hum_layer_forward_ws(hum_layer *layer, hum_workspace *ws, struct CUstream_st *stream, const hum_tensor *a,
                                const hum_tensor *a_scale, const hum_tensor *c)
{
    if (!layer || !ws || !a || !c)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: NULL %s",
                        !layer ? "layer" : !ws ? "workspace" : !a ? "a" : "c");
    if (!layer->prepared)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: the layer is not prepared (hum_layer_prepare)");
    if (layer->gemm_type != HUM_GEMM_DENSE)
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "hum_layer_forward: the layer is an expert GEMM (hum_expert_gemm_forward)");
    const hum_layer_config *cfg = &layer->plan.config;
    int64_t lda = 0, ldc = 0, a_scale_ld = 0;
    /* a layer of 8-bit A takes the host's 16-bit A too, and quantizes it itself; one that rounds
     * A through mxfp8 (a_round) takes its own 16-bit type only, and rounds it */
    const int a8 = hum_gemm_a8(cfg), quantize = a8 ? hum_dtype_is_activation(a->dtype) : hum_gemm_quantizes_a(cfg);
    hum_status st = hum_layer_check_tensor("hum_layer_forward", a, "a", quantize && a8 ? a->dtype : cfg->a_dtype,
                                           layer->input_k, &lda);
    if (st == HUM_OK)
        st = hum_layer_check_tensor("hum_layer_forward", c, "c", cfg->c_dtype, cfg->n, &ldc);
    if (st != HUM_OK)
        return st;
    const int64_t m = a->shape[0];
    if (c->shape[0] != m)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: a has %lld rows but c has %lld", (long long)m,
                        (long long)c->shape[0]);
    if (quantize && a8 && a_scale)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: a_scale must be NULL with %s activations: the "
                        "layer quantizes them to %s itself", hum_dtype_name(a->dtype), hum_dtype_name(cfg->a_dtype));
    if (!(quantize && a8) && (st = check_a_scale(cfg, a_scale, m, &a_scale_ld)) != HUM_OK)
        return st;
    if (m == 0)
        return HUM_OK;
    if (m > INT32_MAX)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: M = %lld exceeds 2^31 - 1", (long long)m);
    const int a_bytes = a8 ? 1 : 2;
    if (!quantize && layer->a_vector && (((uintptr_t)a->data | (uintptr_t)(lda * a_bytes)) & 15))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: a must be 16-byte aligned with a row stride that is a "
                        "multiple of %d elements (got %p, stride %lld)", 16 / a_bytes, a->data, (long long)lda);
    if (cfg->n % 2 == 0 && (((uintptr_t)c->data | (uintptr_t)(ldc * 2)) & 3))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: c must be 4-byte aligned with an even row stride "
                        "(got %p, stride %lld)", c->data, (long long)ldc);
    if (ws->rt != layer->rt)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: the workspace belongs to another runtime");
    /* the table in force stays loaded until unpinned, whatever a reload does meanwhile */
    const hum_dispatch_table *t = hum_hazard_pin(&ws->slot, &layer->table);
    /* rows of A the workspace holds at once beside the stream-K partials, or without them (the
     * partials kept only where a row fits beside them: the two quantized regions each lose up to
     * 255 bytes to alignment); quantized rows counted as hum_workspace_bytes sized them (a
     * workspace for max_m rows ran M = max_m as max_m - 1 rows and 1 before: bench/NOTES.md,
     * session 9) */
    const int codes = quantize && a8; /* 8-bit codes and their scales, two regions */
    const int64_t row_bytes = quantize || cfg->act_order ? hum_workspace_staged_row_bytes(cfg) : 0;
    void *partials;
    char *area;
    int64_t room;
    hum_workspace_areas(ws, t->partial_bytes, row_bytes + (codes ? 512 : 0), &partials, &area, &room);
    const int64_t rows = !row_bytes ? m : codes ? hum_workspace_quantized_rows(cfg, room) : room / row_bytes;
    if (rows < 1) {
        hum_hazard_unpin(&ws->slot);
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: the workspace of %lld bytes holds no row of the "
                        "%s layer's A (hum_layer_workspace_size)", (long long)ws->bytes,
                        cfg->act_order ? "act-order" : codes ? "8-bit" : "mxfp8-rounding");
    }
    if (!row_bytes) {
        const staged_a g = {.a = a->data, .lda = lda, .a_scale = a_scale ? a_scale->data : NULL,
                            .a_scale_ld = a_scale_ld};
        st = launch_gemm(layer, t, ws, partials, stream, &g, c->data, ldc, m);
    }
    /* A made in the workspace a chunk of rows at a time (permuted, quantized or rounded), each
     * chunk's GEMM launched to overlap the kernel that makes it (or quantizing it itself) */
    for (int64_t r = 0; row_bytes && st == HUM_OK && r < m; r += rows) {
        const int64_t part = m - r < rows ? m - r : rows;
        const char *rows_a = (const char *)a->data + r * lda * 2;
        staged_a g = {.a = area, .lda = cfg->k, .overlaps = 1};
        st = quantize ? launch_quantize(layer, t, area, stream, rows_a, a->dtype, lda, part, &g)
                      : launch_permute(layer, hum_dispatch_entry_for(t, part), area, stream, rows_a, lda, part);
        if (st == HUM_OK)
            st = launch_gemm(layer, t, ws, partials, stream, &g, (uint16_t *)c->data + r * ldc, ldc, part);
    }
    hum_hazard_unpin(&ws->slot);
    return st;
}

hum_status hum_layer_forward(hum_layer *layer, struct CUstream_st *stream, const hum_tensor *a,
                             const hum_tensor *a_scale, const hum_tensor *c)
{
    if (!layer)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: NULL layer");
    if (!layer->prepared)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_forward: the layer is not prepared (hum_layer_prepare)");
    return hum_layer_forward_ws(layer, layer->workspace, stream, a, a_scale, c);
}
