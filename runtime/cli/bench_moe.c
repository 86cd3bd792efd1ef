/* `hum bench --moe SPEC`: a MoE layer with random expert weights timed over an M sweep, the
 * whole forward and each of its five steps (bench protocol: CUDA-graph replays, L2 flushed,
 * median), each M after one forward checked against the float64 reference; a grouped layer
 * (gemm=grouped|masked) through bench_moe_grouped.c. */
#include "bench_moe.h"

#include "bench_moe_grouped.h"
#include "bench_timer.h"
#include "cli_runtime.h"
#include "moe_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { CHECK_CAP = 32 };

/* One forward at each M checked against the reference before it is timed (its routing and row
 * counts pick the table's ranges): a benchmark of a wrong result is worth nothing. */
static hum_status check(moe_device *d, const hum_standard_weight *w13, const hum_standard_weight *w2,
                        const hum_moe_options *o, const moe_batch *b)
{
    uint16_t *out = malloc((size_t)(b->m * b->hidden) * 2);
    int64_t tokens[CHECK_CAP], bad = 0;
    double err = INFINITY;
    const int64_t count = moe_check_tokens(b, d->info.intermediate, tokens, CHECK_CAP);
    hum_status st = out ? moe_device_forward(d, out) : hum_fail(HUM_ERR_OUT_OF_MEMORY, "the output");
    if (st == HUM_OK && (st = moe_check(w13, w2, o, &d->info, b, out, tokens, count, &err, &bad)) == HUM_OK)
        st = bench_check_verdict(b->m, err, bench_check_tolerance(b->dtype), bad, "", count, "tokens");
    free(out);
    return st;
}

static hum_status sweep(hum_runtime *rt, const hum_device_info *dev, hum_moe *moe, const hum_moe_spec *s,
                        const hum_standard_weight *w13, const hum_standard_weight *w2, const hum_moe_options *o,
                        const int64_t *ms, int32_t m_count, int32_t warmup, int32_t reps, int balanced)
{
    int64_t m_max = 0;
    for (int32_t i = 0; i < m_count; i++)
        m_max = ms[i] > m_max ? ms[i] : m_max;
    bench_timer timer;
    moe_device d;
    bench_rng rng = bench_rng_fresh();
    hum_status st = bench_timer_create(dev->ordinal, dev->l2_bytes, &timer);
    if (st != HUM_OK)
        return st;
    if ((st = moe_device_create(rt, dev->ordinal, moe, m_max, &d)) != HUM_OK) {
        bench_timer_destroy(&timer);
        return st;
    }
    for (int32_t i = 0; st == HUM_OK && i < m_count; i++) {
        moe_batch b;
        if ((st = moe_batch_random(&rng, ms[i], s->gate_up.k, s->top_k, s->experts, balanced, s->gate_up.output_dtype,
                                   &b)) != HUM_OK)
            break;
        if ((st = moe_device_load(&d, &b)) == HUM_OK && (st = check(&d, w13, w2, o, &b)) == HUM_OK && i == 0)
            printf("\n%6s %11s %9s %9s %9s %9s %9s %11s\n", "M", "layer µs", "align", "gate_up", "act", "down",
                   "combine", "GEMMs µs");
        bench_timing whole, step[HUM_MOE_STEPS];
        if (st == HUM_OK)
            st = bench_time(&timer, moe_enqueue, &d, warmup, reps, &whole);
        for (int32_t k = 0; st == HUM_OK && k < HUM_MOE_STEPS; k++) {
            moe_step one = {&d, k};
            st = bench_time(&timer, moe_enqueue_step, &one, warmup, reps, &step[k]);
        }
        if (st == HUM_OK)
            printf("%6lld %10.2f %9.2f %9.2f %9.2f %9.2f %9.2f %10.2f%s\n", (long long)ms[i], whole.median_us,
                   step[0].median_us, step[1].median_us, step[2].median_us, step[3].median_us, step[4].median_us,
                   step[1].median_us + step[3].median_us, whole.graph ? "" : "  (no graph)");
        fflush(stdout);
        moe_batch_free(&b);
    }
    moe_device_destroy(&d);
    bench_timer_destroy(&timer);
    return st;
}

int bench_moe(const char *config, const char *spec_text, const int64_t *ms, int32_t m_count, int32_t warmup,
              int32_t reps, int balanced)
{
    hum_moe_spec s;
    if (hum_moe_spec_parse(spec_text, &s) != HUM_OK) {
        fprintf(stderr, "hum bench: %s\n", hum_last_error());
        return 2;
    }
    hum_runtime *rt = NULL;
    hum_device_info dev;
    if (cli_runtime_open("bench", config, NULL, &rt) != 0)
        return 1;
    if (hum_runtime_device(rt, &dev) != HUM_OK) {
        fprintf(stderr, "hum bench: no GPU to run on: %s\n", hum_last_error());
        hum_runtime_destroy(rt);
        return 1;
    }
    printf("hum bench: --moe %s on %s (sm_%d%d, %d SMs)%s\n", spec_text, dev.name, dev.sm_major, dev.sm_minor,
           dev.sm_count, balanced ? ", balanced routing" : ", random routing");
    hum_standard_weight w13, w2;
    hum_moe *moe = NULL;
    hum_moe_options o;
    hum_moe_options_init(&o);
    o.activation = s.activation;
    o.gate_up = s.gate_up_layout;
    o.top_k = s.top_k;
    o.activation_dtype = s.gate_up.output_dtype; /* hidden and out; a= is what the GEMMs multiply */
    o.gemm_type = s.gemm_type;
    bench_rng seed = bench_rng_fresh();
    hum_status st = hum_moe_spec_weights(&s, bench_rng_next(&seed), &w13, &w2);
    if (st == HUM_OK)
        st = hum_moe_from_standard(rt, &w13, &w2, &o, &moe);
    if (st == HUM_OK && (st = hum_moe_prepare(moe)) == HUM_OK) {
        hum_moe_info info;
        hum_moe_get_info(moe, &info);
        printf("prepare: %.1f ms (gate/up %d kernels, down %d; %d and %d compiled)\n", info.prepare_ms,
               info.gate_up_gemm.entry_count, info.down_gemm.entry_count, info.gate_up_gemm.kernels_compiled,
               info.down_gemm.kernels_compiled);
        printf("activations: gate/up %s; down %s\n", info.gate_up_activation, info.down_activation);
        printf("times: median of %d CUDA-graph replays, L2 flushed before each%s\n", reps,
               s.gemm_type == HUM_GEMM_MOE_INDEXED ? "; a step alone replays its own graph on the inputs the whole "
                                                     "forward left" : "");
        st = s.gemm_type == HUM_GEMM_MOE_INDEXED
                 ? sweep(rt, &dev, moe, &s, &w13, &w2, &o, ms, m_count, warmup, reps, balanced)
                 : bench_moe_grouped(rt, &dev, moe, &s, &w13, &w2, &o, ms, m_count, warmup, reps, balanced);
    }
    if (st != HUM_OK)
        fprintf(stderr, "hum bench: %s\n", hum_last_error());
    hum_moe_destroy(moe);
    hum_standard_free(&w13);
    hum_standard_free(&w2);
    hum_runtime_destroy(rt);
    return st == HUM_OK ? 0 : 1;
}
