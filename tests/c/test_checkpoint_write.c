/* GPTQ and AWQ writers of the runtime: a fixture written as AutoGPTQ / AutoAWQ would, loaded to
 * the standard form, written back by hum_checkpoint_write_gptq / _awq, must give byte-identical
 * tensors; a standard weight converted across formats must dequantize to the same values; a
 * weight a format cannot hold is refused by name and nothing is written; a write that fails
 * part way leaves nothing new behind. */
#include "fixture.h"
#include "formats_support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *layer = "model.layers.4.mlp.up_proj";

static void same_tensor(const char *a_dir, const char *b_dir, const char *suffix, const char *what)
{
    char name[256];
    snprintf(name, sizeof name, "%s.%s", layer, suffix);
    hum_checkpoint *a = NULL, *b = NULL;
    hum_safetensors_tensor ta, tb;
    int ok = hum_checkpoint_open(a_dir, &a) == HUM_OK && hum_checkpoint_open(b_dir, &b) == HUM_OK &&
             hum_checkpoint_find(a, name, &ta) == HUM_OK && hum_checkpoint_find(b, name, &tb) == HUM_OK;
    FMT_CHECK(ok, "%s: %s: %s", what, name, hum_last_error());
    if (ok) {
        int same = strcmp(ta.dtype_name, tb.dtype_name) == 0 && ta.rank == tb.rank && ta.nbytes == tb.nbytes &&
                   memcmp(ta.shape, tb.shape, sizeof ta.shape) == 0 && memcmp(ta.data, tb.data, (size_t)ta.nbytes) == 0;
        FMT_CHECK(same, "%s: %s differs from the tool's layout (%s [%lld, %lld] vs %s [%lld, %lld])", what, name,
                  ta.dtype_name, (long long)ta.shape[0], (long long)ta.shape[1], tb.dtype_name,
                  (long long)tb.shape[0], (long long)tb.shape[1]);
    }
    hum_checkpoint_close(a);
    hum_checkpoint_close(b);
}

typedef struct gcase {
    int bits;
    int64_t gs, n, k;
    int sym, act, v2, bias;
} gcase;

static void gptq_round_trip(const gcase *c, unsigned seed)
{
    char what[96];
    snprintf(what, sizeof what, "gptq%s %d-bit g%lld %s%s", c->v2 ? "_v2" : "", c->bits, (long long)c->gs,
             c->sym ? "sym" : "asym", c->act ? " act-order" : "");
    fmt_rng r = {seed};
    int64_t n = c->n, k = c->k, gs = c->gs > 0 ? c->gs : k, g = (k + gs - 1) / gs;
    int top = (1 << c->bits) - 1;
    uint8_t *q = malloc((size_t)(n * k)), *z = malloc((size_t)(g * n));
    uint16_t *s = malloc(2 * (size_t)(g * n)), *bias = malloc(2 * (size_t)n);
    int32_t *g_idx = malloc(4 * (size_t)k), *order = malloc(4 * (size_t)k);
    for (int64_t i = 0; i < n * k; i++)
        q[i] = (uint8_t)fmt_rand_range(&r, 0, top);
    for (int64_t i = 0; i < g * n; i++) {
        /* v1 cannot hold a zero of 0: those cases keep zeros >= 1 */
        z[i] = c->sym ? (uint8_t)(1 << (c->bits - 1)) : (uint8_t)fmt_rand_range(&r, c->v2 ? 0 : 1, top);
        s[i] = fx_f16_bits((double)fmt_rand_range(&r, -1024, 1023) / 4096.0);
    }
    for (int64_t i = 0; i < n; i++)
        bias[i] = fx_f16_bits((double)fmt_rand_range(&r, -99, 99) / 4.0);
    for (int64_t i = 0; i < k; i++)
        order[i] = (int32_t)i;
    for (int64_t i = k - 1; c->act && i > 0; i--) {
        int64_t j = fmt_rand_range(&r, 0, i);
        int32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int64_t j = 0; j < k; j++)
        g_idx[order[j]] = (int32_t)(j / gs);
    char *a = fmt_tmpdir("write-a"), *b = fmt_tmpdir("write-b");
    fx_gptq fx = {.bits = c->bits, .group_size = c->gs, .n = n, .k = k, .sym = c->sym, .desc_act = c->act,
                  .v2 = c->v2, .q = q, .zero = z, .scale = s, .g_idx = g_idx, .bias = c->bias ? bias : NULL};
    fx_write_gptq(a, layer, &fx);
    hum_standard_weight w;
    hum_status st = fmt_load(a, layer, &w);
    FMT_CHECK(st == HUM_OK, "%s: load: %s", what, hum_last_error());
    if (st == HUM_OK) {
        hum_checkpoint_write_options opts = {.gptq_v2 = c->v2};
        st = hum_checkpoint_write_gptq(b, &layer, &w, 1, &opts);
        FMT_CHECK(st == HUM_OK, "%s: write: %s", what, hum_last_error());
        same_tensor(a, b, "qweight", what);
        same_tensor(a, b, "qzeros", what);
        same_tensor(a, b, "scales", what);
        same_tensor(a, b, "g_idx", what);
        if (c->bias)
            same_tensor(a, b, "bias", what);
        /* And what was written reads back to the same weight. */
        hum_standard_weight w2;
        if (fmt_load(b, layer, &w2) == HUM_OK) {
            double *d1 = fmt_dequant(&w, 0), *d2 = fmt_dequant(&w2, 0);
            if (d1 && d2)
                fmt_compare(d2, d1, n * k, 0, what);
            free(d1);
            free(d2);
            hum_standard_free(&w2);
        } else {
            FMT_CHECK(0, "%s: reading back: %s", what, hum_last_error());
        }
        hum_standard_free(&w);
    }
    fmt_rmtree(a);
    fmt_rmtree(b);
    free(a);
    free(b);
    free(q);
    free(z);
    free(s);
    free(bias);
    free(g_idx);
    free(order);
}

/* Entries of `dir` other than . and .. (a staging file left behind would be one). */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

/* A failed write leaves nothing new behind: a directory standing at config.json is refused (it
 * exists), so neither model.safetensors nor quantize_config.json nor a staging file may remain,
 * and a model.safetensors that was there before is untouched. Configs too long for their buffer
 * are refused, not truncated, after the weights are staged. (A file made at a name between the
 * check and the move into place, which commit's no-replace move refuses and discard undoes, has
 * no test: it needs a second writer in that window.) */
static void failed_writes(const hum_standard_weight *w)
{
    char *d = fmt_tmpdir("write-fail");
    hum_checkpoint_write_options v2 = {.gptq_v2 = 1}; /* the AWQ weight has zero points of 0 */
    FMT_CHECK(mkdir(fmt_path(d, "config.json"), 0755) == 0, "mkdir config.json");
    FMT_EXPECT_ERROR(hum_checkpoint_write_gptq(d, &layer, w, 1, &v2), HUM_ERR_IO, "config.json is a directory",
                     fmt_path(d, "config.json"));
    struct stat sb;
    FMT_CHECK(stat(fmt_path(d, "model.safetensors"), &sb) != 0, "a failed write left model.safetensors behind");
    FMT_CHECK(entries(d) == 1, "a failed gptq write left %d entries in %s (expected config.json alone)", entries(d), d);
    FMT_EXPECT_ERROR(hum_checkpoint_write_awq(d, &layer, w, 1, NULL), HUM_ERR_IO, "awq: config.json is a directory",
                     "config.json");
    FMT_CHECK(entries(d) == 1, "a failed awq write left %d entries in %s", entries(d), d);

    FMT_CHECK(fmt_write_text(fmt_path(d, "model.safetensors"), "older weights") == 0, "writing the old weights");
    FMT_EXPECT_ERROR(hum_checkpoint_write_gptq(d, &layer, w, 1, &v2), HUM_ERR_IO, "over older weights",
                     "config.json");
    size_t size = 0;
    unsigned char *old = fmt_read_bytes(fmt_path(d, "model.safetensors"), &size);
    FMT_CHECK(old && size == 13 && memcmp(old, "older weights", 13) == 0, "a failed write replaced model.safetensors");
    free(old);
    FMT_CHECK(entries(d) == 2, "a failed write left %d entries in %s (expected 2)", entries(d), d);

    /* An architecture name that does not fit: refused naming config.json; the directory this
     * call made is gone again. */
    char arch[3000], fresh[4200];
    memset(arch, 'A', sizeof arch - 1);
    arch[sizeof arch - 1] = '\0';
    hum_checkpoint_write_options opts = {.gptq_v2 = 1, .architecture = arch};
    snprintf(fresh, sizeof fresh, "%s/fresh", d);
    FMT_EXPECT_ERROR(hum_checkpoint_write_gptq(fresh, &layer, w, 1, &opts), HUM_ERR_INVALID_ARG, "long architecture",
                     "config.json", "does not fit");
    FMT_CHECK(stat(fresh, &sb) != 0, "a failed write left the directory %s it made", fresh);
    /* one that is no class name: printed raw, a quote made config.json JSON no loader reads */
    opts.architecture = "Llama\"ForCausalLM";
    FMT_EXPECT_ERROR(hum_checkpoint_write_gptq(fresh, &layer, w, 1, &opts), HUM_ERR_INVALID_ARG, "quoted architecture",
                     "expected a model class name");
    FMT_CHECK(stat(fresh, &sb) != 0, "a refused write made the directory %s", fresh);
    fmt_rmtree(d);
    free(d);
}

/* A directory that holds any file a writer would write, or a config file a reader would take
 * beside them, is refused before anything is written, and the host's file stays as it was: a
 * user's weights under GPTQ's and AWQ's name; a quantize_config.json, which GPTQ writes and an
 * AWQ checkpoint beside it would be read with (a GPTQ one contradicting it); and ModelOpt's
 * hf_quant_config.json, which would make either read as ModelOpt. */
static void refuses_existing(const hum_standard_weight *w)
{
    hum_checkpoint_write_options v2 = {.gptq_v2 = 1};
    char *d = fmt_tmpdir("write-existing");
    FMT_CHECK(fmt_write_text(fmt_path(d, "model.safetensors"), "precious") == 0, "writing the user's file");
    FMT_EXPECT_ERROR(hum_checkpoint_write_gptq(d, &layer, w, 1, &v2), HUM_ERR_IO, "gptq over a user's weights",
                     "model.safetensors exists: not replaced");
    FMT_EXPECT_ERROR(hum_checkpoint_write_awq(d, &layer, w, 1, NULL), HUM_ERR_IO, "awq over a user's weights",
                     "model.safetensors exists: not replaced");
    size_t size = 0;
    unsigned char *kept = fmt_read_bytes(fmt_path(d, "model.safetensors"), &size);
    FMT_CHECK(kept && size == 8 && memcmp(kept, "precious", 8) == 0, "a refused write changed the user's file");
    free(kept);
    FMT_CHECK(entries(d) == 1, "a refused write left %d entries in %s (expected the user's file alone)", entries(d), d);
    fmt_rmtree(d);
    free(d);

    d = fmt_tmpdir("write-beside");
    FMT_CHECK(fmt_write_text(fmt_path(d, "quantize_config.json"), "{}") == 0, "writing quantize_config.json");
    FMT_EXPECT_ERROR(hum_checkpoint_write_gptq(d, &layer, w, 1, &v2), HUM_ERR_IO, "gptq over quantize_config.json",
                     "quantize_config.json exists: not replaced");
    FMT_EXPECT_ERROR(hum_checkpoint_write_awq(d, &layer, w, 1, NULL), HUM_ERR_IO, "awq beside quantize_config.json",
                     "quantize_config.json exists: a checkpoint written beside it would be read with it");
    FMT_CHECK(entries(d) == 1, "a refused write left %d entries in %s", entries(d), d);
    fmt_rmtree(d);
    free(d);

    d = fmt_tmpdir("write-modelopt");
    FMT_CHECK(fmt_write_text(fmt_path(d, "hf_quant_config.json"), "{}") == 0, "writing hf_quant_config.json");
    FMT_EXPECT_ERROR(hum_checkpoint_write_gptq(d, &layer, w, 1, &v2), HUM_ERR_IO, "gptq beside hf_quant_config.json",
                     "hf_quant_config.json exists");
    FMT_EXPECT_ERROR(hum_checkpoint_write_awq(d, &layer, w, 1, NULL), HUM_ERR_IO, "awq beside hf_quant_config.json",
                     "hf_quant_config.json exists");
    FMT_CHECK(entries(d) == 1, "a refused write left %d entries in %s", entries(d), d);
    fmt_rmtree(d);
    free(d);
}

static void awq_round_trip_and_errors(void)
{
    fmt_rng r = {5};
    int64_t n = 64, k = 256, gs = 64, g = k / gs;
    uint8_t *q = malloc((size_t)(n * k)), *z = malloc((size_t)(g * n));
    uint16_t *s = malloc(2 * (size_t)(g * n));
    for (int64_t i = 0; i < n * k; i++)
        q[i] = (uint8_t)fmt_rand_range(&r, 0, 15);
    for (int64_t i = 0; i < g * n; i++) {
        z[i] = (uint8_t)fmt_rand_range(&r, 0, 15);
        s[i] = fx_f16_bits((double)fmt_rand_range(&r, 1, 1023) / 8192.0);
    }
    char *a = fmt_tmpdir("awq-a"), *b = fmt_tmpdir("awq-b"), *c = fmt_tmpdir("awq-c");
    fx_awq fx = {.group_size = gs, .n = n, .k = k, .q = q, .zero = z, .scale = s};
    fx_write_awq(a, layer, &fx);
    hum_standard_weight w;
    if (fmt_load(a, layer, &w) != HUM_OK) {
        FMT_CHECK(0, "awq load: %s", hum_last_error());
    } else {
        FMT_CHECK(hum_checkpoint_write_awq(b, &layer, &w, 1, NULL) == HUM_OK, "awq write: %s", hum_last_error());
        FMT_CHECK(entries(b) == 2, "awq wrote %d files, expected model.safetensors and config.json", entries(b));
        failed_writes(&w);
        refuses_existing(&w);
        same_tensor(a, b, "qweight", "awq");
        same_tensor(a, b, "qzeros", "awq");
        same_tensor(a, b, "scales", "awq");
        /* AWQ -> GPTQ v2 (zeros of 0 allowed) reads back to the same values; v1 is refused. */
        hum_checkpoint_write_options v2 = {.gptq_v2 = 1};
        FMT_CHECK(hum_checkpoint_write_gptq(c, &layer, &w, 1, &v2) == HUM_OK, "awq->gptq: %s", hum_last_error());
        hum_standard_weight w2;
        if (fmt_load(c, layer, &w2) == HUM_OK) {
            double *d1 = fmt_dequant(&w, 0), *d2 = fmt_dequant(&w2, 0);
            if (d1 && d2)
                fmt_compare(d2, d1, n * k, 0, "awq -> gptq_v2");
            free(d1);
            free(d2);
            hum_standard_free(&w2);
        } else {
            FMT_CHECK(0, "awq->gptq read back: %s", hum_last_error());
        }
        char fresh[4200];
        snprintf(fresh, sizeof fresh, "%s/never", c);
        FMT_EXPECT_ERROR(hum_checkpoint_write_gptq(fresh, &layer, &w, 1, NULL), HUM_ERR_UNSUPPORTED, "v1 zero 0",
                         "zero point 0", "write gptq_v2");
        struct stat sb;
        FMT_CHECK(stat(fresh, &sb) != 0, "a refused write created %s", fresh);
        /* A second layer whose fields do not fit its tensors is named. */
        hum_standard_weight pair[2] = {w, w};
        pair[1].group_size = 128;
        const char *names[2] = {layer, "model.layers.5.mlp.up_proj"};
        FMT_EXPECT_ERROR(hum_checkpoint_write_awq(fresh, names, pair, 2, NULL), HUM_ERR_INVALID_ARG,
                         "invalid second layer", "model.layers.5.mlp.up_proj");
        hum_standard_free(&w);
    }
    fmt_rmtree(a);
    fmt_rmtree(b);
    fmt_rmtree(c);
    free(a);
    free(b);
    free(c);
    free(q);
    free(z);
    free(s);
}

/* FP weights, experts and 3-bit AWQ are refused with the reason. */
static void refusals(void)
{
    char *dir = fmt_tmpdir("refuse");
    uint8_t codes[4 * 32];
    for (int i = 0; i < 4 * 32; i++)
        codes[i] = (uint8_t)(i * 7 % 15);
    float scale = 0.5f;
    fx_modelopt fx = {.algo = "FP8", .n = 4, .k = 32, .codes = codes, .scale = &scale};
    fx_write_modelopt(dir, layer, &fx);
    hum_standard_weight w;
    if (fmt_load(dir, layer, &w) == HUM_OK) {
        FMT_EXPECT_ERROR(hum_checkpoint_write_gptq(dir, &layer, &w, 1, NULL), HUM_ERR_UNSUPPORTED, "fp8 as gptq",
                         "not an unsigned integer code");
        hum_standard_free(&w);
    }
    fmt_rmtree(dir);
    free(dir);
    FMT_EXPECT_ERROR(hum_checkpoint_write_awq("/tmp", &layer, NULL, 1, NULL), HUM_ERR_INVALID_ARG, "NULL weights",
                     "NULL argument");
}

int main(void)
{
    static const gcase cases[] = {
        {4, 128, 64, 256, 1, 1, 0, 1}, {4, 32, 32, 128, 0, 0, 1, 0}, {4, 32, 64, 128, 0, 1, 0, 0},
        {3, 32, 32, 128, 0, 1, 1, 1},  {3, 64, 64, 192, 1, 0, 0, 0}, {2, 16, 32, 64, 0, 0, 1, 0},
        {8, -1, 32, 64, 1, 0, 0, 1},   {8, 32, 16, 96, 0, 1, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        gptq_round_trip(&cases[i], (unsigned)i + 10);
    awq_round_trip_and_errors();
    refusals();
    fmt_runtime_destroy();
    return fmt_finish("test_checkpoint_write");
}
