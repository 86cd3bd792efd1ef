/* MoE layers from checkpoints (hum_moe_from_safetensors): the experts' projections found by
 * their module names, the separate gate and up projections joined into one w13 (gate rows, then
 * up rows, per expert: HUM_MOE_GATE_UP_SPLIT), then hum_moe_from_standard. */
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

/* rows_a of a then rows_b of b, per expert, each row `row` bytes: for weights, scales, zero
 * points and biases ([E][rows][...]). */
static hum_status join_rows(const hum_tensor *a, const hum_tensor *b, int64_t experts, int64_t rows_a, int64_t rows_b,
                            int64_t row_elems, hum_tensor *out)
{
    if (!a->data)
        return HUM_OK;
    int64_t shape[HUM_MAX_RANK];
    for (int32_t d = 0; d < a->rank; d++)
        shape[d] = a->shape[d];
    shape[1] = rows_a + rows_b;
    hum_status st = hum_host_tensor_alloc(out, a->dtype, a->rank, shape);
    if (st != HUM_OK)
        return st;
    const size_t row = (size_t)(row_elems * hum_dtype_code_size(a->dtype));
    for (int64_t e = 0; e < experts; e++) {
        char *dst = (char *)out->data + (size_t)(e * (rows_a + rows_b)) * row;
        memcpy(dst, (const char *)a->data + (size_t)(e * rows_a) * row, (size_t)rows_a * row);
        memcpy(dst + (size_t)rows_a * row, (const char *)b->data + (size_t)(e * rows_b) * row, (size_t)rows_b * row);
    }
    return HUM_OK;
}

/* Integer zero points are packed along N: unpacked, joined, packed again. */
static hum_status join_int_zero_points(const hum_standard_weight *g, const hum_standard_weight *u,
                                       const hum_standard_view *v, hum_standard_weight *out)
{
    const int64_t E = v->experts, N = g->n, G = v->scale_cols, rows = (2 * N * v->bits + 31) / 32;
    hum_status st = hum_host_tensor_alloc(&out->zero_point, HUM_DTYPE_INT32, 3, (const int64_t[]){E, rows, G});
    uint8_t *values = malloc((size_t)(2 * N * G));
    if (st == HUM_OK && !values)
        st = hum_fail(HUM_ERR_OUT_OF_MEMORY, "joining zero points");
    for (int64_t e = 0; st == HUM_OK && e < E; e++) {
        const hum_standard_weight *part[2] = {g, u};
        for (int i = 0; st == HUM_OK && i < 2; i++)
            st = hum_unpack_bits((const int32_t *)part[i]->zero_point.data + e * v->zp_rows * G,
                                 (const int64_t[]){1, N, G}, v->bits, HUM_PACK_ALONG_ROWS, HUM_PACK_DENSE,
                                 values + i * N * G);
        if (st == HUM_OK)
            st = hum_pack_bits(values, (const int64_t[]){1, 2 * N, G}, v->bits, HUM_PACK_ALONG_ROWS, HUM_PACK_DENSE,
                               (int32_t *)out->zero_point.data + e * rows * G);
    }
    free(values);
    return st;
}

static int same_tensor(const hum_tensor *a, const hum_tensor *b)
{
    if (!a->data || !b->data)
        return !a->data && !b->data;
    int64_t count = 1;
    for (int32_t d = 0; d < a->rank; d++)
        count *= a->shape[d];
    return a->dtype == b->dtype && !memcmp(a->data, b->data, (size_t)(count * hum_dtype_code_size(a->dtype)));
}

hum_status hum_moe_join_gate_up(const hum_standard_weight *g, const hum_standard_weight *u, hum_standard_weight *out)
{
    if (!g || !u || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_join_gate_up: NULL %s", !g ? "gate" : !u ? "up" : "out");
    memset(out, 0, sizeof *out);
    if (g->num_experts < 1 || u->num_experts < 1)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_join_gate_up: expert weights expected (num_experts %lld and %lld)",
                        (long long)g->num_experts, (long long)u->num_experts);
    hum_standard_view v, vu;
    hum_status st = hum_standard_view_init(g, &v);
    if (st == HUM_OK)
        st = hum_standard_view_init(u, &vu);
    if (st != HUM_OK)
        return st;
    if (g->num_experts != u->num_experts || g->n != u->n || g->k != u->k || g->weight_dtype != u->weight_dtype ||
        g->param_dtype != u->param_dtype || g->scale_type != u->scale_type || g->group_size != u->group_size ||
        g->group_size_n != u->group_size_n || g->scale_dtype != u->scale_dtype ||
        g->has_zero_point != u->has_zero_point || g->zero_point_is_float != u->zero_point_is_float ||
        !g->bias.data != !u->bias.data)
        return hum_fail(HUM_ERR_UNSUPPORTED, "the gate and up projections are not quantized alike (shape, dtypes, "
                        "scales, zero points or bias): they cannot share one GEMM");
    if (!same_tensor(&g->k_perm, &u->k_perm) || !same_tensor(&g->global_scale, &u->global_scale))
        return hum_fail(HUM_ERR_UNSUPPORTED, "the gate and up projections have different %s: they cannot share "
                        "one GEMM", same_tensor(&g->k_perm, &u->k_perm) ? "global scales" : "act-order permutations");
    if (g->scale_type == HUM_SCALE_BLOCK && g->n % g->group_size_n)
        return hum_fail(HUM_ERR_UNSUPPORTED, "block scales of %lld rows do not tile the gate projection's %lld rows",
                        (long long)g->group_size_n, (long long)g->n);
    *out = *g;
    memset(&out->weight, 0, sizeof out->weight);
    memset(&out->scale, 0, sizeof out->scale);
    memset(&out->zero_point, 0, sizeof out->zero_point);
    memset(&out->bias, 0, sizeof out->bias);
    memset(&out->global_scale, 0, sizeof out->global_scale);
    memset(&out->k_perm, 0, sizeof out->k_perm);
    out->n = 2 * g->n;
    const int64_t E = v.experts;
    st = join_rows(&g->weight, &u->weight, E, g->n, u->n, v.row_words, &out->weight);
    if (st == HUM_OK)
        st = join_rows(&g->scale, &u->scale, E, v.scale_rows, vu.scale_rows, v.scale_cols, &out->scale);
    if (st == HUM_OK && g->has_zero_point)
        st = g->zero_point_is_float ? join_rows(&g->zero_point, &u->zero_point, E, g->n, u->n, v.scale_cols,
                                                &out->zero_point)
                                    : join_int_zero_points(g, u, &v, out);
    if (st == HUM_OK && g->bias.data)
        st = join_rows(&g->bias, &u->bias, E, g->n, u->n, 1, &out->bias);
    const hum_tensor *copies[2] = {&g->global_scale, &g->k_perm};
    hum_tensor *to[2] = {&out->global_scale, &out->k_perm};
    for (int i = 0; st == HUM_OK && i < 2; i++)
        if (copies[i]->data && (st = hum_host_tensor_alloc(to[i], copies[i]->dtype, copies[i]->rank,
                                                           copies[i]->shape)) == HUM_OK)
            memcpy(to[i]->data, copies[i]->data,
                   (size_t)(copies[i]->shape[0] * hum_dtype_code_size(copies[i]->dtype)));
    if (st != HUM_OK)
        hum_standard_free(out);
    return st;
}

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
            st = hum_moe_join_gate_up(&g, &u, w13);
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
