/* See bench_moe_grouped.h. */
#include "bench_moe_grouped.h"

#include "bench_timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHECK_CAP = 32 };

/* One M on the device: the dispatched rows, the output, the layout, a workspace for them. */
typedef struct grouped_call {
    hum_moe *moe;
    hum_workspace *ws;
    hum_tensor hidden, layout, out;
} grouped_call;

static hum_status enqueue(void *ctx, CUstream stream)
{
    grouped_call *c = ctx;
    return hum_moe_forward_grouped(c->moe, c->ws, stream, &c->hidden, &c->layout, &c->out);
}

/* The dispatch of batch b as a dispatcher lays it out: each slot (token t, its j-th expert e)
 * one row holding token t's hidden, grouped by expert: contiguous, expert e's rows at
 * offsets[e] ..; masked, row i of expert e at e * T + i with T the most rows an expert got.
 * rows_x receives the rows' codes, expert_of each row's expert (-1: none), *t_out T (masked) or
 * the rows (contiguous). */
static hum_status dispatch(const moe_batch *b, int64_t experts, int masked, uint16_t **rows_x, int32_t **expert_of,
                           int64_t *offsets, int32_t *counts, int64_t *t_out)
{
    const int64_t slots = b->m * b->top_k;
    memset(counts, 0, (size_t)experts * sizeof *counts);
    for (int64_t i = 0; i < slots; i++)
        counts[b->ids[i]]++;
    int64_t t = 0;
    offsets[0] = 0;
    for (int64_t e = 0; e < experts; e++) {
        offsets[e + 1] = offsets[e] + counts[e];
        t = counts[e] > t ? counts[e] : t;
    }
    *t_out = masked ? t : slots;
    const int64_t rows = masked ? experts * t : slots;
    *rows_x = malloc((size_t)(rows * b->hidden + 1) * 2);
    *expert_of = malloc((size_t)(rows + 1) * sizeof **expert_of);
    int64_t *fill = calloc((size_t)experts, sizeof *fill);
    if (!*rows_x || !*expert_of || !fill) {
        free(fill);
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "the dispatched rows of %lld tokens", (long long)b->m);
    }
    for (int64_t r = 0; r < rows; r++)
        (*expert_of)[r] = -1;
    memset(*rows_x, 0, (size_t)(rows * b->hidden) * 2);
    for (int64_t i = 0; i < slots; i++) {
        const int32_t e = b->ids[i];
        const int64_t r = masked ? e * t + fill[e] : offsets[e] + fill[e];
        fill[e]++;
        memcpy(*rows_x + r * b->hidden, b->x + (i / b->top_k) * b->hidden, (size_t)b->hidden * 2);
        (*expert_of)[r] = e;
    }
    free(fill);
    return HUM_OK;
}

/* Sampled owned rows of one finished forward against the float64 reference: each row its
 * expert's top-1 of weight 1 (moe_check on a batch of those rows). */
static hum_status check(const hum_standard_weight *w13, const hum_standard_weight *w2, const hum_moe_options *o,
                        const hum_moe_info *info, const moe_batch *b, const uint16_t *rows_x, const int32_t *expert_of,
                        int64_t rows, const void *d_out)
{
    moe_batch s = {.hidden = b->hidden, .top_k = 1, .dtype = b->dtype};
    s.x = malloc((size_t)(CHECK_CAP * b->hidden) * 2);
    s.ids = malloc(CHECK_CAP * sizeof *s.ids);
    s.weights = malloc(CHECK_CAP * sizeof *s.weights);
    uint16_t *out = malloc((size_t)(CHECK_CAP * b->hidden) * 2);
    int64_t owned = 0, tokens[CHECK_CAP], bad = 0;
    for (int64_t r = 0; r < rows; r++)
        owned += expert_of[r] >= 0;
    hum_status st = s.x && s.ids && s.weights && out ? HUM_OK : hum_fail(HUM_ERR_OUT_OF_MEMORY, "the check");
    /* every (owned / CHECK_CAP)-th owned row, from the first */
    const int64_t step = owned > CHECK_CAP ? (owned + CHECK_CAP - 1) / CHECK_CAP : 1;
    for (int64_t r = 0, seen = 0; st == HUM_OK && r < rows && s.m < CHECK_CAP; r++) {
        if (expert_of[r] < 0 || seen++ % step)
            continue;
        memcpy(s.x + s.m * b->hidden, rows_x + r * b->hidden, (size_t)b->hidden * 2);
        st = hum_memcpy_dtoh(out + s.m * b->hidden, (const uint16_t *)d_out + r * b->hidden, (size_t)b->hidden * 2);
        s.ids[s.m] = expert_of[r];
        s.weights[s.m] = 1.0f;
        tokens[s.m] = s.m;
        s.m++;
    }
    hum_moe_options one = *o;
    one.top_k = 1;
    double err = INFINITY;
    if (st == HUM_OK && (st = moe_check(w13, w2, &one, info, &s, out, tokens, s.m, &err, &bad)) == HUM_OK)
        st = bench_check_verdict(b->m, err, bench_check_tolerance(b->dtype), bad, "", s.m, "rows");
    free(out);
    moe_batch_free(&s);
    return st;
}

hum_status bench_moe_grouped(hum_runtime *rt, const hum_device_info *dev, hum_moe *moe, const hum_moe_spec *s,
                             const hum_standard_weight *w13, const hum_standard_weight *w2, const hum_moe_options *o,
                             const int64_t *ms, int32_t m_count, int32_t warmup, int32_t reps, int balanced)
{
    const int masked = s->gemm_type == HUM_GEMM_MOE_GROUPED_MASKED;
    const int64_t E = s->experts, H = s->gate_up.k;
    const hum_dtype dt = s->gate_up.output_dtype; /* hidden and out (a= is what the GEMMs multiply) */
    hum_moe_info info;
    hum_moe_get_info(moe, &info);
    bench_timer timer;
    bench_rng rng = bench_rng_fresh();
    int64_t *offsets = malloc((size_t)(E + 1) * sizeof *offsets);
    int32_t *counts = malloc((size_t)E * sizeof *counts);
    hum_status st = offsets && counts ? bench_timer_create(dev->ordinal, dev->l2_bytes, &timer)
                                      : hum_fail(HUM_ERR_OUT_OF_MEMORY, "the layout");
    if (st != HUM_OK) {
        free(offsets);
        free(counts);
        return st;
    }
    printf("%s: each token's top-%d slots dispatched as rows grouped by expert (%s), no router weight\n\n%6s %9s %9s "
           "%11s\n", masked ? "grouped masked" : "grouped contiguous", s->top_k,
           masked ? "[E, T, H], T the most rows of an expert" : "[M * top_k, H] and expert offsets", "M", "rows", "T",
           "layer µs");
    for (int32_t i = 0; st == HUM_OK && i < m_count; i++) {
        moe_batch b;
        uint16_t *rows_x = NULL;
        int32_t *expert_of = NULL;
        int64_t t = 0, bytes = 0;
        grouped_call c = {.moe = moe};
        void *d_x = NULL, *d_out = NULL, *d_layout = NULL;
        if ((st = moe_batch_random(&rng, ms[i], H, s->top_k, (int32_t)E, balanced, dt, &b)) != HUM_OK)
            break;
        st = dispatch(&b, E, masked, &rows_x, &expert_of, offsets, counts, &t);
        const int64_t n_rows = masked ? E * t : t;
        const size_t row_bytes = (size_t)(n_rows * H) * 2 + 16;
        if (st == HUM_OK && (st = hum_moe_workspace_size(moe, t > 0 ? t : 1, &bytes)) == HUM_OK &&
            (st = hum_workspace_create(rt, NULL, bytes, &c.ws)) == HUM_OK &&
            (st = hum_device_alloc(dev->ordinal, row_bytes, &d_x)) == HUM_OK &&
            (st = hum_device_alloc(dev->ordinal, row_bytes, &d_out)) == HUM_OK &&
            (st = hum_device_alloc(dev->ordinal, (size_t)(E + 1) * 8, &d_layout)) == HUM_OK &&
            (st = hum_memcpy_htod(d_x, rows_x, (size_t)(n_rows * H) * 2)) == HUM_OK &&
            (st = hum_memcpy_htod(d_layout, masked ? (const void *)counts : (const void *)offsets,
                                  masked ? (size_t)E * 4 : (size_t)(E + 1) * 8)) == HUM_OK)
            st = hum_memset_d8(d_out, 0xFF, row_bytes);
        c.layout = (hum_tensor){.data = d_layout, .dtype = masked ? HUM_DTYPE_INT32 : HUM_DTYPE_INT64, .rank = 1,
                                .shape = {masked ? E : E + 1}, .memory = HUM_MEMORY_DEVICE};
        c.hidden = masked ? (hum_tensor){.data = d_x, .dtype = dt, .rank = 3, .shape = {E, t, H},
                                         .memory = HUM_MEMORY_DEVICE}
                          : (hum_tensor){.data = d_x, .dtype = dt, .rank = 2, .shape = {t, H},
                                         .memory = HUM_MEMORY_DEVICE};
        c.out = c.hidden;
        c.out.data = d_out;
        if (st == HUM_OK && (st = enqueue(&c, NULL)) == HUM_OK &&
            (st = hum_stream_synchronize(NULL)) == HUM_OK)
            st = check(w13, w2, o, &info, &b, rows_x, expert_of, n_rows, d_out);
        bench_timing whole;
        if (st == HUM_OK && (st = bench_time(&timer, enqueue, &c, warmup, reps, &whole)) == HUM_OK)
            printf("%6lld %9lld %9lld %10.2f%s\n", (long long)ms[i], (long long)(ms[i] * s->top_k), (long long)t,
                   whole.median_us, whole.graph ? "" : "  (no graph)");
        fflush(stdout);
        hum_device_free(d_x);
        hum_device_free(d_out);
        hum_device_free(d_layout);
        hum_workspace_destroy(c.ws);
        free(rows_x);
        free(expert_of);
        moe_batch_free(&b);
    }
    bench_timer_destroy(&timer);
    free(offsets);
    free(counts);
    return st;
}
