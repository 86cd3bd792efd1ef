/* Planning without a GPU or a compile (runtime/src/layer_plan.c): the dispatch tables of the
 * built-in policies for 30 SPECs (planned from their shapes) on sm_75, sm_80, sm_86, sm_89 and
 * sm_90a equal those planned before planning moved to C (tests/data/dispatch_tables.txt); a site
 * policy's tuning that breaks a rule is refused naming the policy file, its line, the M range and
 * the rule; each entry keeps the line its tuning was written on; equal neighbours merge; a
 * workspace sized for M quantized rows holds them (check_workspace_rows); the tuning fields the
 * data file leaves out (where C is staged, A multicast) on sm_90a's largest tiles. */
#define _POSIX_C_SOURCE 200809L
#include "hum/hum.h"
#include "layer.h"
#include "rt_test.h"
#include "workspace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plans `spec` for `arch` from its shapes alone (hum_layer_spec_config) and prints the table as
 * the data file has it, into out. */
static void describe(hum_runtime *rt, const char *arch, const char *spec, char *out, size_t cap)
{
    hum_layer_spec s;
    if (hum_layer_spec_parse(spec, &s) != HUM_OK) {
        snprintf(out, cap, "%s %s: bad spec %s\n", arch, spec, hum_last_error());
        return;
    }
    hum_layer_plan plan;
    memset(&plan, 0, sizeof plan);
    hum_layer_spec_config(&s, &plan.config);
    snprintf(plan.arch, sizeof plan.arch, "%s", arch);
    const hum_status st = hum_layer_run_plan(rt, &plan, 0);
    size_t len = (size_t)snprintf(out, cap, "%s %s: ", arch, spec);
    if (st != HUM_OK)
        snprintf(out + len, cap - len, "error %d\n", st);
    else
        len += (size_t)snprintf(out + len, cap - len, "%s\n", plan.policy_name);
    for (int32_t i = 0; st == HUM_OK && i < plan.entry_count && len < cap; i++) {
        const hum_tuning *t = &plan.entries[i];
        len += (size_t)snprintf(out + len, cap - len, "  %lld..%lld k%d %dx%dx%d %dx%dx%d s%d sk%d c%d sks%d wf%d ss%d gm%d\n",
                                (long long)t->m_min, (long long)t->m_max, t->kernel, t->block_m, t->block_n,
                                t->block_k, t->warp_m, t->warp_n, t->warp_k, t->stages, t->stream_k, t->ctas_per_sm,
                                t->stream_k_sum, t->whole_fill, t->weights_ss, t->group_m);
    }
}

/* The next line of f into line (size bytes): 1, or 0 at the end of the file and where the line does
 * not fit (a failed check naming it: cut, its rest would read as lines of their own). */
static int read_line(FILE *f, char *line, int size)
{
    if (!fgets(line, size, f))
        return 0;
    const size_t n = strlen(line);
    return RT_CHECK(n + 1 < (size_t)size || line[n - 1] == '\n' || feof(f),
                    "tests/data/dispatch_tables.txt: a line longer than %d bytes, starting '%.60s'", size - 2, line);
}

static void check_builtin_tables(hum_runtime *rt)
{
    FILE *f = fopen(HUM_SOURCE_DIR "/tests/data/dispatch_tables.txt", "r");
    if (!RT_CHECK(f != NULL, "cannot open tests/data/dispatch_tables.txt"))
        return;
    char line[512], want[4096] = "", arch[16], spec[256];
    int cases = 0;
    for (int more = read_line(f, line, sizeof line); more;) {
        if (line[0] == '#') {
            more = read_line(f, line, sizeof line);
            continue;
        }
        /* one case: its header line, then its entry lines */
        char *colon = strstr(line, ": ");
        if (!RT_CHECK(colon && sscanf(line, "%15s", arch) == 1, "data line '%s'", line))
            break;
        snprintf(spec, sizeof spec, "%.*s", (int)(colon - line - strlen(arch) - 1), line + strlen(arch) + 1);
        snprintf(want, sizeof want, "%s", line);
        while ((more = read_line(f, line, sizeof line)) && line[0] == ' ')
            strncat(want, line, sizeof want - strlen(want) - 1);
        char got[4096];
        describe(rt, arch, spec, got, sizeof got);
        RT_CHECK(strcmp(got, want) == 0, "table changed:\n--- planned before\n%s--- planned now\n%s", want, got);
        cases++;
    }
    fclose(f);
    RT_CHECK(cases == 153, "%d cases in tests/data/dispatch_tables.txt (153 expected)", cases);
}

/* The fields tests/data/dispatch_tables.txt leaves out, on sm_90a's last entry: the whole 256-row
 * tiles of 16-bit A and integer codes above M = 384 stage C in the last stage's slot, 8-bit codes
 * with A multicast (policies/sm90.lua, bench/NOTES.md "Session 26 (lead)"), act-order layers too,
 * 2-bit codes on three stages ("Session 29 (lead)"), 3- and 4-bit codes on three without
 * multicast, narrow layers too ("Session 48 (lead)"); e2m1 codes keep a C tile of their own and
 * two stages; W8A8 e4m3's 192-row tiles above M = 1024, under stream-K, stage C on five without
 * multicast. */
static void check_last_entry_fields(hum_runtime *rt)
{
    static const struct {
        const char *spec;
        int block_m, stream_k, c_tile, multicast_a, stages;
    } cases[] = {{"n=8192,k=8192,w=uint8,a=float16", 256, 0, 1, 1, 5},
                 {"n=8192,k=8192,w=uint8,a=bfloat16,group=128,actorder=1", 256, 0, 1, 1, 5},
                 {"n=8192,k=8192,w=uint4,a=float16,group=128", 256, 0, 1, 0, 3},
                 {"n=4096,k=14336,w=uint4,a=float16,group=128", 256, 0, 1, 0, 3},
                 {"n=8192,k=8192,w=e2m1,a=bfloat16,group=32,scale=e8m0", 256, 0, 0, 0, 2},
                 {"n=8192,k=8192,w=uint2,a=float16", 256, 0, 1, 1, 3},
                 {"n=8192,k=8192,w=e4m3,a=e4m3", 192, 1, 1, 0, 5}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hum_layer_spec s;
        hum_layer_plan plan;
        memset(&plan, 0, sizeof plan);
        if (!RT_CHECK(hum_layer_spec_parse(cases[i].spec, &s) == HUM_OK, "%s: %s", cases[i].spec, hum_last_error()))
            continue;
        hum_layer_spec_config(&s, &plan.config);
        snprintf(plan.arch, sizeof plan.arch, "sm_90a");
        if (!RT_CHECK(hum_layer_run_plan(rt, &plan, 0) == HUM_OK && plan.entry_count > 0, "%s: %s", cases[i].spec,
                      hum_last_error()))
            continue;
        const hum_tuning *t = &plan.entries[plan.entry_count - 1];
        RT_CHECK(t->m_min > 384 && t->kernel == HUM_GEMM_KERNEL_WGMMA_WS && t->block_m == cases[i].block_m &&
                     t->stream_k == cases[i].stream_k && t->c_tile == cases[i].c_tile &&
                     t->multicast_a == cases[i].multicast_a && t->stages == cases[i].stages,
                 "%s, sm_90a M %lld..: kernel %d block_m %d stream-K %d c_tile %d multicast_a %d stages %d, expected "
                 "wgmma_ws, block_m %d stream-K %d c_tile %d multicast_a %d stages %d",
                 cases[i].spec, (long long)t->m_min, t->kernel, t->block_m, t->stream_k, t->c_tile, t->multicast_a,
                 t->stages, cases[i].block_m, cases[i].stream_k, cases[i].c_tile, cases[i].multicast_a,
                 cases[i].stages);
    }
}

/* A site policy of one file whose tunings come from `rows` (Lua, one per line from line 5). */
static hum_runtime *site_runtime(const char *dir, const char *rows)
{
    char text[2048];
    snprintf(text, sizeof text,
             "local policy = require('hum.policy')\n"
             "local mma = policy.mma_tuning\n"
             "return { name = 'site', applies = function() return true end,\n"
             "  tunings = function(device, layer) return policy.ranges({\n"
             "%s\n"
             "  }) end }\n",
             rows);
    rt_write(dir, "site.lua", text);
    const char *config = rt_write(dir, "hum.yaml", "policy_paths: [site.lua]\n");
    hum_runtime_options opts;
    hum_runtime_options_init(&opts);
    opts.config_path = config;
    hum_runtime *rt = NULL;
    RT_CHECK(hum_runtime_create(&opts, &rt) == HUM_OK, "site runtime: %s", hum_last_error());
    return rt;
}

static hum_status plan_spec(hum_runtime *rt, const char *spec, const char *arch, hum_layer_plan *plan)
{
    hum_layer_spec s;
    hum_standard_weight w;
    if (!RT_CHECK(hum_layer_spec_parse(spec, &s) == HUM_OK && hum_layer_spec_weight(&s, 1, &w) == HUM_OK, "%s: %s",
                  spec, hum_last_error()))
        return HUM_ERR_INTERNAL;
    memset(plan, 0, sizeof *plan);
    /* the host passes 16-bit A in the output dtype (an 8-bit a= is the weight's scheme) */
    const hum_layer_types types = {s.output_dtype, s.output_dtype, 0};
    hum_layer_plan_inputs(&w, &types, plan);
    snprintf(plan->arch, sizeof plan->arch, "%s", arch);
    const hum_status st = hum_layer_run_plan(rt, plan, 0);
    hum_standard_free(&w);
    return st;
}

static void check_site_rules(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/site.lua:", dir);
    static const struct {
        const char *rows, *spec, *arch;
        hum_status status;
        const char *where, *rule;
    } cases[] = {
        {"{ 16, mma(16, 128, 64, 16, 32, 64, 3) },\n{ math.huge, mma(64, 96, 64, 64, 32, 64, 3) },", "n=256,k=256",
         "sm_80", HUM_ERR_POLICY, "6), M 17..inf", "block_n = 96, block_k = 64: expected powers of two >= 16"},
        {"{ math.huge, mma(64, 128, 64, 64, 32, 64, 1) },", "n=256,k=256", "sm_80", HUM_ERR_POLICY, "5), M 1..inf",
         "stages = 1: expected an integer in 2..8"},
        {"{ 16, mma(16, 128, 64, 48, 32, 64, 3) },\n{ math.huge, mma(64, 128, 64, 64, 32, 64, 3) },", "n=256,k=256",
         "sm_80", HUM_ERR_POLICY, "5), M 1..16", "block_m = 16 is not warp_m = 48 times a power of two"},
        {"{ math.huge, mma(64, 256, 256, 64, 64, 128, 8, 8) },", "n=4096,k=4096", "sm_80", HUM_ERR_UNSUPPORTED,
         "5), M 1..inf", "8 CTAs of"},
        {"{ 32, mma(32, 128, 64, 32, 32, 64, 3) },\n{ math.huge, (function() local t = mma(64, 128, 64, 64, 16, 64, 4)"
         " t.kernel = 'wgmma' return t end)() },",
         "n=256,k=250", "sm_90a", HUM_ERR_UNSUPPORTED, "6), M 33..inf", "wgmma kernel: K 250 is not a multiple of 8"},
        {"{ math.huge, (function() local t = mma(64, 128, 64, 64, 16, 64, 4) t.kernel = 'wgmma' return t end)() },",
         "n=256,k=256", "sm_89", HUM_ERR_UNSUPPORTED, "5), M 1..inf", "the wgmma kernel runs on sm_90a only"},
        {"{ math.huge, mma(24, 128, 64, 24, 32, 64, 3) },", "n=256,k=256", "sm_80", HUM_ERR_UNSUPPORTED,
         "5), M 1..inf", "warp M 24 (expected 8, the weights as the m16 operand, or a multiple of 16"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hum_runtime *rt = site_runtime(dir, cases[i].rows);
        if (!rt)
            continue;
        hum_layer_plan plan;
        RT_EXPECT_ERROR(plan_spec(rt, cases[i].spec, cases[i].arch, &plan), cases[i].status, cases[i].rule,
                        "policy 'site' (", path, cases[i].where, cases[i].rule);
        hum_runtime_destroy(rt);
    }
}

static void check_lines_and_merge(const char *dir)
{
    /* rows 2 and 3 fit to the same kernel on a narrow layer (block N falls to 64): merged */
    hum_runtime *rt = site_runtime(dir, "{ 16, mma(16, 128, 64, 16, 32, 64, 3) },\n"
                                        "{ 64, mma(64, 128, 64, 64, 32, 64, 3) },\n"
                                        "{ math.huge, mma(64, 256, 64, 64, 32, 64, 3) },");
    if (!rt)
        return;
    hum_layer_plan plan;
    if (RT_CHECK(plan_spec(rt, "n=64,k=256", "sm_86", &plan) == HUM_OK, "%s", hum_last_error())) {
        RT_CHECK(plan.entry_count == 2 && plan.entries[0].m_max == 16 && plan.entries[1].m_max == INT64_MAX &&
                     plan.entries[1].block_n == 64,
                 "%d entries, the second up to %lld with block N %d", plan.entry_count,
                 (long long)plan.entries[1].m_max, plan.entries[1].block_n);
        const size_t len = strlen(dir);
        RT_CHECK(!strncmp(plan.entry_origin[0], dir, len) && !strcmp(plan.entry_origin[0] + len, "/site.lua:5") &&
                     !strncmp(plan.entry_origin[1], dir, len) && !strcmp(plan.entry_origin[1] + len, "/site.lua:6"),
                 "origins '%s', '%s' (site.lua:5 and :6 expected)", plan.entry_origin[0], plan.entry_origin[1]);
    }
    hum_runtime_destroy(rt);
}

/* A workspace of hum_layer_workspace_size(max_m) holds max_m quantized rows of an 8-bit-A layer
 * beside its partial tiles, so the forward runs M = max_m in one chunk (it ran max_m - 1 rows and
 * then 1 until session 9: its own per-row count lost the two regions' alignment). */
static void check_workspace_rows(hum_runtime *rt)
{
    static const char *const specs[] = {
        "n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0", "n=8192,k=8192,w=e4m3,a=e4m3",
        "n=7168,k=2048,w=e4m3,a=e4m3,block=128x128,ascale=group128", "n=1000,k=1008,w=uint8,a=int8",
        "n=256,k=32,w=uint8,a=int8"};
    static const int64_t ms[] = {1, 2, 15, 16, 17, 128, 1000, 8192};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        hum_layer_spec s;
        hum_layer_plan plan;
        memset(&plan, 0, sizeof plan);
        snprintf(plan.arch, sizeof plan.arch, "sm_90a");
        if (!RT_CHECK(hum_layer_spec_parse(specs[i], &s) == HUM_OK, "%s: %s", specs[i], hum_last_error()))
            continue;
        hum_layer_spec_config(&s, &plan.config);
        if (!RT_CHECK(hum_layer_run_plan(rt, &plan, 0) == HUM_OK && hum_gemm_a8(&plan.config), "%s: plan: %s",
                      specs[i], hum_last_error()))
            continue;
        for (size_t j = 0; j < sizeof ms / sizeof ms[0]; j++) {
            const int64_t room = hum_workspace_bytes(&plan, 132, ms[j]) - hum_workspace_lock_bytes(132) -
                                 hum_workspace_partial_bytes(&plan, 132);
            const int64_t rows = hum_workspace_quantized_rows(&plan.config, room);
            RT_CHECK(rows >= ms[j] && rows < ms[j] + 1 + 512 / hum_workspace_quantized_row_bytes(&plan.config),
                     "%s: a workspace for M = %lld holds %lld quantized rows", specs[i], (long long)ms[j],
                     (long long)rows);
        }
    }
}

/* hum_gemm_grid_for: tiles whole where they fill the grid's waves (whole clusters with A
 * multicast), stream-K slices summed in the workspace elsewhere, where its partial tiles are at
 * hand; the grid one CTA per unit of work up to what is resident. */
static void check_grid_for(void)
{
    static const struct {
        int32_t fill, cluster_n, stream_k, sums_in_ws, have_partials;
        int64_t max_grid, cluster_grid, n_blocks, k_blocks, blocks;
        int sums;
        int64_t ctas;
    } cases[] = {
        {95, 1, 1, 1, 1, 132, 132, 64, 64, 4, 0, 132},    /* 256 tiles: 2 waves, 97.0 % */
        {95, 1, 1, 1, 1, 132, 132, 64, 64, 5, 1, 132},    /* 320: 3 waves, 80.8 % */
        {95, 1, 1, 1, 1, 132, 132, 64, 64, 7, 1, 132},    /* 448: 4 waves, 84.8 % */
        {95, 1, 1, 1, 1, 132, 132, 64, 64, 8, 0, 132},    /* 512: 4 waves, 97.0 % */
        {95, 1, 1, 1, 1, 132, 132, 1, 64, 126, 0, 126},   /* one wave, 95.5 %: a CTA a tile */
        {95, 1, 1, 1, 1, 132, 132, 1, 64, 125, 1, 132},   /* 94.7 % */
        {95, 1, 1, 1, 1, 132, 132, 1, 2, 1, 1, 2},        /* 0.8 %: a CTA a k-block */
        {100, 1, 1, 1, 1, 132, 132, 2, 64, 132, 0, 132},  /* two waves exactly */
        {100, 1, 1, 1, 1, 132, 132, 1, 64, 263, 1, 132},
        {0, 1, 1, 1, 1, 132, 132, 2, 64, 132, 1, 132},    /* never whole without a threshold */
        {95, 1, 1, 1, 0, 132, 132, 64, 64, 5, 0, 132},    /* no partial tiles at hand: whole */
        {95, 1, 1, 1, 0, 132, 132, 1, 64, 5, 0, 5},
        {0, 1, 1, 0, 1, 132, 132, 1, 3, 5, 0, 15},        /* stream-K meeting through C */
        {0, 1, 0, 0, 1, 132, 132, 1, 64, 7, 0, 7},        /* whole tiles, no stream-K */
        {95, 2, 1, 1, 1, 132, 128, 2, 64, 125, 0, 128},   /* 64 clusters of 2: 250 tiles, 97.7 % */
        {95, 2, 1, 1, 1, 132, 128, 2, 64, 120, 1, 128},   /* 93.8 % (of 132 SMs it would be 90.9 %) */
        {95, 2, 0, 0, 1, 132, 128, 3, 64, 1, 0, 2},       /* whole clusters: 3 tiles on 2 CTAs */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hum_dispatch_entry e;
        memset(&e, 0, sizeof e);
        e.whole_fill = cases[i].fill;
        e.cluster_n = cases[i].cluster_n;
        e.stream_k = cases[i].stream_k;
        e.stream_k_sum = cases[i].sums_in_ws;
        e.max_grid = cases[i].max_grid;
        e.cluster_grid = cases[i].cluster_grid;
        e.n_blocks = cases[i].n_blocks;
        e.k_blocks = cases[i].k_blocks;
        const hum_gemm_grid g = hum_gemm_grid_for(&e, cases[i].blocks, cases[i].have_partials);
        RT_CHECK(g.sums == cases[i].sums && g.ctas == cases[i].ctas,
                 "case %zu: whole_fill %d, %lld tiles of %lld k-blocks on %lld CTAs (clusters of %d), partials %s: "
                 "sums %d on %lld CTAs, expected %d on %lld", i, cases[i].fill,
                 (long long)(cases[i].blocks * cases[i].n_blocks), (long long)cases[i].k_blocks,
                 (long long)(cases[i].cluster_n > 1 ? cases[i].cluster_grid : cases[i].max_grid), cases[i].cluster_n,
                 cases[i].have_partials ? "at hand" : "none", g.sums, (long long)g.ctas, cases[i].sums,
                 (long long)cases[i].ctas);
    }
}

/* hum_dispatch_table_bind_weights: a weights_ss entry's map over the codes (padded K / 16 rows of
 * padded N x 16 bytes, boxes of block_k / 16 rows by 2 x block_n eight-byte words) passes
 * hum_tma_encode_2d's checks (then the driver: OK on a GPU, no device without one); codes that are
 * not 16-byte aligned fail naming the entry and leave it unbound; entries without weights_ss are
 * never encoded (any pointer). */
static void check_bind_weights(void)
{
    static hum_dispatch_table t; /* 16 entries with their maps: static, not on the stack */
    memset(&t, 0, sizeof t);
    t.plan.config.padded_n = 8192;
    t.plan.config.padded_k = 8192;
    t.plan.entry_count = 2;
    const hum_tuning e0 = {.m_min = 1, .m_max = 16, .block_n = 256, .block_k = 256};
    const hum_tuning e1 = {.m_min = 17, .m_max = INT64_MAX, .block_n = 128, .block_k = 256, .weights_ss = 1};
    t.plan.entries[0] = e0;
    t.plan.entries[1] = e1;
    hum_status st = hum_dispatch_table_bind_weights(&t, (void *)(uintptr_t)0x1008);
    RT_CHECK(st == HUM_ERR_INVALID_ARG && strstr(hum_last_error(), "weights_ss") && strstr(hum_last_error(), "17") &&
                 !t.entries[1].weights_ss,
             "codes 8-byte aligned: status %d, '%s', bound %d", st, hum_last_error(), t.entries[1].weights_ss);
    st = hum_dispatch_table_bind_weights(&t, (void *)(uintptr_t)0x10000);
    RT_CHECK(st != HUM_ERR_INVALID_ARG && !t.entries[0].weights_ss && t.entries[1].weights_ss == (st == HUM_OK),
             "the map of 8192 x 8192 codes, box 128 x 256: status %d, '%s'", st, st == HUM_OK ? "" : hum_last_error());
    t.plan.entries[1].weights_ss = 0;
    t.entries[1].weights_ss = 0;
    RT_CHECK(hum_dispatch_table_bind_weights(&t, (void *)(uintptr_t)0x1008) == HUM_OK && !t.entries[1].weights_ss,
             "no weights_ss entry: %s", hum_last_error());
}

int main(void)
{
    check_grid_for();
    check_bind_weights();
    hum_runtime *rt = NULL;
    if (RT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error()))
        check_builtin_tables(rt);
    if (rt) {
        check_last_entry_fields(rt);
        check_workspace_rows(rt);
    }
    hum_runtime_destroy(rt);
    char dir[4096];
    rt_tmpdir("layer-plan", dir, sizeof dir);
    check_site_rules(dir);
    check_lines_and_merge(dir);
    rt_rmtree(dir);
    return rt_test_result("test_layer_plan");
}
