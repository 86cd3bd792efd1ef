/* Running one MoE layer from the CLI (moe_run.h). */
#include "moe_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void moe_random_ids(bench_rng *rng, int64_t m, int32_t top_k, int32_t e_global, int balanced, int32_t *ids)
{
    for (int64_t i = 0; i < m * top_k; i++) {
        if (balanced) {
            ids[i] = (int32_t)(i % e_global);
            continue;
        }
        const int64_t first = i - i % top_k; /* the token's first slot */
        int repeat;
        do { /* distinct experts, as a router's top-k */
            ids[i] = (int32_t)(bench_rng_next(rng) % (uint64_t)e_global);
            repeat = 0;
            for (int64_t q = first; q < i; q++)
                repeat |= ids[q] == ids[i];
        } while (repeat);
    }
}

hum_status moe_batch_random(bench_rng *rng, int64_t m, int64_t hidden, int32_t top_k, int32_t e_global, int balanced,
                            hum_dtype dtype, moe_batch *b)
{
    memset(b, 0, sizeof *b);
    b->m = m;
    b->hidden = hidden;
    b->top_k = top_k;
    b->dtype = dtype;
    b->x = malloc((size_t)(m * hidden + 1) * 2);
    b->ids = malloc((size_t)(m * top_k + 1) * sizeof *b->ids);
    b->weights = malloc((size_t)(m * top_k + 1) * sizeof *b->weights);
    float *logits = malloc((size_t)(top_k + 1) * sizeof *logits);
    if (!b->x || !b->ids || !b->weights || !logits) {
        free(logits);
        moe_batch_free(b);
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "inputs of %lld tokens", (long long)m);
    }
    moe_random_ids(rng, m, top_k, e_global, balanced, b->ids);
    for (int64_t t = 0; t < m; t++) {
        bench_random_normal(rng, logits, top_k);
        double sum = 0;
        for (int32_t j = 0; j < top_k; j++)
            sum += exp(logits[j]);
        for (int32_t j = 0; j < top_k; j++)
            b->weights[t * top_k + j] = (float)(exp(logits[j]) / sum);
    }
    free(logits);
    hum_status st = bench_random_activations(rng, dtype, m * hidden, b->x);
    if (st != HUM_OK)
        moe_batch_free(b);
    return st;
}

void moe_batch_free(moe_batch *b)
{
    free(b->x);
    free(b->ids);
    free(b->weights);
    memset(b, 0, sizeof *b);
}

hum_status moe_device_create(hum_runtime *rt, int32_t ordinal, hum_moe *moe, int64_t m_cap, moe_device *d)
{
    memset(d, 0, sizeof *d);
    d->moe = moe;
    d->m_cap = m_cap;
    hum_status st = hum_moe_get_info(moe, &d->info);
    const int64_t h = d->info.hidden, k = d->info.top_k;
    int64_t bytes = 0;
    if (st == HUM_OK)
        st = hum_device_alloc(ordinal, (size_t)(m_cap * h) * 2, &d->x);
    if (st == HUM_OK)
        st = hum_device_alloc(ordinal, (size_t)(m_cap * k) * 4, &d->ids);
    if (st == HUM_OK)
        st = hum_device_alloc(ordinal, (size_t)(m_cap * k) * 4, &d->weights);
    if (st == HUM_OK)
        st = hum_device_alloc(ordinal, (size_t)(m_cap * h) * 2, &d->out);
    if (st == HUM_OK && (st = hum_moe_workspace_size(moe, m_cap, &bytes)) == HUM_OK)
        st = hum_workspace_create(rt, NULL, bytes, &d->ws);
    if (st != HUM_OK)
        moe_device_destroy(d);
    return st;
}

void moe_device_destroy(moe_device *d)
{
    hum_device_free(d->x);
    hum_device_free(d->ids);
    hum_device_free(d->weights);
    hum_device_free(d->out);
    hum_workspace_destroy(d->ws);
    memset(d, 0, sizeof *d);
}

static hum_tensor view(void *p, hum_dtype dtype, int64_t rows, int64_t cols)
{
    hum_tensor t = {.data = p, .dtype = dtype, .rank = 2, .shape = {rows, cols}, .memory = HUM_MEMORY_DEVICE};
    return t;
}

hum_status moe_device_load(moe_device *d, const moe_batch *b)
{
    if (b->m < 1 || b->m > d->m_cap)
        return hum_fail(HUM_ERR_INVALID_ARG, "%lld tokens (the buffers hold 1..%lld)", (long long)b->m,
                        (long long)d->m_cap);
    const int64_t m = b->m, h = d->info.hidden, k = d->info.top_k;
    hum_status st = hum_memcpy_htod(d->x, b->x, (size_t)(m * h) * 2);
    if (st == HUM_OK)
        st = hum_memcpy_htod(d->ids, b->ids, (size_t)(m * k) * 4);
    if (st == HUM_OK)
        st = hum_memcpy_htod(d->weights, b->weights, (size_t)(m * k) * 4);
    d->tx = view(d->x, d->info.activation_dtype, m, h);
    d->tids = view(d->ids, HUM_DTYPE_INT32, m, k);
    d->tw = view(d->weights, HUM_DTYPE_FLOAT32, m, k);
    d->tout = view(d->out, d->info.activation_dtype, m, h);
    return st;
}

hum_status moe_enqueue(void *ctx, CUstream stream)
{
    moe_device *d = ctx;
    return hum_moe_forward(d->moe, d->ws, stream, &d->tx, &d->tids, &d->tw, NULL, &d->tout, 0);
}

hum_status moe_enqueue_step(void *ctx, CUstream stream)
{
    moe_step *s = ctx;
    moe_device *d = s->d;
    return hum_moe_forward_steps(d->moe, d->ws, stream, &d->tx, NULL, &d->tids, &d->tw, NULL, &d->tout, 0, s->step,
                                 s->step);
}

hum_status moe_device_forward(moe_device *d, uint16_t *out)
{
    const size_t bytes = (size_t)(d->tout.shape[0] * d->tout.shape[1]) * 2;
    hum_status st = hum_memset_d8(d->out, 0xFF, bytes);
    if (st == HUM_OK)
        st = moe_enqueue(d, NULL);
    if (st == HUM_OK)
        st = hum_stream_synchronize(NULL);
    if (st == HUM_OK)
        st = hum_memcpy_dtoh(out, d->out, bytes);
    return st;
}

int64_t moe_check_tokens(const moe_batch *b, int64_t intermediate, int64_t *tokens, int64_t cap)
{
    /* each token costs top_k x (3 I x H) multiply-adds in the reference */
    const int64_t per_token = b->top_k * 3 * intermediate * b->hidden;
    int64_t count = BENCH_CHECK_MAC_BUDGET / (per_token > 0 ? per_token : 1);
    count = count < 2 ? 2 : count;
    count = count < b->m ? count : b->m;
    count = count < cap ? count : cap;
    for (int64_t i = 0; i < count; i++)
        tokens[i] = count == 1 ? 0 : i * (b->m - 1) / (count - 1);
    return count;
}

hum_status moe_check(const hum_standard_weight *w13, const hum_standard_weight *w2, const hum_moe_options *opts,
                     const hum_moe_info *info, const moe_batch *b, const uint16_t *out, const int64_t *tokens,
                     int64_t count, double *rel_error, int64_t *bad)
{
    const int64_t h = b->hidden, k = b->top_k;
    moe_batch s = {.m = count, .hidden = h, .top_k = b->top_k, .dtype = b->dtype};
    double *x = malloc((size_t)(count * h) * sizeof *x), *ref = malloc((size_t)(count * h) * sizeof *ref);
    double *got = malloc((size_t)(count * h) * sizeof *got);
    s.ids = malloc((size_t)(count * k) * sizeof *s.ids);
    s.weights = malloc((size_t)(count * k) * sizeof *s.weights);
    hum_status st = x && ref && got && s.ids && s.weights ? HUM_OK
                                                           : hum_fail(HUM_ERR_OUT_OF_MEMORY, "the check's scratch");
    for (int64_t i = 0; st == HUM_OK && i < count; i++) {
        const int64_t t = tokens[i];
        memcpy(s.ids + i * k, b->ids + t * k, (size_t)k * sizeof *s.ids);
        memcpy(s.weights + i * k, b->weights + t * k, (size_t)k * sizeof *s.weights);
        if ((st = hum_dtype_decode(b->dtype, b->x + t * h, h, x + i * h)) == HUM_OK)
            st = hum_dtype_decode(b->dtype, out + t * h, h, got + i * h);
    }
    const hum_tensor ids = {.data = s.ids, .dtype = HUM_DTYPE_INT32, .rank = 2, .shape = {count, k},
                            .memory = HUM_MEMORY_HOST};
    const hum_moe_numerics as_run = {info->activation_dtype, info->gate_up_gemm.config.a_dtype,
                                     info->down_gemm.config.a_dtype, (int32_t)info->gate_up_gemm.config.a_group,
                                     (int32_t)info->down_gemm.config.a_group, info->gate_up_gemm.config.a_round,
                                     info->down_gemm.config.a_round};
    if (st == HUM_OK)
        st = hum_moe_reference(w13, w2, opts, x, &ids, s.weights, NULL, &as_run, ref);
    if (st == HUM_OK) {
        double num = 0, den = 0;
        *bad = 0;
        for (int64_t i = 0; i < count * h; i++) {
            if (!isfinite(got[i]))
                ++*bad;
            num += (got[i] - ref[i]) * (got[i] - ref[i]);
            den += ref[i] * ref[i];
        }
        *rel_error = *bad ? INFINITY : den > 0 ? sqrt(num / den) : sqrt(num);
    }
    free(x);
    free(ref);
    free(got);
    free(s.ids);
    free(s.weights);
    return st;
}
