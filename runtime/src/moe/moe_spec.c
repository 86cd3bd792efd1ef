/* MoE layer SPEC strings (hum_tools.h, hum_moe_spec_parse): the MoE keys, then the gate/up
 * projection's keys as hum_layer_spec_parse reads them; and random expert weights for a spec. */
#include "hum/hum_tools.h"

#include "internal.h"
#include "layer.h"
#include "moe.h"
#include "threadpool.h"

#include <stdatomic.h>
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

hum_status hum_moe_spec_check(const hum_moe_spec *s)
{
    if (s->experts < 1 || s->experts > HUM_MOE_SPEC_MAX_EXPERTS || s->top_k < 1)
        return hum_fail(HUM_ERR_INVALID_ARG, "e=%d, topk=%d (expected integers 1..%d)", s->experts, s->top_k,
                        HUM_MOE_SPEC_MAX_EXPERTS);
    if (s->top_k > s->experts)
        return hum_fail(HUM_ERR_INVALID_ARG, "topk=%d is more than e=%d", s->top_k, s->experts);
    if (s->activation < 0 || s->activation >= (int32_t)(sizeof ACTIVATIONS / sizeof ACTIVATIONS[0]))
        return hum_fail(HUM_ERR_INVALID_ARG, "activation %d (expected a hum_moe_activation: silu, swiglu_oai, relu2 "
                        "or gelu)", s->activation);
    if (s->gate_up_layout < 0 || s->gate_up_layout >= (int32_t)(sizeof LAYOUTS / sizeof LAYOUTS[0]))
        return hum_fail(HUM_ERR_INVALID_ARG, "gate_up layout %d (expected split or interleaved)", s->gate_up_layout);
    if (s->gemm_type < HUM_GEMM_MOE_INDEXED || s->gemm_type >= (int32_t)(sizeof GEMMS / sizeof GEMMS[0]))
        return hum_fail(HUM_ERR_INVALID_ARG, "gemm type %d (expected indexed, grouped or masked)", s->gemm_type);
    hum_status st = hum_layer_spec_check(&s->gate_up);
    if (st != HUM_OK)
        return st;
    if (s->gate_up.act_order)
        return hum_fail(HUM_ERR_UNSUPPORTED, "actorder=1 (random expert weights keep one K order for all experts; "
                        "act-order MoE layers come from checkpoints)");
    if (s->activation == HUM_MOE_RELU2 && s->gate_up_layout == HUM_MOE_GATE_UP_INTERLEAVED)
        return hum_fail(HUM_ERR_INVALID_ARG, "gate_up=interleaved with act=relu2 (relu2 has no gate: n is the up "
                        "projection alone)");
    if (s->activation != HUM_MOE_RELU2 && s->gate_up.n % 2)
        return hum_fail(HUM_ERR_INVALID_ARG, "n=%lld is odd: a gated activation's gate/up projection has 2 I rows",
                        (long long)s->gate_up.n);
    return HUM_OK;
}

hum_status hum_moe_spec_parse(const char *text, hum_moe_spec *out)
{
    if (!text || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_spec_parse: NULL %s", !text ? "spec" : "out");
    hum_status checked = hum_spec_check_text("moe", text);
    if (checked != HUM_OK)
        return checked;
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
        st = hum_fail(HUM_ERR_INVALID_ARG, "moe spec '%s': %s required (e: experts, topk: experts per token)", text,
                      !s.experts && !s.top_k ? "e and topk are" : !s.experts ? "e is" : "topk is");
    /* the projection's and the whole spec's rules, named under the spec (the keys' own errors
     * above already are) */
    if (st == HUM_OK && ((st = hum_layer_spec_parse(rest, &s.gate_up)) != HUM_OK ||
                         (st = hum_moe_spec_check(&s)) != HUM_OK))
        st = hum_fail_context(st, "moe spec '%s'", text);
    free(rest);
    if (st == HUM_OK)
        *out = s;
    return st;
}

hum_status hum_moe_spec_format(const hum_moe_spec *s, char *out, size_t cap)
{
    if (!s || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_spec_format: NULL %s", !s ? "spec" : "out");
    hum_status st = hum_moe_spec_check(s);
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_moe_spec_format");
    const int n = snprintf(out, cap, "e=%d,topk=%d,act=%s,gate_up=%s,gemm=%s,", s->experts, s->top_k,
                           ACTIVATIONS[s->activation], LAYOUTS[s->gate_up_layout], GEMMS[s->gemm_type]);
    if (n < 0 || (size_t)n >= cap)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_spec_format: %zu bytes are too few", cap);
    return hum_layer_spec_format(&s->gate_up, out + n, cap - (size_t)n);
}

void hum_moe_spec_down(const hum_moe_spec *s, hum_layer_spec *down)
{
    if (!s || !down)
        return;
    *down = s->gate_up;
    down->n = s->gate_up.k;
    down->k = s->gate_up.n / hum_moe_gated(s->activation);
}

enum { FIELDS = 5 };

static hum_tensor *field(hum_standard_weight *w, int f)
{
    hum_tensor *const all[FIELDS] = {&w->weight, &w->scale, &w->zero_point, &w->bias, &w->global_scale};
    return all[f];
}

static size_t tensor_bytes(const hum_tensor *t)
{
    int64_t count = 1;
    for (int32_t d = 0; d < t->rank; d++)
        count *= t->shape[d];
    return (size_t)count * (size_t)hum_dtype_code_size(t->dtype);
}

/* The random experts 1..: each generated (hum_layer_spec_weight, seed + e) and copied into its
 * place of the stack, on hum_parallel_for's threads; the first failure stops the rest. */
typedef struct stack_job {
    const hum_layer_spec *one;
    uint64_t seed;
    hum_standard_weight *out;
    atomic_int status; /* the first failure, else HUM_OK */
} stack_job;

static void stack_expert(void *ctx, int32_t index)
{
    stack_job *j = ctx;
    const int32_t e = index + 1;
    if (atomic_load(&j->status) != HUM_OK)
        return;
    hum_standard_weight w;
    const hum_status st = hum_layer_spec_weight(j->one, j->seed + (uint64_t)e, &w);
    if (st != HUM_OK) {
        int ok = HUM_OK;
        atomic_compare_exchange_strong(&j->status, &ok, (int)st);
        return;
    }
    for (int f = 0; f < FIELDS; f++)
        if (field(&w, f)->data)
            memcpy((char *)field(j->out, f)->data + (size_t)e * tensor_bytes(field(&w, f)), field(&w, f)->data,
                   tensor_bytes(field(&w, f)));
    hum_standard_free(&w);
}

/* Expert e's weight is spec `one`'s random weight of seed + e; out gets E of them stacked.
 * Expert 0 gives the stack's shapes; the others are made on all CPUs (a layer of 128 experts
 * quantizes 400 million values). */
static hum_status stacked(const hum_layer_spec *one, int32_t experts, uint64_t seed, hum_standard_weight *out)
{
    hum_standard_weight w;
    hum_status st = hum_layer_spec_weight(one, seed, &w);
    if (st != HUM_OK)
        return st;
    *out = w; /* the header; the tensors are made below, w's are freed */
    for (int f = 0; f < FIELDS; f++)
        memset(field(out, f), 0, sizeof(hum_tensor));
    memset(&out->k_perm, 0, sizeof out->k_perm);
    memset(&out->input_scale, 0, sizeof out->input_scale);
    out->num_experts = experts;
    /* a static per-tensor scale (ascale=tensor): the spec's one value for every expert */
    if (w.input_scale.data &&
        (st = hum_host_tensor_alloc(&out->input_scale, HUM_DTYPE_FLOAT32, 1, (const int64_t[]){experts})) == HUM_OK)
        for (int32_t e = 0; e < experts; e++)
            ((float *)out->input_scale.data)[e] = *(const float *)w.input_scale.data;
    for (int f = 0; st == HUM_OK && f < FIELDS; f++) {
        const hum_tensor *t = field(&w, f);
        if (!t->data)
            continue;
        int64_t shape[HUM_MAX_RANK] = {experts}; /* [E, ...]; a global scale (1) becomes (E) */
        const int glob = f == FIELDS - 1;
        for (int32_t d = 0; !glob && d < t->rank; d++)
            shape[d + 1] = t->shape[d];
        if ((st = hum_host_tensor_alloc(field(out, f), t->dtype, glob ? 1 : t->rank + 1, shape)) == HUM_OK)
            memcpy(field(out, f)->data, t->data, tensor_bytes(t));
    }
    hum_standard_free(&w);
    stack_job job = {.one = one, .seed = seed, .out = out};
    atomic_init(&job.status, (int)st);
    if (st == HUM_OK)
        hum_parallel_for(experts - 1, 0, stack_expert, &job);
    st = (hum_status)atomic_load(&job.status);
    if (st != HUM_OK) {
        hum_standard_free(out);
        return hum_fail(st, "random expert weights: hum_layer_spec_weight failed (%s)", hum_status_name(st));
    }
    return HUM_OK;
}

hum_status hum_moe_spec_weights(const hum_moe_spec *s, uint64_t seed, hum_standard_weight *w13,
                                hum_standard_weight *w2)
{
    if (!s || !w13 || !w2)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_spec_weights: NULL %s", !s ? "spec" : !w13 ? "w13" : "w2");
    memset(w13, 0, sizeof *w13);
    memset(w2, 0, sizeof *w2);
    hum_status st = hum_moe_spec_check(s);
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_moe_spec_weights");
    hum_layer_spec down;
    hum_moe_spec_down(s, &down);
    st = stacked(&s->gate_up, s->experts, seed, w13);
    if (st == HUM_OK && (st = stacked(&down, s->experts, seed + (1ull << 32), w2)) != HUM_OK)
        hum_standard_free(w13);
    return st == HUM_OK ? HUM_OK : hum_fail_context(st, "hum_moe_spec_weights");
}
