/* `hum inspect` end to end: writes a GPTQ 4-bit g128 act-order checkpoint, an AWQ 4-bit g128 one
 * and a compressed-tensors pack-quantized W4A16 one, laid out as AutoGPTQ, AutoAWQ and
 * llm-compressor write them, runs the hum CLI on each, checks the listing, and checks that
 * --dequant writes float32 [N, K] under "weight" equal to the format's rule (GPTQ, in checkpoint
 * column order) or to the converted layer's reference dequantization (AWQ, compressed-tensors).
 * With HUM_FIXTURE_DIR set, the checkpoints are written there and kept
 * (tools/make-fixture-checkpoints.sh). */
#define _GNU_SOURCE
#include "fixture.h"
#include "formats_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *hum_cli = HUM_BINARY_DIR "/runtime/hum";

typedef struct layer_spec {
    const char *name;
    int64_t n, k;
} layer_spec;

static const layer_spec layers[] = {
    {"model.layers.0.self_attn.q_proj", 256, 512},
    {"model.layers.0.mlp.down_proj", 512, 1024},
};

/* Runs `hum inspect ARGS`, returns its stdout (malloc'ed) and exit status. */
static char *run_inspect(const char *args, int *status)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s inspect %s 2>&1", hum_cli, args);
    FILE *p = popen(cmd, "r");
    char *out = calloc(1, 1 << 16);
    size_t n = p ? fread(out, 1, (1 << 16) - 1, p) : 0;
    out[n] = '\0';
    *status = p ? pclose(p) : -1;
    return out;
}

/* The --dequant file of `layer` must be F32 [n, k] equal to want. */
static void check_dequant(const char *dir, const char *layer, int64_t n, int64_t k, const double *want,
                          const char *what)
{
    char args[8192 + 512], out_path[4096 + 32];
    snprintf(out_path, sizeof out_path, "%s.dequant.safetensors", dir);
    snprintf(args, sizeof args, "%s --layer %s --dequant %s", dir, layer, out_path);
    int status;
    char *text = run_inspect(args, &status);
    FMT_CHECK(status == 0 && strstr(text, "standard form:") && strstr(text, "wrote "), "%s: --dequant: %s", what, text);
    printf("$ hum inspect %s\n%s\n", args, text);
    free(text);
    hum_safetensors *st = NULL;
    hum_safetensors_tensor t;
    if (hum_safetensors_open(out_path, &st) == HUM_OK && hum_safetensors_find(st, "weight", &t) == HUM_OK) {
        FMT_CHECK(t.dtype == HUM_DTYPE_FLOAT32 && t.rank == 2 && t.shape[0] == n && t.shape[1] == k,
                  "%s: dequant shape", what);
        double *got = malloc(sizeof *got * (size_t)(n * k)), *w32 = malloc(sizeof *w32 * (size_t)(n * k));
        for (int64_t i = 0; i < n * k; i++) {
            float f;
            memcpy(&f, (const char *)t.data + 4 * i, 4);
            got[i] = f;
            w32[i] = (float)want[i];
        }
        fmt_compare(got, w32, n * k, 0, what);
        free(got);
        free(w32);
    } else {
        FMT_CHECK(0, "%s: cannot read %s: %s", what, out_path, hum_last_error());
    }
    hum_safetensors_close(st);
    remove(out_path);
}

static void check_listing(const char *dir, const char *format, const char *what)
{
    int status;
    char *text = run_inspect(dir, &status);
    printf("$ hum inspect %s\n%s\n", dir, text);
    FMT_CHECK(status == 0, "%s: exit status %d: %s", what, status, text);
    for (size_t i = 0; i < sizeof layers / sizeof layers[0]; i++) {
        char want[256];
        const char *line = strstr(text, layers[i].name);
        snprintf(want, sizeof want, "%lld %7lld", (long long)layers[i].n, (long long)layers[i].k);
        FMT_CHECK(line && strstr(line, format) && strstr(line, want), "%s: no line for %s (%s)", what, layers[i].name,
                  want);
    }
    FMT_CHECK(!strstr(text, "lm_head") && !strstr(text, "embed_tokens"), "%s: dense tensors listed", what);
    free(text);
}

static const char *broken_layer = "model.layers.1.mlp.up_proj";

/* A layer whose scales do not fit its qweight ([1, 64] for K = 256 at group 128): listed with
 * the reason, the others listed and loadable, only `--layer` of it fails. */
static void add_broken_layer(fx_file *f)
{
    int64_t n = 64, k = 256;
    uint32_t *qw = calloc((size_t)(k / 8 * n), 4), *qz = calloc((size_t)(2 * n / 8), 4);
    uint16_t *s = calloc((size_t)n, 2);
    int32_t *g_idx = calloc((size_t)k, 4);
    fx_add(f, fx_name(broken_layer, "qweight"), "I32", qw, 2, k / 8, n);
    fx_add(f, fx_name(broken_layer, "qzeros"), "I32", qz, 2, 2, n / 8);
    fx_add(f, fx_name(broken_layer, "scales"), "F16", s, 2, 1, n);
    fx_add(f, fx_name(broken_layer, "g_idx"), "I32", g_idx, 1, k);
    free(qw);
    free(qz);
    free(s);
    free(g_idx);
}

static void check_broken_layer(const char *dir)
{
    const char *why = "model.layers.1.mlp.up_proj.scales has shape [1, 64], expected [2, 64]";
    int status;
    char *text = run_inspect(dir, &status);
    printf("$ hum inspect %s\n%s\n", dir, text);
    const char *line = strstr(text, broken_layer);
    FMT_CHECK(status == 0, "one broken layer: exit status %d: %s", status, text);
    FMT_CHECK(strstr(text, "3 quantized layers, 1 of which cannot be converted"), "one broken layer: count: %s", text);
    FMT_CHECK(line && strstr(line, "cannot be converted: ") && strstr(line, why), "one broken layer: its line: %s",
              text);
    free(text);
    char args[8192];
    snprintf(args, sizeof args, "%.4000s --json", dir);
    text = run_inspect(args, &status);
    FMT_CHECK(status == 0 && strstr(text, "\"error\":") && strstr(text, why) && strstr(text, layers[0].name),
              "one broken layer --json: %s", text);
    free(text);
    snprintf(args, sizeof args, "%.4000s --layer %s", dir, broken_layer);
    text = run_inspect(args, &status);
    FMT_CHECK(status != 0 && strstr(text, why), "--layer of the broken layer: status %d: %s", status, text);
    /* the failure alone: no listing printed before it */
    FMT_CHECK(!strstr(text, " tensors, "), "--layer of the broken layer printed the listing first: %s", text);
    free(text);
    snprintf(args, sizeof args, "%.4000s --layer model.layers.9.nope", dir);
    text = run_inspect(args, &status);
    FMT_CHECK(status != 0 && strstr(text, "no quantized layer \"model.layers.9.nope\"") && !strstr(text, " tensors, "),
              "--layer of a missing layer: status %d: %s", status, text);
    free(text);
    snprintf(args, sizeof args, "%.4000s --layer %s", dir, layers[0].name);
    text = run_inspect(args, &status);
    FMT_CHECK(status == 0 && strstr(text, "standard form:"), "--layer of a good layer: status %d: %s", status, text);
    free(text);
}

static void gptq_checkpoint(const char *dir, int broken)
{
    fmt_rng r = {2024};
    /* GPTQ writes all layers into one file: build it layer by layer into one fixture dir,
     * keeping the raw values of the last layer for the --dequant check. */
    const int64_t gs = 128;
    double *want = NULL;
    fx_file f = {0};
    fx_add_dense(&f);
    for (size_t l = 0; l < sizeof layers / sizeof layers[0]; l++) {
        int64_t n = layers[l].n, k = layers[l].k, g = k / gs;
        uint8_t *q = malloc((size_t)(n * k)), *vals = malloc((size_t)k);
        uint16_t *s = malloc(2 * (size_t)(g * n));
        int32_t *g_idx = malloc(4 * (size_t)k), *order = malloc(4 * (size_t)k);
        uint32_t *qw = calloc((size_t)(k / 8 * n), 4), *qz = calloc((size_t)(g * n / 8), 4),
                 *col = calloc((size_t)k / 8, 4);
        for (int64_t i = 0; i < n * k; i++)
            q[i] = (uint8_t)fmt_rand_range(&r, 0, 15);
        for (int64_t i = 0; i < g * n; i++)
            s[i] = fx_f16_bits((double)fmt_rand_range(&r, 1, 2047) / 65536.0);
        for (int64_t i = 0; i < k; i++)
            order[i] = (int32_t)i;
        for (int64_t i = k - 1; i > 0; i--) {
            int64_t j = fmt_rand_range(&r, 0, i);
            int32_t t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int64_t j = 0; j < k; j++)
            g_idx[order[j]] = (int32_t)(j / gs);
        for (int64_t c = 0; c < n; c++) {
            for (int64_t i = 0; i < k; i++)
                vals[i] = q[i * n + c];
            fx_pack_dense(vals, k, 4, col);
            for (int64_t i = 0; i < k / 8; i++)
                qw[i * n + c] = col[i];
        }
        for (int64_t i = 0; i < g * n / 8; i++)
            qz[i] = 0x77777777u; /* sym v1: zero 8 stored as 7 */
        fx_add(&f, fx_name(layers[l].name, "qweight"), "I32", qw, 2, k / 8, n);
        fx_add(&f, fx_name(layers[l].name, "qzeros"), "I32", qz, 2, g, n / 8);
        fx_add(&f, fx_name(layers[l].name, "scales"), "F16", s, 2, g, n);
        fx_add(&f, fx_name(layers[l].name, "g_idx"), "I32", g_idx, 1, k);
        free(want);
        want = malloc(sizeof *want * (size_t)(n * k));
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < k; j++)
                want[i * k + j] = fx_f16_value(s[g_idx[j] * n + i]) * ((double)q[j * n + i] - 8.0);
        free(q);
        free(vals);
        free(s);
        free(g_idx);
        free(order);
        free(qw);
        free(qz);
        free(col);
    }
    if (broken)
        add_broken_layer(&f);
    FMT_CHECK(fx_flush(&f, dir, "model.safetensors") == 0, "gptq fixture");
    fx_write_json(dir, "config.json",
                  "{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"model_type\": \"llama\",\n"
                  "  \"torch_dtype\": \"float16\",\n  \"quantization_config\": {\n    \"bits\": 4,\n"
                  "    \"checkpoint_format\": \"gptq\",\n    \"damp_percent\": 0.01,\n    \"desc_act\": true,\n"
                  "    \"group_size\": 128,\n    \"quant_method\": \"gptq\",\n    \"static_groups\": false,\n"
                  "    \"sym\": true,\n    \"true_sequential\": true\n  }\n}\n");
    fx_write_json(
        dir, "quantize_config.json",
        "{\"bits\": 4, \"group_size\": 128, \"damp_percent\": 0.01, \"desc_act\": true, "
        "\"static_groups\": false, \"sym\": true, \"true_sequential\": true, \"model_name_or_path\": null, "
        "\"model_file_base_name\": \"model\", \"quant_method\": \"gptq\", \"checkpoint_format\": \"gptq\"}\n");
    check_listing(dir, "gptq ", "gptq");
    if (broken)
        check_broken_layer(dir);
    const layer_spec *last = &layers[sizeof layers / sizeof layers[0] - 1];
    check_dequant(dir, last->name, last->n, last->k, want, "gptq --dequant");
    free(want);
}

/* The reference dequantization of `layer` as loaded by the library. */
static double *loaded(const char *dir, const char *layer)
{
    hum_standard_weight w;
    if (fmt_load(dir, layer, &w) != HUM_OK) {
        FMT_CHECK(0, "load %s: %s", layer, hum_last_error());
        return NULL;
    }
    double *d = fmt_dequant(&w, 0);
    hum_standard_free(&w);
    return d;
}

static void awq_checkpoint(const char *dir)
{
    fmt_rng r = {77};
    const layer_spec *l = &layers[1];
    int64_t n = l->n, k = l->k, g = k / 128;
    uint8_t *q = malloc((size_t)(n * k)), *z = malloc((size_t)(g * n));
    uint16_t *s = malloc(2 * (size_t)(g * n));
    for (int64_t i = 0; i < n * k; i++)
        q[i] = (uint8_t)fmt_rand_range(&r, 0, 15);
    for (int64_t i = 0; i < g * n; i++) {
        z[i] = (uint8_t)fmt_rand_range(&r, 0, 15);
        s[i] = fx_f16_bits((double)fmt_rand_range(&r, 1, 2047) / 32768.0);
    }
    fx_awq fx = {.group_size = 128, .n = n, .k = k, .q = q, .zero = z, .scale = s};
    FMT_CHECK(fx_write_awq(dir, l->name, &fx) == 0, "awq fixture");
    int status;
    char *text = run_inspect(dir, &status);
    printf("$ hum inspect %s\n%s\n", dir, text);
    FMT_CHECK(status == 0 && strstr(text, l->name) && strstr(text, "awq") && strstr(text, "asym"), "awq listing: %s",
              text);
    free(text);
    double *want = malloc(sizeof *want * (size_t)(n * k));
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < k; j++)
            want[i * k + j] = ((double)q[j * n + i] - z[(j / 128) * n + i]) * fx_f16_value(s[(j / 128) * n + i]);
    check_dequant(dir, l->name, n, k, want, "awq --dequant");
    free(want);
    free(q);
    free(z);
    free(s);
}

static void ct_checkpoint(const char *dir)
{
    fmt_rng r = {31337};
    const layer_spec *l = &layers[0];
    int64_t n = l->n, k = l->k, g = k / 128;
    int8_t *q = malloc((size_t)(n * k));
    uint16_t *s = malloc(2 * (size_t)(n * g));
    double *want = malloc(sizeof *want * (size_t)(n * k));
    for (int64_t i = 0; i < n * k; i++)
        q[i] = (int8_t)fmt_rand_range(&r, -8, 7);
    for (int64_t i = 0; i < n * g; i++)
        s[i] = fx_bf16_bits((double)fmt_rand_range(&r, 1, 255) / 8192.0);
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < k; j++)
            want[i * k + j] = q[i * k + j] * fx_bf16_value(s[i * g + j / 128]);
    fx_ct fx = {.format = "pack-quantized", .version = "0.18.0", .type = "int", .strategy = "group", .bits = 4,
                .sym = 1, .group_size = 128, .n = n, .k = k, .q_int = q, .scale = s, .scale_dtype = "BF16",
                .scale_rows = n, .scale_cols = g};
    FMT_CHECK(fx_write_ct(dir, l->name, &fx) == 0, "ct fixture");
    int status;
    char *text = run_inspect(dir, &status);
    printf("$ hum inspect %s\n%s\n", dir, text);
    FMT_CHECK(status == 0 && strstr(text, "compressed-tensors/pack-quantized") && strstr(text, l->name),
              "ct listing: %s", text);
    free(text);
    double *lib = loaded(dir, l->name);
    if (lib)
        fmt_compare(lib, want, n * k, 0, "ct load");
    check_dequant(dir, l->name, n, k, want, "ct --dequant");
    free(lib);
    free(want);
    free(q);
    free(s);
}

static void cli_errors(const char *dir)
{
    int status;
    char *text = run_inspect("--help", &status);
    FMT_CHECK(status == 0 && strstr(text, "usage: hum inspect"), "--help");
    free(text);
    char args[8192];
    snprintf(args, sizeof args, "%.4000s --layer model.layers.7.mlp.nothing", dir);
    text = run_inspect(args, &status);
    FMT_CHECK(status != 0 && strstr(text, "no quantized layer \"model.layers.7.mlp.nothing\""), "unknown layer: %s",
              text);
    free(text);
    text = run_inspect("/nonexistent/checkpoint", &status);
    FMT_CHECK(status != 0 && strstr(text, "/nonexistent/checkpoint"), "missing path: %s", text);
    free(text);
    text = run_inspect("--dequant x.safetensors somewhere", &status);
    FMT_CHECK(status != 0 && strstr(text, "--dequant needs --layer"), "dequant without layer: %s", text);
    free(text);
}

int main(void)
{
    const char *keep = getenv("HUM_FIXTURE_DIR");
    char *root = keep && *keep ? strdup(keep) : fmt_tmpdir("inspect");
    mkdir(root, 0755);
    char gptq[4096 + 64], awq[4096 + 64], ct[4096 + 64], broken[4096 + 64];
    snprintf(gptq, sizeof gptq, "%s/gptq-w4-g128-act-order", root);
    snprintf(awq, sizeof awq, "%s/awq-w4-g128", root);
    snprintf(ct, sizeof ct, "%s/compressed-tensors-w4a16-pack", root);
    mkdir(gptq, 0755);
    mkdir(awq, 0755);
    snprintf(broken, sizeof broken, "%s/gptq-one-broken-layer", root);
    mkdir(ct, 0755);
    mkdir(broken, 0755);
    gptq_checkpoint(gptq, 0);
    gptq_checkpoint(broken, 1);
    awq_checkpoint(awq);
    ct_checkpoint(ct);
    cli_errors(gptq);
    if (!(keep && *keep))
        fmt_rmtree(root);
    free(root);
    fmt_runtime_destroy();
    return fmt_finish("test_inspect");
}
