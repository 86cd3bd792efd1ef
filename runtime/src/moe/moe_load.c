/* MoE layers from checkpoints (hum_moe_from_safetensors): the experts' projections found by
 * their module names, the separate gate and up projections joined into one w13 (gate rows, then
 * up rows, per expert: HUM_MOE_GATE_UP_SPLIT, hum_standard_concat), then hum_moe_from_standard. */
#include "moe.h"

#include "internal.h"
#include "standard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The projections of the experts module `name`, by how checkpoints spell them. */
static const struct {
    const char *gate, *up, *down; /* gate NULL: gate and up in one fused tensor (up) */
} FORMS[] = {
    {NULL, "gate_up_proj", "down_proj"},  /* fused 3-D tensors: gpt-oss, transformers */
    {"*.gate_proj", "*.up_proj", "*.down_proj"}, /* a module per expert: Qwen, DeepSeek */
    {"*.w1", "*.w3", "*.w2"},              /* Mixtral */
};
enum { FORM_COUNT = sizeof FORMS / sizeof FORMS[0] };

/* "name.part", or "" when it does not fit. */
static void join_name(char *out, size_t cap, const char *name, const char *part)
{
    if ((size_t)snprintf(out, cap, "%s.%s", name, part) >= cap)
        out[0] = '\0';
}

static int listed(const hum_layer_list *l, const char *name)
{
    for (int64_t i = 0; i < l->count; i++)
        if (!strcmp(l->items[i].name, name))
            return 1;
    return 0;
}

hum_status hum_moe_load_standard(hum_runtime *rt, const char *path, const char *name, const hum_moe_options *opts,
                                 hum_standard_weight *w13, hum_standard_weight *w2, hum_moe_options *resolved)
{
    if (!rt || !path || !name || !opts || !w13 || !w2 || !resolved)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_load_standard: a NULL argument");
    memset(w13, 0, sizeof *w13);
    memset(w2, 0, sizeof *w2);
    hum_checkpoint *ck = NULL;
    hum_layer_list list = {0};
    hum_status st = hum_checkpoint_open(path, &ck);
    if (st == HUM_OK)
        st = hum_checkpoint_list_layers(rt, ck, &list);
    hum_checkpoint_close(ck);
    if (st != HUM_OK)
        return hum_fail_context(st, "loading experts %s", name);
    const int gated = opts->activation != HUM_MOE_RELU2;
    char gate[600], up[600], down[600];
    int form = -1;
    int64_t experts = 0;
    for (int f = 0; f < FORM_COUNT && form < 0; f++) {
        join_name(up, sizeof up, name, FORMS[f].up);
        join_name(down, sizeof down, name, FORMS[f].down);
        gate[0] = '\0';
        if (FORMS[f].gate && gated)
            join_name(gate, sizeof gate, name, FORMS[f].gate);
        if (listed(&list, up) && listed(&list, down) && (!gate[0] || listed(&list, gate)))
            form = f;
    }
    for (int64_t i = 0; form >= 0 && i < list.count; i++)
        if (!strcmp(list.items[i].name, down))
            experts = list.items[i].num_experts;
    hum_layer_list_free(&list);
    if (form < 0)
        return hum_fail(HUM_ERR_FORMAT, "%s: no experts module '%s' (looked for %s.%s and %s.%s; %s.%s, %s.%s and "
                        "%s.%s; %s.%s, %s.%s and %s.%s)", path, name, name, FORMS[0].up, name, FORMS[0].down, name,
                        FORMS[1].gate, name, FORMS[1].up, name, FORMS[1].down, name, FORMS[2].gate, name, FORMS[2].up,
                        name, FORMS[2].down);
    /* the shard is cut while loading, so that only the kept experts are converted */
    const hum_shard shard = {.dim = HUM_SHARD_NONE, .experts = opts->experts, .expert_count = opts->expert_count};
    const hum_shard *cut = opts->experts ? &shard : NULL;
    hum_standard_weight g;
    memset(&g, 0, sizeof g);
    st = hum_layer_load_shard(rt, path, up, cut, gate[0] ? &g : w13);
    if (st == HUM_OK)
        st = hum_layer_load_shard(rt, path, down, cut, w2);
    if (st == HUM_OK && gate[0]) {
        hum_standard_weight u = g;
        memset(&g, 0, sizeof g);
        if ((st = hum_layer_load_shard(rt, path, gate, cut, &g)) == HUM_OK)
            st = hum_standard_concat((const hum_standard_weight[]){g, u}, 2, w13); /* gate rows, then up */
        hum_standard_free(&u);
    }
    hum_standard_free(&g);
    if (st != HUM_OK) {
        hum_standard_free(w13);
        hum_standard_free(w2);
        return hum_fail_context(st, "%s, experts %s", path, name);
    }
    *resolved = *opts;
    resolved->experts = NULL; /* already cut */
    resolved->expert_count = 0;
    if (!resolved->global_experts)
        resolved->global_experts = (int32_t)experts;
    if (gate[0])
        resolved->gate_up = HUM_MOE_GATE_UP_SPLIT;
    return HUM_OK;
}

hum_status hum_moe_from_safetensors(hum_runtime *rt, const char *path, const char *name, const hum_moe_options *opts,
                                    hum_moe **out)
{
    if (out)
        *out = NULL;
    if (!rt || !path || !name || !opts || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_from_safetensors: NULL %s",
                        !rt ? "runtime" : !path ? "path" : !name ? "name" : !opts ? "options" : "out");
    hum_standard_weight w13, w2;
    hum_moe_options o;
    hum_status st = hum_moe_load_standard(rt, path, name, opts, &w13, &w2, &o);
    if (st == HUM_OK)
        st = hum_moe_from_standard(rt, &w13, &w2, &o, out);
    hum_standard_free(&w13);
    hum_standard_free(&w2);
    return st == HUM_OK ? HUM_OK : hum_fail_context(st, "hum_moe_from_safetensors");
}
