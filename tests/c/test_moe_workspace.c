/* A MoE layer's workspace without a GPU (runtime/src/moe/moe_prepare.c, hum_moe_areas_of): the
 * layer's two expert GEMMs planned for sm_90a and put in force as hum_moe_prepare leaves them, on
 * a runtime that reports a device of 132 SMs. The GEMMs' share of the workspace is what the
 * expert GEMMs themselves use, their stream-K locks and partial tiles: the down GEMM takes its
 * A made by the activation kernel, so none of its rows are counted there. */
#include "layer.h"
#include "moe.h"
#include "rt_test.h"
#include "runtime.h"
#include "workspace.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SMS = 132 };

/* A layer of a spec as hum_moe_prepare leaves it: the fields hum_moe_areas_of and
 * hum_moe_workspace_size read. */
typedef struct fake_moe {
    hum_moe moe;
    hum_layer gemm[2];
    hum_dispatch_table *table[2];
} fake_moe;

static void fake_moe_free(fake_moe *f)
{
    free(f->table[0]);
    free(f->table[1]);
}

/* Plans both GEMMs of `text` for sm_90a, each from its own facts (hum_expert_gemm_describe_spec's
 * way), and ties them into f->moe; 0 after a failed check. */
static int fake_moe_make(hum_runtime *rt, const char *text, fake_moe *f)
{
    memset(f, 0, sizeof *f);
    hum_moe_spec s;
    if (!RT_CHECK(hum_moe_spec_parse(text, &s) == HUM_OK, "%s: %s", text, hum_last_error()))
        return 0;
    hum_layer_spec specs[2] = {s.gate_up};
    hum_moe_spec_down(&s, &specs[1]);
    hum_moe *moe = &f->moe;
    for (int i = 0; i < 2; i++) {
        f->table[i] = calloc(1, sizeof *f->table[i]);
        if (!RT_CHECK(f->table[i] != NULL, "out of memory"))
            return 0;
        hum_layer_plan *plan = &f->table[i]->plan;
        hum_layer_spec_config(&specs[i], &plan->config);
        plan->config.num_experts = s.experts;
        plan->compute.gemm_type = s.gemm_type;
        snprintf(plan->arch, sizeof plan->arch, "sm_90a");
        if (!RT_CHECK(hum_layer_run_plan(rt, plan, 0) == HUM_OK, "%s, GEMM %d: %s", text, i, hum_last_error()))
            return 0;
        f->table[i]->partial_bytes = hum_workspace_partial_bytes(plan, SMS);
        hum_layer *g = &f->gemm[i];
        g->rt = rt;
        atomic_init(&g->table, f->table[i]);
        g->gemm_type = s.gemm_type;
        g->prepared = 1;
        g->plan = *plan;
        for (int32_t e = 0; e < plan->entry_count; e++)
            if (plan->entries[e].block_m > moe->block_m_max)
                moe->block_m_max = plan->entries[e].block_m;
    }
    moe->rt = rt;
    hum_moe_options_init(&moe->opts);
    moe->opts.activation = s.activation;
    moe->opts.top_k = s.top_k;
    moe->opts.gemm_type = s.gemm_type;
    moe->experts = s.experts;
    moe->hidden = specs[0].k;
    moe->intermediate = specs[1].k;
    moe->gate_up = &f->gemm[0];
    moe->down = &f->gemm[1];
    moe->sm_count = SMS;
    moe->prepared = 1;
    return 1;
}

static const int64_t MS[] = {1, 3, 64, 1000};

/* A gate/up GEMM of 16-bit A (H = 104: no 8-bit A) and a down GEMM of 8-bit A: the GEMMs' share
 * is their locks and the larger partial tiles, whatever the rows (the down GEMM's codes and
 * scales are the activation's, in act and act_scale). */
static void check_down_share(hum_runtime *rt)
{
    static const char *const specs[] = {
        "e=8,topk=2,n=256,k=104,w=e4m3,a=e4m3",
        "e=8,topk=2,n=256,k=104,w=e4m3,a=e4m3,gemm=grouped",
        "e=8,topk=2,n=256,k=104,w=e4m3,a=e4m3,gemm=masked",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        fake_moe f;
        if (!fake_moe_make(rt, specs[i], &f) ||
            !RT_CHECK(!hum_gemm_quantizes_a(&f.gemm[0].plan.config) && hum_gemm_a8(&f.gemm[1].plan.config),
                      "%s: gate/up A %s, down A %s (expected 16-bit, then 8-bit)", specs[i],
                      hum_dtype_name(f.gemm[0].plan.config.a_dtype), hum_dtype_name(f.gemm[1].plan.config.a_dtype))) {
            fake_moe_free(&f);
            continue;
        }
        int64_t own[2];
        for (int g = 0; g < 2; g++)
            RT_CHECK(hum_layer_workspace_size(&f.gemm[g], 0, &own[g]) == HUM_OK, "%s", hum_last_error());
        const int64_t share = own[0] > own[1] ? own[0] : own[1];
        for (size_t j = 0; j < sizeof MS / sizeof MS[0]; j++) {
            hum_moe_areas areas;
            int64_t bytes = 0;
            if (!RT_CHECK(hum_moe_areas_of(&f.moe, MS[j], &areas) == HUM_OK &&
                              hum_moe_workspace_size(&f.moe, MS[j], &bytes) == HUM_OK,
                          "%s, M = %lld: %s", specs[i], (long long)MS[j], hum_last_error()))
                continue;
            RT_CHECK(areas.gemm == share && bytes == areas.bytes,
                     "%s, M = %lld: the GEMMs' share %lld bytes (expected %lld: locks and partial tiles), the "
                     "workspace %lld of %lld", specs[i], (long long)MS[j], (long long)areas.gemm, (long long)share,
                     (long long)bytes, (long long)areas.bytes);
        }
        fake_moe_free(&f);
    }
}

int main(void)
{
    hum_runtime *rt = NULL;
    if (!RT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "runtime: %s", hum_last_error()))
        return rt_test_result("test_moe_workspace");
    /* the device hum_layer_workspace_size sizes the locks for */
    const hum_status had = rt->device_status;
    const hum_device_info dev = rt->device;
    rt->device_status = HUM_OK;
    rt->device.sm_count = SMS;
    check_down_share(rt);
    rt->device_status = had;
    rt->device = dev;
    hum_runtime_destroy(rt);
    return rt_test_result("test_moe_workspace");
}
