/* GPTQ and AWQ checkpoint writers: standard weights back to the layouts AutoGPTQ and AutoAWQ
 * write (the inverse of formats/gptq.lua and formats/awq.lua). */
#include "file_write.h"
#include "hum_ffi.h"
#include "internal.h"
#include "standard.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum { FMT_GPTQ, FMT_AWQ } out_format;

/* Tensors being assembled for model.safetensors; data blocks owned here. */
typedef struct out_file {
    hum_safetensors_tensor *t;
    char **names;
    int n, cap;
} out_file;

static hum_status add(out_file *f, const char *layer, const char *suffix, hum_dtype dtype, void *data, int rank,
                      int64_t d0, int64_t d1)
{
    if (f->n == f->cap) {
        int cap = f->cap ? 2 * f->cap : 16;
        hum_safetensors_tensor *t = realloc(f->t, sizeof *t * (size_t)cap);
        if (t)
            f->t = t;
        char **nm = t ? realloc(f->names, sizeof *nm * (size_t)cap) : NULL;
        if (!nm) {
            free(data);
            return hum_fail(HUM_ERR_OUT_OF_MEMORY, "writing a checkpoint: out of memory");
        }
        f->names = nm;
        f->cap = cap;
    }
    size_t len = strlen(layer) + strlen(suffix) + 2;
    char *name = malloc(len);
    if (!name) {
        free(data);
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "writing a checkpoint: out of memory");
    }
    snprintf(name, len, "%s.%s", layer, suffix);
    hum_safetensors_tensor *t = &f->t[f->n];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->dtype = dtype;
    t->rank = rank;
    t->shape[0] = d0;
    t->shape[1] = d1;
    t->data = data;
    f->names[f->n++] = name;
    return HUM_OK;
}

static void free_file(out_file *f)
{
    for (int i = 0; i < f->n; i++) {
        free(f->names[i]);
        free((void *)f->t[i].data);
    }
    free(f->t);
    free(f->names);
}

static int32_t bits_of(const hum_standard_weight *w) { return (int32_t)(w->weight_dtype & 0xFF); }

static int64_t group_of(const hum_standard_weight *w)
{
    return w->scale_type == HUM_SCALE_CHANNEL ? w->k : w->group_size;
}

/* Why `w` cannot be written in `fmt`, or NULL. */
static const char *unwritable(const hum_standard_weight *w, out_format fmt)
{
    int32_t b = bits_of(w);
    if (w->num_experts > 0)
        return "it has experts (GPTQ and AWQ checkpoints store one Linear per module)";
    if (hum_standard_stored_k(w) != w->k)
        return "its k_perm has padding columns (an act-order row shard), which no checkpoint stores";
    if ((w->weight_dtype >> 24 & 0xF) != HUM_KIND_UINT)
        return "its weight is not an unsigned integer code";
    if (fmt == FMT_GPTQ && b != 2 && b != 3 && b != 4 && b != 8)
        return "GPTQ stores 2, 3, 4 or 8 bits";
    if (fmt == FMT_AWQ && b != 4)
        return "AWQ GEMM stores 4 bits";
    if (w->scale_type != HUM_SCALE_GROUP && w->scale_type != HUM_SCALE_CHANNEL)
        return "its scales are not GROUP or CHANNEL scales";
    if (w->scale_dtype != HUM_DTYPE_FLOAT16 && w->scale_dtype != HUM_DTYPE_BFLOAT16)
        return "its scales are not float16 or bfloat16";
    if (w->has_zero_point && w->zero_point_is_float)
        return "it has float zero points";
    if (fmt == FMT_GPTQ && ((w->k * b) % 32 || (w->n * b) % 32))
        return "K * bits and N * bits must be multiples of 32 (AutoGPTQ sizes qweight and qzeros by integer division)";
    if (fmt == FMT_AWQ && (w->n % 8 || w->k % group_of(w)))
        return "AWQ needs N a multiple of 8 and K a multiple of the group size";
    if (fmt == FMT_AWQ && w->k_perm.data)
        return "AWQ has no act-order";
    return NULL;
}

/* Codes [N][K] of the weight in checkpoint column order; g_idx [K] for GPTQ when asked. */
static hum_status checkpoint_codes(const hum_standard_weight *w, uint8_t **codes, int32_t *g_idx)
{
    int64_t n = w->n, k = w->k, gs = group_of(w), shape[3] = {1, n, k};
    uint8_t *v = malloc((size_t)(n * k)), *c = NULL;
    int32_t *inv = malloc(sizeof *inv * (size_t)k);
    hum_status s = v && inv ? hum_unpack_bits(w->weight.data, shape, bits_of(w), HUM_PACK_ALONG_COLS, HUM_PACK_DENSE, v)
                            : hum_fail(HUM_ERR_OUT_OF_MEMORY, "writing a checkpoint: out of memory");
    if (s == HUM_OK) {
        const int32_t *perm = w->k_perm.data;
        /* standard column j is checkpoint column perm[j]: checkpoint column c is standard inv[c] */
        for (int64_t j = 0; j < k; j++)
            inv[perm ? perm[j] : j] = (int32_t)j;
        if (g_idx)
            for (int64_t c2 = 0; c2 < k; c2++)
                g_idx[c2] = (int32_t)(inv[c2] / gs);
        if (perm) {
            c = malloc((size_t)(n * k));
            s = c ? hum_host_gather_columns(v, c, n, k, k, inv, 1)
                  : hum_fail(HUM_ERR_OUT_OF_MEMORY, "writing a checkpoint: out of memory");
        }
    }
    free(inv);
    if (c) {
        free(v);
        v = c;
    }
    if (s != HUM_OK) {
        free(v);
        v = NULL;
    }
    *codes = v;
    return s;
}

/* Zero points [N][G] as codes: the stored ones, or the midpoint for a symmetric weight. */
static hum_status zero_codes(const hum_standard_weight *w, int64_t groups, uint8_t **out)
{
    int64_t n = w->n, shape[3] = {1, n, groups};
    uint8_t *z = malloc((size_t)(n * groups));
    *out = z;
    if (!z)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "writing a checkpoint: out of memory");
    if (!w->has_zero_point) {
        memset(z, 1 << (bits_of(w) - 1), (size_t)(n * groups));
        return HUM_OK;
    }
    return hum_unpack_bits(w->zero_point.data, shape, bits_of(w), HUM_PACK_ALONG_ROWS, HUM_PACK_DENSE, z);
}

/* [rows][cols] codes (one per byte) transposed, optionally AWQ-interleaved, then packed into
 * int32 words along `dim` of the transposed [cols][rows] array. */
static hum_status transpose_pack(const uint8_t *codes, int64_t rows, int64_t cols, int32_t bits, hum_pack_dim dim,
                                 int awq, int32_t **words, int64_t *nwords)
{
    uint8_t *t = malloc((size_t)(rows * cols));
    int64_t len = dim == HUM_PACK_ALONG_ROWS ? cols : rows;
    *nwords = hum_packed_words(len, bits, HUM_PACK_DENSE) * (dim == HUM_PACK_ALONG_ROWS ? rows : cols);
    *words = malloc(sizeof **words * (size_t)(*nwords ? *nwords : 1));
    int64_t shape[3] = {1, cols, rows};
    hum_status s = t && *words ? hum_host_transpose(codes, t, 1, rows, cols, 1)
                               : hum_fail(HUM_ERR_OUT_OF_MEMORY, "writing a checkpoint: out of memory");
    if (s == HUM_OK && awq)
        s = hum_awq_interleave(t, rows * cols, t);
    if (s == HUM_OK)
        s = hum_pack_bits(t, shape, bits, dim, HUM_PACK_DENSE, *words);
    free(t);
    if (s != HUM_OK) {
        free(*words);
        *words = NULL;
    }
    return s;
}

static hum_status copy_tensor(const hum_tensor *t, size_t bytes, void **out)
{
    *out = malloc(bytes ? bytes : 1);
    if (!*out)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "writing a checkpoint: out of memory");
    memcpy(*out, t->data, bytes);
    return HUM_OK;
}

static hum_status add_layer(out_file *f, const char *layer, const hum_standard_weight *w, out_format fmt, int v2)
{
    int32_t b = bits_of(w);
    int64_t n = w->n, k = w->k, gs = group_of(w), groups = (k + gs - 1) / gs;
    int32_t *g_idx = fmt == FMT_GPTQ ? malloc(sizeof *g_idx * (size_t)k) : NULL;
    uint8_t *codes = NULL, *zeros = NULL;
    int32_t *words = NULL;
    int64_t nwords;
    hum_status s = fmt == FMT_GPTQ && !g_idx ? hum_fail(HUM_ERR_OUT_OF_MEMORY, "writing a checkpoint: out of memory")
                                             : checkpoint_codes(w, &codes, g_idx);
    if (s == HUM_OK)
        s = transpose_pack(codes, n, k, b, fmt == FMT_GPTQ ? HUM_PACK_ALONG_ROWS : HUM_PACK_ALONG_COLS,
                           fmt == FMT_AWQ, &words, &nwords);
    if (s == HUM_OK)
        s = add(f, layer, "qweight", HUM_DTYPE_INT32, words, 2, fmt == FMT_GPTQ ? nwords / n : k,
                fmt == FMT_GPTQ ? n : nwords / k);
    if (s == HUM_OK)
        s = zero_codes(w, groups, &zeros);
    if (s == HUM_OK && fmt == FMT_GPTQ && !v2) {
        for (int64_t i = 0; i < n * groups && s == HUM_OK; i++)
            if (zeros[i] == 0)
                s = hum_fail(HUM_ERR_UNSUPPORTED,
                             "layer %s: zero point 0 (row %lld, group %lld) cannot be stored in a v1 \"gptq\" "
                             "checkpoint (it stores zero - 1); write gptq_v2",
                             layer, (long long)(i / groups), (long long)(i % groups));
        if (s == HUM_OK)
            s = hum_host_add_codes(zeros, n * groups, -1, b);
    }
    if (s == HUM_OK)
        s = transpose_pack(zeros, n, groups, b, HUM_PACK_ALONG_COLS, fmt == FMT_AWQ, &words, &nwords);
    if (s == HUM_OK)
        s = add(f, layer, "qzeros", HUM_DTYPE_INT32, words, 2, groups, nwords / groups);
    void *data = NULL;
    if (s == HUM_OK) {
        data = malloc(2 * (size_t)(n * groups));
        s = data ? hum_host_transpose(w->scale.data, data, 1, n, groups, 2)
                 : hum_fail(HUM_ERR_OUT_OF_MEMORY, "writing a checkpoint: out of memory");
        if (s == HUM_OK)
            s = add(f, layer, "scales", w->scale_dtype, data, 2, groups, n);
        else
            free(data);
    }
    if (s == HUM_OK && fmt == FMT_GPTQ) {
        s = add(f, layer, "g_idx", HUM_DTYPE_INT32, g_idx, 1, k, 0);
        g_idx = NULL;
    }
    if (s == HUM_OK && w->bias.data && (s = copy_tensor(&w->bias, 2 * (size_t)n, &data)) == HUM_OK)
        s = add(f, layer, "bias", w->param_dtype, data, 1, n, 0);
    free(g_idx);
    free(codes);
    free(zeros);
    return s;
}

static hum_status check_all(const char *const *names, const hum_standard_weight *weights, int32_t count,
                            out_format fmt)
{
    const char *what = fmt == FMT_GPTQ ? "GPTQ" : "AWQ";
    for (int32_t i = 0; i < count; i++) {
        const hum_standard_weight *w = &weights[i];
        if (!names[i] || !*names[i])
            return hum_fail(HUM_ERR_INVALID_ARG, "writing %s: layer %d has no name", what, i);
        if (hum_standard_validate(w) != HUM_OK)
            return hum_fail_context(HUM_ERR_INVALID_ARG, "writing %s layer %s", what, names[i]);
        const char *why = unwritable(w, fmt);
        if (why)
            return hum_fail(HUM_ERR_UNSUPPORTED, "writing %s layer %s: %s", what, names[i], why);
        const hum_standard_weight *w0 = &weights[0];
        if (bits_of(w) != bits_of(w0) || w->scale_type != w0->scale_type || w->group_size != w0->group_size ||
            w->has_zero_point != w0->has_zero_point)
            return hum_fail(HUM_ERR_UNSUPPORTED,
                            "writing %s layer %s: bits, group size and zero points must match layer %s (one "
                            "quantization_config for the checkpoint)",
                            what, names[i], names[0]);
    }
    return HUM_OK;
}

/* A checkpoint's files are staged under temporary names in the target directory and renamed
 * into place only once all of them are written, so that a failed call leaves no checkpoint
 * half written (weights without config.json) and nothing else new behind. */
enum { OUT_MODEL, OUT_CONFIG, OUT_QUANTIZE_CONFIG, OUT_FILES };
static const char *const out_names[OUT_FILES] = {"model.safetensors", "config.json", "quantize_config.json"};

typedef struct staged {
    char path[OUT_FILES][4096]; /* where each file goes */
    char tmp[OUT_FILES][4096];  /* where it is written first */
    int used[OUT_FILES];        /* AWQ has no quantize_config.json */
    int written[OUT_FILES];     /* tmp exists */
    int placed[OUT_FILES];      /* renamed into place where no file was before */
} staged;

static hum_status stage_paths(const char *dir, staged *st)
{
    /* pid + counter: two threads of one process writing into the same directory must not
     * share a temporary name */
    static atomic_uint counter;
    unsigned id = atomic_fetch_add(&counter, 1);
    for (int i = 0; i < OUT_FILES; i++) {
        int n = snprintf(st->path[i], sizeof st->path[i], "%s/%s", dir, out_names[i]);
        int m = snprintf(st->tmp[i], sizeof st->tmp[i], "%s/.%s.tmp-%ld-%u", dir, out_names[i], (long)getpid(), id);
        if (n < 0 || (size_t)n >= sizeof st->path[i] || m < 0 || (size_t)m >= sizeof st->tmp[i])
            return hum_fail(HUM_ERR_INVALID_ARG, "%s: path too long for %s", dir, out_names[i]);
    }
    return HUM_OK;
}

/* Writes `text` to the staging file of output `i`; the message names the file's real path. */
static hum_status write_text(staged *st, int i, const char *text)
{
    FILE *f = fopen(st->tmp[i], "w");
    if (!f)
        return hum_fail(HUM_ERR_IO, "%s: cannot create (through %s): %s", st->path[i], st->tmp[i], strerror(errno));
    st->written[i] = 1;
    int ok = fputs(text, f) >= 0;
    int err = ok ? 0 : errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    return ok ? HUM_OK
              : hum_fail(HUM_ERR_IO, "%s: cannot write (through %s): %s", st->path[i], st->tmp[i], strerror(err));
}

/* The text of one config file; HUM_ERR_INVALID_ARG when it does not fit (a truncated file would
 * be JSON that no loader reads). */
static hum_status format_config(char *text, size_t cap, const char *name, const char *fmt, ...) HUM_PRINTF(4, 5);
static hum_status format_config(char *text, size_t cap, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, cap, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap)
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "writing %s: its text does not fit %zu bytes (architecture name too long?)", name, cap - 1);
    return HUM_OK;
}

static hum_status write_configs(staged *st, const hum_standard_weight *w0, int any_perm, out_format fmt,
                                const hum_checkpoint_write_options *opts)
{
    const char *arch = opts && opts->architecture ? opts->architecture : "LlamaForCausalLM";
    const char *dtype = w0->param_dtype == HUM_DTYPE_BFLOAT16 ? "bfloat16" : "float16";
    long long gs = w0->scale_type == HUM_SCALE_CHANNEL ? -1 : (long long)w0->group_size;
    char text[2048];
    hum_status s;
    if (fmt == FMT_AWQ) {
        s = format_config(
            text, sizeof text, st->path[OUT_CONFIG],
            "{\n  \"architectures\": [\"%s\"],\n  \"torch_dtype\": \"%s\",\n  \"quantization_config\": {\n"
            "    \"bits\": 4,\n    \"group_size\": %lld,\n    \"modules_to_not_convert\": null,\n"
            "    \"quant_method\": \"awq\",\n    \"version\": \"gemm\",\n    \"zero_point\": true\n  }\n}\n",
            arch, dtype, gs);
        return s == HUM_OK ? write_text(st, OUT_CONFIG, text) : s;
    }
    const char *cf = opts && opts->gptq_v2 ? "gptq_v2" : "gptq";
    const char *sym = w0->has_zero_point ? "false" : "true", *act = any_perm ? "true" : "false";
    int b = bits_of(w0);
    s = format_config(text, sizeof text, st->path[OUT_CONFIG],
                      "{\n  \"architectures\": [\"%s\"],\n  \"torch_dtype\": \"%s\",\n  \"quantization_config\": {\n"
                      "    \"bits\": %d,\n    \"checkpoint_format\": \"%s\",\n    \"damp_percent\": 0.01,\n"
                      "    \"desc_act\": %s,\n    \"group_size\": %lld,\n    \"quant_method\": \"gptq\",\n"
                      "    \"static_groups\": false,\n    \"sym\": %s,\n    \"true_sequential\": true\n  }\n}\n",
                      arch, dtype, b, cf, act, gs, sym);
    if (s == HUM_OK)
        s = write_text(st, OUT_CONFIG, text);
    if (s == HUM_OK)
        s = format_config(text, sizeof text, st->path[OUT_QUANTIZE_CONFIG],
                          "{\"bits\": %d, \"group_size\": %lld, \"damp_percent\": 0.01, \"desc_act\": %s, "
                          "\"static_groups\": false, \"sym\": %s, \"true_sequential\": true, \"model_name_or_path\": "
                          "null, \"model_file_base_name\": \"model\", \"quant_method\": \"gptq\", "
                          "\"checkpoint_format\": \"%s\"}\n",
                          b, gs, act, sym, cf);
    return s == HUM_OK ? write_text(st, OUT_QUANTIZE_CONFIG, text) : s;
}

/* The order the files go into place: the configs first and the weights last, so that a reader
 * that sees model.safetensors sees its config too. */
static const int commit_order[OUT_FILES] = {OUT_CONFIG, OUT_QUANTIZE_CONFIG, OUT_MODEL};

static hum_status exists_error(const staged *st, int i)
{
    return hum_fail(HUM_ERR_IO, "%s exists: not replaced (a checkpoint is written only where none of its files is)",
                    st->path[i]);
}

/* Config files a reader takes from a checkpoint directory beside config.json
 * (lua/hum/formats.lua): one there would make the written checkpoint read as another format, or
 * as self-contradictory. */
static const char *const side_configs[] = {"quantize_config.json", "quant_config.json", "hf_quant_config.json"};

/* Refuses a directory that holds any of the files already, or a config file a reader would
 * take beside them (an entry of any kind at the name), before anything is written. */
static hum_status check_absent(const char *dir, const staged *st)
{
    for (int j = 0; j < OUT_FILES; j++) {
        const int i = commit_order[j];
        struct stat sb;
        if (st->used[i] && lstat(st->path[i], &sb) == 0)
            return exists_error(st, i);
    }
    for (size_t j = 0; j < sizeof side_configs / sizeof side_configs[0]; j++) {
        char path[4096];
        struct stat sb;
        const int n = snprintf(path, sizeof path, "%s/%s", dir, side_configs[j]);
        if (n > 0 && (size_t)n < sizeof path && lstat(path, &sb) == 0)
            return hum_fail(HUM_ERR_IO, "%s exists: a checkpoint written beside it would be read with it (a "
                            "checkpoint is written only where none of its files is)", path);
    }
    return HUM_OK;
}

/* Moves the staged files into place, each only where no entry stands, even one made since
 * check_absent looked. */
static hum_status commit(staged *st)
{
    for (int j = 0; j < OUT_FILES; j++) {
        const int i = commit_order[j];
        if (!st->used[i])
            continue;
        if (hum_io_commit(st->tmp[i], st->path[i], 0) != 0)
            return errno == EEXIST ? exists_error(st, i)
                                   : hum_fail(HUM_ERR_IO, "%s: cannot write (through %s): %s", st->path[i], st->tmp[i],
                                              strerror(errno));
        st->written[i] = 0;
        st->placed[i] = 1;
    }
    return HUM_OK;
}

/* After a failure: removes the staging files and every file this call put in place. */
static void discard(const staged *st)
{
    for (int i = 0; i < OUT_FILES; i++) {
        if (st->written[i])
            unlink(st->tmp[i]);
        if (st->placed[i])
            unlink(st->path[i]);
    }
}

static hum_status write_checkpoint(const char *dir, const char *const *names, const hum_standard_weight *weights,
                                   int32_t count, const hum_checkpoint_write_options *opts, out_format fmt)
{
    if (!dir || !names || !weights || count < 1)
        return hum_fail(HUM_ERR_INVALID_ARG, "writing a checkpoint: NULL argument or no layers");
    /* a model class name, as transformers' configs hold: printed into config.json as it is, so a
     * quote or a newline made JSON no loader reads */
    const char *arch = opts ? opts->architecture : NULL;
    for (const char *c = arch; c && *c; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return hum_fail(HUM_ERR_INVALID_ARG, "writing a checkpoint: architecture \"%s\": expected a model class "
                            "name (letters, digits and _)", hum_printable(arch));
    if (arch && !*arch)
        return hum_fail(HUM_ERR_INVALID_ARG, "writing a checkpoint: architecture \"\": expected a model class name");
    hum_status s = check_all(names, weights, count, fmt);
    if (s != HUM_OK)
        return s;
    out_file f = {0};
    int any_perm = 0;
    for (int32_t i = 0; i < count && s == HUM_OK; i++) {
        s = add_layer(&f, names[i], &weights[i], fmt, opts && opts->gptq_v2);
        any_perm |= weights[i].k_perm.data != NULL;
    }
    staged st = {.used = {1, 1, fmt == FMT_GPTQ}};
    if (s == HUM_OK)
        s = stage_paths(dir, &st);
    int made_dir = 0;
    if (s == HUM_OK) {
        if (mkdir(dir, 0755) == 0)
            made_dir = 1;
        else if (errno != EEXIST)
            s = hum_fail(HUM_ERR_IO, "%s: cannot create directory: %s", dir, strerror(errno));
    }
    if (s == HUM_OK)
        s = check_absent(dir, &st);
    const char *meta[] = {"format", "pt", NULL};
    if (s == HUM_OK) {
        s = hum_safetensors_write(st.tmp[OUT_MODEL], f.t, f.n, meta);
        /* it leaves no file behind when it fails, and its message names only the staging path */
        if (s == HUM_OK)
            st.written[OUT_MODEL] = 1;
        else
            s = hum_fail_context(s, "%s", st.path[OUT_MODEL]);
    }
    if (s == HUM_OK)
        s = write_configs(&st, &weights[0], any_perm, fmt, opts);
    if (s == HUM_OK)
        s = commit(&st);
    if (s != HUM_OK) {
        discard(&st);
        if (made_dir)
            rmdir(dir); /* only empty now, unless someone else wrote into it meanwhile */
    }
    free_file(&f);
    return s;
}

hum_status hum_checkpoint_write_gptq(const char *dir, const char *const *layer_names,
                                     const hum_standard_weight *weights, int32_t count,
                                     const hum_checkpoint_write_options *opts)
{
    return write_checkpoint(dir, layer_names, weights, count, opts, FMT_GPTQ);
}

hum_status hum_checkpoint_write_awq(const char *dir, const char *const *layer_names,
                                    const hum_standard_weight *weights, int32_t count,
                                    const hum_checkpoint_write_options *opts)
{
    return write_checkpoint(dir, layer_names, weights, count, opts, FMT_AWQ);
}
