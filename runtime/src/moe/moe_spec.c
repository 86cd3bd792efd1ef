/* MoE layer SPEC strings (hum_tools.h, hum_moe_spec_parse): the MoE keys, then the gate/up
 * projection's keys as hum_layer_spec_parse reads them; and random expert weights for a spec. */
#include "hum/hum_tools.h"

#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const ACTIVATIONS[] = {"silu", "swiglu_oai", "relu2", "gelu"};
static const char *const LAYOUTS[] = {"split", "interleaved"};
static const char *const GEMMS[] = {"dense", "indexed", "grouped", "masked"};

/* The index of `value` in names[0..count), or -1. */
static int find(const char *value, const char *const *names, int count)
{
    for (int i = 0; i < count; i++)
        if (!strcmp(value, names[i]))
            return i;
    return -1;
}

static hum_status moe_pair(const char *text, const char *key, const char *value, hum_moe_spec *s, int *handled)
{
    *handled = 1;
    char *end = NULL;
    if (!strcmp(key, "e") || !strcmp(key, "topk")) {
        const long v = strtol(value, &end, 10);
        if (!*value || *end || v < 1 || v > HUM_MOE_SPEC_MAX_EXPERTS)
            return hum_fail(HUM_ERR_INVALID_ARG, "moe spec '%s': %s=%s (expected an integer 1..%d)", text, key, value,
                            HUM_MOE_SPEC_MAX_EXPERTS);
        *(!strcmp(key, "e") ? &s->experts : &s->top_k) = (int32_t)v;
    } else if (!strcmp(key, "act")) {
        if ((s->activation = find(value, ACTIVATIONS, 4)) < 0)
            return hum_fail(HUM_ERR_INVALID_ARG, "moe spec '%s': act=%s (expected silu, swiglu_oai, relu2 or gelu)",
                            text, value);
    } else if (!strcmp(key, "gate_up")) {
        if ((s->gate_up_layout = find(value, LAYOUTS, 2)) < 0)
            return hum_fail(HUM_ERR_INVALID_ARG, "moe spec '%s': gate_up=%s (expected split or interleaved)", text,
                            value);
    } else if (!strcmp(key, "gemm")) {
        const int g = find(value, GEMMS, 4);
        if (g < 1)
            return hum_fail(HUM_ERR_INVALID_ARG, "moe spec '%s': gemm=%s (expected indexed, grouped or masked)", text,
                            value);
        s->gemm_type = g;
    } else {
        *handled = 0;
    }
    return HUM_OK;
}

hum_status hum_moe_spec_parse(const char *text, hum_moe_spec *out)
{
    if (!text || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_spec_parse: NULL %s", !text ? "spec" : "out");
    hum_moe_spec s;
    memset(&s, 0, sizeof s);
    s.gemm_type = HUM_GEMM_MOE_INDEXED;
    const size_t len = strlen(text);
    char *copy = malloc(len + 1), *rest = malloc(len + 1);
    if (!copy || !rest) {
        free(copy);
        free(rest);
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_moe_spec_parse");
    }
    memcpy(copy, text, len + 1);
    rest[0] = '\0';
    hum_status st = HUM_OK;
    for (char *pair = copy; st == HUM_OK && pair;) {
        char *comma = strchr(pair, ',');
        if (comma)
            *comma = '\0';
        char *eq = strchr(pair, '=');
        int handled = 0;
        if (eq) {
            *eq = '\0';
            st = moe_pair(text, pair, eq + 1, &s, &handled);
            *eq = '=';
        }
        if (st == HUM_OK && !handled) { /* the projection's key (or an error hum_layer_spec_parse names) */
            if (rest[0])
                strcat(rest, ",");
            strcat(rest, pair);
        }
        pair = comma ? comma + 1 : NULL;
    }
    free(copy);
    if (st == HUM_OK && (!s.experts || !s.top_k))
        st = hum_fail(HUM_ERR_INVALID_ARG, "moe spec '%s': e and topk are required", text);
    if (st == HUM_OK && s.top_k > s.experts)
        st = hum_fail(HUM_ERR_INVALID_ARG, "moe spec '%s': topk=%d is more than e=%d", text, s.top_k, s.experts);
    if (st == HUM_OK && (st = hum_layer_spec_parse(rest, &s.gate_up)) != HUM_OK)
        st = hum_fail_context(st, "moe spec '%s'", text);
    free(rest);
    if (st == HUM_OK && s.gate_up.act_order)
        st = hum_fail(HUM_ERR_UNSUPPORTED, "moe spec '%s': actorder=1 (random expert weights keep one K order for "
                      "all experts; act-order MoE layers come from checkpoints)", text);
    if (st == HUM_OK && s.activation != HUM_MOE_RELU2 && s.gate_up.n % 2)
        st = hum_fail(HUM_ERR_INVALID_ARG, "moe spec '%s': n=%lld is odd: a gated activation's gate/up projection "
                      "has 2 I rows", text, (long long)s.gate_up.n);
    if (st == HUM_OK)
        *out = s;
    return st;
}

hum_status hum_moe_spec_format(const hum_moe_spec *s, char *out, size_t cap)
{
    if (!s || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_spec_format: NULL %s", !s ? "spec" : "out");
    const int n = snprintf(out, cap, "e=%d,topk=%d,act=%s,gate_up=%s,gemm=%s,", s->experts, s->top_k,
                           ACTIVATIONS[s->activation], LAYOUTS[s->gate_up_layout], GEMMS[s->gemm_type]);
    if (n < 0 || (size_t)n >= cap)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_spec_format: %zu bytes are too few", cap);
    return hum_layer_spec_format(&s->gate_up, out + n, cap - (size_t)n);
}

void hum_moe_spec_down(const hum_moe_spec *s, hum_layer_spec *down)
{
    *down = s->gate_up;
    down->n = s->gate_up.k;
    down->k = s->activation == HUM_MOE_RELU2 ? s->gate_up.n : s->gate_up.n / 2;
}

/* Expert e's weight is spec `one`'s random weight of seed + e; out gets E of them stacked. */
static hum_status stacked(const hum_layer_spec *one, int32_t experts, uint64_t seed, hum_standard_weight *out)
{
    hum_tensor *const fields[] = {&out->weight, &out->scale, &out->zero_point, &out->bias, &out->global_scale};
    enum { FIELDS = sizeof fields / sizeof fields[0] };
    hum_status st = HUM_OK;
    for (int32_t e = 0; st == HUM_OK && e < experts; e++) {
        hum_standard_weight w;
        if ((st = hum_layer_spec_weight(one, seed + (uint64_t)e, &w)) != HUM_OK)
            break;
        if (e == 0) {
            *out = w; /* the header; the tensors are made below, w's are freed */
            for (int f = 0; f < FIELDS; f++)
                memset(fields[f], 0, sizeof *fields[f]);
            memset(&out->k_perm, 0, sizeof out->k_perm);
            out->num_experts = experts;
        }
        const hum_tensor *const from[] = {&w.weight, &w.scale, &w.zero_point, &w.bias, &w.global_scale};
        for (int f = 0; st == HUM_OK && f < FIELDS; f++) {
            const hum_tensor *t = from[f];
            if (!t->data)
                continue;
            int64_t count = 1;
            for (int32_t d = 0; d < t->rank; d++)
                count *= t->shape[d];
            const size_t bytes = (size_t)count * (size_t)hum_dtype_code_size(t->dtype);
            if (e == 0) { /* [E, ...]; a global scale (1) becomes (E) */
                int64_t shape[HUM_MAX_RANK] = {experts};
                const int glob = t == &w.global_scale;
                for (int32_t d = 0; !glob && d < t->rank; d++)
                    shape[d + 1] = t->shape[d];
                st = hum_host_tensor_alloc(fields[f], t->dtype, glob ? 1 : t->rank + 1, shape);
            }
            if (st == HUM_OK)
                memcpy((char *)fields[f]->data + (size_t)e * bytes, t->data, bytes);
        }
        hum_standard_free(&w);
    }
    if (st != HUM_OK)
        hum_standard_free(out);
    return st;
}

hum_status hum_moe_spec_weights(const hum_moe_spec *s, uint64_t seed, hum_standard_weight *w13,
                                hum_standard_weight *w2)
{
    if (!s || !w13 || !w2)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_spec_weights: NULL %s", !s ? "spec" : !w13 ? "w13" : "w2");
    memset(w13, 0, sizeof *w13);
    memset(w2, 0, sizeof *w2);
    hum_layer_spec down;
    hum_moe_spec_down(s, &down);
    hum_status st = stacked(&s->gate_up, s->experts, seed, w13);
    if (st == HUM_OK && (st = stacked(&down, s->experts, seed + (1ull << 32), w2)) != HUM_OK)
        hum_standard_free(w13);
    return st == HUM_OK ? HUM_OK : hum_fail_context(st, "hum_moe_spec_weights");
}
