/* A MoE layer's workspace without a GPU (runtime/src/moe/moe_prepare.c, hum_moe_areas_of): the
 * layer's two expert GEMMs planned for sm_90a and put in force as hum_moe_prepare leaves them, on
 * a runtime that reports a device of 132 SMs. The GEMMs' share of the workspace is what the
 * expert GEMMs themselves use, their stream-K locks and partial tiles: the layer hands both
 * their A made, so none of their rows are counted there, nor by hum_layer_workspace_size of an
 * expert GEMM at any max_m; and a forward sizes it as hum_moe_workspace_size does, from the same
 * tables pinned through its workspace. The hidden rows the layer quantizes or rounds for the
 * gate/up GEMM lie past both GEMMs' partial tiles (where hum_expert_gemm_forward_in puts them,
 * given the GEMMs' part), under the built-in policies, the mxfp8 override, and a site policy
 * that sums every stream-K slice in the workspace, and end before the next area; partial tiles
 * a reload makes larger than that part go nowhere. A forward sizes its workspace without the
 * lock a policy reload holds through re-planning, compiling and its context synchronisation
 * (hum.h: forwards during a reload are never blocked): with that lock held on this thread, a
 * forward of each layer on another thread gets through its sizing (to a workspace too small,
 * the error it returns before any launch). And the largest workspace hum_moe_workspace_size lets
 * through stays below INT64_MAX / 4 (its overflow bound), hidden rows rounded through mxfp8 (2H
 * bytes a token) included. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "act_quant.h"
#include "gemm_test.h"
#include "layer.h"
#include "moe.h"
#include "rt_test.h"
#include "runtime.h"
#include "workspace.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    /* each call before its check: the message's arguments may be read before the condition */
    const hum_status parsed = hum_moe_spec_parse(text, &s);
    if (!RT_CHECK(parsed == HUM_OK, "%s: %s", text, hum_last_error()))
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
        const hum_status planned = hum_layer_run_plan(rt, plan, 0);
        if (!RT_CHECK(planned == HUM_OK, "%s, GEMM %d: %s", text, i, hum_last_error()))
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
    moe->activation_dtype = s.gate_up.output_dtype;
    moe->experts = s.experts;
    moe->hidden = specs[0].k;
    moe->intermediate = specs[1].k;
    moe->gate_up = &f->gemm[0];
    moe->down = &f->gemm[1];
    moe->sm_count = SMS;
    moe->prepared = 1;
    return 1;
}

/* The device hum_layer_workspace_size sizes the locks for. */
static void fake_device(hum_runtime *rt)
{
    rt->device_status = HUM_OK;
    rt->device.sm_count = SMS;
}

static const int64_t MS[] = {1, 3, 64, 1000};

/* Where hum_moe_quantize_hidden's writes for `rows` rows of the gate/up GEMM of config c end,
 * from the hidden area: codes, then from the next boundary their scales (kernels/prep/
 * quantize_a.cu); or 16-bit rows of K rounded through mxfp8; 0 where the GEMM takes the host's
 * rows. */
static int64_t hidden_end(const hum_layer_config *c, int64_t rows)
{
    if (!hum_gemm_quantizes_a(c))
        return 0;
    hum_act_quant how;
    int round;
    hum_act_quant_of(c, &how, &round);
    if (round)
        return rows * c->k * 2;
    const int64_t groups = how.scale == HUM_ACT_SCALE_GROUP ? (c->k + how.group - 1) / how.group : 1;
    return hum_workspace_codes_bytes(c, rows) + rows * groups * hum_dtype_bits(how.scale_dtype) / 8;
}

/* A forward of a layer through a workspace one byte short of what its first token (indexed;
 * grouped: its T rows) needs past the locks alone: it sizes the workspace, then refuses it before
 * launching anything. The tensors' data is never read. */
typedef struct sizing_run {
    hum_moe *moe;
    hum_workspace ws;
    int64_t m;
    hum_status st;
    char error[512];
    atomic_int done;
} sizing_run;

static void *forward_sizing(void *arg)
{
    sizing_run *run = arg;
    hum_moe *moe = run->moe;
    static _Alignas(256) char data[256];
    const int64_t m = run->m, E = moe->experts, H = moe->hidden, K = moe->opts.top_k;
    const hum_dtype adt = moe->activation_dtype;
    if (moe->opts.gemm_type == HUM_GEMM_MOE_INDEXED) {
        const hum_tensor rows = {.data = data, .dtype = adt, .rank = 2, .shape = {m, H}, .memory = HUM_MEMORY_DEVICE};
        const hum_tensor ids = {.data = data, .dtype = HUM_DTYPE_INT32, .rank = 2, .shape = {m, K},
                                .memory = HUM_MEMORY_DEVICE};
        const hum_tensor weights = {.data = data, .dtype = HUM_DTYPE_FLOAT32, .rank = 2, .shape = {m, K},
                                    .memory = HUM_MEMORY_DEVICE};
        run->st = hum_moe_forward(moe, &run->ws, NULL, &rows, &ids, &weights, NULL, &rows, 0);
    } else {
        const int masked = moe->opts.gemm_type == HUM_GEMM_MOE_GROUPED_MASKED;
        const hum_tensor rows = masked ? (hum_tensor){.data = data, .dtype = adt, .rank = 3, .shape = {E, m, H},
                                                      .memory = HUM_MEMORY_DEVICE}
                                       : (hum_tensor){.data = data, .dtype = adt, .rank = 2, .shape = {m, H},
                                                      .memory = HUM_MEMORY_DEVICE};
        const hum_tensor layout = {.data = data, .dtype = masked ? HUM_DTYPE_INT32 : HUM_DTYPE_INT64, .rank = 1,
                                   .shape = {masked ? E : E + 1}, .memory = HUM_MEMORY_DEVICE};
        run->st = hum_moe_forward_grouped(moe, &run->ws, NULL, &rows, &layout, &rows);
    }
    snprintf(run->error, sizeof run->error, "%s", hum_last_error());
    atomic_store(&run->done, 1);
    return NULL;
}

enum { WAIT_MS = 20000 };

/* A forward of f's layer on another thread while this one holds the locks a policy reload
 * holds throughout (hum_runtime_reload_policies: lua_lock, then live_lock) gets through its
 * sizing: of a million tokens for an indexed layer (chunk_tokens' search for the chunk the
 * workspace holds), of 64 rows for a grouped one. */
static void check_unblocked(fake_moe *f, const char *spec)
{
    const int indexed = f->moe.opts.gemm_type == HUM_GEMM_MOE_INDEXED;
    hum_moe_areas lean;
    hum_moe_areas_past(&f->moe, hum_workspace_lock_bytes(SMS), indexed ? 1 : 64, &lean);
    const int64_t need = lean.bytes;
    hum_runtime *rt = f->moe.rt;
    sizing_run run = {.moe = &f->moe, .m = indexed ? 1 << 20 : 64,
                      .ws = {.rt = rt, .bytes = need - 1, .lock_bytes = hum_workspace_lock_bytes(SMS)}};
    atomic_init(&run.done, 0);
    pthread_t thread;
    pthread_mutex_lock(&rt->lua_lock);
    pthread_mutex_lock(&rt->live_lock);
    const int started = pthread_create(&thread, NULL, forward_sizing, &run) == 0;
    for (int ms = 0; started && ms < WAIT_MS && !atomic_load(&run.done); ms++)
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    const int finished = atomic_load(&run.done);
    pthread_mutex_unlock(&rt->live_lock);
    pthread_mutex_unlock(&rt->lua_lock);
    if (!RT_CHECK(started, "%s: pthread_create", spec))
        return;
    pthread_join(thread, NULL);
    RT_CHECK(finished, "%s: the forward still waited on the reload's locks after %d ms", spec, WAIT_MS);
    RT_CHECK(run.st == HUM_ERR_INVALID_ARG && strstr(run.error, indexed ? "holds no token" : "does not hold"),
             "%s: a forward through a workspace of %lld bytes (one short of %lld): status %d, %s", spec,
             (long long)run.ws.bytes, (long long)need, (int)run.st, run.error);
}

/* Where a table in force sums stream-K in the workspace and the workspace holds the layer's rows
 * past the locks but not past those partial tiles too (a reload made them larger than the
 * workspace was sized for), a forward lays its areas out past the locks, and its GEMMs run whole
 * tiles (no room given for partials): a grouped forward is not refused for it (through the fake
 * layer it then stops at the GEMM's own checks), an indexed one takes its tokens in one pass. */
static void check_lean(fake_moe *f, const char *spec, int64_t m)
{
    const int indexed = f->moe.opts.gemm_type == HUM_GEMM_MOE_INDEXED;
    hum_workspace ws = {.rt = f->moe.rt, .lock_bytes = hum_workspace_lock_bytes(SMS)};
    const int64_t gemm = hum_moe_gemm_bytes_in(&f->moe, &ws);
    hum_moe_areas full, lean, got;
    hum_moe_areas_past(&f->moe, gemm, m, &full);
    hum_moe_areas_past(&f->moe, ws.lock_bytes, m, &lean);
    if (!RT_CHECK(gemm > ws.lock_bytes && lean.bytes < full.bytes, "%s: no partial tiles to leave out", spec))
        return;
    ws.bytes = full.bytes - 1;
    hum_moe_areas_in(&f->moe, &ws, gemm, m, &got);
    RT_CHECK(got.gemm == ws.lock_bytes && got.bytes == lean.bytes &&
                 !hum_workspace_partials(&ws, got.gemm, f->table[0]->partial_bytes + f->table[1]->partial_bytes),
             "%s, M = %lld: a workspace one byte short of %lld: areas past %lld bytes (expected the locks' %lld), "
             "%lld bytes", spec, (long long)m, (long long)full.bytes, (long long)got.gemm, (long long)ws.lock_bytes,
             (long long)got.bytes);
    ws.bytes = full.bytes;
    hum_moe_areas_in(&f->moe, &ws, gemm, m, &got);
    RT_CHECK(got.gemm == gemm && got.bytes == full.bytes, "%s, M = %lld: a workspace of the full %lld bytes: "
             "areas past %lld bytes (expected %lld)", spec, (long long)m, (long long)full.bytes,
             (long long)got.gemm, (long long)gemm);
    if (indexed)
        return;
    sizing_run run = {.moe = &f->moe, .m = m, .ws = {.rt = f->moe.rt, .bytes = full.bytes - 1,
                                                     .lock_bytes = ws.lock_bytes}};
    atomic_init(&run.done, 0);
    forward_sizing(&run);
    RT_CHECK(!strstr(run.error, "does not hold"), "%s, T = %lld: a grouped forward through a workspace one byte "
             "short of %lld, %lld past the locks alone, refused: %s", spec, (long long)m, (long long)full.bytes,
             (long long)lean.bytes, run.error);
}

/* The areas of the layer of `spec` under rt's policies at every M of MS. `sums`: a GEMM's table
 * sums stream-K slices in the workspace (so that its partial tiles are there to miss). */
static void check_areas(hum_runtime *rt, const char *spec, int sums)
{
    fake_moe f;
    if (!fake_moe_make(rt, spec, &f)) {
        fake_moe_free(&f);
        return;
    }
    const hum_layer_config *up = &f.gemm[0].plan.config;
    int64_t own[2] = {0, 0};
    for (int g = 0; g < 2; g++) {
        const hum_status st = hum_layer_workspace_size(&f.gemm[g], 0, &own[g]);
        RT_CHECK(st == HUM_OK, "%s: %s", spec, hum_last_error());
    }
    const int64_t share = own[0] > own[1] ? own[0] : own[1];
    /* an expert GEMM takes its A made: no rows of A at any max_m */
    for (int g = 0; g < 2; g++) {
        const int64_t ms[] = {1, 1000, INT64_MAX};
        for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++) {
            int64_t bytes = 0;
            const hum_status st = hum_layer_workspace_size(&f.gemm[g], ms[j], &bytes);
            RT_CHECK(st == HUM_OK && bytes == own[g], "%s: GEMM %d's workspace for max_m %lld: %lld bytes, status %d "
                     "(expected %lld, the locks and partial tiles)", spec, g, (long long)ms[j], (long long)bytes,
                     (int)st, (long long)own[g]);
        }
    }
    /* a forward sizes that share from the same tables, pinned through its workspace */
    hum_workspace fwd = {.rt = rt, .lock_bytes = hum_workspace_lock_bytes(SMS)};
    const int64_t pinned = hum_moe_gemm_bytes_in(&f.moe, &fwd);
    RT_CHECK(pinned == share, "%s: a forward's GEMMs' share %lld bytes, hum_moe_workspace_size's %lld", spec,
             (long long)pinned, (long long)share);
    RT_CHECK(!sums || f.table[0]->partial_bytes + f.table[1]->partial_bytes > 0,
             "%s: no partial tiles under the site policy", spec);
    const int64_t fan = f.moe.opts.gemm_type == HUM_GEMM_MOE_GROUPED_MASKED ? f.moe.experts : 1;
    for (size_t j = 0; j < sizeof MS / sizeof MS[0]; j++) {
        const int64_t m = MS[j];
        hum_moe_areas areas;
        int64_t bytes = 0;
        hum_status st = hum_moe_areas_of(&f.moe, m, &areas);
        if (st == HUM_OK)
            st = hum_moe_workspace_size(&f.moe, m, &bytes);
        if (!RT_CHECK(st == HUM_OK, "%s, M = %lld: %s", spec, (long long)m, hum_last_error()))
            continue;
        RT_CHECK(areas.gemm == share && bytes == areas.bytes,
                 "%s, M = %lld: the GEMMs' share %lld bytes (expected %lld: locks and partial tiles), the workspace "
                 "%lld of %lld", spec, (long long)m, (long long)areas.gemm, (long long)share, (long long)bytes,
                 (long long)areas.bytes);
        /* each GEMM's partial tiles where the layer's forward has it put them in a workspace of
         * these bytes (within the GEMMs' part); and those of a table a reload put in force after
         * the forward sized that part, more than it holds though the workspace has room for them
         * (over the hidden rows and beyond): nowhere */
        char *base = malloc((size_t)areas.bytes);
        if (!RT_CHECK(base != NULL, "out of memory"))
            continue;
        const hum_workspace ws = {.base = base, .bytes = areas.bytes, .lock_bytes = hum_workspace_lock_bytes(SMS)};
        const int64_t larger = areas.gemm - ws.lock_bytes + HUM_WORKSPACE_ALIGN;
        RT_CHECK(ws.lock_bytes + larger <= ws.bytes && !hum_workspace_partials(&ws, areas.gemm, larger),
                 "%s, M = %lld: %lld bytes of partial tiles a reload made larger than the GEMMs' part of %lld placed "
                 "(or no room for them in the workspace of %lld)", spec, (long long)m, (long long)larger,
                 (long long)areas.gemm, (long long)ws.bytes);
        for (int g = 0; g < 2; g++) {
            void *partials = hum_workspace_partials(&ws, areas.gemm, f.table[g]->partial_bytes);
            if (RT_CHECK(partials || !f.table[g]->partial_bytes, "%s, M = %lld: no room for GEMM %d's partial "
                         "tiles", spec, (long long)m, g)) {
                const int64_t end = partials ? (char *)partials - base + f.table[g]->partial_bytes : ws.lock_bytes;
                RT_CHECK(end <= areas.hidden, "%s, M = %lld: GEMM %d's partial tiles end at %lld, past the hidden "
                         "rows at %lld", spec, (long long)m, g, (long long)end, (long long)areas.hidden);
            }
        }
        free(base);
        /* an indexed layer quantizes each token's row once; a grouped one every row */
        const int64_t made = hidden_end(up, f.moe.opts.gemm_type == HUM_GEMM_MOE_INDEXED ? m : m * fan);
        RT_CHECK(areas.hidden + made <= areas.route, "%s, M = %lld: the hidden rows end at %lld, past the next area "
                 "at %lld", spec, (long long)m, (long long)(areas.hidden + made), (long long)areas.route);
    }
    if (sums)
        check_lean(&f, spec, 64);
    check_unblocked(&f, spec);
    fake_moe_free(&f);
}

/* The largest workspace hum_moe_workspace_size lets through, of a layer of `spec` whose gate/up
 * GEMM rounds the hidden rows through mxfp8 (rt: the mxfp8 override), made H = 2^30 wide so
 * that its size, not the tokens the layout can index, limits max_m: below INT64_MAX / 4 (the
 * fixed parts aside), which needs the bound to count 2H bytes a token's hidden row. */
static void check_size_bound(hum_runtime *rt, const char *spec)
{
    fake_device(rt);
    fake_moe f;
    if (!fake_moe_make(rt, spec, &f) ||
        !RT_CHECK(f.gemm[0].plan.config.a_round == HUM_A_ROUND_MXFP8, "%s: the gate/up GEMM does not round A",
                  spec)) {
        fake_moe_free(&f);
        return;
    }
    f.moe.hidden = f.gemm[0].plan.config.k = (int64_t)1 << 30;
    /* lo let through, hi not: past the most tokens a pass takes (hum_moe_max_tokens, which a
     * forward's chunks keep to as well) */
    int64_t lo = 1, hi = hum_moe_max_tokens(&f.moe) + 1, bytes = 0;
    const int ends = hum_moe_workspace_size(&f.moe, lo, &bytes) == HUM_OK &&
                     hum_moe_workspace_size(&f.moe, hi, &bytes) != HUM_OK;
    if (!RT_CHECK(ends, "%s, H = 2^30: max_m 1 refused, or %lld (past the most tokens) let through", spec,
                  (long long)hi)) {
        fake_moe_free(&f);
        return;
    }
    while (hi - lo > 1) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (hum_moe_workspace_size(&f.moe, mid, &bytes) == HUM_OK)
            lo = mid;
        else
            hi = mid;
    }
    hum_moe_areas areas;
    if (RT_CHECK(hum_moe_areas_of(&f.moe, lo, &areas) == HUM_OK, "%s, M = %lld", spec, (long long)lo))
        RT_CHECK(areas.bytes - areas.gemm <= INT64_MAX / 4, "%s, H = 2^30: max_m %lld let through takes %lld "
                 "bytes past the GEMMs' part, past INT64_MAX / 4", spec, (long long)lo,
                 (long long)(areas.bytes - areas.gemm));
    fake_moe_free(&f);
}

static const char *const SPECS[] = {
    /* H = 104: no 8-bit A on the gate/up GEMM, 8-bit on the down GEMM */
    "e=8,topk=2,n=256,k=104,w=e4m3,a=e4m3",
    "e=8,topk=2,n=256,k=104,w=e4m3,a=e4m3,gemm=grouped",
    "e=8,topk=2,n=256,k=104,w=e4m3,a=e4m3,gemm=masked",
    "e=8,topk=2,n=256,k=128,w=e4m3,a=e4m3",
    "e=8,topk=2,n=256,k=128,w=e4m3,a=e4m3,gemm=masked",
    "e=16,topk=4,n=512,k=256,w=e2m1,a=e4m3,group=32,scale=e8m0",
    "e=8,topk=2,n=256,k=128,w=uint8,a=int8",
    "e=8,topk=2,n=256,k=128,w=uint4,a=bfloat16,group=32",
    "e=8,topk=2,n=256,k=128,w=uint4,a=bfloat16,group=32,gemm=grouped",
};

/* Every spec of SPECS under rt's policies (`what`), on a device of SMS SMs. */
static void check_all(hum_runtime *rt, const char *what, int sums)
{
    if (!RT_CHECK(rt != NULL, "runtime (%s): %s", what, hum_last_error()))
        return;
    fake_device(rt);
    for (size_t i = 0; i < sizeof SPECS / sizeof SPECS[0]; i++)
        check_areas(rt, SPECS[i], sums);
    hum_runtime_destroy(rt);
}

int main(void)
{
    char dir[4096], site[4096];
    rt_tmpdir("moe-workspace", dir, sizeof dir);
    hum_runtime *rt = NULL;
    hum_runtime_create(NULL, &rt);
    check_all(rt, "the built-in policies", 0);
    rt_runtime_with_config(dir, RT_MOE_MXFP8_YAML, &rt);
    if (RT_CHECK(rt != NULL, "runtime (moe.activation = mxfp8): %s", hum_last_error()))
        check_size_bound(rt, "e=8,topk=1,n=256,k=128,w=uint4,a=bfloat16,group=32");
    check_all(rt, "moe.activation = mxfp8", 0);
    /* the site policy's directory holds the config that adds the mxfp8 override to it */
    check_all(gemm_test_workspace_sum_runtime("wgmma_ws", site, sizeof site), "stream-K summed in the workspace", 1);
    rt_runtime_with_config(site, "policy_paths: [site.lua]\n" RT_MOE_MXFP8_YAML, &rt);
    check_all(rt, "stream-K summed in the workspace, moe.activation = mxfp8", 1);
    rt_rmtree(site);
    rt_rmtree(dir);
    return rt_test_result("test_moe_workspace");
}
