/* hum_layer: creation from a standard weight (or its shard), destruction. */
#include "layer.h"

#include "internal.h"
#include "runtime.h"
#include "standard.h"
#include "workspace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Shared by the constructors: cuts the options' shard, checks the weight and takes it (moved:
 * *w is zeroed) or a copy of it. `what` names the caller in messages. */
static hum_status layer_create(hum_runtime *rt, hum_standard_weight *w, int move, const hum_layer_options *opts,
                               hum_gemm_type type, const char *what, hum_layer **out)
{
    hum_standard_weight cut;
    const hum_standard_weight *use;
    hum_status st = hum_layer_shard_weight(w, opts, &cut, &use);
    if (st != HUM_OK)
        return hum_fail_context(st, "%s", what);
    if (use == &cut) {
        hum_layer_options whole = *opts;
        memset(&whole.shard, 0, sizeof whole.shard);
        st = layer_create(rt, &cut, 1, &whole, type, what, out);
        hum_standard_free(&cut);
        return st;
    }
    if (type != HUM_GEMM_DENSE && use->global_scale.data) {
        /* the expert GEMMs apply no factor per expert: each expert's global scale goes into its
         * scales (hum_standard_fold_global) */
        hum_standard_weight folded;
        if ((st = hum_standard_fold_global(use, &folded)) != HUM_OK)
            return hum_fail_context(st, "%s", what);
        st = layer_create(rt, &folded, 1, opts, type, what, out);
        hum_standard_free(&folded);
        return st;
    }
    hum_layer_types types;
    st = hum_layer_check_weight(w, opts, type, &types);
    if (st != HUM_OK)
        return hum_fail_context(st, "%s", what);
    hum_layer *layer = calloc(1, sizeof *layer);
    if (!layer)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: layer object", what);
    if (move) {
        layer->weight = *w;
        memset(w, 0, sizeof *w);
    } else if ((st = hum_standard_copy(w, &layer->weight)) != HUM_OK) {
        free(layer);
        return hum_fail_context(st, "%s", what);
    }
    layer->rt = rt;
    layer->types = types;
    layer->input_k = layer->weight.k;
    layer->gemm_type = type;
    /* the runtime reaches its prepared layers on a policy reload through this hook */
    pthread_mutex_lock(&rt->live_lock);
    rt->reload_layers = hum_layers_reload_locked;
    pthread_mutex_unlock(&rt->live_lock);
    *out = layer;
    return HUM_OK;
}

hum_status hum_layer_from_standard(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
                                   hum_layer **out)
{
    if (out)
        *out = NULL;
    if (!rt || !w || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_from_standard: NULL %s",
                        !rt ? "runtime" : !w ? "weight" : "out");
    return layer_create(rt, (hum_standard_weight *)w, 0, opts, HUM_GEMM_DENSE, "hum_layer_from_standard", out);
}

hum_status hum_layer_create(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
                            hum_gemm_type type, const char *what, hum_layer **out)
{
    return layer_create(rt, (hum_standard_weight *)w, 0, opts, type, what, out);
}

hum_status hum_layer_from_safetensors(hum_runtime *rt, const char *path, const char *layer_name,
                                      const hum_layer_options *opts, hum_layer **out)
{
    if (out)
        *out = NULL;
    if (!rt || !path || !layer_name || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_from_safetensors: NULL %s",
                        !rt ? "runtime" : !path ? "path" : !layer_name ? "layer name" : "out");
    hum_standard_weight w;
    memset(&w, 0, sizeof w);
    /* the shard is cut while loading, so that a MoE layer converts only its local experts */
    const int sharded = opts && (opts->shard.dim != HUM_SHARD_NONE || opts->shard.experts);
    hum_status st = hum_layer_load_shard(rt, path, layer_name, sharded ? &opts->shard : NULL, &w);
    if (st != HUM_OK)
        return st;
    hum_layer_options whole;
    if (sharded) {
        whole = *opts;
        memset(&whole.shard, 0, sizeof whole.shard);
    }
    st = layer_create(rt, &w, 1, sharded ? &whole : opts, HUM_GEMM_DENSE, "hum_layer_from_standard", out);
    hum_standard_free(&w);
    return st;
}

void hum_layer_destroy(hum_layer *layer)
{
    if (!layer)
        return;
    hum_layer_retire(layer);
    hum_kernel_destroy(layer->permute);
    hum_kernel_destroy(layer->quantize);
    hum_workspace_destroy(layer->workspace);
    hum_layer_buffers_free(&layer->buf);
    hum_standard_free(&layer->weight);
    free(layer);
}

