/* `hum run CHECKPOINT --layer NAME` where NAME is an experts module (hum_moe_from_safetensors):
 * the MoE layer on random routings at each M, with --check against the float64 reference of
 * sampled tokens. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "run_moe.h"

#include "bench_check.h"
#include "moe_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { CHECK_CAP = 64 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static const char *act_name(int32_t a)
{
    static const char *const names[] = {"silu", "swiglu_oai", "relu2", "gelu"};
    return names[a];
}

int run_moe(hum_runtime *rt, const run_moe_options *o, int *not_moe)
{
    *not_moe = 0;
    hum_standard_weight w13, w2;
    hum_moe_options opts = o->moe, resolved;
    opts.activation_dtype = o->dtype;
    const int default_top_k = opts.top_k == 0;
    if (default_top_k)
        opts.top_k = 1; /* settled below, once the experts are known */
    double t0 = now_ms();
    hum_status st = hum_moe_load_standard(rt, o->checkpoint, o->name, &opts, &w13, &w2, &resolved);
    if (st == HUM_ERR_FORMAT && strstr(hum_last_error(), "no experts module")) {
        *not_moe = 1;
        return 1;
    }
    if (st != HUM_OK) {
        fprintf(stderr, "hum run: %s\n", hum_last_error());
        return 1;
    }
    if (default_top_k)
        resolved.top_k = resolved.global_experts < 8 ? resolved.global_experts : 8;
    /* a bad --topk is the command line's mistake, said before the GPU is looked for */
    if (resolved.top_k > resolved.global_experts) {
        fprintf(stderr, "hum run: bad argument '--topk %d' (%s has %d experts: expected 1..%d)\n", resolved.top_k,
                o->name, resolved.global_experts, resolved.global_experts);
        hum_standard_free(&w13);
        hum_standard_free(&w2);
        return 2;
    }
    printf("%s: %s, experts module: %lld experts, top-%d, H = %lld, I = %lld, %s weights, %s (%s), loaded in %.1f "
           "ms\n",
           o->checkpoint, o->name, (long long)w13.num_experts, resolved.top_k, (long long)w2.n, (long long)w2.k,
           hum_dtype_name(w13.weight_dtype), act_name(resolved.activation),
           resolved.gate_up == HUM_MOE_GATE_UP_INTERLEAVED ? "gate/up interleaved" : "gate/up split", now_ms() - t0);
    hum_device_info dev;
    hum_moe *moe = NULL;
    moe_device d;
    memset(&d, 0, sizeof d);
    int rc = 1;
    int64_t m_max = 0;
    for (int32_t i = 0; i < o->m_count; i++)
        m_max = o->ms[i] > m_max ? o->ms[i] : m_max;
    t0 = now_ms();
    if ((st = hum_runtime_device(rt, &dev)) != HUM_OK)
        fprintf(stderr, "hum run: no GPU to run on: %s\n", hum_last_error());
    else if ((st = hum_moe_from_standard(rt, &w13, &w2, &resolved, &moe)) != HUM_OK ||
             (st = hum_moe_prepare(moe)) != HUM_OK ||
             (st = moe_device_create(rt, dev.ordinal, moe, m_max, &d)) != HUM_OK)
        fprintf(stderr, "hum run: %s\n", hum_last_error());
    if (st == HUM_OK) {
        printf("prepared for %s (%s activations) in %.1f ms; %s routing, softmax weights\n", dev.name,
               hum_dtype_name(o->dtype), now_ms() - t0, o->balanced ? "balanced" : "random");
        rc = 0;
        bench_rng rng = bench_rng_fresh();
        uint16_t *out = malloc((size_t)(m_max * w2.n) * 2);
        for (int32_t i = 0; rc == 0 && i < o->m_count; i++) {
            const int64_t m = o->ms[i];
            moe_batch b;
            if (!out || (st = moe_batch_random(&rng, m, w2.n, resolved.top_k, resolved.global_experts, o->balanced,
                                               o->dtype, &b)) != HUM_OK) {
                fprintf(stderr, "hum run: M = %lld: %s\n", (long long)m, out ? hum_last_error() : "out of memory");
                rc = 1;
                break;
            }
            const double t1 = now_ms();
            if ((st = moe_device_load(&d, &b)) == HUM_OK)
                st = moe_device_forward(&d, out);
            const double taken = now_ms() - t1;
            if (st != HUM_OK) {
                fprintf(stderr, "hum run: M = %lld: %s\n", (long long)m, hum_last_error());
                rc = 1;
            } else {
                printf("M = %-6lld ran in %.3f ms (upload, forward, download)", (long long)m, taken);
                if (o->check) {
                    int64_t tokens[CHECK_CAP], bad = 0;
                    double err = INFINITY;
                    const int64_t count = moe_check_tokens(&b, w2.k, tokens, CHECK_CAP);
                    if ((st = moe_check(&w13, &w2, &resolved, &d.info, &b, out, tokens, count, &err, &bad)) != HUM_OK) {
                        printf("\n");
                        fprintf(stderr, "hum run: M = %lld: reference: %s\n", (long long)m, hum_last_error());
                        rc = 1;
                    } else {
                        const double tol = bench_check_tolerance(o->dtype);
                        const int pass = bad == 0 && err <= tol;
                        printf(", rel error %.3e over %lld of %lld tokens: %s", err, (long long)count, (long long)m,
                               pass ? "ok" : "FAIL");
                        if (bad)
                            printf(" (%lld output elements unwritten or not finite)", (long long)bad);
                        rc |= !pass;
                    }
                }
                printf("\n");
            }
            moe_batch_free(&b);
        }
        free(out);
    }
    moe_device_destroy(&d);
    hum_moe_destroy(moe);
    hum_standard_free(&w13);
    hum_standard_free(&w2);
    return rc;
}
