/* `hum tune`: for each M range of the dispatch table a layer gets on this GPU, times candidate
 * tunings at the --m values inside the range and writes a policy file that gives the layer
 * class the fastest (docs/cli.md, docs/policies.md). lua/hum/tune.lua decides (ranges,
 * candidates, winners, the file's text); this file does the mechanics: compiles every
 * candidate in parallel through the kernel cache, then for each one loads a policy file that
 * gives it every M of the layer class (so what is timed is what a policy file produces),
 * prepares the layer, checks each M against the float64 reference and times it with hum
 * bench's protocol. */
#define _POSIX_C_SOURCE 200809L /* setenv, clock_gettime */

#include "bench_args.h"
#include "bench_calls.h"
#include "bench_check.h"
#include "bench_io.h"
#include "bench_timer.h"
#include "bench_tmpdir.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_dispatch.h"
#include "cli_output.h"
#include "cli_runtime.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The candidate file's name sorts after every built-in policy file, so it wins the devices it
 * applies to among them. */
static const char CANDIDATE_FILE[] = "zz-hum-tune-candidate.lua";

typedef struct tune_options {
    const char *config, *spec, *m_list, *budget, *out, *candidates, *warmup, *reps;
    int force;
} tune_options;

static void usage(FILE *f)
{
    fprintf(f, "usage: hum tune --layer SPEC [--m LIST] [--budget SECONDS] [--out FILE.lua] [--force]\n"
               "                [--candidates FILE.lua] [--warmup N] [--reps N] [--config FILE]\n\n"
               "Tunes one layer class on this GPU: for each M range of the dispatch table in force, times\n"
               "candidate tunings (lua/hum/candidates.lua) at the M values of --m inside the range, drops\n"
               "those whose output differs from the float64 reference, and writes a policy file that gives\n"
               "the class (N, K, dtypes, scales) the fastest, keeping the table's own tuning unless another\n"
               "is no slower at every M and faster in total. Load the file with HUM_POLICY_PATH or the\n"
               "config's policy_paths. Times are hum bench's: CUDA-graph replays, L2 flushed, median.\n\n"
               "  --layer SPEC        e.g. n=8192,k=8192,w=uint4,a=float16,group=128 (keys: hum bench --help)\n"
               "  --m LIST            M values to time (default 1,16,32,64,128,256,1024,4096)\n"
               "  --budget SECONDS    time for the whole run, compiles included (default 240); candidates\n"
               "                      left untimed when it runs out are not chosen\n"
               "  --out FILE.lua      where the policy goes (default tuned-<spec>.lua); never over an\n"
               "                      existing file without --force\n"
               "  --candidates FILE   a Lua file returning function(list, device, layer, range) that edits\n"
               "                      the candidate list of each range\n"
               "  --warmup N          untimed calls per measurement (default 10)\n"
               "  --reps N            timed calls per measurement (default 50)\n"
               "  --config FILE       deployment config (its policies are the table in force)\n");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* tuned-<spec with '=' dropped and ',' as '-'>.lua */
static void default_out(const char *spec, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "tuned-");
    for (const char *p = spec; *p && n + 5 < cap; p++)
        if (*p != '=')
            out[n++] = *p == ',' ? '-' : *p == '/' ? '_' : *p;
    snprintf(out + n, cap - n, ".lua");
}

/* What one tune run holds besides the session. */
typedef struct tune_run {
    hum_runtime *rt;
    hum_tune_session *s;
    hum_standard_weight w;
    hum_dtype act; /* the host's 16-bit A */
    /* the A the layer makes from it (8-bit codes, or mxfp8 rounding), as the plan decided: the
     * reference quantizes its rows the same way; NULL for a layer that multiplies A as given */
    hum_act_quant quant;
    const hum_act_quant *made;
    double tolerance;
    int32_t ordinal;
    char dir[4096];  /* the candidate policy directory (in HUM_POLICY_PATH) */
    char file[4200]; /* dir/CANDIDATE_FILE */
    bench_timer timer;
    bench_io io;
    int32_t warmup, reps;
    char *candidates; /* the --candidates file's text (hum_file_read), or NULL */
} tune_run;

/* Lua writes s->text for text_range/text_candidate (-1: the tuned file); C puts it in force. */
static hum_status load_text(tune_run *t, int32_t range, int32_t candidate)
{
    hum_status st = hum_tune_policy_text(t->rt, t->s, range, candidate);
    if (st == HUM_OK)
        st = hum_file_write(t->file, t->s->text, strlen(t->s->text), 1);
    if (st == HUM_OK)
        st = hum_runtime_reload_policies(t->rt);
    return st;
}

/* A prepared layer running the candidate file's table, checked to be that file's. */
static hum_status prepare(tune_run *t, hum_layer **out)
{
    *out = NULL;
    hum_layer_options lo = {.activation_dtype = t->act};
    hum_status st = hum_layer_from_standard(t->rt, &t->w, &lo, out);
    if (st == HUM_OK)
        st = hum_layer_prepare(*out);
    hum_layer_dispatch d;
    if (st == HUM_OK && (st = hum_layer_describe(*out, &d)) == HUM_OK &&
        (strncmp(d.rows[0].origin, t->file, strlen(t->file)) != 0))
        st = hum_fail(HUM_ERR_CONFIG,
                      "the candidate policy %s does not decide the layer's table (policy %s, %s does): a site "
                      "policy of the config wins over it; tune without that config",
                      t->file, d.policy_name, d.rows[0].origin);
    /* the references quantize A as the session's plan decided (tune()): a reload that changed
     * the activation override since would check every candidate against the wrong A */
    hum_layer_info info;
    const hum_layer_config *plan = &t->s->plan.config;
    if (st == HUM_OK && (st = hum_layer_get_info(*out, &info)) == HUM_OK &&
        (info.config.a_dtype != plan->a_dtype || info.config.a_scale != plan->a_scale ||
         info.config.a_group != plan->a_group || info.config.a_round != plan->a_round))
        st = hum_fail(HUM_ERR_CONFIG,
                      "the layer now computes with %s activations (%s when tuning began): the activation "
                      "override changed during the run; tune again", d.activation, hum_dtype_name(plan->a_dtype));
    if (st != HUM_OK) {
        hum_layer_destroy(*out);
        *out = NULL;
    }
    return st;
}

/* The activations and the reference of one M: checked against by every candidate. */
typedef struct tune_sample {
    int64_t m;
    uint16_t *a;
    int64_t rows[64];
    int64_t row_count;
    double *ref;
} tune_sample;

static hum_status sample_make(tune_run *t, bench_rng *rng, int64_t m, tune_sample *out)
{
    memset(out, 0, sizeof *out);
    out->m = m;
    out->a = malloc((size_t)(m * t->w.k) * sizeof *out->a);
    out->row_count = bench_check_rows(m, t->w.n, t->w.k, out->rows, 64);
    out->ref = malloc((size_t)(out->row_count * t->w.n) * sizeof *out->ref);
    if (!out->a || !out->ref)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "the activations and reference of M = %lld", (long long)m);
    hum_status st = bench_random_activations(rng, t->act, m * t->w.k, out->a);
    if (st == HUM_OK)
        st = bench_check_reference_as(&t->w, t->made, t->act, out->a, out->rows, out->row_count, out->ref);
    return st;
}

static void sample_free(tune_sample *s)
{
    free(s->a);
    free(s->ref);
    memset(s, 0, sizeof *s);
}

/* Checks and times candidate c of range r at every sample; a failure is recorded as the
 * candidate's reason, not returned. Returns an error only when tuning cannot go on. */
static hum_status time_candidate(tune_run *t, int32_t r, int32_t c, const tune_sample *samples, uint16_t *out)
{
    hum_tune_range *range = &t->s->ranges[r];
    hum_layer *layer = NULL;
    hum_status st = load_text(t, r, c);
    if (st != HUM_OK)
        return st;
    st = prepare(t, &layer);
    if (st == HUM_ERR_CONFIG)
        return st;
    for (int32_t j = 0; st == HUM_OK && j < range->sample_count; j++) {
        const tune_sample *sm = &samples[j];
        double err = INFINITY;
        int64_t bad = 0;
        if ((st = bench_io_forward(&t->io, layer, sm->a, sm->m, out)) != HUM_OK ||
            (st = bench_check_against(t->act, t->w.n, out, sm->m, sm->rows, sm->row_count, sm->ref, &err, &bad)) !=
                HUM_OK)
            break;
        if (bad != 0 || !(err <= t->tolerance)) {
            st = hum_fail(HUM_ERR_INTERNAL, "wrong at M = %lld: relative error %.2e, %lld elements not finite",
                          (long long)sm->m, err, (long long)bad);
            break;
        }
        bench_hum_call h = {.layer = layer};
        bench_io_views(&t->io, sm->m, &h.a, &h.c);
        bench_timing timing;
        if ((st = bench_time(&t->timer, bench_enqueue_hum, &h, t->warmup, t->reps, &timing)) == HUM_OK)
            range->us[c][j] = timing.median_us;
    }
    hum_layer_destroy(layer);
    if (st != HUM_OK) {
        for (int32_t j = 0; j < range->sample_count; j++)
            range->us[c][j] = NAN;
        snprintf(range->dropped[c], sizeof range->dropped[c], "%s", hum_last_error());
        if (c == 0) /* the table in force is the yardstick: without it nothing can be chosen */
            return hum_fail(st, "the table in force's tuning for M %lld..%lld: %s",
                            (long long)range->candidates[0].m_min, (long long)range->candidates[0].m_max,
                            range->dropped[c]);
    }
    return HUM_OK;
}

/* Times every candidate of every range, each range within its share of what is left of the
 * budget (the table's own tuning always). */
static hum_status time_all(tune_run *t, double deadline)
{
    hum_tune_session *s = t->s;
    int64_t m_cap = 1;
    int32_t sampled = 0;
    for (int32_t r = 0; r < s->range_count; r++)
        for (int32_t j = 0; j < s->ranges[r].sample_count; j++) {
            sampled += j == 0;
            if (s->ranges[r].samples[j] > m_cap)
                m_cap = s->ranges[r].samples[j];
        }
    hum_status st = bench_io_create(t->ordinal, t->act, t->w.n, t->w.k, m_cap, &t->io);
    uint16_t *out = malloc((size_t)(m_cap * t->w.n) * sizeof *out);
    if (st == HUM_OK && !out)
        st = hum_fail(HUM_ERR_OUT_OF_MEMORY, "the output of M = %lld", (long long)m_cap);
    bench_rng rng = bench_rng_fresh();
    for (int32_t r = 0; st == HUM_OK && r < s->range_count; r++) {
        hum_tune_range *range = &s->ranges[r];
        for (int32_t c = 0; c < range->candidate_count; c++)
            for (int32_t j = 0; j < HUM_TUNE_MAX_SAMPLES; j++)
                range->us[c][j] = NAN;
        if (range->sample_count == 0)
            continue;
        tune_sample samples[HUM_TUNE_MAX_SAMPLES];
        memset(samples, 0, sizeof samples);
        for (int32_t j = 0; st == HUM_OK && j < range->sample_count; j++)
            st = sample_make(t, &rng, range->samples[j], &samples[j]);
        const double range_end = now_s() + (deadline - now_s()) / sampled--;
        char m_range[48];
        cli_m_range(&range->candidates[0], m_range, sizeof m_range);
        int32_t timed = 0, dropped = 0, skipped = 0;
        for (int32_t c = 0; st == HUM_OK && c < range->candidate_count; c++) {
            if (c > 0 && now_s() > range_end) {
                snprintf(range->dropped[c], sizeof range->dropped[c], "not timed: the budget ran out");
                skipped++;
                continue;
            }
            st = time_candidate(t, r, c, samples, out);
            if (st == HUM_OK)
                ++*(range->dropped[c][0] ? &dropped : &timed);
        }
        for (int32_t j = 0; j < range->sample_count; j++)
            sample_free(&samples[j]);
        if (st == HUM_OK)
            printf("%-13s %d candidates timed, %d dropped by the check or the kernels, %d left untimed\n", m_range,
                   timed, dropped, skipped);
        fflush(stdout);
    }
    free(out);
    return st;
}

/* The tuned file, loaded the way a user loads it: the table it gives this GPU must be the
 * winners, each from the file. */
static hum_status verify(tune_run *t)
{
    hum_status st = load_text(t, -1, 0);
    hum_layer_dispatch d;
    hum_layer_options lo = {.activation_dtype = t->act};
    if (st == HUM_OK)
        st = hum_layer_describe_plan(t->rt, &t->w, &lo, NULL, &d);
    for (int32_t i = 0; st == HUM_OK && i < d.row_count; i++)
        if (strncmp(d.rows[i].origin, t->file, strlen(t->file)) != 0)
            st = hum_fail(HUM_ERR_INTERNAL, "the tuned file does not decide M range %d (%s does)", i, d.rows[i].origin);
    if (st == HUM_OK) {
        printf("\nthe tuned table, as the written file gives it:\n");
        cli_print_dispatch(stdout, &d, 0);
    }
    return st;
}

static void print_summary(const hum_tune_session *s)
{
    printf("\n%-13s %8s %12s %12s %7s  %s\n", "range", "M", "before µs", "after µs", "gain", "tuning");
    for (int32_t r = 0; r < s->range_count; r++) {
        const hum_tune_range *range = &s->ranges[r];
        char m_range[48], tuning[320];
        cli_m_range(&range->candidates[0], m_range, sizeof m_range);
        cli_tuning_text(&range->candidates[range->winner], tuning, sizeof tuning);
        if (range->sample_count == 0)
            printf("%-13s %8s %12s %12s %7s  %s (not measured: kept)\n", m_range, "-", "-", "-", "-", tuning);
        for (int32_t j = 0; j < range->sample_count; j++) {
            const double before = range->us[0][j], after = range->us[range->winner][j];
            printf("%-13s %8lld %12.2f %12.2f %6.1f%%  %s%s\n", j ? "" : m_range, (long long)range->samples[j], before,
                   after, 100.0 * (before - after) / before, j ? "" : tuning,
                   j || range->winner ? "" : " (the table's own: nothing beat it)");
        }
    }
}

static int tune(tune_run *t, const tune_options *o, const char *out_path, double budget_s)
{
    const double t0 = now_s();
    hum_tune_session *s = t->s;
    hum_layer_options lo = {.activation_dtype = t->act};
    hum_status st = hum_tune_begin(t->rt, &t->w, &lo, s);
    if (st != HUM_OK) {
        fprintf(stderr, "hum tune: %s\n", hum_last_error());
        return 1;
    }
    /* begin planned the activation type (lua/hum/activation.lua); no tuning changes it */
    t->made = bench_check_quantizes(&s->plan.config, &t->quant) ? &t->quant : NULL;
    t->tolerance = t->made ? bench_check_tolerance_made(&s->plan.config) : bench_check_tolerance(t->act);
    hum_layer_dispatch d;
    if (hum_layer_describe_plan(t->rt, &t->w, &lo, NULL, &d) == HUM_OK) {
        printf("the table in force:\n");
        cli_print_dispatch(stdout, &d, 0);
    }
    int32_t count = 0;
    for (int32_t r = 0; r < s->range_count; r++)
        count += s->ranges[r].candidate_count;
    int32_t requested = hum_tune_precompile(t->rt, s);
    printf("\n%d candidates over %d M ranges: %d kernels compiled or found in the cache in %.1f s\n", count,
           s->range_count, requested, now_s() - t0);
    fflush(stdout);
    if ((st = time_all(t, t0 + budget_s)) == HUM_OK &&
        (st = hum_tune_pick(t->rt, s)) == HUM_OK)
        st = verify(t);
    if (st == HUM_OK)
        st = hum_file_write(out_path, s->text, strlen(s->text), o->force);
    if (st != HUM_OK) {
        fprintf(stderr, "hum tune: %s\n", hum_last_error());
        return 1;
    }
    print_summary(s);
    printf("\npolicy: %s (%.0f s); load it with HUM_POLICY_PATH=<its directory> or the config's policy_paths\n",
           out_path, now_s() - t0);
    return 0;
}

/* 0 parsed, 1 --help printed, 2 usage error (reported). */
static int parse(int argc, char **argv, tune_options *o)
{
    const cli_option options[] = {
        CLI_VALUE("--config", &o->config), CLI_VALUE("--layer", &o->spec),
        CLI_VALUE("--m", &o->m_list),      CLI_VALUE("--budget", &o->budget),
        CLI_VALUE("--out", &o->out),       CLI_VALUE("--candidates", &o->candidates),
        CLI_VALUE("--warmup", &o->warmup), CLI_VALUE("--reps", &o->reps),
        CLI_FLAG("--force", &o->force),    CLI_END,
    };
    const cli_args args = {.command = "hum tune", .usage = usage, .options = options};
    int rc = cli_args_parse(&args, argc, argv);
    if (rc == 0 && !o->spec)
        rc = cli_usage_error(&args, "--layer SPEC is required");
    return rc;
}

int hum_cmd_tune(const char *config, int argc, char **argv)
{
    tune_options o = {.config = config};
    int parsed = parse(argc, argv, &o);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    tune_run t;
    memset(&t, 0, sizeof t);
    t.s = calloc(1, sizeof *t.s);
    if (!t.s) {
        fprintf(stderr, "hum tune: out of memory\n");
        return 1;
    }
    hum_tune_session *s = t.s;
    hum_layer_spec spec;
    double budget = 240;
    char *end = NULL;
    if (o.budget)
        budget = strtod(o.budget, &end);
    int rc = 2;
    if (hum_layer_spec_parse(o.spec, &spec) != HUM_OK ||
        bench_parse_m_list(o.m_list ? o.m_list : "1,16,32,64,128,256,1024,4096", s->m_values, HUM_TUNE_MAX_M,
                           &s->m_count) != HUM_OK)
        fprintf(stderr, "hum tune: %s\n", hum_last_error());
    else if (o.budget && (end == o.budget || *end || !(budget >= 1 && budget <= 86400)))
        fprintf(stderr, "hum tune: --budget '%s' (expected seconds, 1..86400)\n", o.budget);
    else if (!bench_parse_count("hum tune", "--warmup", o.warmup, 10, 0, &t.warmup) &&
             !bench_parse_count("hum tune", "--reps", o.reps, 50, 1, &t.reps))
        rc = 1;
    if (rc == 2) {
        free(s);
        return 2;
    }
    char out_path[4096];
    if (o.out)
        snprintf(out_path, sizeof out_path, "%s", o.out);
    else
        default_out(o.spec, out_path, sizeof out_path);
    /* Before any GPU time is spent: the result could not be written. */
    const char *inputs[3] = {NULL, NULL, NULL};
    int n_inputs = 0;
    if (o.candidates)
        inputs[n_inputs++] = o.candidates;
    if (o.config)
        inputs[n_inputs++] = o.config;
    if (cli_output_allowed("hum tune", "--out", out_path, o.force, NULL, inputs) != 0) {
        free(s);
        return 1;
    }
    /* The candidates file is read here, once, before the device is looked for: one that is
     * missing, a directory or a device is said at once, and a pipe (<(...)) is read whole
     * before any GPU work; Lua loads the text (hum_tune_session). */
    if (o.candidates && hum_file_read(o.candidates, &t.candidates, &s->candidates_size) != HUM_OK) {
        fprintf(stderr, "hum tune: --candidates %s (expected a Lua file)\n", hum_last_error());
        free(s);
        return 1;
    }
    hum_device_info dev;
    /* the host passes 16-bit A: an 8-bit a= is the weight's scheme, which the layer quantizes to
     * (as hum bench times it) */
    hum_layer_options lo = {.activation_dtype = spec.output_dtype};
    if (bench_tmpdir_create("tune-policy", t.dir, sizeof t.dir) != HUM_OK) {
        fprintf(stderr, "hum tune: %s\n", hum_last_error());
        hum_file_free(t.candidates);
        free(s);
        return 1;
    }
    snprintf(t.file, sizeof t.file, "%s/%s", t.dir, CANDIDATE_FILE);
    /* The candidate file joins the built-in layer of policies (docs/policies.md), after them. */
    const char *old = getenv("HUM_POLICY_PATH");
    char path[8400];
    snprintf(path, sizeof path, "%s%s%s", t.dir, old && *old ? ":" : "", old && *old ? old : "");
    setenv("HUM_POLICY_PATH", path, 1);
    if (cli_runtime_open("tune", o.config, NULL, &t.rt) != 0) {
        /* cli_runtime_open said why */
    } else if (hum_runtime_device(t.rt, &dev) != HUM_OK) {
        fprintf(stderr, "hum tune: no GPU to tune on: %s\n", hum_last_error());
    } else if (hum_layer_spec_weight(&spec, 1, &t.w) != HUM_OK ||
               bench_timer_create(dev.ordinal, dev.l2_bytes, &t.timer) != HUM_OK) {
        fprintf(stderr, "hum tune: %s\n", hum_last_error());
    } else {
        printf("hum tune: %s on %s (sm_%d%d, %d SMs), budget %.0f s, %d warmup + %d timed calls per M\n", o.spec,
               dev.name, dev.sm_major, dev.sm_minor, dev.sm_count, budget, t.warmup, t.reps);
        t.act = lo.activation_dtype;
        s->candidates_file = o.candidates;
        s->candidates_text = t.candidates;
        s->spec = o.spec;
        s->reps = t.reps;
        t.ordinal = dev.ordinal;
        rc = tune(&t, &o, out_path, budget);
    }
    bench_io_destroy(&t.io);
    bench_timer_destroy(&t.timer);
    hum_standard_free(&t.w);
    hum_runtime_destroy(t.rt);
    bench_tmpdir_remove(t.dir);
    hum_file_free(t.candidates);
    free(s);
    return rc;
}
