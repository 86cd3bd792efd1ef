/* `hum demo --moe`: the MoE job end to end. Builds a GPTQ checkpoint (4-bit, group 128,
 * symmetric, bfloat16) of one Qwen3-30B-A3B MoE block (128 experts, top-8, hidden 2048,
 * intermediate 768, one module per expert) from random weights, loads it as a user's
 * checkpoint (hum_moe_from_safetensors), runs it on the GPU with random routings, checks sampled
 * tokens against the float64 reference of the weights it was written from, and times the layer.
 * Without a GPU it compiles the layer's kernels for sm_90a and checks on the CPU that the
 * checkpoint read back gives the reference output of the weights written. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "bench_timer.h"
#include "cli_progress.h"
#include "demo_moe.h"
#include "moe_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { E = 128, TOP_K = 8, HIDDEN = 2048, INTER = 768, CPU_M = 4, WARMUP = 5, REPS = 20 };
static const int64_t GPU_MS[] = {1, 16, 4096};
enum { GPU_M_COUNT = sizeof GPU_MS / sizeof GPU_MS[0], M_MAX = 4096, CHECK_CAP = 64 };
static const char EXPERTS[] = "model.layers.0.mlp.experts";
static const char *const PROJ[3] = {"gate_proj", "up_proj", "down_proj"};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/* A random W4 g128 weight [n][k] made directly as codes and scales (quantizing 604 million
 * random floats would take most of the demo): uniform 4-bit codes around the midpoint 8 and
 * bfloat16 scales of about 1 / (4.6 sqrt(k)), so that each projection keeps its input's range
 * (uniform codes - 8 have a standard deviation of 4.6). */
static hum_status random_weight(bench_rng *rng, int64_t n, int64_t k, hum_standard_weight *w)
{
    memset(w, 0, sizeof *w);
    w->n = n;
    w->k = k;
    w->weight_dtype = HUM_DTYPE_UINT4;
    w->param_dtype = HUM_DTYPE_BFLOAT16;
    w->scale_type = HUM_SCALE_GROUP;
    w->group_size = 128;
    w->scale_dtype = HUM_DTYPE_BFLOAT16;
    const int64_t words = k / 8, groups = k / 128;
    hum_status st = hum_host_tensor_alloc(&w->weight, HUM_DTYPE_INT32, 2, (const int64_t[]){n, words});
    if (st == HUM_OK)
        st = hum_host_tensor_alloc(&w->scale, HUM_DTYPE_BFLOAT16, 2, (const int64_t[]){n, groups});
    double *s = st == HUM_OK ? malloc((size_t)(n * groups) * sizeof *s) : NULL;
    if (st == HUM_OK && !s)
        st = hum_fail(HUM_ERR_OUT_OF_MEMORY, "random scales");
    if (st == HUM_OK) {
        uint32_t *q = w->weight.data;
        for (int64_t i = 0; i < n * words; i++)
            q[i] = (uint32_t)bench_rng_next(rng);
        for (int64_t i = 0; i < n * groups; i++)
            s[i] = (0.8 + 0.4 * (double)(bench_rng_next(rng) >> 11) / 9007199254740992.0) / (4.6 * sqrt((double)k));
        st = hum_dtype_encode(HUM_DTYPE_BFLOAT16, s, n * groups, w->scale.data);
    }
    free(s);
    if (st != HUM_OK)
        hum_standard_free(w);
    return st;
}

/* 3 E dense weights (expert e's gate, up, down at 3e, 3e+1, 3e+2), written one module per
 * expert. */
static hum_status build_checkpoint(const char *dir, hum_standard_weight *w)
{
    static char names[3 * E][96];
    const char *ptrs[3 * E];
    bench_rng rng = bench_rng_fresh();
    hum_status st = HUM_OK;
    for (int i = 0; st == HUM_OK && i < 3 * E; i++) {
        const int down = i % 3 == 2;
        snprintf(names[i], sizeof names[i], "%s.%d.%s", EXPERTS, i / 3, PROJ[i % 3]);
        ptrs[i] = names[i];
        st = random_weight(&rng, down ? HIDDEN : INTER, down ? INTER : HIDDEN, &w[i]);
    }
    hum_checkpoint_write_options o = {.architecture = "Qwen3MoeForCausalLM"};
    return st == HUM_OK ? hum_checkpoint_write_gptq(dir, ptrs, w, 3 * E, &o) : st;
}

/* out[m][H] of the written weights, computed here slot by slot (hum_reference_gemm per
 * projection): independent of the library's MoE reference and of the gate/up join. */
static hum_status by_hand(const hum_standard_weight *w, const moe_batch *b, double *out)
{
    double *x = malloc(HIDDEN * sizeof *x), *g = malloc(INTER * sizeof *g), *u = malloc(INTER * sizeof *u);
    double *y = malloc(HIDDEN * sizeof *y);
    hum_status st = x && g && u && y ? HUM_OK : hum_fail(HUM_ERR_OUT_OF_MEMORY, "the reference");
    for (int64_t t = 0; st == HUM_OK && t < b->m; t++) {
        for (int64_t h = 0; h < HIDDEN; h++)
            out[t * HIDDEN + h] = 0;
        st = hum_dtype_decode(b->dtype, b->x + t * HIDDEN, HIDDEN, x);
        for (int32_t j = 0; st == HUM_OK && j < b->top_k; j++) {
            const int32_t e = b->ids[t * b->top_k + j];
            if ((st = hum_reference_gemm(&w[3 * e], 0, x, 1, g)) != HUM_OK ||
                (st = hum_reference_gemm(&w[3 * e + 1], 0, x, 1, u)) != HUM_OK)
                break;
            for (int64_t i = 0; i < INTER; i++)
                g[i] = g[i] / (1 + exp(-g[i])) * u[i];
            if ((st = hum_reference_gemm(&w[3 * e + 2], 0, g, 1, y)) != HUM_OK)
                break;
            for (int64_t h = 0; h < HIDDEN; h++)
                out[t * HIDDEN + h] += b->weights[t * b->top_k + j] * y[h];
        }
    }
    free(x), free(g), free(u), free(y);
    return st;
}

static void options(hum_moe_options *o)
{
    hum_moe_options_init(o);
    o->top_k = TOP_K;
    o->activation = HUM_MOE_SILU;
}

static int with_gpu(hum_runtime *rt, const hum_device_info *d, const char *dir)
{
    hum_moe_options o, resolved;
    options(&o);
    hum_standard_weight w13, w2;
    hum_moe *moe = NULL;
    printf("\n");
    cli_step *step = cli_step_begin("experts: loading, compiling their kernels, uploading");
    double t0 = now_ms();
    hum_status st = hum_moe_load_standard(rt, dir, EXPERTS, &o, &w13, &w2, &resolved);
    if (st == HUM_OK)
        st = hum_moe_from_standard(rt, &w13, &w2, &resolved, &moe);
    const double t1 = now_ms();
    if (st == HUM_OK)
        st = hum_moe_prepare(moe);
    cli_step_end(step);
    if (st != HUM_OK) {
        fprintf(stderr, "hum demo: %s: %s\n", EXPERTS, hum_last_error());
        hum_moe_destroy(moe);
        return 1;
    }
    hum_moe_info info;
    hum_moe_get_info(moe, &info);
    printf("%s [E = %d, top-%d, H = %d, I = %d]: loaded in %.0f ms, prepared in %.0f ms\n", EXPERTS, E, TOP_K, HIDDEN,
           INTER, t1 - t0, info.prepare_ms);
    printf("times: median of %d CUDA-graph replays, L2 flushed before each; random routing, softmax weights\n", REPS);
    printf("%6s %10s %9s %-4s %10s\n", "M", "rel error", "tokens", "", "layer µs");
    bench_timer timer;
    moe_device dev;
    bench_rng rng = bench_rng_fresh();
    uint16_t *out = malloc((size_t)M_MAX * HIDDEN * 2);
    int rc = 1;
    if (!out || bench_timer_create(d->ordinal, d->l2_bytes, &timer) != HUM_OK) {
        fprintf(stderr, "hum demo: %s\n", out ? hum_last_error() : "out of host memory");
    } else {
        if (moe_device_create(rt, d->ordinal, moe, M_MAX, &dev) != HUM_OK) {
            fprintf(stderr, "hum demo: %s\n", hum_last_error());
        } else {
            rc = 0;
            for (int i = 0; i < GPU_M_COUNT; i++) {
                moe_batch b;
                int64_t tokens[CHECK_CAP], bad = 0;
                double err = INFINITY;
                bench_timing t = {.median_us = NAN};
                st = moe_batch_random(&rng, GPU_MS[i], HIDDEN, TOP_K, E, 0, HUM_DTYPE_BFLOAT16, &b);
                const int64_t count = st == HUM_OK ? moe_check_tokens(&b, INTER, tokens, CHECK_CAP) : 0;
                if (st == HUM_OK && (st = moe_device_load(&dev, &b)) == HUM_OK &&
                    (st = moe_device_forward(&dev, out)) == HUM_OK &&
                    (st = moe_check(&w13, &w2, &resolved, &dev.info, &b, out, tokens, count, &err, &bad)) == HUM_OK)
                    st = bench_time(&timer, moe_enqueue, &dev, WARMUP, REPS, &t);
                if (st != HUM_OK) {
                    fprintf(stderr, "hum demo: M = %lld: %s\n", (long long)GPU_MS[i], hum_last_error());
                    rc = 1;
                } else {
                    const int pass = bad == 0 && err <= bench_check_tolerance(HUM_DTYPE_BFLOAT16);
                    char tok[32];
                    snprintf(tok, sizeof tok, "%lld/%lld", (long long)count, (long long)GPU_MS[i]);
                    printf("%6lld %10.2e %9s %-4s %10.1f\n", (long long)GPU_MS[i], err, tok, pass ? "ok" : "FAIL",
                           t.median_us);
                    rc |= !pass;
                }
                moe_batch_free(&b);
            }
            moe_device_destroy(&dev);
        }
        bench_timer_destroy(&timer);
    }
    free(out);
    hum_moe_destroy(moe);
    hum_standard_free(&w13);
    hum_standard_free(&w2);
    printf("\n%s\n", rc == 0 ? "demo passed" : "demo FAILED");
    return rc;
}

/* Without a GPU: every kernel of the layer compiled for `arch`, and the checkpoint read back
 * (hum_moe_load_standard: per-expert modules stacked, gate and up joined) giving, through the
 * float64 MoE reference at M = CPU_M, the output computed here from the weights written. */
static int without_gpu(hum_runtime *rt, const char *dir, const hum_standard_weight *w, const char *arch)
{
    hum_moe_options o, resolved;
    options(&o);
    hum_standard_weight w13, w2;
    char what[128];
    snprintf(what, sizeof what, "compile: the experts' kernels for %s", arch);
    cli_step *step = cli_step_begin(what);
    hum_moe_compile_info info;
    hum_status st = hum_moe_load_standard(rt, dir, EXPERTS, &o, &w13, &w2, &resolved);
    if (st == HUM_OK)
        st = hum_moe_compile(rt, &w13, &w2, &resolved, arch, &info);
    cli_step_end(step);
    if (st != HUM_OK) {
        fprintf(stderr, "hum demo: %s for %s: %s\n", EXPERTS, arch, hum_last_error());
        hum_standard_free(&w13);
        hum_standard_free(&w2);
        return 1;
    }
    printf("compile: %s for %s: gate/up %d and down %d M ranges (policy %s), %d kernels compiled, %d from the "
           "cache, %.0f ms\n",
           EXPERTS, arch, info.gate_up.entry_count, info.down.entry_count, info.gate_up.policy_name,
           info.kernels_compiled, info.kernels_cached, info.compile_ms);
    bench_rng rng = bench_rng_fresh();
    moe_batch b;
    double *want = malloc((size_t)CPU_M * HIDDEN * sizeof *want), *got = malloc((size_t)CPU_M * HIDDEN * sizeof *got);
    double *x = malloc((size_t)CPU_M * HIDDEN * sizeof *x);
    const double t0 = now_ms();
    snprintf(what, sizeof what, "reference: the experts at M = %d on the CPU", CPU_M);
    step = cli_step_begin(what);
    st = want && got && x ? moe_batch_random(&rng, CPU_M, HIDDEN, TOP_K, E, 0, HUM_DTYPE_BFLOAT16, &b)
                          : hum_fail(HUM_ERR_OUT_OF_MEMORY, "the reference");
    const hum_tensor ids = {.data = b.ids, .dtype = HUM_DTYPE_INT32, .rank = 2, .shape = {CPU_M, TOP_K},
                            .memory = HUM_MEMORY_HOST};
    if (st == HUM_OK && (st = hum_dtype_decode(HUM_DTYPE_BFLOAT16, b.x, CPU_M * HIDDEN, x)) == HUM_OK &&
        (st = hum_moe_reference(&w13, &w2, &resolved, x, &ids, b.weights, NULL, NULL, got)) == HUM_OK)
        st = by_hand(w, &b, want);
    cli_step_end(step);
    int rc = 1;
    if (st != HUM_OK) {
        fprintf(stderr, "hum demo: %s\n", hum_last_error());
    } else {
        double worst = 0;
        for (int64_t i = 0; i < CPU_M * HIDDEN; i++)
            worst = fmax(worst, fabs(got[i] - want[i]) / (1 + fabs(want[i])));
        rc = !(worst < 1e-9);
        printf("reference: the experts at M = %d on the CPU (%.0f ms): the checkpoint read back %s (largest "
               "difference %.1e)\n",
               CPU_M, now_ms() - t0,
               rc ? "DIFFERS from the weights written" : "gives the output of the weights written", worst);
    }
    moe_batch_free(&b);
    free(want), free(got), free(x);
    hum_standard_free(&w13);
    hum_standard_free(&w2);
    printf("launch: skipped (no GPU)\n%s\n", rc == 0 ? "demo passed (compile and CPU reference only)" : "demo FAILED");
    return rc;
}

int demo_moe(hum_runtime *rt, const char *dir, int keep, const char *no_gpu_arch)
{
    printf("hum %s demo: a W4A16 MoE block of Qwen3-30B-A3B shape (%d experts, top-%d) from a GPTQ checkpoint\n",
           hum_version(), E, TOP_K);
    printf("cache dir: %s\n", hum_runtime_cache_dir(rt));
    hum_device_info d;
    const int have_gpu = hum_runtime_device(rt, &d) == HUM_OK;
    if (have_gpu)
        printf("device %d: %s, sm_%d%d, %d SMs\n", d.ordinal, d.name, d.sm_major, d.sm_minor, d.sm_count);
    else
        printf("device: %s\n", hum_last_error());
    hum_standard_weight *w = calloc(3 * E, sizeof *w);
    if (!w) {
        fprintf(stderr, "hum demo: out of host memory\n");
        return 1;
    }
    const double t0 = now_ms();
    cli_step *step = cli_step_begin("checkpoint: random 4-bit weights of 128 experts, written as GPTQ");
    hum_status st = build_checkpoint(dir, w);
    cli_step_end(step);
    int rc = 1;
    if (st != HUM_OK) {
        fprintf(stderr, "hum demo: building the checkpoint: %s\n", hum_last_error());
    } else {
        printf("checkpoint: GPTQ 4-bit, group 128, symmetric, bfloat16, random codes and scales, in %s (%s): %.0f ms\n",
               dir, keep ? "kept" : "removed at the end", now_ms() - t0);
        printf("  %s.<0..%d>.{gate_proj, up_proj} [N = %d, K = %d], down_proj [N = %d, K = %d]\n", EXPERTS, E - 1,
               INTER, HIDDEN, HIDDEN, INTER);
        rc = have_gpu ? with_gpu(rt, &d, dir) : without_gpu(rt, dir, w, no_gpu_arch);
    }
    for (int i = 0; i < 3 * E; i++)
        hum_standard_free(&w[i]);
    free(w);
    return rc;
}
