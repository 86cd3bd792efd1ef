/* `hum demo`: the main job on built-in defaults. Builds a GPTQ checkpoint (4-bit, group 128,
 * symmetric, float16) of Llama-3-8B projection shapes from random weights in a temporary
 * directory, loads it as a user's checkpoint, runs each layer on the GPU at a small and a large
 * M, checks both against the float64 reference and times them against cuBLAS. Without a GPU it
 * says so, compiles the layers' kernels for sm_90a and checks on the CPU, at a small M, that the
 * checkpoint read back gives the reference output of the weights it was written from. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "bench_calls.h"
#include "bench_io.h"
#include "bench_timer.h"
#include "bench_tmpdir.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_output.h"
#include "cli_progress.h"
#include "cli_runtime.h"
#include "demo_moe.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The arch compiled for when there is no GPU to ask: the H100/H200 class hum targets first. */
static const char NO_GPU_ARCH[] = "sm_90a";

/* Llama-3-8B (hidden 4096, intermediate 14336): one attention and two MLP projections. */
static const struct {
    const char *name, *short_name;
    int64_t n, k;
} LAYERS[] = {
    {"model.layers.0.self_attn.q_proj", "q_proj", 4096, 4096},
    {"model.layers.0.mlp.gate_proj", "gate_proj", 14336, 4096},
    {"model.layers.0.mlp.down_proj", "down_proj", 4096, 14336},
};
enum { LAYER_COUNT = sizeof LAYERS / sizeof LAYERS[0] };

/* M of the GPU runs: a decode-sized batch (every row checked) and a prefill-sized one (rows
 * sampled within the reference's budget); M of the CPU-only reference check. */
enum { SMALL_M = 16, LARGE_M = 4096, CPU_M = 4, WARMUP = 5, REPS = 20 };

static const char *origin_name(int32_t hit)
{
    return hit == HUM_JIT_MISS ? "cache miss" : hit == HUM_JIT_HIT_DISK ? "cache hit (disk)" : "cache hit (memory)";
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/* What the checkpoint is: the default is the demo's GPTQ; the options make the other layouts a
 * user brings (AWQ with zero points, GPTQ act-order) and keep them for `hum run`. */
typedef struct demo_options {
    int awq;          /* AutoAWQ GEMM layout, asymmetric (zero points); else GPTQ */
    int act_order;    /* GPTQ desc_act: a random g_idx */
    const char *keep; /* write the checkpoint here and keep it; NULL: a temporary directory */
    int moe;          /* the MoE demo (demo_moe.c) instead */
} demo_options;

static void usage(FILE *f)
{
    fprintf(f, "usage: hum demo [--config FILE] [--format gptq|awq] [--act-order] [--moe] [--keep DIR]\n\n"
               "The main job end to end: builds a GPTQ checkpoint (4-bit, group size 128, float16) of\n"
               "Llama-3-8B q_proj, gate_proj and down_proj shapes from random weights in a temporary\n"
               "directory, loads it like a user's checkpoint, runs every layer on the GPU at M = %d and\n"
               "M = %d, checks the outputs against the float64 reference and times them against cuBLAS.\n"
               "Without a GPU: compiles the layers' kernels for %s and checks the checkpoint on the CPU.\n\n"
               "  --format awq   write the checkpoint as AutoAWQ does (GEMM layout, zero points)\n"
               "  --act-order    GPTQ with desc_act: a random g_idx, columns regrouped at load\n"
               "  --moe          a MoE block of Qwen3-30B-A3B shape instead: 128 experts, top-8, hidden\n"
               "                 2048, intermediate 768, GPTQ 4-bit group 128 bfloat16, one module per\n"
               "                 expert; random routings at M = 1, 16 and 4096, sampled tokens checked\n"
               "  --keep DIR     write the checkpoint into DIR (a new or empty directory) and keep it,\n"
               "                 e.g. for hum run\n",
            SMALL_M, LARGE_M, NO_GPU_ARCH);
}

/* A random permutation of 0..k-1 (Fisher-Yates), as GPTQ's act-order ordering of columns. */
static void random_permutation(bench_rng *rng, int32_t *perm, int64_t k)
{
    for (int64_t j = 0; j < k; j++)
        perm[j] = (int32_t)j;
    for (int64_t j = k - 1; j > 0; j--) {
        int64_t r = (int64_t)(bench_rng_next(rng) % (uint64_t)(j + 1));
        int32_t t = perm[j];
        perm[j] = perm[r];
        perm[r] = t;
    }
}

/* Random weights quantized by the reference quantizer into standard weights, written as one
 * GPTQ or AWQ checkpoint. */
static hum_status build_checkpoint(const char *dir, const demo_options *o, hum_standard_weight *w)
{
    const char *names[LAYER_COUNT];
    bench_rng rng = bench_rng_fresh();
    hum_quant_spec spec = {.weight_dtype = HUM_DTYPE_UINT4, .param_dtype = HUM_DTYPE_FLOAT16,
                           .scale_type = HUM_SCALE_GROUP, .group_size = 128,
                           .zero_point = o->awq ? HUM_ZERO_POINT_INT : HUM_ZERO_POINT_NONE};
    hum_status st = HUM_OK;
    for (int i = 0; st == HUM_OK && i < LAYER_COUNT; i++) {
        names[i] = LAYERS[i].name;
        float *values = malloc((size_t)(LAYERS[i].n * LAYERS[i].k) * sizeof *values);
        int32_t *perm = o->act_order ? malloc((size_t)LAYERS[i].k * sizeof *perm) : NULL;
        if (values == NULL || (o->act_order && perm == NULL)) {
            free(values);
            free(perm);
            return hum_fail(HUM_ERR_OUT_OF_MEMORY, "random weights of %s", LAYERS[i].name);
        }
        bench_random_normal(&rng, values, LAYERS[i].n * LAYERS[i].k);
        if (perm)
            random_permutation(&rng, perm, LAYERS[i].k);
        spec.k_perm = perm;
        st = hum_quantize_reference(values, LAYERS[i].n, LAYERS[i].k, &spec, &w[i]);
        free(values);
        free(perm);
    }
    hum_checkpoint_write_options opts = {0};
    if (st == HUM_OK)
        st = o->awq ? hum_checkpoint_write_awq(dir, names, w, LAYER_COUNT, &opts)
                    : hum_checkpoint_write_gptq(dir, names, w, LAYER_COUNT, &opts);
    return st;
}

typedef struct demo_gpu {
    int32_t ordinal;
    bench_timer timer;
    bench_cublas *cublas; /* NULL: not timed */
    bench_rng rng;
} demo_gpu;

/* One M of one layer: fresh activations, a checked forward, then hum and cuBLAS timed. Prints
 * one table row; returns 0 when the check passed. */
static int run_m(demo_gpu *g, hum_layer *layer, const hum_standard_weight *w, bench_io *io, void *dense, int64_t m,
                 uint16_t *a, uint16_t *c, int64_t *rows)
{
    const hum_dtype dtype = HUM_DTYPE_FLOAT16;
    int64_t row_count = bench_check_rows(m, w->n, w->k, rows, m), bad = 0;
    double err = INFINITY;
    hum_status st;
    char what[96];
    snprintf(what, sizeof what, "M = %lld: run and compare %lld rows with the float64 reference", (long long)m,
             (long long)row_count);
    cli_step *step = cli_step_begin(what);
    if ((st = bench_random_activations(&g->rng, dtype, m * w->k, a)) == HUM_OK &&
        (st = bench_io_forward(io, layer, a, m, c)) == HUM_OK)
        st = bench_check_output(w, dtype, a, c, m, rows, row_count, &err, &bad);
    cli_step_end(step);
    if (st != HUM_OK) {
        fprintf(stderr, "hum demo: M = %lld: %s\n", (long long)m, hum_last_error());
        return 1;
    }
    int pass = bad == 0 && err <= bench_check_tolerance(dtype);
    bench_hum_call h = {.layer = layer};
    bench_io_views(io, m, &h.a, &h.c);
    bench_timing th, tc = {.median_us = NAN};
    if ((st = bench_time(&g->timer, bench_enqueue_hum, &h, WARMUP, REPS, &th)) == HUM_OK && g->cublas != NULL) {
        bench_cublas_call cc = {g->cublas, dtype, m, w->n, w->k, io->a, dense, io->c};
        st = bench_time(&g->timer, bench_enqueue_cublas, &cc, WARMUP, REPS, &tc);
    }
    if (st != HUM_OK) {
        fprintf(stderr, "hum demo: timing M = %lld: %s\n", (long long)m, hum_last_error());
        return 1;
    }
    char rows_text[32], cublas[16] = "n/a", ratio[16] = "n/a";
    snprintf(rows_text, sizeof rows_text, "%lld/%lld", (long long)row_count, (long long)m);
    if (isfinite(tc.median_us)) {
        snprintf(cublas, sizeof cublas, "%.1f", tc.median_us);
        snprintf(ratio, sizeof ratio, "%.2f", tc.median_us / th.median_us);
    }
    printf("%6lld %10.2e %11s %-4s %9.1f %10s %6s\n", (long long)m, err, rows_text, pass ? "ok" : "FAIL",
           th.median_us, cublas, ratio);
    if (bad)
        printf("       %lld output elements unwritten or not finite\n", (long long)bad);
    return pass ? 0 : 1;
}

/* The GPU part for one layer: loaded from the checkpoint like a user's, prepared, run at both
 * M, compared with the reference of the weights the checkpoint was written from. */
static int run_layer(demo_gpu *g, hum_runtime *rt, const char *dir, int i, const hum_standard_weight *w)
{
    const int64_t n = LAYERS[i].n, k = LAYERS[i].k;
    hum_layer_options lo = {.activation_dtype = HUM_DTYPE_FLOAT16};
    hum_layer *layer = NULL;
    char what[128];
    printf("\n");
    snprintf(what, sizeof what, "%s: loading, compiling its kernels, uploading", LAYERS[i].short_name);
    cli_step *step = cli_step_begin(what);
    double t0 = now_ms();
    if (hum_layer_from_safetensors(rt, dir, LAYERS[i].name, &lo, &layer) != HUM_OK) {
        cli_step_end(step);
        fprintf(stderr, "hum demo: loading %s: %s\n", LAYERS[i].name, hum_last_error());
        return 1;
    }
    double t1 = now_ms();
    hum_status prepared = hum_layer_prepare(layer);
    cli_step_end(step);
    if (prepared != HUM_OK) {
        fprintf(stderr, "hum demo: preparing %s: %s\n", LAYERS[i].name, hum_last_error());
        hum_layer_destroy(layer);
        return 1;
    }
    printf("%s [N = %lld, K = %lld]: loaded in %.0f ms, prepared in %.0f ms\n", LAYERS[i].short_name, (long long)n,
           (long long)k, t1 - t0, now_ms() - t1);
    /* "µ" is two bytes of UTF-8 and one column: its fields are one byte wider. */
    printf("%6s %10s %11s %-4s %10s %11s %6s\n", "M", "rel error", "rows", "", "hum µs", "cuBLAS µs", "ratio");
    bench_io io;
    void *dense = NULL;
    uint16_t *a = malloc((size_t)(LARGE_M * k) * 2), *c = malloc((size_t)(LARGE_M * n) * 2);
    int64_t *rows = malloc(LARGE_M * sizeof *rows);
    int rc = 1;
    if (a == NULL || c == NULL || rows == NULL)
        fprintf(stderr, "hum demo: out of host memory for M = %d\n", LARGE_M);
    else if (bench_io_create(g->ordinal, HUM_DTYPE_FLOAT16, n, k, LARGE_M, &io) != HUM_OK)
        fprintf(stderr, "hum demo: %s\n", hum_last_error());
    else {
        if (g->cublas != NULL && bench_dense_weight(g->ordinal, HUM_DTYPE_FLOAT16, n, k, &g->rng, &dense) != HUM_OK)
            fprintf(stderr, "hum demo: cuBLAS weight: %s\n", hum_last_error());
        else
            rc = run_m(g, layer, w, &io, dense, SMALL_M, a, c, rows) |
                 run_m(g, layer, w, &io, dense, LARGE_M, a, c, rows);
        hum_device_free(dense);
        bench_io_destroy(&io);
    }
    free(a);
    free(c);
    free(rows);
    hum_layer_destroy(layer);
    return rc;
}

static int with_gpu(hum_runtime *rt, const hum_device_info *d, const char *dir, const hum_standard_weight *w)
{
    demo_gpu g = {.ordinal = d->ordinal, .rng = bench_rng_fresh()};
    if (bench_timer_create(d->ordinal, d->l2_bytes, &g.timer) != HUM_OK) {
        fprintf(stderr, "hum demo: %s\n", hum_last_error());
        return 1;
    }
    if (bench_cublas_open(d->ordinal, &g.cublas) != HUM_OK)
        printf("cuBLAS: not timed: %s\n", hum_last_error());
    else
        printf("cuBLAS: %s (cublasGemmEx, float16, fp32 accumulation)\n", bench_cublas_path(g.cublas));
    printf("times: median of %d CUDA-graph replays, L2 flushed before each\n", REPS);
    int rc = 0;
    for (int i = 0; i < LAYER_COUNT; i++)
        rc |= run_layer(&g, rt, dir, i, &w[i]);
    bench_cublas_close(g.cublas);
    bench_timer_destroy(&g.timer);
    printf("\n%s\n", rc == 0 ? "demo passed" : "demo FAILED");
    return rc;
}

/* Without a GPU: the kernels every layer needs compiled for NO_GPU_ARCH, and the checkpoint
 * read back through formats/ giving, at M = CPU_M, exactly the float64 reference output of the
 * weights it was written from. */
static int without_gpu(hum_runtime *rt, const char *dir, const hum_standard_weight *w)
{
    bench_rng rng = bench_rng_fresh();
    int rc = 0;
    for (int i = 0; i < LAYER_COUNT && rc == 0; i++) {
        const int64_t n = LAYERS[i].n, k = LAYERS[i].k;
        hum_layer_options lo = {.activation_dtype = HUM_DTYPE_FLOAT16};
        hum_layer_info info;
        char what[128];
        snprintf(what, sizeof what, "compile: %s for %s", LAYERS[i].short_name, NO_GPU_ARCH);
        cli_step *step = cli_step_begin(what);
        hum_status compiled = hum_layer_compile(rt, &w[i], &lo, NO_GPU_ARCH, &info);
        cli_step_end(step);
        if (compiled != HUM_OK) {
            fprintf(stderr, "hum demo: compiling %s for %s: %s\n", LAYERS[i].short_name, NO_GPU_ARCH, hum_last_error());
            return 1;
        }
        /* The layers differ in N or K, which are compile-time constants, so no kernel of one is
         * in this process's memory cache from another: a hit here comes from disk. */
        printf("compile: %s for %s: %s, %d M ranges (policy %s), %d kernels compiled, %d from the cache, %.0f ms\n",
               LAYERS[i].short_name, NO_GPU_ARCH,
               origin_name(info.kernels_compiled > 0 ? HUM_JIT_MISS : HUM_JIT_HIT_DISK), info.entry_count,
               info.policy_name, info.kernels_compiled, info.kernels_cached, info.prepare_ms);
        hum_standard_weight loaded = {0};
        uint16_t *a = malloc((size_t)(CPU_M * k) * 2);
        double *ad = malloc((size_t)(CPU_M * k) * sizeof *ad), *want = malloc((size_t)(CPU_M * n) * sizeof *want),
               *got = malloc((size_t)(CPU_M * n) * sizeof *got);
        double t0 = now_ms();
        snprintf(what, sizeof what, "reference: %s at M = %d on the CPU", LAYERS[i].short_name, CPU_M);
        step = cli_step_begin(what);
        hum_status st = a && ad && want && got ? hum_layer_load_standard(rt, dir, LAYERS[i].name, &loaded)
                                               : hum_fail(HUM_ERR_OUT_OF_MEMORY, "M = %d reference", CPU_M);
        if (st == HUM_OK && (st = bench_random_activations(&rng, HUM_DTYPE_FLOAT16, CPU_M * k, a)) == HUM_OK &&
            (st = hum_dtype_decode(HUM_DTYPE_FLOAT16, a, CPU_M * k, ad)) == HUM_OK &&
            (st = hum_reference_gemm(&w[i], 0, ad, CPU_M, want)) == HUM_OK)
            st = hum_reference_gemm(&loaded, 0, ad, CPU_M, got);
        cli_step_end(step);
        if (st != HUM_OK) {
            fprintf(stderr, "hum demo: %s: %s\n", LAYERS[i].name, hum_last_error());
            rc = 1;
        } else {
            int64_t differ = 0;
            for (int64_t j = 0; j < CPU_M * n; j++)
                differ += got[j] != want[j];
            printf("reference: %s at M = %d on the CPU (%.0f ms): the checkpoint read back %s\n", LAYERS[i].short_name,
                   CPU_M, now_ms() - t0,
                   differ ? "DIFFERS from the weights written" : "gives exactly the output of the weights written");
            rc = differ != 0;
        }
        hum_standard_free(&loaded);
        free(a), free(ad), free(want), free(got);
    }
    printf("launch: skipped (no GPU)\n%s\n", rc == 0 ? "demo passed (compile and CPU reference only)" : "demo FAILED");
    return rc;
}

/* Where the checkpoint goes: --keep DIR (created if missing), else a fresh temporary directory. */
static hum_status checkpoint_dir(const demo_options *o, char *dir, size_t cap)
{
    if (!o->keep)
        return bench_tmpdir_create("demo", dir, cap);
    if (mkdir(o->keep, 0777) != 0 && errno != EEXIST)
        return hum_fail(HUM_ERR_IO, "cannot create %s: %s", o->keep, strerror(errno));
    snprintf(dir, cap, "%s", o->keep);
    return HUM_OK;
}

int hum_cmd_demo(const char *config, int argc, char **argv)
{
    demo_options o = {0};
    const char *format = NULL;
    const cli_option options[] = {
        CLI_VALUE("--config", &config), CLI_VALUE("--format", &format), CLI_FLAG("--act-order", &o.act_order),
        CLI_VALUE("--keep", &o.keep),   CLI_FLAG("--moe", &o.moe),       CLI_END,
    };
    const cli_args args = {.command = "hum demo", .usage = usage, .options = options};
    int parsed = cli_args_parse(&args, argc, argv);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    if (format && strcmp(format, "gptq") != 0 && strcmp(format, "awq") != 0)
        return cli_usage_error(&args, "bad argument '--format %s' (expected --format gptq or --format awq)", format);
    o.awq = format && !strcmp(format, "awq");
    if (o.awq && o.act_order)
        return cli_usage_error(&args, "--act-order is a GPTQ option (AWQ has no act-order)");
    if (o.moe && (format || o.act_order))
        return cli_usage_error(&args, "--moe writes its own GPTQ checkpoint: no --format or --act-order with it");
    if (o.keep && cli_output_dir_empty("hum demo", "--keep", o.keep) != 0)
        return 1;
    hum_runtime *rt;
    if (cli_runtime_open("demo", config, NULL, &rt) != 0)
        return 1;
    if (o.moe) {
        char dir[4096];
        int rc = 1;
        if (checkpoint_dir(&o, dir, sizeof dir) != HUM_OK) {
            fprintf(stderr, "hum demo: %s\n", hum_last_error());
        } else {
            rc = demo_moe(rt, dir, o.keep != NULL, NO_GPU_ARCH);
            if (!o.keep)
                bench_tmpdir_remove(dir);
        }
        hum_runtime_destroy(rt);
        return rc;
    }
    printf("hum %s demo: W4A16 GEMMs of Llama-3-8B shapes from a%s %s checkpoint\n", hum_version(),
           o.act_order ? "n act-order" : "", o.awq ? "AWQ" : "GPTQ");
    printf("cache dir: %s\n", hum_runtime_cache_dir(rt));
    hum_device_info d;
    int have_gpu = hum_runtime_device(rt, &d) == HUM_OK;
    if (have_gpu)
        printf("device %d: %s, sm_%d%d, %d SMs\n", d.ordinal, d.name, d.sm_major, d.sm_minor, d.sm_count);
    else
        printf("device: %s\n", hum_last_error());

    int rc = 1;
    char dir[4096];
    hum_standard_weight w[LAYER_COUNT] = {0};
    double t0 = now_ms();
    if (checkpoint_dir(&o, dir, sizeof dir) != HUM_OK) {
        fprintf(stderr, "hum demo: %s\n", hum_last_error());
        hum_runtime_destroy(rt);
        return 1;
    }
    cli_step *step = cli_step_begin("checkpoint: quantizing random weights of 3 layers and writing them");
    hum_status built = build_checkpoint(dir, &o, w);
    cli_step_end(step);
    if (built != HUM_OK) {
        fprintf(stderr, "hum demo: building the checkpoint: %s\n", hum_last_error());
    } else {
        printf("checkpoint: %s 4-bit, group 128, %s, float16, from random weights, in %s (%s): %.0f ms\n",
               o.awq ? "AWQ" : "GPTQ", o.awq ? "zero points" : o.act_order ? "symmetric, act-order" : "symmetric",
               dir, o.keep ? "kept" : "removed at the end", now_ms() - t0);
        for (int i = 0; i < LAYER_COUNT; i++)
            printf("  %s [N = %lld, K = %lld]\n", LAYERS[i].name, (long long)LAYERS[i].n, (long long)LAYERS[i].k);
        rc = have_gpu ? with_gpu(rt, &d, dir, w) : without_gpu(rt, dir, w);
    }
    for (int i = 0; i < LAYER_COUNT; i++)
        hum_standard_free(&w[i]);
    if (!o.keep)
        bench_tmpdir_remove(dir);
    hum_runtime_destroy(rt);
    return rc;
}
