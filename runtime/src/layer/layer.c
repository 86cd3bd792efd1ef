/* hum_layer: creation from a standard weight, destruction, introspection, and the public faces
 * of the GEMM rules: the tuning check and the fitting of tunings (gemm_variant.c). */
#include "layer.h"

#include "internal.h"
#include "runtime.h"
#include "workspace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double hum_layer_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static hum_status copy_tensor(const hum_tensor *src, hum_tensor *dst, const char *what)
{
    memset(dst, 0, sizeof *dst);
    if (!src->data)
        return HUM_OK;
    hum_status st = hum_host_tensor_alloc(dst, src->dtype, src->rank, src->shape);
    if (st != HUM_OK)
        return hum_fail_context(st, "copying the %s", what);
    int64_t count = 1;
    for (int32_t i = 0; i < src->rank; i++)
        count *= src->shape[i];
    memcpy(dst->data, src->data, (size_t)(count * hum_dtype_code_size(src->dtype)));
    return HUM_OK;
}

static hum_status copy_weight(const hum_standard_weight *w, hum_standard_weight *out)
{
    *out = *w;
    memset(&out->weight, 0, sizeof out->weight);
    memset(&out->scale, 0, sizeof out->scale);
    memset(&out->zero_point, 0, sizeof out->zero_point);
    memset(&out->global_scale, 0, sizeof out->global_scale);
    memset(&out->bias, 0, sizeof out->bias);
    memset(&out->k_perm, 0, sizeof out->k_perm);
    hum_status st = copy_tensor(&w->weight, &out->weight, "weight");
    if (st == HUM_OK)
        st = copy_tensor(&w->scale, &out->scale, "scale");
    if (st == HUM_OK)
        st = copy_tensor(&w->zero_point, &out->zero_point, "zero point");
    if (st == HUM_OK)
        st = copy_tensor(&w->global_scale, &out->global_scale, "global scale");
    if (st == HUM_OK)
        st = copy_tensor(&w->bias, &out->bias, "bias");
    if (st == HUM_OK)
        st = copy_tensor(&w->k_perm, &out->k_perm, "k_perm");
    if (st != HUM_OK)
        hum_standard_free(out);
    return st;
}

hum_status hum_layer_check_dims(int64_t n, int64_t k)
{
    if (n > INT32_MAX - 1024 || k > INT32_MAX - 1024)
        return hum_fail(HUM_ERR_UNSUPPORTED, "N = %lld, K = %lld: the GEMM kernels take N and K up to 2^31 - 1025",
                        (long long)n, (long long)k);
    return HUM_OK;
}

hum_status hum_layer_check_weight(const hum_standard_weight *w, const hum_layer_options *opts, hum_dtype *act)
{
    /* Checked first, as no tensor of such a weight could be valid to look at. */
    hum_status st = w ? hum_layer_check_dims(w->n, w->k) : HUM_OK;
    if (st == HUM_OK)
        st = hum_standard_validate(w);
    if (st != HUM_OK)
        return st;
    if (w->num_experts > 0)
        return hum_fail(HUM_ERR_UNSUPPORTED, "a weight of %lld experts is a MoE weight, not a dense layer",
                        (long long)w->num_experts);
    *act = opts && opts->activation_dtype ? opts->activation_dtype : w->param_dtype;
    if (!hum_dtype_is_activation(*act))
        return hum_fail(HUM_ERR_INVALID_ARG, "activation dtype %s (expected float16 or bfloat16)", hum_dtype_name(*act));
    return HUM_OK;
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

/* Shared by both constructors: cuts the options' shard, checks the weight and takes it (moved:
 * *w is zeroed) or a copy of it. */
static hum_status layer_create(hum_runtime *rt, hum_standard_weight *w, int move, const hum_layer_options *opts,
                               hum_layer **out)
{
    hum_standard_weight cut;
    const hum_standard_weight *use;
    hum_status st = hum_layer_shard_weight(w, opts, &cut, &use);
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_layer_from_standard");
    if (use == &cut) {
        st = layer_create(rt, &cut, 1, &(hum_layer_options){.activation_dtype = opts->activation_dtype}, out);
        hum_standard_free(&cut);
        return st;
    }
    hum_dtype act;
    st = hum_layer_check_weight(w, opts, &act);
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_layer_from_standard");
    hum_layer *layer = calloc(1, sizeof *layer);
    if (!layer)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_layer_from_standard: layer object");
    if (move) {
        layer->weight = *w;
        memset(w, 0, sizeof *w);
    } else if ((st = copy_weight(w, &layer->weight)) != HUM_OK) {
        free(layer);
        return hum_fail_context(st, "hum_layer_from_standard");
    }
    layer->rt = rt;
    layer->activation_dtype = act;
    *out = layer;
    return HUM_OK;
}

hum_status hum_layer_from_standard(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
                                   hum_layer **out)
{
    if (out)
        *out = NULL;
    if (!rt || !w || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_from_standard: NULL %s", !rt ? "runtime" : !w ? "weight" : "out");
    return layer_create(rt, (hum_standard_weight *)w, 0, opts, out);
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
    st = layer_create(rt, &w, 1, sharded ? &(hum_layer_options){.activation_dtype = opts->activation_dtype} : opts, out);
    hum_standard_free(&w);
    return st;
}

void hum_layer_destroy(hum_layer *layer)
{
    if (!layer)
        return;
    hum_layer_retire(layer);
    hum_kernel_destroy(layer->permute);
    hum_workspace_destroy(layer->workspace);
    hum_layer_buffers_free(&layer->buf);
    hum_standard_free(&layer->weight);
    free(layer);
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
        hum_layer_plan_inputs(&layer->weight, layer->activation_dtype, &inputs);
        out->config = inputs.config;
    }
    out->prepared = layer->prepared;
    out->prepare_ms = layer->prepare_ms;
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

/* Largest magnitude a weight code decodes to before any scale: |q - z| for ints, the largest
 * finite value for floats read as all-finite codes (hum.h, standard format). */
static double decoded_max(const hum_layer_config *cfg, double zero_max)
{
    const int b = cfg->weight_bits;
    if (cfg->weight_float) {
        const int e = cfg->weight_exp, m = b - 1 - e, bias = (1 << (e - 1)) - 1;
        return ldexp(2.0 - ldexp(1.0, -m), (1 << e) - 1 - bias);
    }
    switch (cfg->zero_point) {
    case HUM_ZERO_POINT_INT: return ldexp(1.0, b) - 1.0;
    case HUM_ZERO_POINT_FLOAT: return ldexp(1.0, b) + zero_max;
    default: return ldexp(1.0, b - 1);
    }
}

int32_t hum_layer_scale_exponent(const hum_layer_config *cfg, double scale_max, double zero_max)
{
    if (!cfg->has_scale && !cfg->weight_float)
        return 0;
    const double s = cfg->has_scale && scale_max > 0 ? scale_max : 1.0;
    const int by_weight = (int)floor(log2(16384.0 / (decoded_max(cfg, zero_max) * s))) + cfg->exp_compensation;
    const int by_scale = (int)floor(log2(16384.0 / s));
    return by_weight < by_scale ? by_weight : by_scale;
}

hum_status hum_layer_tuning_check(const hum_layer_config *config, const hum_tuning *tuning, int64_t *smem_bytes,
                                  int32_t *threads)
{
    if (!config || !tuning)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_tuning_check: NULL %s", !config ? "config" : "tuning");
    const hum_compute_config dense = {HUM_GEMM_DENSE, 0, 0};
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
