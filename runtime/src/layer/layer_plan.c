/* Planning, in one pass: lua/hum/layer.lua derives the LayerConfig and asks the policy for its
 * M ranges and tunings; C fits each tuning to the layer, checking every rule once
 * (gemm_variant.c), and merges equal neighbours. Then compiling the planned kernels, and the two
 * public entry points built on them: hum_layer_prepare (GPU: the compiles and the weight upload
 * side by side) and hum_layer_compile (CPU only). */
#include "layer.h"

#include "act_quant.h"
#include "device.h"
#include "gemm_variant.h"
#include "internal.h"
#include "lua_bridge.h"
#include "runtime.h"
#include "threadpool.h"
#include "workspace.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every public array of a table's entries holds HUM_LAYER_MAX_ENTRIES (hum.h, hum_tools.h: their
 * sizes are written as numbers, which the Python binding reads). */
#define ENTRIES_OF(type, member) (sizeof(((type *)0)->member) / sizeof(((type *)0)->member[0]))
_Static_assert(ENTRIES_OF(hum_layer_info, entries) == HUM_LAYER_MAX_ENTRIES, "hum_layer_info.entries");
_Static_assert(ENTRIES_OF(hum_layer_dispatch, rows) == HUM_LAYER_MAX_ENTRIES, "hum_layer_dispatch.rows");
_Static_assert(ENTRIES_OF(hum_layer_plan, entries) == HUM_LAYER_MAX_ENTRIES, "hum_layer_plan.entries");
_Static_assert(ENTRIES_OF(hum_layer_plan, entry_origin) == HUM_LAYER_MAX_ENTRIES, "hum_layer_plan.entry_origin");
_Static_assert(ENTRIES_OF(hum_tune_session, ranges) == HUM_LAYER_MAX_ENTRIES, "hum_tune_session.ranges");

/* The tuning fields of a and b are equal (the M range aside). */
static int same_tuning(const hum_tuning *a, const hum_tuning *b)
{
    return !memcmp((const char *)a + offsetof(hum_tuning, block_m), (const char *)b + offsetof(hum_tuning, block_m),
                   sizeof *a - offsetof(hum_tuning, block_m));
}

hum_status hum_layer_fit_plan(hum_layer_plan *plan)
{
    if (!plan)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_fit_plan: NULL plan");
    if (plan->entry_count < 1 || plan->entry_count > HUM_LAYER_MAX_ENTRIES)
        return hum_fail(HUM_ERR_POLICY, "layer plan: %d dispatch entries (expected 1 to %d)", plan->entry_count,
                        HUM_LAYER_MAX_ENTRIES);
    int32_t out = 0;
    for (int32_t i = 0; i < plan->entry_count; i++) {
        hum_tuning t;
        const hum_status st = hum_gemm_fit(&plan->config, &plan->compute, &plan->entries[i], plan->arch,
                                           plan->smem_per_block, plan->device_name, &t);
        if (st != HUM_OK) {
            char upper[24] = "inf";
            if (plan->entries[i].m_max != INT64_MAX)
                snprintf(upper, sizeof upper, "%lld", (long long)plan->entries[i].m_max);
            return hum_fail_context(st, "policy '%s' (%s), M %lld..%s", plan->policy_name, plan->entry_origin[i],
                                    (long long)plan->entries[i].m_min, upper);
        }
        if (out > 0 && same_tuning(&plan->entries[out - 1], &t)) {
            plan->entries[out - 1].m_max = t.m_max;
            continue;
        }
        plan->entries[out] = t;
        memmove(plan->entry_origin[out], plan->entry_origin[i], sizeof plan->entry_origin[i]);
        out++;
    }
    plan->entry_count = out;
    return HUM_OK;
}

hum_status hum_layer_plan_target(const hum_device_info *dev, hum_layer_plan *plan)
{
    hum_status st = hum_arch_for_device(dev, plan->arch, sizeof plan->arch);
    if (st != HUM_OK)
        return st;
    snprintf(plan->device_name, sizeof plan->device_name, "%s", dev->name);
    plan->sm = dev->sm_major * 10 + dev->sm_minor;
    plan->sm_count = dev->sm_count;
    plan->smem_per_block = dev->max_smem_per_block_optin;
    plan->l2_bytes = dev->l2_bytes;
    return HUM_OK;
}

hum_status hum_layer_run_plan(hum_runtime *rt, hum_layer_plan *plan, int lua_locked)
{
    hum_status st = lua_locked ? hum_lua_call_locked(rt, "hum.layer", "plan", "hum_layer_plan *", plan)
                               : hum_lua_call(rt, "hum.layer", "plan", "hum_layer_plan *", plan);
    if (st != HUM_OK)
        return st;
    /* The C arrays and the forward's range walk rely on this shape of table; lua/hum/ can be
     * replaced (HUM_LUA_PATH), so C checks what it indexes with rather than trusting it. */
    const int32_t n = plan->entry_count;
    if (n < 1 || n > HUM_LAYER_MAX_ENTRIES)
        return hum_fail(HUM_ERR_POLICY, "layer plan: %d dispatch entries (expected 1 to %d)", n, HUM_LAYER_MAX_ENTRIES);
    for (int32_t i = 0; i < n; i++) {
        const hum_tuning *t = &plan->entries[i];
        const int64_t want_min = i == 0 ? 1 : plan->entries[i - 1].m_max + 1;
        if (t->m_min != want_min || t->m_max < t->m_min || (i == n - 1 && t->m_max != INT64_MAX))
            return hum_fail(HUM_ERR_POLICY,
                            "layer plan: entry %d covers M %lld..%lld; entries must run contiguously from M = 1 "
                            "to the largest M",
                            i, (long long)t->m_min, (long long)t->m_max);
    }
    return hum_layer_fit_plan(plan);
}

/* The compile request of tuning `t` of the plan's config for plan->arch; `header` (cap bytes)
 * receives its generated constants. */
static hum_status entry_request(const hum_layer_plan *plan, const hum_tuning *t, char *header, size_t cap,
                                hum_jit_request *req)
{
    const hum_gemm_variant v = {&plan->config, &plan->compute, t};
    const hum_gemm_family *f = hum_gemm_family_of(t->kernel);
    if (!f)
        return hum_fail(HUM_ERR_POLICY, "kernel %d: no such kernel family", t->kernel);
    const hum_status st = hum_gemm_constants(&v, header, cap);
    if (st != HUM_OK)
        return st;
    memset(req, 0, sizeof *req);
    req->source = f->source;
    req->constants = header;
    req->kernel_name = f->entry;
    req->arch = plan->arch;
    /* NVRTC's time grows with the CTA tile, whose loops it unrolls (sm_90a, n = k = 8192 uint4
     * g128: 0.5 s for 16 x 128 x 256 up to 0.9 s for 256 x 128 x 128, bench/NOTES.md session 12) */
    req->cost = (int64_t)t->block_m * t->block_n * t->block_k;
    return HUM_OK;
}

int32_t hum_layer_precompile(hum_runtime *rt, const hum_layer_plan *plan, const hum_tuning *tunings, int32_t count)
{
    enum { HEADER = 2048 };
    char *headers = malloc((size_t)count * HEADER + 1);
    hum_jit_request *reqs = calloc((size_t)count + 1, sizeof *reqs);
    hum_jit_result *results = calloc((size_t)count + 1, sizeof *results);
    int32_t n = 0;
    for (int32_t i = 0; headers && reqs && results && i < count; i++)
        if (entry_request(plan, &tunings[i], headers + (size_t)n * HEADER, HEADER, &reqs[n]) == HUM_OK)
            n++;
    /* Each request's cubin enters the caches on its own: one that fails leaves the others
     * compiled, so the aggregate status says nothing here. */
    if (n > 0 && hum_jit_compile_many(hum_runtime_cache_dir(rt), reqs, n, results, 0) == HUM_OK)
        for (int32_t i = 0; i < n; i++)
            hum_jit_result_free(&results[i]);
    hum_clear_error();
    free(headers);
    free(reqs);
    free(results);
    return n;
}

hum_status hum_layer_compile_entries(hum_runtime *rt, const hum_layer_plan *plan, hum_jit_result *results,
                                     double *compile_ms, int32_t *compiled, int32_t *cached)
{
    char headers[HUM_LAYER_MAX_ENTRIES][2048];
    hum_jit_request reqs[HUM_LAYER_MAX_KERNELS];
    memset(reqs, 0, sizeof reqs);
    for (int32_t i = 0; i < plan->entry_count; i++) {
        hum_status st = entry_request(plan, &plan->entries[i], headers[i], sizeof headers[i], &reqs[i]);
        if (st != HUM_OK)
            return hum_fail_context(st, "dispatch entry %d (M %lld..%lld)", i, (long long)plan->entries[i].m_min,
                                    (long long)plan->entries[i].m_max);
    }
    /* no layer has both: 8-bit A and mxfp8 rounding take no act-order (gemm_variant.c) */
    const int permutes = hum_plan_permutes_a(plan);
    const int a8 = !permutes && hum_gemm_quantizes_a(&plan->config);
    const int32_t count = plan->entry_count + (permutes || a8 ? 1 : 0);
    if (count > plan->entry_count) {
        reqs[plan->entry_count].source = a8 ? "kernels/prep/quantize_a.cu" : "kernels/prep/permute_a.cu";
        reqs[plan->entry_count].kernel_name = !a8 ? "hum_permute_a" : hum_act_quant_kernel(&plan->config);
        reqs[plan->entry_count].arch = plan->arch;
    }
    const double t0 = hum_layer_now_ms();
    hum_status st = hum_jit_compile_many(hum_runtime_cache_dir(rt), reqs, count, results, 0);
    *compile_ms = hum_layer_now_ms() - t0;
    if (st != HUM_OK)
        return hum_fail_context(st, "compiling the layer's kernels");
    *compiled = *cached = 0; /* of the entries' kernels */
    for (int32_t i = 0; i < plan->entry_count; i++)
        ++*(results[i].cache_hit == HUM_JIT_MISS ? compiled : cached);
    return HUM_OK;
}

/* The two halves of a prepare that need only the plan, run side by side: the dispatch
 * entries' kernels compiled and loaded (task 0), and the weights taken to the GPU (task 1),
 * whose NVRTC runs and context creation would otherwise wait for the compiles. */
typedef struct prepare_tasks {
    hum_layer *layer;
    const hum_layer_plan *plan;
    const hum_device_info *dev;
    hum_dispatch_table *table;
    hum_kernel *permute, *quantize; /* the kernel that prepares A, if any (hum_layer_compile_entries) */
    hum_layer_buffers buf;
    double compile_ms;
    int32_t compiled, cached;
    hum_status status[2];
    char *message[2]; /* the failing task's hum_last_error(), from its thread */
} prepare_tasks;

static hum_status compile_and_load(prepare_tasks *p)
{
    hum_jit_result results[HUM_LAYER_MAX_KERNELS];
    memset(results, 0, sizeof results);
    hum_status st = hum_layer_compile_entries(p->layer->rt, p->plan, results, &p->compile_ms, &p->compiled, &p->cached);
    const double t0 = hum_layer_now_ms();
    if (st == HUM_OK)
        st = hum_dispatch_table_build(p->dev, p->plan, results, &p->table);
    const int permutes = hum_plan_permutes_a(p->plan);
    if (st == HUM_OK && (permutes || hum_gemm_quantizes_a(&p->plan->config)))
        st = hum_kernel_load(p->dev->ordinal, &results[p->plan->entry_count],
                             permutes ? hum_permute_staged(p->layer->input_k) * 2 : 0,
                             permutes ? &p->permute : &p->quantize);
    p->layer->load_ms = hum_layer_now_ms() - t0;
    for (int32_t i = 0; i < HUM_LAYER_MAX_KERNELS; i++)
        hum_jit_result_free(&results[i]);
    return st;
}

static hum_status upload(prepare_tasks *p)
{
    double t0 = hum_layer_now_ms();
    hum_status st = hum_device_activate(p->dev->ordinal, NULL);
    p->layer->context_ms = hum_layer_now_ms() - t0;
    t0 = hum_layer_now_ms();
    if (st == HUM_OK)
        st = hum_layer_upload(p->layer, p->dev->ordinal, &p->buf);
    p->layer->upload_ms = hum_layer_now_ms() - t0;
    return st;
}

static void prepare_task(void *ctx, int32_t i)
{
    prepare_tasks *p = ctx;
    p->status[i] = i == 0 ? compile_and_load(p) : upload(p);
    if (p->status[i] != HUM_OK)
        p->message[i] = strdup(hum_last_error());
}

hum_status hum_layer_prepare(hum_layer *layer)
{
    if (!layer)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_prepare: NULL layer");
    if (layer->prepared)
        return HUM_OK;
    const double t0 = hum_layer_now_ms();
    hum_device_info dev;
    hum_status st = hum_runtime_device(layer->rt, &dev);
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_layer_prepare");

    hum_layer_plan plan;
    memset(&plan, 0, sizeof plan);
    hum_layer_plan_inputs(&layer->weight, &layer->types, &plan);
    plan.compute.gemm_type = layer->gemm_type;
    if ((st = hum_layer_plan_for(layer->rt, &dev, &plan.config, &plan.compute, 0, &plan)) != HUM_OK)
        return hum_fail_context(st, "hum_layer_prepare");
    layer->plan_ms = hum_layer_now_ms() - t0;
    return hum_layer_prepare_planned(layer, &dev, &plan, t0);
}

hum_status hum_layer_prepare_planned(hum_layer *layer, const hum_device_info *dev, const hum_layer_plan *plan,
                                     double t0)
{
    layer->plan = *plan; /* the upload reads the planned config */
    prepare_tasks tasks = {.layer = layer, .plan = plan, .dev = dev};
    hum_parallel_for(2, 2, prepare_task, &tasks);
    /* the compile's error first, as when the upload waited for it */
    const int failed = tasks.status[0] != HUM_OK ? 0 : tasks.status[1] != HUM_OK ? 1 : -1;
    hum_status st = HUM_OK;
    if (failed >= 0)
        st = tasks.message[failed] ? hum_fail(tasks.status[failed], "%s", tasks.message[failed])
                                   : hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_layer_prepare: out of memory");
    free(tasks.message[0]);
    free(tasks.message[1]);
    hum_dispatch_table *table = tasks.table;
    hum_kernel *permute = tasks.permute, *quantize = tasks.quantize;

    if (st == HUM_OK)
        st = hum_dispatch_table_bind_weights(table, tasks.buf.weight);
    hum_workspace *ws = NULL;
    if (st == HUM_OK) {
        /* the own workspace: act-order or quantized rows up to 16 MiB, at least 256 */
        const int64_t rows = (16 << 20) / (2 * plan->config.k);
        st = hum_workspace_create(layer->rt, NULL,
                                  hum_workspace_bytes(plan, dev->sm_count, rows > 256 ? rows : 256), &ws);
    }
    if (st != HUM_OK) {
        hum_dispatch_table_free(table);
        hum_kernel_destroy(permute);
        hum_kernel_destroy(quantize);
        hum_layer_buffers_free(&tasks.buf);
        memset(&layer->plan, 0, sizeof layer->plan);
        return hum_fail_context(st, "hum_layer_prepare");
    }
    table->compile_ms = tasks.compile_ms;
    table->kernels_compiled = tasks.compiled;
    table->kernels_cached = tasks.cached;
    layer->permute = permute;
    layer->quantize = quantize;
    /* a reload re-plans the layer for the activation type its weights were prepared for */
    layer->plan.config.a_fixed = 1;
    layer->workspace = ws;
    layer->buf = tasks.buf;
    /* act-order: A goes to permute_a.cu; 16-byte chunks are 8 elements of 16-bit A, 16 of 8-bit A */
    layer->a_vector = !plan->config.act_order && plan->config.k % (hum_gemm_a8(&plan->config) ? 16 : 8) == 0;
    layer->prepared = 1;
    hum_standard_free(&layer->weight);
    layer->prepare_ms = hum_layer_now_ms() - t0;
    hum_layer_publish_first(layer, table);
    return HUM_OK;
}

hum_status hum_layer_compile_plan(hum_runtime *rt, hum_layer_plan *plan, double t0, hum_layer_info *out)
{
    const hum_status st = hum_layer_run_plan(rt, plan, 0);
    return st == HUM_OK ? hum_layer_compile_planned(rt, plan, t0, out)
                        : hum_fail_context(st, "hum_layer_compile for %s", plan->arch);
}

hum_status hum_layer_compile_planned(hum_runtime *rt, const hum_layer_plan *plan, double t0, hum_layer_info *out)
{
    hum_jit_result results[HUM_LAYER_MAX_KERNELS];
    memset(results, 0, sizeof results);
    hum_layer layer;
    memset(&layer, 0, sizeof layer);
    const hum_status st = hum_layer_compile_entries(rt, plan, results, &layer.compile_ms, &layer.kernels_compiled,
                                                    &layer.kernels_cached);
    for (int32_t i = 0; i < HUM_LAYER_MAX_KERNELS; i++)
        hum_jit_result_free(&results[i]);
    if (st == HUM_OK) {
        layer.plan = *plan;
        layer.prepare_ms = hum_layer_now_ms() - t0;
        hum_layer_get_info(&layer, out);
    }
    return st == HUM_OK ? HUM_OK : hum_fail_context(st, "hum_layer_compile for %s", plan->arch);
}

hum_status hum_layer_compile(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
                             const char *arch, hum_layer_info *out)
{
    if (!rt || !w || !arch || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_compile: NULL %s",
                        !rt ? "runtime" : !w ? "weight" : !arch ? "arch" : "out");
    memset(out, 0, sizeof *out);
    hum_status st = hum_arch_check(arch);
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_layer_compile");
    const double t0 = hum_layer_now_ms();
    hum_standard_weight cut;
    if ((st = hum_layer_shard_weight(w, opts, &cut, &w)) != HUM_OK)
        return hum_fail_context(st, "hum_layer_compile");
    hum_layer_types types;
    if ((st = hum_layer_check_weight(w, opts, HUM_GEMM_DENSE, &types)) != HUM_OK) {
        hum_standard_free(&cut);
        return hum_fail_context(st, "hum_layer_compile");
    }
    hum_layer_plan plan;
    memset(&plan, 0, sizeof plan);
    hum_layer_plan_inputs(w, &types, &plan);
    hum_standard_free(&cut);
    snprintf(plan.arch, sizeof plan.arch, "%s", arch);
    return hum_layer_compile_plan(rt, &plan, t0, out);
}

hum_status hum_layer_compile_spec_as(hum_runtime *rt, const hum_layer_spec *spec, const int64_t *experts,
                                     hum_gemm_type type, const char *arch, hum_layer_info *out, const char *who)
{
    if (!rt || !spec || !arch || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: NULL %s", who,
                        !rt ? "runtime" : !spec ? "spec" : !arch ? "arch" : "out");
    memset(out, 0, sizeof *out);
    const double t0 = hum_layer_now_ms();
    hum_status st = hum_arch_check(arch);
    if (st == HUM_OK)
        st = hum_layer_spec_check(spec);
    if (st == HUM_OK)
        st = hum_layer_check_dims(spec->n, spec->k);
    if (st == HUM_OK && experts && (*experts < 1 || *experts > (INT64_C(1) << 20)))
        st = hum_fail(HUM_ERR_INVALID_ARG, "%lld experts (expected 1 .. 2^20)", (long long)*experts);
    if (st == HUM_OK && experts && type != HUM_GEMM_MOE_INDEXED && type != HUM_GEMM_MOE_GROUPED_CONTIGUOUS &&
        type != HUM_GEMM_MOE_GROUPED_MASKED)
        st = hum_fail(HUM_ERR_INVALID_ARG, "GEMM type %d (expected indexed, grouped_contiguous or grouped_masked)",
                      (int)type);
    if (st != HUM_OK)
        return hum_fail_context(st, "%s", who);
    hum_layer_plan plan;
    memset(&plan, 0, sizeof plan);
    hum_layer_spec_config(spec, &plan.config);
    plan.config.num_experts = experts ? *experts : 0;
    plan.compute.gemm_type = type;
    snprintf(plan.arch, sizeof plan.arch, "%s", arch);
    return hum_layer_compile_plan(rt, &plan, t0, out);
}

hum_status hum_layer_compile_spec(hum_runtime *rt, const hum_layer_spec *spec, const char *arch, hum_layer_info *out)
{
    return hum_layer_compile_spec_as(rt, spec, NULL, HUM_GEMM_DENSE, arch, out, "hum_layer_compile_spec");
}

void hum_dispatch_table_free(hum_dispatch_table *t)
{
    if (!t)
        return;
    for (int32_t i = 0; i < t->plan.entry_count; i++)
        hum_kernel_destroy(t->entries[i].kernel);
    free(t);
}

hum_status hum_dispatch_table_build(const hum_device_info *dev, const hum_layer_plan *plan,
                                    const hum_jit_result *results, hum_dispatch_table **out)
{
    *out = NULL;
    hum_dispatch_table *t = calloc(1, sizeof *t);
    if (!t)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "a dispatch table");
    t->plan = *plan;
    t->plan.entry_count = 0; /* counts the loaded kernels until the end */
    hum_status st = HUM_OK;
    for (int32_t i = 0; st == HUM_OK && i < plan->entry_count; i++) {
        const hum_tuning *tu = &plan->entries[i];
        hum_dispatch_entry *e = &t->entries[i];
        /* planning fitted and checked the tuning (hum_layer_fit_plan): only its figures here */
        const hum_gemm_variant v = {&plan->config, &plan->compute, tu};
        const int64_t smem = hum_gemm_smem_bytes(&v);
        const int32_t threads = hum_gemm_threads(&v);
        if ((st = hum_kernel_load(dev->ordinal, &results[i], (int32_t)smem, &e->kernel)) != HUM_OK)
            break;
        t->plan.entry_count = i + 1;
        e->m_max = tu->m_max;
        e->threads = (uint32_t)threads;
        e->smem_bytes = (uint32_t)smem;
        e->block_m = tu->block_m;
        e->stream_k = tu->stream_k;
        e->stream_k_sum = tu->stream_k_sum;
        e->whole_fill = tu->whole_fill;
        e->quantize_a = tu->quantize_a;
        e->family = hum_gemm_family_of(tu->kernel);
        e->n_blocks = plan->config.padded_n / tu->block_n;
        e->k_blocks = plan->config.padded_k / tu->block_k;
        e->max_grid = (int64_t)dev->sm_count * tu->ctas_per_sm;
        /* clusters: as many as the device holds at once (a GPC's SMs host whole clusters only,
         * so fewer than SMs / cluster_n may fit) */
        e->cluster_n = tu->multicast_a ? 2 : 1;
        e->cluster_grid = e->max_grid;
        if (e->cluster_n > 1) {
            int32_t clusters = 0;
            if ((st = hum_kernel_max_clusters(e->kernel, e->threads, e->smem_bytes, (uint32_t)e->cluster_n,
                                              &clusters)) != HUM_OK)
                break;
            if (clusters < 1) {
                st = hum_fail(HUM_ERR_UNSUPPORTED, "multicast_a: no cluster of %d CTAs of %u threads and %u bytes of "
                              "shared memory fits %s", e->cluster_n, e->threads, e->smem_bytes, dev->name);
                break;
            }
            const int64_t fit = e->max_grid / e->cluster_n;
            e->cluster_grid = (clusters < fit ? clusters : fit) * e->cluster_n;
        }
    }
    t->partial_bytes = hum_workspace_partial_bytes(plan, dev->sm_count);
    if (st != HUM_OK) {
        hum_dispatch_table_free(t);
        return st;
    }
    *out = t;
    return HUM_OK;
}

hum_status hum_dispatch_table_bind_weights(hum_dispatch_table *t, void *weight)
{
    const hum_layer_config *c = &t->plan.config;
    for (int32_t i = 0; i < t->plan.entry_count; i++) {
        const hum_tuning *tu = &t->plan.entries[i];
        if (!tu->weights_ss)
            continue;
        /* one k16 row of codes is padded N x 16 bytes (kernels/numerics/codes.cuh), read as
         * eight-byte words so that a block_n of 128 is one box row of 256 */
        const hum_tma_2d d = {.dtype = HUM_DTYPE_INT64, .global_address = weight,
                              .rows = (uint64_t)(c->padded_k / 16), .cols = (uint64_t)(2 * c->padded_n),
                              .row_stride_bytes = (uint64_t)(16 * c->padded_n), .box_rows = (uint32_t)(tu->block_k / 16),
                              .box_cols = (uint32_t)(2 * tu->block_n), .swizzle = HUM_TMA_SWIZZLE_NONE};
        const hum_status st = hum_tma_encode_2d(&d, &t->entries[i].b_map);
        if (st != HUM_OK)
            return hum_fail_context(st, "weights_ss of the entry for M %lld..%lld", (long long)tu->m_min,
                                    (long long)tu->m_max);
        t->entries[i].weights_ss = 1;
    }
    return HUM_OK;
}

void hum_layer_publish_first(hum_layer *layer, hum_dispatch_table *table)
{
    hum_runtime *rt = layer->rt;
    pthread_mutex_lock(&rt->live_lock);
    atomic_store(&layer->table, table);
    layer->next_live = rt->layers;
    rt->layers = layer;
    pthread_mutex_unlock(&rt->live_lock);
}

hum_status hum_layer_plan_for(hum_runtime *rt, const hum_device_info *dev, const hum_layer_config *inputs,
                              const hum_compute_config *compute, int lua_locked, hum_layer_plan *plan)
{
    const hum_layer_config in = *inputs; /* may be plan->config */
    const hum_compute_config cin = *compute;
    memset(plan, 0, sizeof *plan);
    plan->config = in;
    plan->compute = cin;
    hum_status st = hum_layer_plan_target(dev, plan);
    return st == HUM_OK ? hum_layer_run_plan(rt, plan, lua_locked) : st;
}
