/* See bench_moe_gemm.h. */
#include "bench_moe_gemm.h"

#include "bench_check.h"
#include "bench_timer.h"
#include "cli_runtime.h"
#include "moe_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* E experts of random codes and group scales around 0.01 (the values do not change the speed;
 * quantizing E x N x K normals would cost the host seconds). */
static hum_status random_experts(const hum_layer_spec *s, int64_t experts, bench_rng *rng, hum_standard_weight *w)
{
    const int bits = hum_dtype_bits(s->weight_dtype);
    if ((s->weight_dtype >> 24 & 0xF) != 1 || s->scale_type != HUM_SCALE_GROUP || s->zero_point || s->bias ||
        s->act_order)
        return hum_fail(HUM_ERR_INVALID_ARG, "--moe-gemm times uint weights with group scales only (no zp, bias or "
                        "actorder)");
    memset(w, 0, sizeof *w);
    w->num_experts = experts;
    w->n = s->n;
    w->k = s->k;
    w->weight_dtype = s->weight_dtype;
    w->param_dtype = s->activation_dtype;
    w->scale_type = HUM_SCALE_GROUP;
    w->group_size = s->group_size;
    w->scale_dtype = s->activation_dtype;
    const int64_t words = (s->k * bits + 31) / 32, groups = (s->k + s->group_size - 1) / s->group_size;
    hum_status st = hum_host_tensor_alloc(&w->weight, HUM_DTYPE_INT32, 3, (const int64_t[]){experts, s->n, words});
    if (st == HUM_OK)
        st = hum_host_tensor_alloc(&w->scale, s->activation_dtype, 3, (const int64_t[]){experts, s->n, groups});
    if (st != HUM_OK) {
        hum_standard_free(w);
        return st;
    }
    uint32_t *code = w->weight.data;
    for (int64_t i = 0; i < experts * s->n * words; i++)
        code[i] = (uint32_t)bench_rng_next(rng);
    const int64_t count = experts * s->n * groups;
    float *f = malloc((size_t)count * sizeof *f);
    if (!f) {
        hum_standard_free(w);
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "scales");
    }
    for (int64_t i = 0; i < count; i++)
        f[i] = 0.005f + 0.01f * (float)(bench_rng_next(rng) % 1000) / 1000.f;
    st = hum_dtype_from_float(s->activation_dtype, f, count, w->scale.data);
    free(f);
    if (st != HUM_OK)
        hum_standard_free(w);
    return st;
}

typedef struct moe_call {
    hum_layer *gemm;
    hum_workspace *ws;
    hum_tensor a, c;
    hum_expert_routing r;
} moe_call;

static hum_status enqueue(void *ctx, CUstream stream)
{
    moe_call *m = ctx;
    return hum_expert_gemm_forward(m->gemm, m->ws, stream, &m->a, NULL, &m->c, &m->r);
}

/* Random routing of m tokens to top_k distinct experts each, laid out as the align step does
 * (hum_moe_align_reference), into device buffers of hum_moe_align_rows(m * top_k, E, bm) rows. */
static hum_status route(bench_rng *rng, int64_t m, int32_t top_k, int64_t experts, int32_t bm, void *d_sorted,
                        void *d_blocks, void *d_count)
{
    const int64_t R = m * top_k, rows = hum_moe_align_rows(R, experts, bm);
    int32_t *topk = malloc((size_t)R * 4), *sorted = malloc((size_t)rows * 4);
    int32_t *blocks = malloc((size_t)(rows / bm) * 4), *offsets = malloc((size_t)(experts + 1) * 4);
    hum_status st = topk && sorted && blocks && offsets ? HUM_OK : hum_fail(HUM_ERR_OUT_OF_MEMORY, "routing");
    int32_t count = 0;
    if (st == HUM_OK) {
        moe_random_ids(rng, m, top_k, (int32_t)experts, 0, topk);
        const hum_tensor ids = {.data = topk, .dtype = HUM_DTYPE_INT32, .rank = 2, .shape = {m, top_k},
                                .memory = HUM_MEMORY_HOST};
        st = hum_moe_align_reference(&ids, NULL, (int32_t)experts, (int32_t)experts, bm, sorted, blocks, offsets,
                                     &count);
    }
    if (st == HUM_OK)
        st = hum_memcpy_htod(d_sorted, sorted, (size_t)rows * 4);
    if (st == HUM_OK)
        st = hum_memcpy_htod(d_blocks, blocks, (size_t)(rows / bm) * 4);
    if (st == HUM_OK)
        st = hum_memcpy_htod(d_count, &count, 4);
    free(topk);
    free(sorted);
    free(blocks);
    free(offsets);
    return st;
}

int bench_moe_gemm(const bench_moe_gemm_options *o)
{
    hum_layer_spec spec;
    if (hum_layer_spec_parse(o->spec, &spec) != HUM_OK) {
        fprintf(stderr, "hum bench: %s\n", hum_last_error());
        return 2;
    }
    bench_rng rng = bench_rng_fresh();
    hum_standard_weight w;
    hum_runtime *rt = NULL;
    hum_layer *gemm = NULL;
    hum_workspace *ws = NULL;
    bench_timer timer;
    memset(&timer, 0, sizeof timer);
    void *d_a = NULL, *d_c = NULL, *d_sorted = NULL, *d_blocks = NULL, *d_count = NULL;
    hum_device_info dev;
    int64_t m_max = 1;
    for (int32_t i = 0; i < o->m_count; i++)
        m_max = o->ms[i] > m_max ? o->ms[i] : m_max;
    const int64_t r_max = m_max * o->top_k, capacity = hum_moe_align_rows(r_max, o->experts, 256); /* block_m <= 256 */
    const hum_layer_options lo = {.activation_dtype = spec.activation_dtype};
    hum_status st = random_experts(&spec, o->experts, &rng, &w);
    if (st != HUM_OK) {
        fprintf(stderr, "hum bench: %s\n", hum_last_error());
        return 2;
    }
    if (cli_runtime_open("bench", o->config, NULL, &rt) != 0) {
        hum_standard_free(&w);
        return 1;
    }
    int64_t ws_bytes = 0;
    if ((st = hum_runtime_device(rt, &dev)) != HUM_OK) {
        fprintf(stderr, "hum bench: no GPU to run on: %s\n", hum_last_error());
        hum_runtime_destroy(rt);
        hum_standard_free(&w);
        return 1;
    }
    if ((st = hum_expert_gemm_from_standard(rt, &w, &lo, HUM_GEMM_MOE_INDEXED, &gemm)) == HUM_OK &&
        (st = hum_layer_prepare(gemm)) == HUM_OK && (st = hum_layer_workspace_size(gemm, 1, &ws_bytes)) == HUM_OK &&
        (st = hum_workspace_create(rt, NULL, ws_bytes, &ws)) == HUM_OK &&
        (st = bench_timer_create(dev.ordinal, dev.l2_bytes, &timer)) == HUM_OK &&
        (st = hum_device_alloc(dev.ordinal, (size_t)(r_max * spec.k) * 2, &d_a)) == HUM_OK &&
        (st = hum_device_alloc(dev.ordinal, (size_t)(r_max * spec.n) * 2, &d_c)) == HUM_OK &&
        (st = hum_device_alloc(dev.ordinal, (size_t)capacity * 4, &d_sorted)) == HUM_OK &&
        (st = hum_device_alloc(dev.ordinal, (size_t)capacity * 4, &d_blocks)) == HUM_OK &&
        (st = hum_device_alloc(dev.ordinal, 4, &d_count)) == HUM_OK)
        st = hum_memset_d8(d_a, 0, (size_t)(r_max * spec.k) * 2);
    const double weight_bytes = (double)o->experts * spec.n * (spec.k * hum_dtype_bits(spec.weight_dtype) / 8.0 +
                                                               2.0 * spec.k / spec.group_size);
    if (st == HUM_OK)
        printf("hum bench --moe-gemm %s (%s), E=%lld top_k=%d on %s\n%6s %8s %9s %7s %10s %9s\n", o->spec,
               o->down ? "down: A = the routed rows, top_k 1" : "gate/up: A = the tokens", (long long)o->experts,
               o->top_k, dev.name, "M", "rows", "per exp", "block", "hum µs", "GB/s");
    for (int32_t i = 0; st == HUM_OK && i < o->m_count; i++) {
        const int64_t m = o->ms[i], R = m * o->top_k;
        moe_call call = {.gemm = gemm, .ws = ws};
        call.r.m = o->down ? R : m;
        call.r.top_k = o->down ? 1 : o->top_k;
        int32_t bm = 0;
        if ((st = hum_expert_gemm_block_m(gemm, ws, &call.r, &bm)) != HUM_OK ||
            (st = route(&rng, m, o->top_k, o->experts, bm, d_sorted, d_blocks, d_count)) != HUM_OK)
            break;
        call.r.block_m = bm;
        call.r.sorted_token_ids = d_sorted;
        call.r.expert_ids = d_blocks;
        call.r.num_tokens_post_padded = d_count;
        call.r.capacity = hum_moe_align_rows(R, o->experts, bm);
        call.a = (hum_tensor){.data = d_a, .dtype = spec.activation_dtype, .rank = 2, .shape = {call.r.m, spec.k},
                              .memory = HUM_MEMORY_DEVICE};
        call.c = (hum_tensor){.data = d_c, .dtype = spec.activation_dtype, .rank = 2, .shape = {R, spec.n},
                              .memory = HUM_MEMORY_DEVICE};
        bench_timing t;
        if ((st = bench_time(&timer, enqueue, &call, o->warmup, o->reps, &t)) != HUM_OK)
            break;
        /* the distinct experts the routing touches, each read once */
        const double touched = o->experts * (1.0 - pow(1.0 - (double)o->top_k / o->experts, (double)m));
        printf("%6lld %8lld %9lld %7d %10.2f %9.0f%s\n", (long long)m, (long long)R,
               (long long)hum_expert_gemm_rows(&(hum_layer_config){.num_experts = o->experts}, HUM_GEMM_MOE_INDEXED, m,
                                               o->top_k),
               bm, t.median_us, weight_bytes * touched / o->experts / (t.median_us * 1e3),
               t.graph ? "" : "  (no graph)");
        fflush(stdout);
    }
    if (st != HUM_OK)
        fprintf(stderr, "hum bench: %s\n", hum_last_error());
    hum_device_free(d_a);
    hum_device_free(d_c);
    hum_device_free(d_sorted);
    hum_device_free(d_blocks);
    hum_device_free(d_count);
    bench_timer_destroy(&timer);
    hum_workspace_destroy(ws);
    hum_layer_destroy(gemm);
    hum_runtime_destroy(rt);
    hum_standard_free(&w);
    return st == HUM_OK ? 0 : 1;
}
