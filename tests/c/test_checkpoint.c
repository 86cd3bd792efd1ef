/* Checkpoint directories: shards through model.safetensors.index.json, every *.safetensors file
 * without an index, a single file with its directory's config files, and each way a directory
 * can lie (index naming the wrong shard, a tensor in two shards, a shard path outside the
 * directory, bad config JSON) rejected with a message naming the file and the problem. */
#define _GNU_SOURCE
#include "formats_support.h"
#include "hum_ffi.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void shard(const char *dir, const char *file, const char *a, const char *b, int32_t base)
{
    int32_t va[4] = {base, base + 1, base + 2, base + 3};
    uint16_t vb[2] = {0x3c00, 0xbc00};
    hum_safetensors_tensor t[2] = {{.name = a, .dtype = HUM_DTYPE_INT32, .rank = 2, .shape = {2, 2}, .data = va},
                                   {.name = b, .dtype = HUM_DTYPE_FLOAT16, .rank = 1, .shape = {2}, .data = vb}};
    FMT_CHECK(hum_safetensors_write(fmt_path(dir, file), t, 2, NULL) == HUM_OK, "%s", hum_last_error());
}

static const char *index_json =
    "{\"metadata\": {\"total_size\": 48},\n \"weight_map\": {\n"
    "  \"model.layers.0.qweight\": \"model-00001-of-00002.safetensors\",\n"
    "  \"model.layers.0.scales\": \"model-00001-of-00002.safetensors\",\n"
    "  \"model.layers.1.qweight\": \"model-00002-of-00002.safetensors\",\n"
    "  \"model.layers.1.scales\": \"model-00002-of-00002.safetensors\"}}\n";

static void test_sharded(void)
{
    char *dir = fmt_tmpdir("shards");
    shard(dir, "model-00001-of-00002.safetensors", "model.layers.0.qweight", "model.layers.0.scales", 10);
    shard(dir, "model-00002-of-00002.safetensors", "model.layers.1.qweight", "model.layers.1.scales", 20);
    fmt_write_text(fmt_path(dir, "model.safetensors.index.json"), index_json);
    fmt_write_text(fmt_path(dir, "config.json"),
                   "{\"model_type\": \"llama\",\n \"quantization_config\": {\"bits\": 4}}");
    hum_checkpoint *ck = NULL;
    FMT_CHECK(hum_checkpoint_open(dir, &ck) == HUM_OK, "sharded open: %s", hum_last_error());
    if (ck) {
        FMT_CHECK(hum_checkpoint_tensor_count(ck) == 4, "count %lld", (long long)hum_checkpoint_tensor_count(ck));
        hum_safetensors_tensor t;
        FMT_CHECK(hum_checkpoint_find(ck, "model.layers.1.qweight", &t) == HUM_OK &&
                      strstr(t.file, "model-00002-of-00002.safetensors") && ((const int32_t *)t.data)[3] == 23,
                  "tensor from the second shard");
        FMT_CHECK(hum_checkpoint_has(ck, "model.layers.0.scales") && !hum_checkpoint_has(ck, "nope"), "has");
        FMT_EXPECT_ERROR(hum_checkpoint_find(ck, "model.layers.2.qweight", &t), HUM_ERR_FORMAT, "missing",
                         "no tensor \"model.layers.2.qweight\"");
        const char *prev = "";
        for (int64_t i = 0; i < hum_checkpoint_tensor_count(ck); i++) {
            FMT_CHECK(hum_checkpoint_tensor(ck, i, &t) == HUM_OK && strcmp(prev, t.name) < 0, "name order");
            prev = t.name;
        }
        const char *cfg = hum_checkpoint_config(ck, "config.json");
        FMT_CHECK(cfg && strstr(cfg, "quantization_config"), "config.json text");
        FMT_CHECK(hum_checkpoint_config(ck, "hf_quant_config.json") == NULL, "absent config");
        FMT_CHECK(strcmp(hum_checkpoint_path(ck), dir) == 0, "path");
        hum_checkpoint_close(ck);
    }
    /* A single shard opened as a file still sees the directory's config.json. */
    FMT_CHECK(hum_checkpoint_open(fmt_path(dir, "model-00002-of-00002.safetensors"), &ck) == HUM_OK, "file open: %s",
              hum_last_error());
    if (ck) {
        FMT_CHECK(hum_checkpoint_tensor_count(ck) == 2 && hum_checkpoint_config(ck, "config.json"), "single file");
        hum_checkpoint_close(ck);
    }
    /* The index names the wrong shard for a tensor. */
    char *bad = strdup(index_json);
    char *p = strstr(bad, "00002-of-00002.safetensors\",\n  \"model.layers.1.scales");
    memcpy(p, "00001", 5);
    fmt_write_text(fmt_path(dir, "model.safetensors.index.json"), bad);
    FMT_EXPECT_ERROR(hum_checkpoint_open(dir, &ck), HUM_ERR_FORMAT, "wrong shard",
                     "weight_map puts tensor \"model.layers.1.qweight\" in model-00001-of-00002.safetensors");
    free(bad);
    fmt_write_text(fmt_path(dir, "model.safetensors.index.json"),
                   "{\"weight_map\": {\"model.layers.0.qweight\": \"../etc/passwd\"}}");
    FMT_EXPECT_ERROR(hum_checkpoint_open(dir, &ck), HUM_ERR_FORMAT, "path escape", "must be a file name");
    fmt_write_text(fmt_path(dir, "model.safetensors.index.json"),
                   "{\"weight_map\": {\"model.layers.0.qweight\": \"model-00003-of-00003.safetensors\"}}");
    FMT_EXPECT_ERROR(hum_checkpoint_open(dir, &ck), HUM_ERR_IO, "missing shard", "model-00003-of-00003.safetensors");
    /* a NUL escape cut the shard's name short in C ("x.safetensors\u0000y" opened x.safetensors) */
    fmt_write_text(fmt_path(dir, "model.safetensors.index.json"),
                   "{\"weight_map\": {\"model.layers.0.qweight\": \"model-00001-of-00002.safetensors\\u0000y\"}}");
    FMT_EXPECT_ERROR(hum_checkpoint_open(dir, &ck), HUM_ERR_FORMAT, "NUL in a shard name", "a NUL character");
    fmt_write_text(fmt_path(dir, "model.safetensors.index.json"), "{\"weight_map\": 7}");
    FMT_EXPECT_ERROR(hum_checkpoint_open(dir, &ck), HUM_ERR_FORMAT, "bad weight_map", "\"weight_map\" must be");
    /* Without an index every shard is read, and a name in two of them is an error. */
    remove(fmt_path(dir, "model.safetensors.index.json"));
    FMT_CHECK(hum_checkpoint_open(dir, &ck) == HUM_OK, "no index: %s", hum_last_error());
    hum_checkpoint_close(ck);
    shard(dir, "model-extra.safetensors", "model.layers.0.qweight", "model.layers.9.scales", 0);
    FMT_EXPECT_ERROR(hum_checkpoint_open(dir, &ck), HUM_ERR_FORMAT, "duplicate across shards",
                     "tensor \"model.layers.0.qweight\" is in both");
    remove(fmt_path(dir, "model-extra.safetensors"));
    fmt_write_text(fmt_path(dir, "config.json"),
                   "{\"model_type\": \"llama\",\n \"quantization_config\": {\"bits\": }}");
    FMT_EXPECT_ERROR(hum_checkpoint_open(dir, &ck), HUM_ERR_FORMAT, "bad config JSON", "config.json:2: not valid JSON");
    fmt_write_text(fmt_path(dir, "config.json"), "[1, 2]");
    FMT_EXPECT_ERROR(hum_checkpoint_open(dir, &ck), HUM_ERR_FORMAT, "config array", "expected a JSON object");
    /* what opening a checkpoint reads: a directory's every file, new ones too; beside a named
     * .safetensors file only it and the config files */
    char shard1[4200], cfg[4200], fresh[4200], outside[4200];
    snprintf(shard1, sizeof shard1, "%s", fmt_path(dir, "model-00001-of-00002.safetensors"));
    snprintf(cfg, sizeof cfg, "%s", fmt_path(dir, "quantize_config.json"));
    snprintf(fresh, sizeof fresh, "%s", fmt_path(dir, "new.safetensors"));
    snprintf(outside, sizeof outside, "%s/../elsewhere.safetensors", dir);
    FMT_CHECK(hum_checkpoint_reads(dir, shard1) && hum_checkpoint_reads(dir, fresh) && hum_checkpoint_reads(dir, cfg),
              "a directory's files, new ones too");
    FMT_CHECK(!hum_checkpoint_reads(dir, outside) && !hum_checkpoint_reads(dir, "/tmp"), "a file elsewhere");
    FMT_CHECK(hum_checkpoint_reads(shard1, shard1) && hum_checkpoint_reads(shard1, cfg) &&
                  hum_checkpoint_reads(shard1, fmt_path(dir, "hf_quant_config.json")),
              "a named file, and the config files beside it");
    FMT_CHECK(!hum_checkpoint_reads(shard1, fresh) && !hum_checkpoint_reads(shard1, outside),
              "a new file beside a named file is no part of it");
    FMT_CHECK(!hum_checkpoint_reads("/nonexistent/ckpt", fresh) && !hum_checkpoint_reads(NULL, fresh),
              "no checkpoint, nothing read");
    /* a FIFO where a file should be is refused, not opened and waited on for a writer (alarm: a
     * wait fails the test instead of hanging it) */
    alarm(60);
    remove(fmt_path(dir, "config.json"));
    FMT_CHECK(mkfifo(fmt_path(dir, "config.json"), 0644) == 0, "mkfifo config.json");
    FMT_EXPECT_ERROR(hum_checkpoint_open(dir, &ck), HUM_ERR_IO, "config.json a FIFO", "config.json: cannot open",
                     "not a regular file");
    remove(fmt_path(dir, "config.json"));
    FMT_CHECK(mkfifo(fmt_path(dir, "fifo.safetensors"), 0644) == 0, "mkfifo fifo.safetensors");
    hum_safetensors *st = NULL;
    FMT_EXPECT_ERROR(hum_safetensors_open(fmt_path(dir, "fifo.safetensors"), &st), HUM_ERR_IO, "a .safetensors FIFO",
                     "fifo.safetensors: cannot open", "not a regular file");
    FMT_EXPECT_ERROR(hum_safetensors_open(dir, &st), HUM_ERR_IO, "a directory as a .safetensors", "is a directory");
    alarm(0);
    fmt_rmtree(dir);
    free(dir);

    char *empty = fmt_tmpdir("empty");
    FMT_EXPECT_ERROR(hum_checkpoint_open(empty, &ck), HUM_ERR_FORMAT, "empty dir", "no .safetensors files");
    fmt_rmtree(empty);
    free(empty);
    FMT_EXPECT_ERROR(hum_checkpoint_open("/nonexistent/ckpt", &ck), HUM_ERR_IO, "missing dir", "/nonexistent/ckpt");
}

/* The host data moves against naive loops. */
static void test_host_ops(void)
{
    fmt_rng r = {42};
    enum { B = 3, R = 37, C = 45 };
    uint16_t src[B * R * C], dst[B * R * C];
    for (int i = 0; i < B * R * C; i++)
        src[i] = (uint16_t)fmt_rand(&r);
    FMT_CHECK(hum_host_transpose(src, dst, B, R, C, 2) == HUM_OK, "transpose");
    int bad = 0;
    for (int b = 0; b < B; b++)
        for (int i = 0; i < R; i++)
            for (int j = 0; j < C; j++)
                bad += dst[(b * C + j) * R + i] != src[(b * R + i) * C + j];
    FMT_CHECK(bad == 0, "transpose: %d wrong", bad);
    int32_t index[C];
    for (int j = 0; j < C; j++)
        index[j] = (j * 7) % C;
    uint16_t g[R * C];
    FMT_CHECK(hum_host_gather_columns(src, g, R, C, C, index, 2) == HUM_OK, "gather");
    bad = 0;
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            bad += g[i * C + j] != src[i * C + index[j]];
    FMT_CHECK(bad == 0, "gather: %d wrong", bad);
    index[3] = C;
    FMT_EXPECT_ERROR(hum_host_gather_columns(src, g, R, C, C, index, 2), HUM_ERR_INVALID_ARG, "gather bound",
                     "index[3]");
    uint8_t rows[3 * 5], wide[3 * 8];
    for (int i = 0; i < 15; i++)
        rows[i] = (uint8_t)(i + 1);
    memset(wide, 0xee, sizeof wide);
    FMT_CHECK(hum_host_copy_rows(rows, 5, wide, 8, 3) == HUM_OK && wide[8] == 6 && wide[5] == 0 && wide[7] == 0 &&
                  wide[23] == 0 && wide[20] == 15,
              "copy_rows");
    FMT_EXPECT_ERROR(hum_host_copy_rows(rows, 5, wide, 4, 3), HUM_ERR_INVALID_ARG, "copy_rows narrow", "do not fit");
    uint8_t codes[4] = {0xf8, 0x07, 0x00, 0xff};
    FMT_CHECK(hum_host_add_codes(codes, 4, 8, 4) == HUM_OK && codes[0] == 0 && codes[1] == 15 && codes[2] == 8 &&
                  codes[3] == 7,
              "add_codes int4 offset");
    int8_t sv[5] = {-3, 7, 0, -128, 5};
    int64_t mn, mx;
    FMT_CHECK(hum_host_int_range(sv, HUM_DTYPE_INT8, 5, &mn, &mx) == HUM_OK && mn == -128 && mx == 7, "int_range");
    /* act-order: groups of 2, the last one short; channels of a group keep their order. */
    int32_t gi[5] = {1, 0, 2, 1, 0}, perm[5], ident;
    FMT_CHECK(hum_host_group_order(gi, 5, 2, perm, &ident) == HUM_OK && !ident && perm[0] == 1 && perm[1] == 4 &&
                  perm[2] == 0 && perm[3] == 3 && perm[4] == 2,
              "group_order");
    int32_t mono[5] = {0, 0, 1, 1, 2};
    FMT_CHECK(hum_host_group_order(mono, 5, 2, perm, &ident) == HUM_OK && ident, "group_order identity");
    int32_t uneven[5] = {0, 0, 0, 1, 2};
    FMT_EXPECT_ERROR(hum_host_group_order(uneven, 5, 2, perm, &ident), HUM_ERR_FORMAT, "uneven groups",
                     "group 0 3 channels, expected 2");
    int32_t out_of_range[5] = {0, 0, 1, 1, 3};
    FMT_EXPECT_ERROR(hum_host_group_order(out_of_range, 5, 2, perm, &ident), HUM_ERR_FORMAT, "group range",
                     "g_idx[4] = 3");
    hum_tensor t;
    int64_t shape[2] = {3, 5};
    FMT_CHECK(hum_host_tensor_alloc(&t, HUM_DTYPE_UINT4, 2, shape) == HUM_OK && t.rank == 2 && t.shape[1] == 5,
              "alloc");
    hum_host_tensor_free(&t);
    FMT_CHECK(t.data == NULL, "free zeroes");
    shape[1] = -1;
    FMT_EXPECT_ERROR(hum_host_tensor_alloc(&t, HUM_DTYPE_FLOAT32, 2, shape), HUM_ERR_INVALID_ARG, "alloc shape",
                     "shape[1]");
    /* a code the dtype table does not know (its low byte read as 173 bits), and *t zeroed */
    shape[1] = 5;
    memset(&t, 0x5A, sizeof t);
    FMT_EXPECT_ERROR(hum_host_tensor_alloc(&t, (hum_dtype)0xdead, 2, shape), HUM_ERR_INVALID_ARG, "alloc dtype",
                     "invalid dtype 0x0000dead");
    FMT_CHECK(t.data == NULL && t.rank == 0, "a failed alloc zeroes the tensor");
}

int main(void)
{
    test_sharded();
    test_host_ops();
    return fmt_finish("test_checkpoint");
}
