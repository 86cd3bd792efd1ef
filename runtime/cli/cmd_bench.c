/* `hum bench`: one layer described by a SPEC against cuBLAS over an M sweep, with prepare
 * times and host overhead; a table on stdout and a JSON file (bench/README.md). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "bench_args.h"
#include "bench_calls.h"
#include "bench_floor.h"
#include "bench_io.h"
#include "bench_json.h"
#include "bench_moe.h"
#include "bench_moe_gemm.h"
#include "bench_timer.h"
#include "bench_tmpdir.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_dispatch.h"
#include "cli_output.h"
#include "cli_runtime.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct bench_options {
    const char *config;
    const char *spec;
    const char *m_list;
    const char *out;
    const char *warmup;
    const char *reps;
    int force; /* --out may replace an existing file */
    const char *moe_gemm, *experts, *topk; /* --moe-gemm: one expert GEMM (bench_moe_gemm.h) */
    int down;
    const char *moe; /* --moe SPEC: a whole MoE layer (bench_moe.h) */
    int balanced;    /* its routing: every expert the same number of rows */
} bench_options;

static void usage(FILE *f)
{
    fprintf(f, "usage: hum bench --layer SPEC [--m 1,2,4,...,8192] [--out FILE.json] [--warmup N] [--reps N]\n"
               "       hum bench --moe SPEC [--m 1,8,128,1024,4096] [--balanced] [--warmup N] [--reps N]\n\n"
               "Times one quantized layer with random weights against cuBLAS (dense 16-bit weights of the same\n"
               "shape; with a=e4m3 also cuBLASLt fp8, e4m3 A and W with per-tensor scales) on the GPU: median\n"
               "of CUDA-event timings of CUDA-graph replays, L2 flushed before each.\n"
               "Prints M, hum and cuBLAS microseconds, the ratio cuBLAS/hum, TFLOP/s and GB/s, the prepare time\n"
               "from a cold and a warm kernel cache and the host overhead of one forward beside that of a bare\n"
               "driver launch; writes JSON to bench/results/<spec>-<device>-<date>.json (schema: bench/README.md).\n\n"
               "  --layer SPEC   e.g. n=8192,k=8192,w=uint4,a=float16,group=128 (as hum compile --layer);\n"
               "                 keys n, k (required), w (uint1..uint8, e4m3, e2m1, ...; uint4), a (float16 |\n"
               "                 bfloat16 | e4m3 | int8 | mxfp8), ascale (token | tensor | group128: 8-bit a),\n"
               "                 out (float16 | bfloat16), group (0: per channel), scale (dtype | tensor),\n"
               "                 global (0 | 1), block (NxK float32 block scales, e.g. 128x128), zp (none | int |\n"
               "                 float), bias (0 | 1), actorder (0 | 1); docs/cli.md\n"
               "  --moe SPEC     a MoE layer instead (random expert weights and routing), timed whole and per\n"
               "                 step (align, gate_up GEMM, activation, down GEMM, combine): the --layer keys\n"
               "                 of its gate/up projection plus e (experts), topk, act (silu | swiglu_oai |\n"
               "                 relu2 | gelu), gate_up (split | interleaved), gemm (indexed | grouped | masked:\n"
               "                 rows grouped by expert as a dispatcher sends them, timed whole), e.g.\n"
               "                 e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128\n"
               "  --balanced     --moe: every expert gets the same number of rows (default: random)\n"
               "  --m LIST       comma-separated M values (default: powers of two 1..8192; --moe:\n"
               "                 1,8,128,1024,4096)\n"
               "  --out FILE     where the JSON goes (an existing FILE only with --force)\n"
               "  --force        let --out replace an existing file\n"
               "  --warmup N     untimed calls per measurement (default 20)\n"
               "  --reps N       timed calls per measurement (default 100)\n"
               "  --config FILE  deployment config\n\n"
               "hum bench --moe-gemm SPEC --experts E --topk K [--down] [--m LIST] [--warmup N] [--reps N]\n"
               "times one expert GEMM of a MoE layer alone (docs/moe.md): the indexed type over random routing of\n"
               "M tokens to K of E experts, as the gate/up projection (A = the tokens) or with --down as the down\n"
               "projection (A = the M * K routed rows); SPEC as --layer, uint weights with group scales.\n");
}

/* 0 parsed, 1 --help printed, 2 usage error (reported). */
static int parse(int argc, char **argv, bench_options *o)
{
    const cli_option options[] = {
        CLI_VALUE("--config", &o->config), CLI_VALUE("--layer", &o->spec),   CLI_VALUE("--m", &o->m_list),
        CLI_VALUE("--out", &o->out),       CLI_VALUE("--warmup", &o->warmup), CLI_VALUE("--reps", &o->reps),
        CLI_FLAG("--force", &o->force),    CLI_VALUE("--moe-gemm", &o->moe_gemm), CLI_VALUE("--experts", &o->experts),
        CLI_VALUE("--topk", &o->topk),     CLI_FLAG("--down", &o->down),       CLI_VALUE("--moe", &o->moe),
        CLI_FLAG("--balanced", &o->balanced), CLI_END,
    };
    const cli_args args = {.command = "hum bench", .usage = usage, .options = options};
    int rc = cli_args_parse(&args, argc, argv);
    if (rc == 0 && !!o->spec + !!o->moe_gemm + !!o->moe != 1)
        rc = cli_usage_error(&args, "say what to time: --layer SPEC, --moe SPEC or --moe-gemm SPEC (one of them)");
    if (rc == 0 && o->moe && (o->out || o->force || o->experts || o->topk || o->down))
        rc = cli_usage_error(&args, "--moe takes its experts and top-k from its SPEC and prints its table only (no "
                             "--out, --experts, --topk or --down)");
    if (rc == 0 && o->balanced && !o->moe)
        rc = cli_usage_error(&args, "--balanced is a --moe option");
    if (rc == 0 && o->spec && (o->experts || o->topk || o->down))
        rc = cli_usage_error(&args, "--experts, --topk and --down are --moe-gemm options (a --layer is dense)");
    if (rc == 0 && o->moe_gemm && (o->spec || !o->experts || !o->topk))
        rc = cli_usage_error(&args, "--moe-gemm SPEC takes --experts E and --topk K, and no --layer");
    return rc;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static int64_t tensor_bytes(const hum_tensor *t)
{
    if (t->data == NULL)
        return 0;
    int64_t count = 1;
    for (int32_t i = 0; i < t->rank; i++)
        count *= t->shape[i];
    return count * hum_dtype_code_size(t->dtype);
}

static int64_t weight_bytes(const hum_standard_weight *w)
{
    return tensor_bytes(&w->weight) + tensor_bytes(&w->scale) + tensor_bytes(&w->zero_point) +
           tensor_bytes(&w->global_scale) + tensor_bytes(&w->bias) + tensor_bytes(&w->k_perm);
}

/* The phases of a prepared layer, kept in *p and printed under its total. */
static void phases(const hum_layer_info *info, bench_phases *p)
{
    *p = (bench_phases){info->plan_ms, info->context_ms, info->compile_ms, info->upload_ms, info->load_ms};
    printf("  plan %.1f ms, then side by side: compile %.1f + load %.1f ms | context %.1f + upload %.1f ms\n", p->plan,
           p->compile, p->load, p->context, p->upload);
}

/* The layer prepared twice: from the empty cache `rt` was made with, then again (cache hits). */
static hum_status prepare_cold_warm(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *lo,
                                    bench_report *r, hum_layer **out)
{
    hum_layer *cold = NULL;
    hum_layer_info info;
    hum_status st = hum_layer_from_standard(rt, w, lo, &cold);
    double t0 = now_ms();
    if (st == HUM_OK && (st = hum_layer_prepare(cold)) == HUM_OK) {
        r->prepare_cold_ms = now_ms() - t0;
        hum_layer_get_info(cold, &info);
        printf("prepare, cold cache: %.1f ms (%d kernels compiled in %.1f ms)\n", r->prepare_cold_ms,
               info.kernels_compiled, info.compile_ms);
        phases(&info, &r->cold_phases);
    }
    hum_layer_destroy(cold);
    if (st == HUM_OK)
        st = hum_layer_from_standard(rt, w, lo, out);
    t0 = now_ms();
    if (st == HUM_OK && (st = hum_layer_prepare(*out)) == HUM_OK) {
        r->prepare_warm_ms = now_ms() - t0;
        hum_layer_get_info(*out, &info);
        printf("prepare, warm cache: %.1f ms (%d kernels from the cache)\n", r->prepare_warm_ms, info.kernels_cached);
        phases(&info, &r->warm_phases);
        hum_layer_dispatch d;
        if ((st = hum_layer_describe(*out, &d)) == HUM_OK)
            cli_print_dispatch(stdout, &d, 0);
    }
    return st;
}

typedef struct bench_run {
    bench_timer timer;
    bench_io io;
    bench_cublas *cublas;
    void *dense;
    hum_workspace *ws; /* for the largest M in one pass */
    /* the layer's own activation quantization (NULL for 16-bit A), for the check, and the
     * check's pass mark */
    const hum_act_quant *quantized;
    double tolerance;
    /* cuBLASLt fp8, for a layer that computes in e4m3: A, W (e4m3) and their two scales, A's at
     * lt_scales[0] and W's BENCH_CUBLASLT_SCALE_ALIGN bytes on */
    bench_cublaslt *lt;
    void *a8, *w8;
    float *lt_scales;
    const char *cache_dir;
    char arch[16];     /* the layer's kernels' */
} bench_run;

static void print_row(const bench_report *r, const bench_row *row)
{
    char cublas[32] = "n/a", ratio[32] = "n/a", lt[48] = "";
    if (isfinite(row->cublas_us)) {
        snprintf(cublas, sizeof cublas, "%.2f", row->cublas_us);
        snprintf(ratio, sizeof ratio, "%.2f", row->cublas_us / row->hum_us);
    }
    if (isfinite(row->cublaslt_us))
        snprintf(lt, sizeof lt, "  cuBLASLt fp8 %.2f (%.2f)", row->cublaslt_us, row->cublaslt_us / row->hum_us);
    printf("%6lld %10.2f %10s %7s %9.1f %9.1f%s%s\n", (long long)row->m, row->hum_us, cublas, ratio,
           bench_tflops(row->m, r->n, r->k, row->hum_us),
           bench_gbps(row->m, r->n, r->k, r->activation, r->weight_bytes, row->hum_us), lt,
           row->graph ? "" : "  (no graph)");
    fflush(stdout);
}

/* One forward at M checked against the float64 reference: a benchmark of a wrong result is
 * worth nothing. */
static hum_status sanity_check(bench_run *b, hum_layer *layer, const hum_standard_weight *w, const bench_report *r,
                               const uint16_t *a, int64_t m)
{
    uint16_t *c = malloc((size_t)(m * r->n) * 2);
    int64_t *rows = malloc((size_t)m * sizeof *rows);
    hum_status st = c && rows ? bench_io_forward(&b->io, layer, a, m, c)
                              : hum_fail(HUM_ERR_OUT_OF_MEMORY, "the output of M = %lld", (long long)m);
    /* every M of the sweep is checked: each gets a quarter of one check's budget, two rows at least */
    int64_t cap = (int64_t)(BENCH_CHECK_MAC_BUDGET / 4 / ((double)r->n * (double)r->k));
    cap = cap < 2 ? 2 : cap > m ? m : cap;
    int64_t row_count = st == HUM_OK ? bench_check_rows(m, r->n, r->k, rows, cap) : 0, bad = 0;
    /* a layer that quantizes A is checked against the reference of A quantized the same way */
    double err = INFINITY, tol = b->tolerance;
    double *ref = malloc((size_t)(m * r->n + 1) * sizeof *ref);
    if (st == HUM_OK && !ref)
        st = hum_fail(HUM_ERR_OUT_OF_MEMORY, "the reference of M = %lld", (long long)m);
    if (st == HUM_OK)
        st = bench_check_reference_as(w, b->quantized, r->activation, a, rows, row_count, ref);
    if (st == HUM_OK &&
        (st = bench_check_against(r->activation, r->n, c, m, rows, row_count, ref, &err, &bad)) == HUM_OK)
        st = bench_check_verdict(m, err, tol, bad, b->quantized ? " of the layer's quantized A" : "", row_count,
                                 "rows");
    free(ref);
    free(c);
    free(rows);
    return st;
}

/* Checks every M (each range of the table runs a kernel of its own) on the leading rows of
 * random activations of the largest, then times every M on them; fills rows[]. One draw: at
 * M = 8192 a draw per M cost seconds of host time per row. */
static hum_status sweep(bench_run *b, hum_layer *layer, const hum_standard_weight *w, bench_report *r,
                        const int64_t *ms, int32_t m_count, bench_row *rows)
{
    bench_rng rng = bench_rng_fresh();
    int64_t m_max = 0;
    for (int32_t i = 0; i < m_count; i++)
        m_max = ms[i] > m_max ? ms[i] : m_max;
    uint16_t *a = malloc((size_t)(m_max * r->k) * 2);
    if (a == NULL)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "activations for M = %lld", (long long)m_max);
    hum_status st = bench_random_activations(&rng, r->activation, m_max * r->k, a);
    for (int32_t i = 0; st == HUM_OK && i < m_count; i++)
        st = sanity_check(b, layer, w, r, a, ms[i]);
    if (st == HUM_OK)
        st = hum_memcpy_htod(b->io.a, a, (size_t)(m_max * r->k) * 2);
    /* "µ" is two bytes of UTF-8 and one column: its fields are one byte wider. */
    if (st == HUM_OK)
        printf("\n%6s %11s %11s %7s %9s %9s\n", "M", "hum µs", "cuBLAS µs", "ratio", "TFLOP/s", "GB/s");
    for (int32_t i = 0; st == HUM_OK && i < m_count; i++) {
        bench_row *row = &rows[i];
        row->m = ms[i];
        row->hum_us = row->cublas_us = row->cublaslt_us = NAN;
        bench_hum_call h = {.layer = layer, .ws = b->ws};
        bench_io_views(&b->io, ms[i], &h.a, &h.c);
        bench_timing t;
        if ((st = bench_time(&b->timer, bench_enqueue_hum, &h, r->warmup, r->reps, &t)) != HUM_OK)
            break;
        row->hum_us = t.median_us;
        row->graph = t.graph;
        if (i == 0 &&
            (st = bench_host_overhead(&b->timer, bench_enqueue_hum, &h, 20, 100, &r->host_overhead_us)) != HUM_OK)
            break;
        /* only a reference for the figure above: without it the run goes on */
        if (i == 0 && bench_launch_floor(&b->timer, b->cache_dir, b->arch, 20, 100, &r->launch_floor_us) != HUM_OK)
            printf("bare driver launch: not timed: %s\n", hum_last_error());
        if (b->cublas != NULL) {
            bench_cublas_call c = {b->cublas, r->activation, ms[i], r->n, r->k, b->io.a, b->dense, b->io.c};
            if ((st = bench_time(&b->timer, bench_enqueue_cublas, &c, r->warmup, r->reps, &t)) != HUM_OK)
                break;
            row->cublas_us = t.median_us;
        }
        /* a comparison column: cuBLASLt refusing a shape leaves its cell empty, the first reason
         * noted (status name and cuBLASLt's logged line), and the run goes on */
        if (b->lt != NULL) {
            bench_cublaslt_call c = {b->lt, r->activation, ms[i], r->n, r->k, b->a8, b->w8, b->lt_scales,
                                     b->lt_scales + BENCH_CUBLASLT_SCALE_ALIGN / sizeof(float), b->io.c};
            if (bench_time(&b->timer, bench_enqueue_cublaslt, &c, r->warmup, r->reps, &t) == HUM_OK) {
                row->cublaslt_us = t.median_us;
            } else {
                printf("cuBLASLt fp8: not timed at M = %lld: %s\n", (long long)ms[i], hum_last_error());
                if (!r->cublaslt_note[0])
                    snprintf(r->cublaslt_note, sizeof r->cublaslt_note, "M = %lld: %s", (long long)ms[i],
                             hum_last_error());
            }
        }
        print_row(r, row);
    }
    free(a);
    return st;
}

/* cuBLASLt fp8 beside cuBLAS for a layer that computes in e4m3 (the baseline of W8A8 fp8): its
 * library, random e4m3 A and W, scales 1. Not timed (the reason noted) when any of it fails. */
static void open_cublaslt(bench_run *b, int32_t ordinal, bench_report *r, int64_t m_max, bench_rng *rng)
{
    /* scales 1 in two 16-byte slots: cuBLASLt is given no scale pointer short of that alignment */
    static const float ones[2 * BENCH_CUBLASLT_SCALE_ALIGN / sizeof(float)] = {
        [0] = 1.0f, [BENCH_CUBLASLT_SCALE_ALIGN / sizeof(float)] = 1.0f};
    hum_status st = b->cublas ? bench_cublaslt_open(b->cublas, ordinal, &b->lt)
                              : hum_fail(HUM_ERR_UNSUPPORTED, "no cuBLAS to find cuBLASLt beside");
    if (st == HUM_OK)
        st = bench_fp8_buffer(ordinal, m_max * r->k, rng, &b->a8);
    if (st == HUM_OK)
        st = bench_fp8_buffer(ordinal, r->n * r->k, rng, &b->w8);
    if (st == HUM_OK && (st = hum_device_alloc(ordinal, sizeof ones, (void **)&b->lt_scales)) == HUM_OK)
        st = hum_memcpy_htod(b->lt_scales, ones, sizeof ones);
    if (st != HUM_OK) {
        snprintf(r->cublaslt_note, sizeof r->cublaslt_note, "%s", hum_last_error());
        printf("cuBLASLt fp8: not timed: %s\n", r->cublaslt_note);
        bench_cublaslt_close(b->lt);
        b->lt = NULL;
        return;
    }
    snprintf(r->cublaslt_library, sizeof r->cublaslt_library, "%s", bench_cublaslt_path(b->lt));
    printf("cuBLASLt fp8: %s (cublasLtMatmul, e4m3 A and B, per-tensor scales, %s out)\n", r->cublaslt_library,
           hum_dtype_name(r->activation));
}

/* Everything after the layer is prepared: buffers, a workspace for the largest M, cuBLAS, the
 * sweep, the JSON. */
static int measure(const bench_options *o, hum_runtime *rt, hum_layer *layer, const hum_standard_weight *w,
                   int32_t ordinal, bench_report *r, const int64_t *ms, int32_t m_count)
{
    bench_run b = {.cache_dir = hum_runtime_cache_dir(rt)};
    hum_layer_info info;
    hum_layer_get_info(layer, &info);
    memcpy(b.arch, info.arch, sizeof b.arch);
    bench_row rows[BENCH_MAX_M_VALUES];
    /* what the layer multiplies: 8-bit A it quantizes itself is checked and compared as such */
    hum_act_quant quantized;
    r->compute = info.config.a_dtype;
    b.tolerance = bench_check_tolerance(r->activation);
    if (bench_check_quantizes(&info.config, &quantized)) {
        b.quantized = &quantized;
        b.tolerance = bench_check_tolerance_made(&info.config);
        hum_layer_dispatch d;
        if (info.config.a_round != HUM_A_ROUND_NONE && hum_layer_describe(layer, &d) == HUM_OK)
            printf("activations: %s\n", d.activation); /* mxfp8, rounded: what runs and why */
        else
            printf("activations: %s, quantized by the layer from %s\n", hum_dtype_name(info.config.a_dtype),
                   hum_dtype_name(r->activation));
    }
    int64_t m_max = 0;
    for (int32_t i = 0; i < m_count; i++)
        m_max = ms[i] > m_max ? ms[i] : m_max;
    bench_rng rng = bench_rng_fresh();
    int64_t ws_bytes = 0;
    hum_status st = bench_timer_create(ordinal, r->device.l2_bytes, &b.timer);
    if (st == HUM_OK)
        st = bench_io_create(ordinal, r->activation, r->n, r->k, m_max, &b.io);
    if (st == HUM_OK && (st = hum_layer_workspace_size(layer, m_max, &ws_bytes)) == HUM_OK)
        st = hum_workspace_create(rt, NULL, ws_bytes, &b.ws);
    if (st == HUM_OK) {
        r->l2_flush_bytes = (int64_t)b.timer.flush_bytes;
        if (bench_cublas_open(ordinal, &b.cublas) != HUM_OK) {
            snprintf(r->cublas_note, sizeof r->cublas_note, "%s", hum_last_error());
            printf("cuBLAS: not timed: %s\n", r->cublas_note);
        } else if (bench_dense_weight(ordinal, r->activation, r->n, r->k, &rng, &b.dense) != HUM_OK) {
            snprintf(r->cublas_note, sizeof r->cublas_note, "dense weight: %s", hum_last_error());
            printf("cuBLAS: not timed: %s\n", r->cublas_note);
            bench_cublas_close(b.cublas);
            b.cublas = NULL;
        } else {
            snprintf(r->cublas_library, sizeof r->cublas_library, "%s", bench_cublas_path(b.cublas));
            printf("cuBLAS: %s (cublasGemmEx, %s, fp32 accumulation)\n", r->cublas_library,
                   hum_dtype_name(r->activation));
        }
        if (r->compute == HUM_DTYPE_FLOAT8_E4M3FN)
            open_cublaslt(&b, ordinal, r, m_max, &rng);
        st = sweep(&b, layer, w, r, ms, m_count, rows);
    }
    int rc = 0;
    if (st != HUM_OK) {
        fprintf(stderr, "hum bench: %s\n", hum_last_error());
        rc = 1;
    } else {
        printf("\nhost overhead of hum_layer_forward: %.2f µs per call", r->host_overhead_us);
        if (isfinite(r->launch_floor_us))
            printf(" (a bare driver launch: %.2f µs)", r->launch_floor_us);
        printf("\n");
        r->rows = rows;
        r->row_count = m_count;
        char path[4096];
        if (o->out)
            snprintf(path, sizeof path, "%s", o->out);
        if ((!o->out && bench_default_path(r, path, sizeof path) != HUM_OK) || bench_json_write(r, path, !o->out || o->force) != HUM_OK) {
            fprintf(stderr, "hum bench: %s\n", hum_last_error());
            rc = 1;
        } else {
            printf("results: %s\n", path);
        }
    }
    hum_device_free(b.dense);
    hum_device_free(b.a8);
    hum_device_free(b.w8);
    hum_device_free(b.lt_scales);
    bench_cublaslt_close(b.lt);
    hum_workspace_destroy(b.ws);
    bench_cublas_close(b.cublas);
    bench_io_destroy(&b.io);
    bench_timer_destroy(&b.timer);
    return rc;
}

int hum_cmd_bench(const char *config, int argc, char **argv)
{
    bench_options o = {.config = config};
    int parsed = parse(argc, argv, &o);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    bench_report r = {0};
    int64_t ms[BENCH_MAX_M_VALUES];
    int32_t m_count = 0;
    if (bench_parse_count("hum bench", "--warmup", o.warmup, 20, 0, &r.warmup) ||
        bench_parse_count("hum bench", "--reps", o.reps, 100, 1, &r.reps))
        return 2;
    const char *m_default = o.moe ? "1,8,128,1024,4096" : "1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192";
    if (bench_parse_m_list(o.m_list ? o.m_list : m_default, ms, BENCH_MAX_M_VALUES, &m_count) != HUM_OK) {
        fprintf(stderr, "hum bench: %s\n", hum_last_error());
        return 2;
    }
    if (o.moe)
        return bench_moe(o.config, o.moe, ms, m_count, r.warmup, r.reps, o.balanced);
    if (o.moe_gemm) {
        int32_t experts = 0, top_k = 0;
        if (bench_parse_count("hum bench", "--experts", o.experts, 0, 1, &experts) ||
            bench_parse_count("hum bench", "--topk", o.topk, 0, 1, &top_k))
            return 2;
        if (top_k > experts) {
            fprintf(stderr, "hum bench: --topk %d exceeds --experts %d\n", top_k, experts);
            return 2;
        }
        const bench_moe_gemm_options mo = {.config = o.config, .spec = o.moe_gemm, .experts = experts, .top_k = top_k,
                                           .down = o.down, .ms = ms, .m_count = m_count, .warmup = r.warmup,
                                           .reps = r.reps};
        return bench_moe_gemm(&mo);
    }
    if (o.out && cli_output_allowed("hum bench", "--out", o.out, o.force, NULL, NULL) != 0)
        return 1;
    snprintf(r.spec, sizeof r.spec, "%s", o.spec);
    hum_layer_spec spec;
    hum_standard_weight w = {0};
    if (hum_layer_spec_parse(o.spec, &spec) != HUM_OK) {
        fprintf(stderr, "hum bench: %s\n", hum_last_error());
        return 2;
    }
    bench_rng seed = bench_rng_fresh();
    if (hum_layer_spec_weight(&spec, bench_rng_next(&seed), &w) != HUM_OK) {
        fprintf(stderr, "hum bench: %s\n", hum_last_error());
        return 1;
    }
    /* the host passes 16-bit A: an 8-bit a= is the weight's scheme, which the layer quantizes to */
    hum_layer_options lo = {.activation_dtype = spec.output_dtype};
    r.n = w.n;
    r.k = w.k;
    r.activation = spec.output_dtype;
    r.weight_bytes = weight_bytes(&w);

    /* A fresh cache directory, so that the first prepare compiles every kernel. */
    char cache[4096];
    if (bench_tmpdir_create("bench-cache", cache, sizeof cache) != HUM_OK) {
        fprintf(stderr, "hum bench: %s\n", hum_last_error());
        hum_standard_free(&w);
        return 1;
    }
    hum_runtime *rt = NULL;
    hum_layer *layer = NULL;
    int rc = 1;
    if (cli_runtime_open("bench", o.config, cache, &rt) != 0) {
        /* cli_runtime_open printed why; rc stays 1 */
    } else if (hum_runtime_device(rt, &r.device) != HUM_OK) {
        fprintf(stderr, "hum bench: no GPU to run on: %s\n", hum_last_error());
    } else {
        bench_report_stamp(&r);
        printf("hum bench: %s on %s (sm_%d%d, %d SMs, driver %d.%d)\n", o.spec, r.device.name, r.device.sm_major,
               r.device.sm_minor, r.device.sm_count, r.device.driver_version / 1000,
               r.device.driver_version % 1000 / 10);
        if (prepare_cold_warm(rt, &w, &lo, &r, &layer) != HUM_OK)
            fprintf(stderr, "hum bench: %s\n", hum_last_error());
        else
            rc = measure(&o, rt, layer, &w, r.device.ordinal, &r, ms, m_count);
    }
    hum_layer_destroy(layer);
    hum_runtime_destroy(rt);
    hum_standard_free(&w);
    bench_tmpdir_remove(cache);
    return rc;
}
