/* What runs for each M (hum.h, HUM-SECTION layer): the dispatch table of a prepared layer, or
 * of a layer planned without preparing it, with the policy line behind each entry. */
#include "internal.h"
#include "layer.h"
#include "runtime.h"

#include <stdio.h>
#include <string.h>

hum_status hum_layer_plan_describe(const hum_layer_plan *plan, hum_layer_dispatch *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->policy_name, plan->policy_name, sizeof out->policy_name);
    memcpy(out->policy_origin, plan->policy_origin, sizeof out->policy_origin);
    memcpy(out->device_name, plan->device_name, sizeof out->device_name);
    memcpy(out->activation, plan->activation, sizeof out->activation);
    memcpy(out->arch, plan->arch, sizeof out->arch);
    for (int32_t i = 0; i < plan->entry_count; i++) {
        hum_dispatch_row *r = &out->rows[i];
        r->tuning = plan->entries[i];
        memcpy(r->origin, plan->entry_origin[i], sizeof r->origin);
        /* the plan's GEMM type: an expert GEMM's entries are checked as such */
        const hum_gemm_variant v = {&plan->config, &plan->compute, &r->tuning};
        const hum_status st = hum_gemm_variant_check(&v, NULL);
        if (st != HUM_OK)
            return hum_fail_context(st, "dispatch entry %d", i);
        r->smem_bytes = hum_gemm_smem_bytes(&v);
        r->threads = hum_gemm_threads(&v);
    }
    out->row_count = plan->entry_count;
    return HUM_OK;
}

hum_status hum_layer_describe(const hum_layer *layer, hum_layer_dispatch *out)
{
    if (!layer || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_describe: NULL %s", !layer ? "layer" : "out");
    if (!layer->prepared)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_describe: the layer is not prepared (no dispatch table in "
                                             "force; hum_layer_describe_plan plans one without preparing)");
    /* the table in force: a policy reload may replace it meanwhile, not while live_lock is held */
    pthread_mutex_lock(&layer->rt->live_lock);
    const hum_status st = hum_layer_plan_describe(&hum_layer_table_locked(layer)->plan, out);
    pthread_mutex_unlock(&layer->rt->live_lock);
    return st;
}

/* Plans `plan` (config inputs filled, or st a failure already) for arch or the runtime's GPU
 * and describes it; `what` names the public entry point in messages. */
static hum_status describe_planned(hum_runtime *rt, hum_status st, hum_layer_plan *plan, const char *arch,
                                   const char *what, hum_layer_dispatch *out)
{
    if (st == HUM_OK) {
        if (arch) {
            if ((st = hum_arch_check(arch)) == HUM_OK)
                snprintf(plan->arch, sizeof plan->arch, "%s", arch);
        } else {
            hum_device_info dev;
            if ((st = hum_runtime_device(rt, &dev)) == HUM_OK)
                st = hum_layer_plan_target(&dev, plan);
        }
    }
    if (st == HUM_OK)
        st = hum_layer_run_plan(rt, plan, 0);
    if (st == HUM_OK)
        st = hum_layer_plan_describe(plan, out);
    if (st != HUM_OK) {
        memset(out, 0, sizeof *out);
        return hum_fail_context(st, "%s%s%s", what, arch ? " for " : "", arch ? arch : "");
    }
    return HUM_OK;
}

hum_status hum_layer_describe_plan(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
                                   const char *arch, hum_layer_dispatch *out)
{
    if (!rt || !w || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_describe_plan: NULL %s",
                        !rt ? "runtime" : !w ? "weight" : "out");
    memset(out, 0, sizeof *out);
    hum_layer_plan plan;
    memset(&plan, 0, sizeof plan);
    hum_layer_types types;
    hum_status st = hum_layer_check_weight(w, opts, HUM_GEMM_DENSE, &types);
    if (st == HUM_OK)
        hum_layer_plan_inputs(w, &types, &plan);
    return describe_planned(rt, st, &plan, arch, "hum_layer_describe_plan", out);
}

hum_status hum_layer_describe_spec(hum_runtime *rt, const hum_layer_spec *spec, const char *arch,
                                   hum_layer_dispatch *out)
{
    if (!rt || !spec || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_describe_spec: NULL %s",
                        !rt ? "runtime" : !spec ? "spec" : "out");
    memset(out, 0, sizeof *out);
    hum_layer_plan plan;
    memset(&plan, 0, sizeof plan);
    hum_status st = hum_layer_spec_check(spec);
    if (st == HUM_OK)
        st = hum_layer_check_dims(spec->n, spec->k);
    if (st == HUM_OK)
        hum_layer_spec_config(spec, &plan.config);
    return describe_planned(rt, st, &plan, arch, "hum_layer_describe_spec", out);
}

hum_status hum_expert_gemm_describe_spec(hum_runtime *rt, const hum_layer_spec *spec, int64_t experts,
                                         hum_gemm_type type, const char *arch, hum_layer_dispatch *out)
{
    if (!rt || !spec || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_expert_gemm_describe_spec: NULL %s",
                        !rt ? "runtime" : !spec ? "spec" : "out");
    memset(out, 0, sizeof *out);
    hum_layer_plan plan;
    memset(&plan, 0, sizeof plan);
    hum_status st = hum_layer_spec_check(spec);
    if (st == HUM_OK)
        st = hum_layer_check_dims(spec->n, spec->k);
    if (st == HUM_OK && (experts < 1 || experts > (INT64_C(1) << 20)))
        st = hum_fail(HUM_ERR_INVALID_ARG, "%lld experts (expected 1 .. 2^20)", (long long)experts);
    if (st == HUM_OK && type != HUM_GEMM_MOE_INDEXED && type != HUM_GEMM_MOE_GROUPED_CONTIGUOUS &&
        type != HUM_GEMM_MOE_GROUPED_MASKED)
        st = hum_fail(HUM_ERR_INVALID_ARG, "GEMM type %d (expected indexed, grouped_contiguous or grouped_masked)",
                      (int)type);
    if (st == HUM_OK) {
        hum_layer_spec_config(spec, &plan.config);
        plan.config.num_experts = experts;
        plan.compute.gemm_type = type;
    }
    return describe_planned(rt, st, &plan, arch, "hum_expert_gemm_describe_spec", out);
}
