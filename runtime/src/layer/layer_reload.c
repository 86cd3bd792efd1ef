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
    for (int32_t i = 0; i < HUM_LAYER_MAX_KERNELS; i++)
        hum_jit_result_free(&results[i]);
    if (st == HUM_OK) {
        (*out)->compile_ms = ms;
        (*out)->kernels_compiled = compiled;
        (*out)->kernels_cached = cached;
    }
    return st;
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
