/* Workspaces (see workspace.h): creation and sizing. */
#include "workspace.h"

#include "internal.h"
#include "layer.h"
#include "runtime.h"

#include <stdlib.h>
#include <string.h>

int64_t hum_workspace_round_up(int64_t bytes)
{
    return (bytes + HUM_WORKSPACE_ALIGN - 1) / HUM_WORKSPACE_ALIGN * HUM_WORKSPACE_ALIGN;
}

/* The ready counters' bytes, the lock area's last. */
static int64_t ready_bytes(void)
{
    return hum_workspace_round_up((2 + HUM_WORKSPACE_READY_BLOCKS) * 4);
}

int64_t hum_workspace_lock_bytes(int32_t sm_count)
{
    return hum_workspace_round_up((int64_t)sm_count * HUM_MAX_CTAS_PER_SM * 4) + ready_bytes();
}

int *hum_workspace_ready(const hum_workspace *ws)
{
    return (int *)((char *)ws->base + ws->lock_bytes - ready_bytes());
}

int64_t hum_workspace_codes_bytes(const hum_layer_config *c, int64_t rows)
{
    return hum_workspace_round_up(rows * hum_workspace_codes_stride(c));
}

int64_t hum_workspace_quantized_row_bytes(const hum_layer_config *c)
{
    if (!hum_gemm_a8(c))
        return 0;
    return hum_workspace_codes_stride(c) + 4 * (c->a_group ? (c->k + c->a_group - 1) / c->a_group : 1);
}

int64_t hum_workspace_staged_row_bytes(const hum_layer_config *c)
{
    if (c->act_order || c->a_round != HUM_A_ROUND_NONE)
        return 2 * c->k;
    return hum_workspace_quantized_row_bytes(c);
}

int64_t hum_workspace_codes_stride(const hum_layer_config *c)
{
    return (c->k + 15) / 16 * 16;
}

int64_t hum_workspace_quantized_rows(const hum_layer_config *c, int64_t room)
{
    const int64_t row = hum_workspace_quantized_row_bytes(c), scale_row = row - hum_workspace_codes_stride(c);
    /* at most room / row: the two regions take at least their rows' bytes; then the alignment of
     * each region may cost a row or two (a few more for short rows) */
    int64_t rows = room / row;
    while (rows > 0 && hum_workspace_codes_bytes(c, rows) + hum_workspace_round_up(rows * scale_row) > room)
        rows--;
    return rows;
}

int64_t hum_workspace_partial_bytes(const hum_layer_plan *plan, int32_t sm_count)
{
    int64_t most = 0;
    for (int32_t i = 0; i < plan->entry_count; i++) {
        const hum_tuning *t = &plan->entries[i];
        const int64_t bytes =
            t->stream_k && t->stream_k_sum ? (int64_t)sm_count * t->ctas_per_sm * t->block_m * t->block_n * 4 : 0;
        most = bytes > most ? bytes : most;
    }
    return hum_workspace_round_up(most);
}

void *hum_workspace_partials(const hum_workspace *ws, int64_t bytes, int64_t partial_bytes)
{
    return partial_bytes && partial_bytes <= bytes - ws->lock_bytes ? (char *)ws->base + ws->lock_bytes : NULL;
}

void hum_workspace_areas(const hum_workspace *ws, int64_t partial_bytes, int64_t min_rows, void **partials,
                         char **rows, int64_t *room)
{
    *partials = hum_workspace_partials(ws, ws->bytes - min_rows, partial_bytes);
    const int64_t taken = *partials ? partial_bytes : 0;
    *rows = (char *)ws->base + ws->lock_bytes + taken;
    *room = ws->bytes - ws->lock_bytes - taken;
}

int64_t hum_workspace_rows_bytes(const hum_layer_config *c, int64_t rows)
{
    if (!hum_gemm_a8(c))
        return hum_workspace_round_up(rows * hum_workspace_staged_row_bytes(c));
    const int64_t scale_row = hum_workspace_quantized_row_bytes(c) - hum_workspace_codes_stride(c);
    return hum_workspace_codes_bytes(c, rows) + hum_workspace_round_up(rows * scale_row);
}

/* Bytes of one row of A a forward of `plan` makes in the workspace: none for an expert GEMM,
 * which takes its A made (act-order experts gather their columns in the GEMM,
 * kernels/gemm/load_a.cuh). */
static int64_t made_row_bytes(const hum_layer_plan *plan)
{
    return plan->compute.gemm_type == HUM_GEMM_DENSE ? hum_workspace_staged_row_bytes(&plan->config) : 0;
}

int64_t hum_workspace_bytes(const hum_layer_plan *plan, int32_t sm_count, int64_t max_m)
{
    return hum_workspace_lock_bytes(sm_count) + hum_workspace_partial_bytes(plan, sm_count) +
           (made_row_bytes(plan) ? hum_workspace_rows_bytes(&plan->config, max_m) : 0);
}

hum_status hum_layer_workspace_size(const hum_layer *layer, int64_t max_m, int64_t *bytes)
{
    if (!layer || !bytes)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_workspace_size: NULL %s", !layer ? "layer" : "bytes");
    *bytes = 0;
    if (!layer->prepared)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_workspace_size: the layer is not prepared (hum_layer_prepare)");
    const int64_t row = made_row_bytes(&layer->plan);
    if (max_m < 0 || (row && max_m > (INT64_MAX / 2 - 2 * HUM_WORKSPACE_ALIGN) / 2 / row))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_workspace_size: max_m %lld (expected 0 .. 2^62 / (2 x the "
                        "%lld bytes of one row of A the forward makes))", (long long)max_m, (long long)row);
    hum_device_info dev;
    hum_status st = hum_runtime_device(layer->rt, &dev);
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_layer_workspace_size");
    /* a reload may replace the table meanwhile: read it under the lock that frees it */
    pthread_mutex_lock(&layer->rt->live_lock);
    *bytes = hum_workspace_bytes(&hum_layer_table_locked(layer)->plan, dev.sm_count, max_m);
    pthread_mutex_unlock(&layer->rt->live_lock);
    return HUM_OK;
}

hum_status hum_workspace_create(hum_runtime *rt, void *device_memory, int64_t bytes, hum_workspace **out)
{
    if (out)
        *out = NULL;
    if (!rt || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_workspace_create: NULL %s", !rt ? "runtime" : "out");
    hum_device_info dev;
    hum_status st = hum_runtime_device(rt, &dev);
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_workspace_create");
    const int64_t locks = hum_workspace_lock_bytes(dev.sm_count);
    if (bytes < locks)
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "hum_workspace_create: %lld bytes; a workspace on %s takes at least %lld (the stream-K locks "
                        "and counters; hum_layer_workspace_size gives what a layer needs)",
                        (long long)bytes, dev.name, (long long)locks);
    if ((uintptr_t)device_memory % HUM_WORKSPACE_ALIGN)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_workspace_create: device memory %p is not %d-byte aligned",
                        device_memory, HUM_WORKSPACE_ALIGN);
    hum_workspace *ws = calloc(1, sizeof *ws);
    if (!ws)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_workspace_create: out of memory");
    ws->rt = rt;
    ws->ordinal = dev.ordinal;
    ws->bytes = bytes;
    ws->lock_bytes = locks;
    ws->base = device_memory;
    if (!device_memory) {
        st = hum_device_alloc(dev.ordinal, (size_t)bytes, &ws->base);
        ws->owned = st == HUM_OK;
    }
    /* the memset runs on the legacy stream: wait for it, so that a forward on any stream finds
     * the locks zero */
    if (st == HUM_OK && (st = hum_memset_d8(ws->base, 0, (size_t)locks)) == HUM_OK)
        st = hum_stream_synchronize(NULL);
    if (st != HUM_OK) {
        if (ws->owned)
            hum_device_free(ws->base);
        free(ws);
        return hum_fail_context(st, "hum_workspace_create of %lld bytes on %s", (long long)bytes, dev.name);
    }
    pthread_mutex_lock(&rt->live_lock);
    hum_hazard_register(&rt->hazards, &ws->slot);
    pthread_mutex_unlock(&rt->live_lock);
    *out = ws;
    return HUM_OK;
}

void hum_workspace_destroy(hum_workspace *ws)
{
    if (!ws)
        return;
    pthread_mutex_lock(&ws->rt->live_lock);
    hum_hazard_unregister(&ws->rt->hazards, &ws->slot);
    pthread_mutex_unlock(&ws->rt->live_lock);
    if (ws->owned)
        hum_device_free(ws->base);
    free(ws);
}
