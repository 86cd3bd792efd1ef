/* Dispatch tables: built from a plan (prepare and reload), published to forwards through hazard
 * slots (hazard.h), and replaced on every prepared layer when the policies are reloaded. */
#include "layer.h"

#include "cuda_driver.h"
#include "device.h"
#include "internal.h"
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hum_layer_retire(hum_layer *layer)
{
    if (!layer->prepared)
        return;
    hum_runtime *rt = layer->rt;
    pthread_mutex_lock(&rt->live_lock);
    for (hum_layer **p = &rt->layers; *p; p = &(*p)->next_live)
        if (*p == layer) {
            *p = layer->next_live;
            break;
        }
    hum_dispatch_table_free(atomic_exchange(&layer->table, NULL));
    pthread_mutex_unlock(&rt->live_lock);
}

/* A new table for one live layer under the policies now loaded; NVRTC runs only for kernels
 * the cache does not hold. */
static hum_status replan(hum_runtime *rt, const hum_device_info *dev, hum_layer *layer, hum_dispatch_table **out)
{
    hum_layer_plan plan;
    hum_jit_result results[HUM_LAYER_MAX_KERNELS];
    memset(results, 0, sizeof results);
    double ms = 0;
    int32_t compiled = 0, cached = 0;
    hum_status st = hum_layer_plan_for(rt, dev, &layer->plan.config, &layer->plan.compute, 1, &plan);
    if (st == HUM_OK)
        st = hum_layer_compile_entries(rt, &plan, results, &ms, &compiled, &cached);
    if (st == HUM_OK)
        st = hum_dispatch_table_build(dev, &plan, results, out);
    if (st == HUM_OK && (st = hum_dispatch_table_bind_weights(*out, layer->buf.weight)) != HUM_OK) {
        hum_dispatch_table_free(*out);
        *out = NULL;
    }
    for (int32_t i = 0; i < HUM_LAYER_MAX_KERNELS; i++)
        hum_jit_result_free(&results[i]);
    if (st == HUM_OK) {
        (*out)->compile_ms = ms;
        (*out)->kernels_compiled = compiled;
        (*out)->kernels_cached = cached;
    }
    return st;
}

/* HUM_ERR_POLICY unless plans a and b give every count of rows per expert one block_m; the
 * message names them (what_a, what_b) and why they must agree. *max: the largest block_m. */
static hum_status same_block_m(const hum_layer_plan *a, const hum_layer_plan *b, const char *what_a,
                               const char *what_b, const char *why, int32_t *max)
{
    *max = 0;
    int32_t i = 0, j = 0;
    while (i < a->entry_count && j < b->entry_count) {
        const hum_tuning *x = &a->entries[i], *y = &b->entries[j];
        if (x->block_m != y->block_m) {
            const int64_t lo = x->m_min > y->m_min ? x->m_min : y->m_min;
            const int64_t hi = x->m_max < y->m_max ? x->m_max : y->m_max;
            return hum_fail(HUM_ERR_POLICY, "policy '%s': for %lld..%lld rows per expert %s has block_m %d and %s %d (%s)",
                            a->policy_name, (long long)lo, (long long)hi, what_a, x->block_m, what_b, y->block_m, why);
        }
        if (x->block_m > *max)
            *max = x->block_m;
        if (x->m_max <= y->m_max)
            i++;
        if (y->m_max <= x->m_max)
            j++;
    }
    return HUM_OK;
}

hum_status hum_layer_check_block_m(const hum_layer_plan *gate_up, const hum_layer_plan *down, int32_t *max)
{
    return same_block_m(gate_up, down, "the gate/up GEMM", "the down GEMM",
                        "a MoE layer's GEMMs share one routing layout: one block_m", max);
}

hum_status hum_layer_pair_experts(hum_layer *gate_up, hum_layer *down, int32_t *block_m_max)
{
    pthread_mutex_lock(&gate_up->rt->live_lock);
    const hum_status st = hum_layer_check_block_m(&hum_layer_table_locked(gate_up)->plan,
                                                &hum_layer_table_locked(down)->plan, block_m_max);
    if (st == HUM_OK)
        gate_up->moe_down = down;
    pthread_mutex_unlock(&gate_up->rt->live_lock);
    return st;
}

/* The new tables fresh[0..count) of the live layers in list order: those of each indexed MoE
 * layer's GEMM pair checked together, as its prepare checked them (hum_layer_pair_experts), and
 * against the tables in force: the swap publishes the two GEMMs' tables one after the other and
 * a forward pins each GEMM's table apart, so a forward during a reload may run the old table of
 * one GEMM beside the new one of the other (and its routing layout was sized at prepare): a
 * reload keeps every count's block_m. */
static hum_status check_moe_pairs(hum_runtime *rt, hum_dispatch_table **fresh, int32_t count)
{
    int32_t i = 0;
    for (hum_layer *l = rt->layers; l; l = l->next_live, i++) {
        if (!l->moe_down)
            continue;
        int32_t j = 0;
        const hum_layer *d = rt->layers;
        while (d && d != l->moe_down)
            d = d->next_live, j++;
        if (!d || j >= count)
            continue; /* not live: hum_moe_destroy retires gate_up first, so never */
        int32_t max;
        hum_status st = hum_layer_check_block_m(&fresh[i]->plan, &fresh[j]->plan, &max);
        if (st == HUM_OK)
            st = same_block_m(&fresh[i]->plan, &hum_layer_table_locked(l)->plan, "the new gate/up table",
                              "the one in force", "a reload keeps a prepared MoE layer's block_m, which its routing "
                              "layout and running forwards rely on: prepare the layer again to change it", &max);
        if (st != HUM_OK)
            return hum_fail_context(st, "re-planning the MoE layer of prepared layers %d and %d of %d (%lld experts; "
                                    "gate/up N %lld, K %lld; down N %lld, K %lld)",
                                    i + 1, j + 1, count, (long long)l->plan.config.num_experts,
                                    (long long)l->plan.config.n, (long long)l->plan.config.k,
                                    (long long)d->plan.config.n, (long long)d->plan.config.k);
    }
    return HUM_OK;
}

hum_status hum_layers_reload_locked(hum_runtime *rt)
{
    pthread_mutex_lock(&rt->live_lock);
    int32_t count = 0;
    for (hum_layer *l = rt->layers; l; l = l->next_live)
        count++;
    hum_status st = HUM_OK;
    hum_dispatch_table **fresh = count ? calloc((size_t)count, sizeof *fresh) : NULL;
    if (count && !fresh)
        st = hum_fail(HUM_ERR_OUT_OF_MEMORY, "reloading %d layers", count);
    int32_t i = 0;
    for (hum_layer *l = rt->layers; st == HUM_OK && l; l = l->next_live, i++)
        if ((st = replan(rt, &rt->device, l, &fresh[i])) != HUM_OK)
            st = hum_fail_context(st, "re-planning prepared layer %d of %d (N %lld, K %lld)", i + 1, count,
                                  (long long)l->plan.config.n, (long long)l->plan.config.k);
    /* each layer's GEMMs re-planned from the facts its prepare shared between them (kept in
     * plan.compute; the activation types stay too: a_fixed) must still share a routing layout */
    if (st == HUM_OK)
        st = check_moe_pairs(rt, fresh, count);
    if (st != HUM_OK) {
        for (int32_t j = 0; j < count; j++)
            hum_dispatch_table_free(fresh[j]);
        free(fresh);
        pthread_mutex_unlock(&rt->live_lock);
        return st;
    }
    /* Every new table is ready: swap them in. The replaced ones (kept in fresh[]) stay loaded
     * until no forward pins them (hum_hazard_publish) and the GPU has run every launch made
     * with them (the context synchronisation). */
    i = 0;
    for (hum_layer *l = rt->layers; l; l = l->next_live, i++) {
        const hum_dispatch_table *now = atomic_load(&l->table);
        fresh[i]->generation = now->generation + 1;
        fresh[i] = hum_hazard_publish(&rt->hazards, &l->table, fresh[i]);
    }
    CUcontext ctx;
    if (count && (st = hum_device_activate(rt->device.ordinal, &ctx)) == HUM_OK)
        st = hum_cuda_check(hum_cuda()->cuCtxSynchronize(), "cuCtxSynchronize");
    /* after a failed synchronisation (a broken context) the old kernels leak rather than risk
     * being unloaded under a running launch */
    for (int32_t j = 0; st == HUM_OK && j < count; j++)
        hum_dispatch_table_free(fresh[j]);
    free(fresh);
    pthread_mutex_unlock(&rt->live_lock);
    if (count)
        hum_log(rt, HUM_LOG_INFO, "reload: %d prepared layer%s got new dispatch tables", count, count == 1 ? "" : "s");
    return st == HUM_OK ? HUM_OK : hum_fail_context(st, "waiting for the launches of the replaced dispatch tables");
}
