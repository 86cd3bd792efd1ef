/* hum_moe_prepare: both expert GEMMs planned together (plan_layer: the facts of both their
 * policy plans from, then the one check that ties their tables, a shared block_m,
 * hum_layer_check_block_m in layer_reload.c, which policy reloads apply too), as hum_moe_compile
 * and hum_moe_describe_spec plan them; then the GEMMs prepared on two threads while this one
 * compiles the kernels around them, and the pair tied; and the workspace sizes. */
#include "moe.h"

#include "internal.h"
#include "gemm_variant.h"
#include "layer.h"
#include "lua_bridge.h"
#include "workspace.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct gemm_job {
    hum_layer *gemm;
    const hum_device_info *dev;
    const hum_layer_plan *plan; /* planned (plan_layer) */
    double t0;                  /* when its planning began */
    hum_status st;
    char error[512];
} gemm_job;

static void *prepare_gemm(void *arg)
{
    gemm_job *j = arg;
    j->st = hum_layer_prepare_planned(j->gemm, j->dev, j->plan, j->t0);
    if (j->st != HUM_OK) /* the message is thread-local: carried back to the caller's thread */
        snprintf(j->error, sizeof j->error, "%s", hum_last_error());
    return NULL;
}

static const char *const WHAT[2] = {"the gate/up projection (w13)", "the down projection (w2)"};

/* The facts of the MoE layer its policy picks each range's block_m from (ComputeConfig moe_*),
 * over both GEMMs, into plans[0..1].compute (inputs, GEMM type and target filled): each GEMM's
 * own as lua/hum/layer.lua derives them (its activation type decided), then combined, so that
 * what one GEMM's K decides alone (wgmma takes multiples of 8, 8-bit A of 16) cannot give the
 * two GEMMs different blocks. */
static hum_status share_facts(hum_runtime *rt, hum_layer_plan plans[2])
{
    hum_compute_config both;
    memset(&both, 0, sizeof both);
    for (int i = 0; i < 2; i++) {
        hum_layer_plan own = plans[i];
        own.compute.moe_weight_bits = 0;
        const hum_status st = hum_lua_call(rt, "hum.layer", "derive", "hum_layer_plan *", &own);
        if (st != HUM_OK)
            return hum_fail_context(st, "%s", WHAT[i]);
        const hum_compute_config *c = &own.compute;
        both.moe_wgmma = (i == 0 || both.moe_wgmma) && c->moe_wgmma;
        both.moe_a8 = both.moe_a8 || c->moe_a8;
        if (c->moe_weight_bits > both.moe_weight_bits)
            both.moe_weight_bits = c->moe_weight_bits;
        if (i == 0 || c->moe_kernel_group < both.moe_kernel_group)
            both.moe_kernel_group = c->moe_kernel_group;
        if (c->moe_kscale_k && (!both.moe_kscale_k || c->moe_kscale_k < both.moe_kscale_k))
            both.moe_kscale_k = c->moe_kscale_k;
    }
    for (int i = 0; i < 2; i++) {
        hum_compute_config *c = &plans[i].compute;
        c->moe_wgmma = both.moe_wgmma;
        c->moe_a8 = both.moe_a8;
        c->moe_weight_bits = both.moe_weight_bits;
        c->moe_kernel_group = both.moe_kernel_group;
        c->moe_kscale_k = both.moe_kscale_k;
    }
    return HUM_OK;
}

/* Both GEMMs of a MoE layer of GEMM type `type` planned from plans[0..1] (inputs filled) for the
 * nominal device of `arch`, or with arch NULL for the GPU `dev`: the facts of both shared
 * (share_facts), each GEMM's table planned, and an indexed layer's two tables checked to give
 * every range one block_m (hum_layer_check_block_m; *block_m_max: the largest, else 0). The one
 * way hum_moe_prepare, hum_moe_compile(_spec) and hum_moe_describe_spec plan a layer. */
static hum_status plan_layer(hum_runtime *rt, hum_gemm_type type, const char *arch, const hum_device_info *dev,
                             hum_layer_plan plans[2], int32_t *block_m_max)
{
    *block_m_max = 0;
    hum_status st = HUM_OK;
    for (int i = 0; st == HUM_OK && i < 2; i++) {
        plans[i].compute.gemm_type = type;
        if (arch)
            snprintf(plans[i].arch, sizeof plans[i].arch, "%s", arch);
        else
            st = hum_layer_plan_target(dev, &plans[i]);
    }
    /* an arch without a nominal device, once: no fault of either GEMM */
    if (st == HUM_OK && arch)
        st = hum_lua_call(rt, "hum.layer", "check_target", "hum_layer_plan *", &plans[0]);
    if (st == HUM_OK)
        st = share_facts(rt, plans);
    for (int i = 0; st == HUM_OK && i < 2; i++)
        if ((st = hum_layer_run_plan(rt, &plans[i], 0)) != HUM_OK)
            st = hum_fail_context(st, "%s", WHAT[i]);
    if (st == HUM_OK && type == HUM_GEMM_MOE_INDEXED)
        st = hum_layer_check_block_m(&plans[0], &plans[1], block_m_max);
    return st;
}

/* The kernels around the GEMMs: the routing layout's, then the activation and the combine. */
enum { AROUND = HUM_MOE_ALIGN_KERNELS + HUM_MOE_LAYER_KERNELS, ACT = HUM_MOE_ALIGN_KERNELS, COMBINE = ACT + 1 };
/* Which of them a compile takes: the activation depends on the down GEMM's plan (the A type it
 * writes), the others do not. */
enum { WITH_ACT = 1, WITH_REST = 2 };

/* Compiles the kernels around the GEMMs that `parts` names (the activation writing the A of
 * the down GEMM of config `down`, NULL without WITH_ACT) of the layer's shape for `arch` into
 * their places of res[AROUND], which the caller zeroed and frees; counts the NVRTC runs and
 * cache hits when asked. */
static hum_status compile_around(const hum_moe *moe, const char *arch, const hum_layer_config *down, int parts,
                                 hum_jit_result res[AROUND], int32_t *compiled, int32_t *cached)
{
    hum_jit_request all[AROUND], reqs[AROUND];
    hum_jit_result got[AROUND];
    int at[AROUND], n = 0;
    char constants[HUM_MOE_CONSTANTS_CAP];
    const hum_moe_shape shape = {moe->opts.activation, moe->opts.gate_up == HUM_MOE_GATE_UP_INTERLEAVED,
                                 moe->activation_dtype == HUM_DTYPE_BFLOAT16, moe->opts.gemm_type, moe->hidden,
                                 moe->intermediate, moe->experts,
                                 down ? down->a_dtype : HUM_DTYPE_INVALID,
                                 down && hum_gemm_a8(down) ? (int32_t)down->a_group : 0,
                                 down && hum_gemm_a8(down) ? hum_gemm_a_scale_dtype(down) : HUM_DTYPE_INVALID,
                                 down ? down->a_round : HUM_A_ROUND_NONE};
    hum_moe_align_requests(arch, all);
    hum_moe_kernel_requests(&shape, arch, constants, all + ACT);
    for (int i = 0; i < AROUND; i++)
        if (parts & (i == ACT ? WITH_ACT : WITH_REST)) {
            at[n] = i;
            reqs[n++] = all[i];
        }
    memset(got, 0, sizeof got);
    const hum_status st = hum_jit_compile_many(hum_runtime_cache_dir(moe->rt), reqs, n, got, 0);
    for (int i = 0; i < n; i++) {
        res[at[i]] = got[i];
        if (st == HUM_OK && compiled)
            ++*(got[i].cache_hit == HUM_JIT_MISS ? compiled : cached);
    }
    return st;
}

hum_status hum_moe_prepare(hum_moe *moe)
{
    if (!moe)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_prepare: NULL layer");
    if (moe->prepared)
        return HUM_OK;
    const double t0 = now_ms();
    hum_device_info dev;
    char arch[16];
    hum_status st = hum_runtime_device(moe->rt, &dev);
    if (st == HUM_OK)
        st = hum_arch_for_device(&dev, arch, sizeof arch);
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_moe_prepare");

    const hum_layer_options up = hum_moe_gemm_options(moe, 1), down = hum_moe_gemm_options(moe, 0);
    gemm_job jobs[2];
    memset(jobs, 0, sizeof jobs);
    const hum_gemm_type type = (hum_gemm_type)moe->opts.gemm_type;
    st = hum_expert_gemm_from_standard(moe->rt, &moe->w13, &up, type, &jobs[0].gemm);
    if (st == HUM_OK)
        st = hum_expert_gemm_from_standard(moe->rt, &moe->w2, &down, type, &jobs[1].gemm);
    hum_layer_plan plans[2];
    memset(plans, 0, sizeof plans);
    for (int i = 0; st == HUM_OK && i < 2; i++)
        hum_layer_plan_inputs(&jobs[i].gemm->weight, &jobs[i].gemm->types, &plans[i]);
    const double planning = now_ms();
    int32_t block_m_max = 0;
    if (st == HUM_OK)
        st = plan_layer(moe->rt, type, NULL, &dev, plans, &block_m_max);
    const double planned = now_ms();
    for (int i = 0; st == HUM_OK && i < 2; i++) {
        jobs[i].dev = &dev;
        jobs[i].plan = &plans[i];
        jobs[i].t0 = planning;
        jobs[i].gemm->plan_ms = planned - planning;
    }
    pthread_t threads[2];
    int started[2] = {0, 0};
    for (int i = 0; st == HUM_OK && i < 2; i++) {
        const int rc = pthread_create(&threads[i], NULL, prepare_gemm, &jobs[i]);
        started[i] = rc == 0;
        if (rc != 0)
            st = hum_fail(HUM_ERR_INTERNAL, "%s: no thread to prepare it on (pthread_create: %s)", WHAT[i],
                          strerror(rc));
    }

    /* meanwhile, here: the routing layout and the combine; the activation once the down GEMM's
     * plan says which A type it writes */
    hum_jit_result res[AROUND];
    memset(res, 0, sizeof res);
    hum_moe_align_kernels align;
    memset(&align, 0, sizeof align);
    hum_kernel *act = NULL, *combine = NULL;
    hum_status kst = st;
    if (kst == HUM_OK)
        kst = compile_around(moe, arch, NULL, WITH_REST, res, NULL, NULL);
    if (kst == HUM_OK)
        kst = hum_moe_align_load(dev.ordinal, res, &align);
    if (kst == HUM_OK)
        kst = hum_kernel_load(dev.ordinal, &res[COMBINE], 0, &combine);

    for (int i = 0; i < 2; i++) {
        if (started[i])
            pthread_join(threads[i], NULL);
        if (st == HUM_OK && jobs[i].st != HUM_OK) /* both started */
            st = hum_fail(jobs[i].st, "%s: %s", WHAT[i], jobs[i].error);
    }
    if (st == HUM_OK && kst == HUM_OK)
        kst = compile_around(moe, arch, &jobs[1].gemm->plan.config, WITH_ACT, res, NULL, NULL);
    if (st == HUM_OK && kst == HUM_OK)
        kst = hum_kernel_load(dev.ordinal, &res[ACT], 0, &act);
    for (int i = 0; i < AROUND; i++)
        hum_jit_result_free(&res[i]);
    if (st == HUM_OK && kst != HUM_OK)
        st = hum_fail_context(kst, "the kernels around the expert GEMMs");
    /* the tables in force now: a reload may have replaced them since they were planned */
    if (st == HUM_OK && type == HUM_GEMM_MOE_INDEXED)
        st = hum_layer_pair_experts(jobs[0].gemm, jobs[1].gemm, &block_m_max);
    if (st != HUM_OK) {
        hum_layer_destroy(jobs[0].gemm);
        hum_layer_destroy(jobs[1].gemm);
        hum_moe_align_unload(&align);
        hum_kernel_destroy(act);
        hum_kernel_destroy(combine);
        return hum_fail_context(st, "hum_moe_prepare");
    }
    moe->gate_up = jobs[0].gemm;
    moe->down = jobs[1].gemm;
    moe->align = align;
    moe->act = act;
    moe->combine = combine;
    moe->sm_count = dev.sm_count;
    moe->block_m_max = block_m_max;
    moe->prepared = 1;
    hum_standard_free(&moe->w13);
    hum_standard_free(&moe->w2);
    moe->prepare_ms = now_ms() - t0;
    return HUM_OK;
}


int64_t hum_moe_max_tokens(const hum_moe *moe)
{
    int64_t most = moe->opts.gemm_type == HUM_GEMM_MOE_GROUPED_MASKED       ? INT32_MAX / moe->experts
                   : moe->opts.gemm_type == HUM_GEMM_MOE_GROUPED_CONTIGUOUS ? INT32_MAX
                                                                            : (INT32_MAX - moe->experts * moe->block_m_max) /
                                                                                  moe->opts.top_k;
    /* the bytes of a slot (a grouped layer's: of a row, E per masked T) bound every size this
     * lets through below INT64_MAX / 4, the fixed parts aside: the rows between the steps take
     * at most 2 (2I + I + H) + 16 bytes per slot and their scales (at most 4 per 8 columns), and
     * a token's hidden row made for the gate/up GEMM at most 2H bytes (16-bit, rounded through
     * mxfp8; 8-bit codes take H rounded up to 16, with their scales) */
    const int64_t per_slot = 2 * (3 * moe->intermediate + 2 * moe->hidden) + 36 +
                             (moe->intermediate + moe->hidden) / 2;
    const int64_t fan = moe->opts.gemm_type == HUM_GEMM_MOE_INDEXED       ? moe->opts.top_k
                        : moe->opts.gemm_type == HUM_GEMM_MOE_GROUPED_MASKED ? moe->experts
                                                                              : 1;
    const int64_t sized = (INT64_MAX / 4) / per_slot / fan;
    return most < sized ? most : sized;
}

int hum_moe_makes_hidden(const hum_moe *moe)
{
    return hum_gemm_quantizes_a(&moe->gate_up->plan.config) && !moe->opts.hidden_dtype;
}

void hum_moe_areas_past(const hum_moe *moe, int64_t gemm, int64_t m, hum_moe_areas *areas)
{
    const int indexed = moe->opts.gemm_type == HUM_GEMM_MOE_INDEXED;
    /* the rows between the steps: routed slots, or a grouped forward's rows */
    const int64_t rows = indexed ? m * moe->opts.top_k
                         : moe->opts.gemm_type == HUM_GEMM_MOE_GROUPED_MASKED ? m * moe->experts : m;
    const int64_t I = moe->intermediate;
    const hum_layer_config *up = &moe->gate_up->plan.config;
    const int down8 = hum_gemm_a8(&moe->down->plan.config);
    areas->gemm = gemm;
    /* past the partial tiles, which the gate/up GEMM's stream-K slices write while it reads
     * these rows */
    areas->hidden = areas->gemm;
    /* grouped: no routing layout, and the down GEMM writes out itself; an 8-bit down GEMM's A
     * is the activation's codes and their scales (per row, or per group of columns) */
    areas->route = areas->hidden + (hum_moe_makes_hidden(moe) ? hum_workspace_rows_bytes(up, indexed ? m : rows) : 0);
    areas->inter =
        areas->route + (indexed ? hum_moe_route_bytes(rows, (int32_t)moe->experts, moe->block_m_max) : 0);
    areas->act = areas->inter + hum_workspace_round_up(rows * hum_moe_gated(moe->opts.activation) * I * 2);
    areas->act_scale = down8 ? areas->act + hum_workspace_round_up(rows * I) : 0;
    areas->y = down8 ? areas->act_scale + hum_workspace_round_up(hum_moe_act_scale_bytes(&moe->down->plan.config, rows))
                     : areas->act + hum_workspace_round_up(rows * I * 2);
    areas->bytes = areas->y + (indexed ? hum_workspace_round_up(rows * moe->hidden * 2) : 0);
}

/* The GEMMs' own part: their locks and partial tiles (workspace.h); each takes its A made. */
static int64_t gemm_part(int64_t gate_up, int64_t down)
{
    return gate_up > down ? gate_up : down;
}

hum_status hum_moe_areas_of(const hum_moe *moe, int64_t m, hum_moe_areas *areas)
{
    int64_t a = 0, b = 0;
    hum_status st = hum_layer_workspace_size(moe->gate_up, 0, &a);
    if (st == HUM_OK)
        st = hum_layer_workspace_size(moe->down, 0, &b);
    if (st != HUM_OK)
        return st;
    hum_moe_areas_past(moe, gemm_part(a, b), m, areas);
    return HUM_OK;
}

void hum_moe_areas_in(const hum_moe *moe, const hum_workspace *ws, int64_t gemm, int64_t m, hum_moe_areas *areas)
{
    hum_moe_areas_past(moe, gemm, m, areas);
    if (areas->bytes <= ws->bytes || gemm <= ws->lock_bytes)
        return;
    /* partial tiles larger than the workspace was sized for (a reload put a table summing
     * stream-K in the workspace in force since): the GEMMs run whole tiles instead
     * (hum_expert_gemm_forward_in), as a dense forward does in a workspace short of its
     * partials, rather than the forward taking more passes or being refused */
    hum_moe_areas lean;
    hum_moe_areas_past(moe, ws->lock_bytes, m, &lean);
    if (lean.bytes <= ws->bytes)
        *areas = lean;
}

int64_t hum_moe_gemm_bytes_in(const hum_moe *moe, hum_workspace *ws)
{
    /* A reload may replace either table as soon as it is unpinned: sizing from the replaced one
     * is safe all the same, since each GEMM puts the partial tiles of the table it pins at
     * launch only within the part given here (hum_expert_gemm_forward_in), and without room
     * there runs without stream-K summed in the workspace, never over the areas past it. */
    return gemm_part(hum_expert_gemm_bytes_in(moe->gate_up, ws), hum_expert_gemm_bytes_in(moe->down, ws));
}

hum_status hum_moe_workspace_size(const hum_moe *moe, int64_t max_m, int64_t *bytes)
{
    if (!moe || !bytes)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_workspace_size: NULL %s", !moe ? "layer" : "bytes");
    *bytes = 0;
    if (!moe->prepared)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_workspace_size: the layer is not prepared (hum_moe_prepare)");
    const int64_t limit = hum_moe_max_tokens(moe);
    if (max_m < 1 || max_m > limit)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_workspace_size: max_m %lld (expected 1 .. %lld)",
                        (long long)max_m, (long long)limit);
    hum_moe_areas areas;
    hum_status st = hum_moe_areas_of(moe, max_m, &areas);
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_moe_workspace_size");
    *bytes = areas.bytes;
    return HUM_OK;
}

/* Both GEMMs' tables planned for `arch` from the configs in plans[2] (inputs set, plan_layer)
 * and compiled, and the kernels around them compiled. */
static hum_status compile_layer(const hum_moe *moe, hum_layer_plan plans[2], const char *arch,
                                hum_moe_compile_info *out)
{
    const double t0 = now_ms();
    hum_layer_info *info[2] = {&out->gate_up, &out->down};
    char *note[2] = {out->gate_up_activation, out->down_activation};
    int32_t block_m_max;
    hum_status st = plan_layer(moe->rt, (hum_gemm_type)moe->opts.gemm_type, arch, NULL, plans, &block_m_max);
    for (int i = 0; st == HUM_OK && i < 2; i++) {
        if ((st = hum_layer_compile_planned(moe->rt, &plans[i], t0, info[i])) != HUM_OK)
            st = hum_fail_context(st, "%s", WHAT[i]);
        else
            snprintf(note[i], sizeof out->gate_up_activation, "%s", plans[i].activation);
    }
    hum_jit_result res[AROUND];
    memset(res, 0, sizeof res);
    int32_t compiled = 0, cached = 0;
    if (st == HUM_OK)
        st = compile_around(moe, arch, &out->down.config, WITH_ACT | WITH_REST, res, &compiled, &cached);
    for (int i = 0; i < AROUND; i++)
        hum_jit_result_free(&res[i]);
    out->kernels_compiled = out->gate_up.kernels_compiled + out->down.kernels_compiled + compiled;
    out->kernels_cached = out->gate_up.kernels_cached + out->down.kernels_cached + cached;
    out->compile_ms = now_ms() - t0;
    return st;
}

hum_status hum_moe_compile(hum_runtime *rt, const hum_standard_weight *w13, const hum_standard_weight *w2,
                           const hum_moe_options *opts, const char *arch, hum_moe_compile_info *out)
{
    if (!out || !arch)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_compile: NULL %s", !out ? "out" : "arch");
    memset(out, 0, sizeof *out);
    hum_moe *moe = NULL;
    hum_status st = hum_arch_check(arch);
    if (st == HUM_OK)
        st = hum_moe_from_standard(rt, w13, w2, opts, &moe); /* every check of the layer, and its shard */
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_moe_compile");
    hum_layer_plan plans[2];
    memset(plans, 0, sizeof plans);
    const hum_standard_weight *w[2] = {&moe->w13, &moe->w2};
    for (int i = 0; st == HUM_OK && i < 2; i++) {
        hum_layer_types types;
        const hum_layer_options lo = hum_moe_gemm_options(moe, i == 0);
        if ((st = hum_layer_check_weight(w[i], &lo, (hum_gemm_type)moe->opts.gemm_type, &types)) == HUM_OK)
            hum_layer_plan_inputs(w[i], &types, &plans[i]);
    }
    if (st == HUM_OK)
        st = compile_layer(moe, plans, arch, out);
    hum_moe_destroy(moe);
    return st == HUM_OK ? HUM_OK : hum_fail_context(st, "hum_moe_compile for %s", arch);
}

/* The inputs of both GEMMs' plans of the layer of a spec (its shapes and types alone). */
static void spec_plans(const hum_moe_spec *spec, hum_layer_plan plans[2])
{
    hum_layer_spec down;
    hum_moe_spec_down(spec, &down);
    memset(plans, 0, 2 * sizeof *plans);
    hum_layer_spec_config(&spec->gate_up, &plans[0].config);
    hum_layer_spec_config(&down, &plans[1].config);
    for (int i = 0; i < 2; i++)
        plans[i].config.num_experts = spec->experts;
}

hum_status hum_moe_compile_spec(hum_runtime *rt, const hum_moe_spec *spec, const char *arch, hum_moe_compile_info *out)
{
    if (!rt || !spec || !arch || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_compile_spec: NULL %s",
                        !rt ? "runtime" : !spec ? "spec" : !arch ? "arch" : "out");
    memset(out, 0, sizeof *out);
    hum_layer_spec down;
    hum_moe_spec_down(spec, &down);
    hum_status st = hum_arch_check(arch);
    if (st == HUM_OK)
        st = hum_moe_spec_check(spec);
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_moe_compile_spec");
    /* the layer of the spec, without its weights: only its shape and options are read */
    hum_moe moe = {.rt = rt, .activation_dtype = spec->gate_up.output_dtype, .experts = spec->experts,
                   .hidden = spec->gate_up.k, .intermediate = down.k};
    hum_moe_options_init(&moe.opts);
    moe.opts.activation = spec->activation;
    moe.opts.gate_up = spec->gate_up_layout;
    moe.opts.top_k = spec->top_k;
    moe.opts.gemm_type = spec->gemm_type;
    hum_layer_plan plans[2];
    spec_plans(spec, plans);
    st = compile_layer(&moe, plans, arch, out);
    return st == HUM_OK ? HUM_OK : hum_fail_context(st, "hum_moe_compile_spec for %s", arch);
}

hum_status hum_moe_describe_spec(hum_runtime *rt, const hum_moe_spec *spec, const char *arch, hum_layer_dispatch out[2])
{
    if (!rt || !spec || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_describe_spec: NULL %s", !rt ? "runtime" : !spec ? "spec" : "out");
    memset(out, 0, 2 * sizeof *out);
    hum_status st = hum_moe_spec_check(spec);
    hum_layer_plan plans[2];
    spec_plans(spec, plans);
    hum_device_info dev;
    int32_t block_m_max;
    if (st == HUM_OK)
        st = arch ? hum_arch_check(arch) : hum_runtime_device(rt, &dev);
    if (st == HUM_OK)
        st = plan_layer(rt, spec->gemm_type, arch, arch ? NULL : &dev, plans, &block_m_max);
    for (int i = 0; st == HUM_OK && i < 2; i++)
        if ((st = hum_layer_plan_describe(&plans[i], &out[i])) != HUM_OK)
            st = hum_fail_context(st, "%s", WHAT[i]);
    if (st != HUM_OK) {
        memset(out, 0, 2 * sizeof *out);
        return hum_fail_context(st, "hum_moe_describe_spec%s%s", arch ? " for " : "", arch ? arch : "");
    }
    return HUM_OK;
}
