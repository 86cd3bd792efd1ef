/* `hum run`: one layer of a user's checkpoint on the GPU, on random or given activations, with
 * an optional check against the float64 reference (docs/cli.md). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include "bench_args.h"
#include "bench_check.h"
#include "bench_io.h"
#include "cli.h"
#include "cli_args.h"
#include "cli_output.h"
#include "cli_runtime.h"
#include "run_moe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct run_options {
    const char *config;
    const char *checkpoint;
    const char *layer;
    const char *m_list;
    const char *activation;
    const char *input;
    const char *output;
    int check;
    int force; /* --output may replace an existing file */
    /* an experts module (run_moe.c) */
    const char *top_k, *act, *gate_up;
    int balanced;
} run_options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: hum run CHECKPOINT --layer NAME [--m 1,16,128,1000] [--check] [--activation DTYPE]\n"
            "       hum run CHECKPOINT --layer NAME --input A.safetensors [--output C.safetensors] [--check]\n\n"
            "Loads one quantized layer of a checkpoint (directory or .safetensors file) through formats/,\n"
            "prepares it and runs it on the GPU once per M, on fresh random activations or on the tensor\n"
            "`input` ([M, K], F16 or BF16) of --input; --output writes the result as `output` ([M, N]).\n\n"
            "  --layer NAME        the layer's module path, e.g. model.layers.0.mlp.down_proj\n"
            "  --m LIST            comma-separated M values (default 1,16,128,1000)\n"
            "  --activation DTYPE  float16 (default) or bfloat16: the A passed (with --input, the input's\n"
            "                      dtype), the layer running the checkpoint's own activation scheme where the\n"
            "                      GPU has it; e4m3 (float8_e4m3fn), int8 or mxfp8: the layer quantizes the\n"
            "                      checkpoint's 16-bit type to it instead (docs/cli.md; what runs is printed)\n"
            "  --check             compare with the float64 reference: ||out - ref|| / ||ref|| per M,\n"
            "                      exit 1 above 1e-2 (float16) or 2e-2 (bfloat16) or on unwritten output;\n"
            "                      8-bit activations against A quantized as the layer does it: 1e-3 / 4e-3;\n"
            "                      mxfp8 rounded into 16-bit A against that A, with the 16-bit bars\n"
            "  --force             let --output replace an existing file (never the checkpoint or --input)\n"
            "MoE: NAME may be an experts module (e.g. model.layers.0.mlp.experts: its gate_up_proj and\n"
            "down_proj, or <e>.gate_proj, up_proj and down_proj, or <e>.w1, w3 and w2), run as one MoE\n"
            "layer on random routings (softmax weights); --check compares sampled tokens.\n"
            "  --topk K            experts per token (default min(8, experts))\n"
            "  --act NAME          silu (default), swiglu_oai (gpt-oss), relu2, gelu\n"
            "  --gate-up LAYOUT    split (default) or interleaved (gpt-oss) rows of a fused gate_up_proj\n"
            "  --balanced          every expert gets the same number of rows\n"
            "  --config FILE       deployment config\n");
}

/* 0 parsed, 1 --help printed, 2 usage error (reported). */
static int parse(int argc, char **argv, run_options *o)
{
    const cli_option options[] = {
        CLI_VALUE("--config", &o->config), CLI_VALUE("--layer", &o->layer),   CLI_VALUE("--m", &o->m_list),
        CLI_VALUE("--activation", &o->activation), CLI_VALUE("--input", &o->input),
        CLI_VALUE("--output", &o->output), CLI_FLAG("--check", &o->check),    CLI_FLAG("--force", &o->force),
        CLI_VALUE("--topk", &o->top_k),    CLI_VALUE("--act", &o->act),       CLI_VALUE("--gate-up", &o->gate_up),
        CLI_FLAG("--balanced", &o->balanced), CLI_END,
    };
    const cli_args args = {.command = "hum run", .usage = usage, .options = options,
                           .positional = &o->checkpoint, .positional_what = "checkpoint"};
    int rc = cli_args_parse(&args, argc, argv);
    const char *problem = rc != 0                         ? NULL
                          : !o->checkpoint                ? "a CHECKPOINT is required"
                          : !o->layer                     ? "--layer NAME is required"
                          : o->input && o->m_list         ? "--m and --input exclude each other (M is the input's)"
                          : o->output && !o->input        ? "--output needs --input"
                          : o->input && (o->top_k || o->act || o->gate_up || o->balanced)
                              ? "--input runs a dense layer; --topk, --act, --gate-up and --balanced are MoE options"
                              : NULL;
    return problem ? cli_usage_error(&args, "%s", problem) : rc;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/* The activations of --input: tensor `input`, [M, K], float16 or bfloat16, copied out. */
static hum_status read_input(const char *path, int64_t k, hum_dtype *dtype, int64_t *m, uint16_t **codes)
{
    hum_safetensors *st;
    hum_status s = hum_safetensors_open(path, &st);
    if (s != HUM_OK)
        return s;
    hum_safetensors_tensor t;
    if ((s = hum_safetensors_find(st, "input", &t)) == HUM_OK) {
        if ((t.dtype != HUM_DTYPE_FLOAT16 && t.dtype != HUM_DTYPE_BFLOAT16) || t.rank != 2 || t.shape[1] != k ||
            t.shape[0] < 1) {
            char shape[160] = "";
            for (int d = 0, used = 0; d < t.rank && used < (int)sizeof shape; d++)
                used += snprintf(shape + used, sizeof shape - (size_t)used, d ? ", %lld" : "%lld",
                                 (long long)t.shape[d]);
            s = hum_fail(HUM_ERR_FORMAT, "%s: tensor 'input' is %s [%s] (expected F16 or BF16 [M, %lld], M >= 1)", path,
                         t.dtype_name, shape, (long long)k);
        }
        else if ((*codes = malloc((size_t)t.nbytes)) == NULL)
            s = hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: %lld bytes of activations", path, (long long)t.nbytes);
        else {
            memcpy(*codes, t.data, (size_t)t.nbytes);
            *dtype = t.dtype;
            *m = t.shape[0];
        }
    }
    hum_safetensors_close(st);
    return s;
}

static hum_status write_output(const char *path, hum_dtype dtype, int64_t m, int64_t n, const uint16_t *c)
{
    hum_safetensors_tensor t = {.name = "output", .dtype = dtype, .rank = 2, .shape = {m, n}, .data = c};
    return hum_safetensors_write(path, &t, 1, NULL);
}

/* Runs every M; returns the exit code. */
static int run_all(const run_options *o, hum_layer *layer, const hum_standard_weight *w, int32_t ordinal,
                   hum_dtype dtype, const int64_t *ms, int32_t m_count, uint16_t *given, const hum_act_quant *quantized,
                   double tol)
{
    int64_t m_max = 0;
    for (int32_t i = 0; i < m_count; i++)
        m_max = ms[i] > m_max ? ms[i] : m_max;
    bench_io io;
    uint16_t *a = given ? given : malloc((size_t)(m_max * w->k) * 2);
    uint16_t *c = malloc((size_t)(m_max * w->n) * 2);
    int64_t *rows = malloc((size_t)m_max * sizeof *rows);
    if (a == NULL || c == NULL || rows == NULL || bench_io_create(ordinal, dtype, w->n, w->k, m_max, &io) != HUM_OK) {
        fprintf(stderr, "hum run: %s\n", a && c && rows ? hum_last_error() : "out of host memory for the activations");
        if (!given)
            free(a);
        free(c);
        free(rows);
        return 1;
    }
    bench_rng rng = bench_rng_fresh();
    int rc = 0, failed_check = 0;
    for (int32_t i = 0; i < m_count; i++) {
        int64_t m = ms[i];
        hum_status st = given ? HUM_OK : bench_random_activations(&rng, dtype, m * w->k, a);
        double t0 = now_ms();
        if (st == HUM_OK)
            st = bench_io_forward(&io, layer, a, m, c);
        double ms_taken = now_ms() - t0;
        if (st != HUM_OK) {
            fprintf(stderr, "hum run: M = %lld: %s\n", (long long)m, hum_last_error());
            rc = 1;
            break;
        }
        printf("M = %-6lld ran in %.3f ms (upload, forward, download)", (long long)m, ms_taken);
        if (o->check) {
            int64_t row_count = bench_check_rows(m, w->n, w->k, rows, m), bad = 0;
            double err = INFINITY;
            double *ref = malloc((size_t)(row_count * w->n + 1) * sizeof *ref);
            st = ref ? bench_check_reference_as(w, quantized, dtype, a, rows, row_count, ref)
                     : hum_fail(HUM_ERR_OUT_OF_MEMORY, "the reference");
            if (st == HUM_OK)
                st = bench_check_against(dtype, w->n, c, m, rows, row_count, ref, &err, &bad);
            free(ref);
            if (st != HUM_OK) {
                printf("\n");
                fprintf(stderr, "hum run: M = %lld: reference: %s\n", (long long)m, hum_last_error());
                rc = 1;
                break;
            }
            int pass = bad == 0 && err <= tol;
            printf(", rel error %.3e over %lld of %lld rows: %s", err, (long long)row_count, (long long)m,
                   pass ? "ok" : "FAIL");
            if (bad)
                printf(" (%lld output elements unwritten or not finite)", (long long)bad);
            else if (!pass)
                printf(" (tolerance %.0e)", tol);
            failed_check |= !pass;
        }
        printf("\n");
    }
    if (rc == 0 && o->output) {
        if (write_output(o->output, dtype, ms[0], w->n, c) != HUM_OK) {
            fprintf(stderr, "hum run: %s\n", hum_last_error());
            rc = 1;
        } else {
            printf("wrote %s (output: %s [%lld, %lld])\n", o->output, hum_dtype_name(dtype), (long long)ms[0],
                   (long long)w->n);
        }
    }
    bench_io_destroy(&io);
    if (!given)
        free(a);
    free(c);
    free(rows);
    return rc | failed_check;
}

/* The MoE options of the command line; 0, or 2 after reporting a bad one. */
static int moe_flags(const run_options *o, hum_moe_options *m)
{
    static const char *const acts[] = {"silu", "swiglu_oai", "relu2", "gelu"};
    hum_moe_options_init(m);
    if (o->top_k) {
        char *end = NULL;
        const long k = strtol(o->top_k, &end, 10);
        if (!*o->top_k || *end || k < 1 || k > 4096) {
            fprintf(stderr, "hum run: bad argument '--topk %s' (expected an integer 1..4096)\n", o->top_k);
            return 2;
        }
        m->top_k = (int32_t)k;
    }
    if (o->act) {
        m->activation = -1;
        for (int i = 0; i < 4; i++)
            if (!strcmp(o->act, acts[i]))
                m->activation = i;
        if (m->activation < 0) {
            fprintf(stderr, "hum run: bad argument '--act %s' (expected silu, swiglu_oai, relu2 or gelu)\n", o->act);
            return 2;
        }
    }
    if (o->gate_up && strcmp(o->gate_up, "split") && strcmp(o->gate_up, "interleaved")) {
        fprintf(stderr, "hum run: bad argument '--gate-up %s' (expected split or interleaved)\n", o->gate_up);
        return 2;
    }
    m->gate_up = o->gate_up && !strcmp(o->gate_up, "interleaved") ? HUM_MOE_GATE_UP_INTERLEAVED
                                                                   : HUM_MOE_GATE_UP_SPLIT;
    return 0;
}

int hum_cmd_run(const char *config, int argc, char **argv)
{
    run_options o = {.config = config};
    int parsed = parse(argc, argv, &o);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    int64_t ms[BENCH_MAX_M_VALUES];
    int32_t m_count = 0;
    hum_dtype dtype = HUM_DTYPE_FLOAT16;
    /* --activation e4m3 | int8 | mxfp8: the scheme the layer runs instead of the checkpoint's;
     * e4m3 by its dtype name too, as configs take it (linear.activation) */
    if (o.activation && !strcmp(o.activation, "float8_e4m3fn"))
        o.activation = "e4m3";
    const int a8 = o.activation && (!strcmp(o.activation, "e4m3") || !strcmp(o.activation, "int8") ||
                                    !strcmp(o.activation, "mxfp8"));
    if (!o.input && bench_parse_m_list(o.m_list ? o.m_list : "1,16,128,1000", ms, BENCH_MAX_M_VALUES, &m_count) !=
                        HUM_OK) {
        fprintf(stderr, "hum run: %s\n", hum_last_error());
        return 2;
    }
    if (o.activation && !a8 && bench_parse_activation(o.activation, &dtype) != HUM_OK) {
        fprintf(stderr, "hum run: --activation '%s' (expected float16, bfloat16, e4m3, int8 or mxfp8)\n",
                o.activation);
        return 2;
    }
    const char *inputs[] = {o.input, NULL};
    if (o.output && cli_output_allowed("hum run", "--output", o.output, o.force, o.checkpoint, inputs) != 0)
        return 1;

    hum_runtime *rt;
    if (cli_runtime_open("run", o.config, NULL, &rt) != 0)
        return 1;
    int rc = 1;
    hum_standard_weight w = {0};
    hum_layer *layer = NULL;
    uint16_t *given = NULL;
    hum_device_info dev;
    double t0 = now_ms();
    if (hum_layer_load_standard(rt, o.checkpoint, o.layer, &w) != HUM_OK) {
        /* not a layer: an experts module, maybe (else the layer's error stands) */
        char error[1024];
        snprintf(error, sizeof error, "%s", hum_last_error());
        int not_moe = 1;
        if (!o.input) {
            run_moe_options mo = {.checkpoint = o.checkpoint, .name = o.layer, .ms = ms, .m_count = m_count,
                                  .dtype = dtype, .check = o.check, .balanced = o.balanced};
            if (moe_flags(&o, &mo.moe) != 0) {
                rc = 2;
                goto done;
            }
            rc = run_moe(rt, &mo, &not_moe);
        }
        if (not_moe) {
            /* with --input the experts modules were not looked for */
            fprintf(stderr, "hum run: %s%s\n", error,
                    o.input ? " (--input runs a dense layer; an experts module runs without it)" : "");
            rc = 1;
        }
        goto done;
    }
    if (o.top_k || o.act || o.gate_up || o.balanced) {
        fprintf(stderr, "hum run: %s is a layer, not an experts module: --topk, --act, --gate-up and --balanced are "
                "MoE options\n", o.layer);
        rc = 2;
        goto done;
    }
    printf("%s: %s, N = %lld, K = %lld, %s weights, loaded in %.1f ms\n", o.checkpoint, o.layer, (long long)w.n,
           (long long)w.k, hum_dtype_name(w.weight_dtype), now_ms() - t0);
    if (a8) {
        /* the checkpoint's 16-bit type goes in; a per-tensor scale of another type does not carry */
        const hum_dtype want = !strcmp(o.activation, "int8") ? HUM_DTYPE_INT8 : HUM_DTYPE_FLOAT8_E4M3FN;
        const int mx = !strcmp(o.activation, "mxfp8");
        dtype = w.param_dtype;
        if (mx || w.act_dtype != want || (w.act_scale == HUM_ACT_SCALE_GROUP && w.act_group == 32)) {
            hum_host_tensor_free(&w.input_scale);
            w.act_dtype = want;
            w.act_scale = mx ? HUM_ACT_SCALE_GROUP : HUM_ACT_SCALE_TOKEN;
            w.act_group = mx ? 32 : 0;
        }
    }
    if (o.input) {
        hum_dtype input_dtype = HUM_DTYPE_INVALID;
        if (read_input(o.input, w.k, &input_dtype, &ms[0], &given) != HUM_OK) {
            fprintf(stderr, "hum run: %s\n", hum_last_error());
            goto done;
        }
        if (o.activation && !a8 && input_dtype != dtype) {
            fprintf(stderr, "hum run: --activation %s but %s holds %s activations\n", o.activation, o.input,
                    hum_dtype_name(input_dtype));
            goto done;
        }
        dtype = input_dtype;
        m_count = 1;
    }
    if (hum_runtime_device(rt, &dev) != HUM_OK) {
        fprintf(stderr, "hum run: no GPU to run on: %s\n", hum_last_error());
        goto done;
    }
    hum_layer_options lo = {.activation_dtype = dtype};
    t0 = now_ms();
    if (hum_layer_from_standard(rt, &w, &lo, &layer) != HUM_OK || hum_layer_prepare(layer) != HUM_OK) {
        fprintf(stderr, "hum run: %s\n", hum_last_error());
        goto done;
    }
    hum_layer_info info;
    hum_layer_get_info(layer, &info);
    printf("prepared for %s (%s, %s activations) in %.1f ms: %d M ranges, policy %s, %d kernels compiled, %d from "
           "the cache\n",
           dev.name, info.arch, hum_dtype_name(dtype), now_ms() - t0, info.entry_count, info.policy_name,
           info.kernels_compiled, info.kernels_cached);
    hum_layer_dispatch d;
    if (hum_layer_describe(layer, &d) == HUM_OK && d.activation[0])
        printf("activations: %s\n", d.activation);
    /* a layer that quantizes (or rounds) A is checked against A quantized the same way */
    hum_act_quant how;
    const int quantizes = bench_check_quantizes(&info.config, &how);
    rc = run_all(&o, layer, &w, dev.ordinal, dtype, ms, m_count, given, quantizes ? &how : NULL,
                 quantizes ? bench_check_tolerance_made(&info.config) : bench_check_tolerance(dtype));
done:
    hum_layer_destroy(layer);
    free(given);
    hum_standard_free(&w);
    hum_runtime_destroy(rt);
    return rc;
}
