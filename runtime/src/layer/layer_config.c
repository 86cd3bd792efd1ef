/* The link between a layer's standard weight, its LayerConfig and tunings, and the kernel
 * variants they compile to: weight checks and shards, plan inputs, tuning checks and fits, and
 * what hum_layer_get_info reports (layer.h). */
#include "layer.h"

#include "internal.h"
#include "runtime.h"
#include "standard.h"
#include "workspace.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

double hum_layer_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

hum_status hum_layer_check_dims(int64_t n, int64_t k)
{
    if (n > INT32_MAX - 1024 || k > INT32_MAX - 1024)
        return hum_fail(HUM_ERR_UNSUPPORTED, "N = %lld, K = %lld: the GEMM kernels take N and K up to 2^31 - 1025",
                        (long long)n, (long long)k);
    return HUM_OK;
}

hum_status hum_layer_check_weight(const hum_standard_weight *w, const hum_layer_options *opts, hum_gemm_type type,
                                  hum_layer_types *types)
{
    /* Checked first, as no tensor of such a weight could be valid to look at. */
    hum_status st = w ? hum_layer_check_dims(w->n, hum_standard_stored_k(w)) : HUM_OK;
    if (st == HUM_OK)
        st = hum_standard_validate(w);
    if (st != HUM_OK)
        return st;
    if (type == HUM_GEMM_DENSE && w->num_experts > 0)
        return hum_fail(HUM_ERR_UNSUPPORTED, "a weight of %lld experts is a MoE weight, not a dense layer",
                        (long long)w->num_experts);
    if (type != HUM_GEMM_DENSE && w->num_experts < 1)
        return hum_fail(HUM_ERR_INVALID_ARG, "an expert GEMM needs a weight of experts (num_experts >= 1, got %lld)",
                        (long long)w->num_experts);
    const hum_dtype a = opts && opts->activation_dtype ? opts->activation_dtype : w->param_dtype;
    const int a16 = hum_dtype_is_activation(a);
    if (!a16 && a != HUM_DTYPE_FLOAT8_E4M3FN && a != HUM_DTYPE_INT8)
        return hum_fail(HUM_ERR_INVALID_ARG, "activation dtype %s (expected float16, bfloat16, float8_e4m3fn or int8)",
                        hum_dtype_name(a));
    const hum_dtype c = opts && opts->output_dtype ? opts->output_dtype : a16 ? a : w->param_dtype;
    if (!hum_dtype_is_activation(c) || (a16 && c != a))
        return hum_fail(HUM_ERR_INVALID_ARG, "output dtype %s with %s activations (expected %s)", hum_dtype_name(c),
                        hum_dtype_name(a), a16 ? hum_dtype_name(a) : "float16 or bfloat16");
    const int32_t group = opts ? opts->activation_group : 0;
    const char *expected;
    if (!hum_layer_a_group_ok(a, group, &expected))
        return hum_fail(HUM_ERR_INVALID_ARG, "activation group %d with %s activations (expected %s)", (int)group,
                        hum_dtype_name(a), expected);
    *types = (hum_layer_types){a, c, group};
    return HUM_OK;
}

int hum_layer_a_group_ok(hum_dtype a, int32_t group, const char **expected)
{
    const int e4m3 = a == HUM_DTYPE_FLOAT8_E4M3FN;
    *expected = e4m3                    ? "0, 128 or 32 (MXFP8)"
                : a == HUM_DTYPE_INT8 ? "0: one scale per token"
                                      : "0: 16-bit A has no scales";
    return group == 0 || (e4m3 && (group == 128 || group == 32));
}

hum_status hum_layer_shard_weight(const hum_standard_weight *w, const hum_layer_options *opts, hum_standard_weight *cut,
                                  const hum_standard_weight **use)
{
    memset(cut, 0, sizeof *cut);
    *use = w;
    if (!opts || (opts->shard.dim == HUM_SHARD_NONE && !opts->shard.experts))
        return HUM_OK;
    hum_status st = hum_standard_shard(w, &opts->shard, cut);
    if (st == HUM_OK)
        *use = cut;
    return st;
}

hum_status hum_layer_get_info(const hum_layer *layer, hum_layer_info *out)
{
    if (!layer || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_get_info: NULL %s", !layer ? "layer" : "out");
    memset(out, 0, sizeof *out);
    out->config = layer->plan.config;
    if (layer->plan.config.n == 0) { /* not planned yet: the inputs the plan will start from */
        hum_layer_plan inputs;
        memset(&inputs, 0, sizeof inputs);
        hum_layer_plan_inputs(&layer->weight, &layer->types, &inputs);
        out->config = inputs.config;
    }
    out->input_k = layer->input_k;
    out->prepared = layer->prepared;
    out->prepare_ms = layer->prepare_ms;
    out->plan_ms = layer->plan_ms;
    out->context_ms = layer->context_ms;
    out->upload_ms = layer->upload_ms;
    out->load_ms = layer->load_ms;
    out->scale_exponent = layer->scale_exponent;
    out->out_factor = layer->out_factor;
    out->device_bytes = layer->buf.bytes + (layer->workspace ? layer->workspace->bytes : 0);
    /* a prepared layer's plan is its table's (a reload may replace it meanwhile: live_lock);
     * hum_layer_compile's is the layer's own */
    const hum_layer_plan *plan = &layer->plan;
    const hum_dispatch_table *t = NULL;
    if (layer->prepared) {
        pthread_mutex_lock(&layer->rt->live_lock);
        t = hum_layer_table_locked(layer);
        plan = &t->plan;
    }
    out->entry_count = plan->entry_count;
    memcpy(out->entries, plan->entries, sizeof out->entries);
    memcpy(out->policy_name, plan->policy_name, sizeof out->policy_name);
    memcpy(out->arch, plan->arch, sizeof out->arch);
    out->compile_ms = t ? t->compile_ms : layer->compile_ms;
    out->kernels_compiled = t ? t->kernels_compiled : layer->kernels_compiled;
    out->kernels_cached = t ? t->kernels_cached : layer->kernels_cached;
    out->generation = t ? t->generation : 0;
    if (t)
        pthread_mutex_unlock(&layer->rt->live_lock);
    return HUM_OK;
}

hum_status hum_layer_tuning_check(const hum_layer_config *config, const hum_tuning *tuning, int64_t *smem_bytes,
                                  int32_t *threads)
{
    if (!config || !tuning)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_tuning_check: NULL %s", !config ? "config" : "tuning");
    const hum_compute_config dense = {.gemm_type = HUM_GEMM_DENSE};
    const hum_gemm_variant v = {config, &dense, tuning};
    hum_status st = hum_gemm_variant_check(&v, NULL);
    if (st != HUM_OK)
        return st;
    if (smem_bytes)
        *smem_bytes = hum_gemm_smem_bytes(&v);
    if (threads)
        *threads = hum_gemm_threads(&v);
    return HUM_OK;
}

hum_status hum_layer_fit_tuning(const hum_layer_config *config, const hum_compute_config *compute,
                                const hum_tuning *in, const char *arch, int64_t smem_budget, const char *device_name,
                                hum_tuning *out)
{
    if (!config || !compute || !in || !arch || !device_name || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_fit_tuning: a NULL argument");
    return hum_gemm_fit(config, compute, in, arch, smem_budget, device_name, out);
}

hum_status hum_layer_kernel_takes(const hum_layer_config *config, const hum_compute_config *compute, int32_t kernel,
                                  const char *arch)
{
    const hum_gemm_family *f = hum_gemm_family_of(kernel);
    if (!config || !compute || !arch || !f)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_kernel_takes: %s",
                        !config ? "NULL config" : !compute ? "NULL compute" : !arch ? "NULL arch" : "no such kernel");
    return hum_gemm_kernel_takes(kernel, config, compute, arch);
}

int64_t hum_layer_kgroup_k(const hum_layer_config *config)
{
    return config ? hum_gemm_kscale_k(config) : 0;
}

int32_t hum_layer_a8(const hum_layer_config *config)
{
    return config ? hum_gemm_a8(config) : 0;
}

void hum_layer_plan_inputs(const hum_standard_weight *w, const hum_layer_types *types, hum_layer_plan *plan)
{
    hum_layer_config *c = &plan->config;
    c->n = w->n;
    c->k = hum_standard_stored_k(w); /* the GEMM runs over the stored columns, padding included */
    c->num_experts = w->num_experts;
    c->a_dtype = types->a;
    c->c_dtype = types->c;
    c->a_group = types->a_group;
    /* the host's 8-bit A comes with a scale per row, or per row and group along K */
    c->a_scale = types->a_group ? HUM_ACT_SCALE_GROUP : HUM_ACT_SCALE_TOKEN;
    /* the host's 8-bit A is what runs; with 16-bit A the checkpoint's scheme is the request that
     * lua/hum/activation.lua starts from */
    c->a_fixed = !hum_dtype_is_activation(types->a);
    c->a_round = HUM_A_ROUND_NONE; /* lua/hum/activation.lua decides it */
    if (!c->a_fixed && w->act_dtype) {
        c->a_dtype = w->act_dtype;
        c->a_scale = w->act_scale;
        c->a_group = w->act_group;
    }
    c->weight_dtype = w->weight_dtype;
    c->param_dtype = w->param_dtype;
    c->scale_dtype = w->scale_dtype;
    c->scale_type = w->scale_type;
    c->group_size = w->group_size;
    c->group_size_n = w->group_size_n;
    c->zero_point = !w->has_zero_point         ? HUM_ZERO_POINT_NONE
                    : w->zero_point_is_float ? HUM_ZERO_POINT_FLOAT
                                             : HUM_ZERO_POINT_INT;
    c->has_bias = w->bias.data != NULL;
    c->act_order = w->k_perm.data != NULL;
    c->has_global_scale = w->global_scale.data != NULL;
    c->fold_window = hum_layer_fold_window(w);
    plan->compute.gemm_type = HUM_GEMM_DENSE; /* expert GEMMs set their type after */
}
