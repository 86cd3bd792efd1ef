/* Loading a checkpoint layer into the standard format and listing a checkpoint's quantized
 * layers: the decisions run in Lua (lua/hum/formats.lua and formats/), C holds the results. */
#include "internal.h"
#include "lua_bridge.h"
#include "hum_ffi.h"

#include <stdlib.h>
#include <string.h>

hum_status hum_layer_list_append(hum_layer_list *list, const hum_layer_summary *item)
{
    if (!list || !item)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_list_append: NULL argument");
    if (list->count == list->capacity) {
        int64_t cap = list->capacity ? list->capacity * 2 : 16;
        hum_layer_summary *items = realloc(list->items, (size_t)cap * sizeof *items);
        if (!items)
            return hum_fail(HUM_ERR_OUT_OF_MEMORY, "listing layers: out of memory");
        list->items = items;
        list->capacity = cap;
    }
    list->items[list->count++] = *item;
    return HUM_OK;
}

void hum_layer_list_free(hum_layer_list *list)
{
    if (!list)
        return;
    free(list->items);
    memset(list, 0, sizeof *list);
}

hum_status hum_checkpoint_list_layers(hum_runtime *rt, const hum_checkpoint *ckpt, hum_layer_list *out)
{
    if (!rt || !ckpt || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_checkpoint_list_layers: NULL argument");
    hum_layer_list_free(out);
    hum_format_call call = {.checkpoint = ckpt, .list = out};
    hum_status s = hum_lua_call(rt, "hum.formats", "list", "hum_format_call *", &call);
    if (s != HUM_OK)
        hum_layer_list_free(out);
    return s;
}

hum_status hum_runtime_formats(hum_runtime *rt, char *out, size_t cap)
{
    if (!rt || !out || !cap)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_runtime_formats: NULL runtime or out, or cap 0");
    out[0] = '\0';
    hum_format_call call = {.names = out, .names_cap = cap};
    return hum_lua_call(rt, "hum.formats", "names", "hum_format_call *", &call);
}

static hum_status load_layer(hum_runtime *rt, const hum_checkpoint *ckpt, const char *layer_name,
                             const hum_shard *shard, hum_standard_weight *out, int32_t *experts_kept)
{
    memset(out, 0, sizeof *out);
    hum_format_call call = {.checkpoint = ckpt, .layer_name = layer_name, .weight = out, .shard = shard};
    hum_status s = hum_lua_call(rt, "hum.formats", "load", "hum_format_call *", &call);
    /* A converter that breaks the standard layout is a bug in formats/, not in the checkpoint. */
    if (s == HUM_OK && hum_standard_validate(out) != HUM_OK)
        s = hum_fail_context(HUM_ERR_INTERNAL, "the converter produced an invalid standard weight");
    if (s != HUM_OK) {
        hum_standard_free(out);
        hum_fail_context(s, "loading layer %s", layer_name);
    }
    *experts_kept = call.experts_kept;
    return s;
}

hum_status hum_checkpoint_load_layer(hum_runtime *rt, const hum_checkpoint *ckpt, const char *layer_name,
                                     hum_standard_weight *out)
{
    if (!rt || !ckpt || !layer_name || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_checkpoint_load_layer: NULL argument");
    int32_t kept;
    return load_layer(rt, ckpt, layer_name, NULL, out, &kept);
}

hum_status hum_layer_load_shard(hum_runtime *rt, const char *checkpoint_path, const char *layer_name,
                                const hum_shard *shard, hum_standard_weight *out)
{
    if (!rt || !checkpoint_path || !layer_name || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_load_shard: NULL argument");
    memset(out, 0, sizeof *out);
    hum_checkpoint *ckpt = NULL;
    hum_standard_weight whole;
    int32_t kept = 0;
    hum_status s = hum_checkpoint_open(checkpoint_path, &ckpt);
    if (s == HUM_OK)
        s = load_layer(rt, ckpt, layer_name, shard, shard ? &whole : out, &kept);
    hum_checkpoint_close(ckpt);
    if (s != HUM_OK || !shard)
        return s;
    hum_shard rest = *shard;
    if (kept) { /* the converter kept the listed experts already */
        rest.experts = NULL;
        rest.expert_count = 0;
    }
    s = hum_standard_shard(&whole, &rest, out);
    hum_standard_free(&whole);
    return s == HUM_OK ? s : hum_fail_context(s, "loading a shard of layer %s", layer_name);
}

hum_status hum_layer_load_standard(hum_runtime *rt, const char *checkpoint_path, const char *layer_name,
                                   hum_standard_weight *out)
{
    if (!rt || !checkpoint_path || !layer_name || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_load_standard: NULL argument");
    return hum_layer_load_shard(rt, checkpoint_path, layer_name, NULL, out);
}
