/* compressed-tensors fixture checkpoints, laid out as llm-compressor saves them. */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_int(const fx_ct *w) { return strcmp(w->type, "int") == 0; }

/* pack_to_int32 along the last dim: one line per row, dense or 32/b per word by version. */
static uint32_t *pack_rows(const uint8_t *vals, int64_t rows, int64_t len, int bits, int dense, int64_t *words)
{
    *words = dense ? (len * bits + 31) / 32 : (len + 32 / bits - 1) / (32 / bits);
    uint32_t *out = calloc((size_t)(rows * *words + 1), 4);
    for (int64_t r = 0; r < rows; r++)
        (dense ? fx_pack_dense : fx_pack_sparse)(vals + r * len, len, bits, out + r * *words);
    return out;
}

static int version_dense(const char *v)
{
    int major = 0, minor = 0;
    sscanf(v, "%d.%d", &major, &minor);
    return major > 0 || minor >= 18;
}

int fx_write_ct(const char *dir, const char *layer, const fx_ct *w)
{
    int64_t e = w->experts > 0 ? w->experts : 1, n = w->n, k = w->k;
    int64_t g = strcmp(w->strategy, "group") == 0 ? (k + w->group_size - 1) / w->group_size : 1;
    int rank = w->experts > 0 ? 3 : 2;
    fx_file f = {0};
    fx_add_dense(&f);
    int dense = version_dense(w->version);
    int64_t half = 1 << (w->bits - 1);
#define ADD(suffix, dt, data, d1, d2) \
    (rank == 3 ? fx_add(&f, fx_name(layer, suffix), dt, data, 3, e, (int64_t)(d1), (int64_t)(d2)) \
               : fx_add(&f, fx_name(layer, suffix), dt, data, 2, (int64_t)(d1), (int64_t)(d2)))
    if (strcmp(w->format, "pack-quantized") == 0) {
        uint8_t *u = malloc((size_t)(e * n * k));
        for (int64_t i = 0; i < e * n * k; i++)
            u[i] = (uint8_t)(w->q_int[i] + half);
        int64_t words;
        uint32_t *packed = pack_rows(u, e * n, k, w->bits, dense, &words);
        ADD("weight_packed", "I32", packed, n, words);
        int64_t shape[3] = {e, n, k};
        fx_add(&f, fx_name(layer, "weight_shape"), "I64", rank == 3 ? shape : shape + 1, 1, (int64_t)rank);
        free(packed);
        free(u);
        if (!w->sym) {
            /* pack_to_int32(zp, packed_dim=0): per expert, the N zero points of each group column. */
            uint8_t *col = malloc((size_t)n);
            int64_t zw = dense ? (n * w->bits + 31) / 32 : (n + 32 / w->bits - 1) / (32 / w->bits);
            uint32_t *zp = calloc((size_t)(e * zw * g + 1), 4), *line = calloc((size_t)zw + 1, 4);
            for (int64_t x = 0; x < e; x++)
                for (int64_t c = 0; c < g; c++) {
                    for (int64_t r = 0; r < n; r++)
                        col[r] = (uint8_t)(w->zero[(x * n + r) * g + c] + half);
                    (dense ? fx_pack_dense : fx_pack_sparse)(col, n, w->bits, line);
                    for (int64_t r = 0; r < zw; r++)
                        zp[(x * zw + r) * g + c] = line[r];
                }
            ADD("weight_zero_point", "I32", zp, zw, g);
            free(col);
            free(zp);
            free(line);
        }
    } else if (strstr(w->format, "fp4-pack-quantized")) {
        uint8_t *bytes = calloc((size_t)(e * n * k / 2), 1);
        for (int64_t i = 0; i < e * n * k; i++)
            bytes[i / 2] |= (uint8_t)((w->q_codes[i] & 15) << (4 * (i % 2)));
        ADD("weight_packed", "U8", bytes, n, k / 2);
        free(bytes);
        if (strcmp(w->format, "nvfp4-pack-quantized") == 0) {
            float gl[8];
            for (int64_t x = 0; x < e; x++)
                gl[x] = w->global;
            fx_add(&f, fx_name(layer, "weight_global_scale"), "F32", gl, 1, e);
            fx_add(&f, fx_name(layer, "input_global_scale"), "F32", gl, 1, e);
        }
    } else if (is_int(w)) {
        ADD("weight", "I8", w->q_int, n, k);
        if (!w->sym)
            ADD("weight_zero_point", "I8", w->zero, n, g);
        if (w->input_activations) { /* W8A8: what a static scheme reads (a dynamic one ignores it) */
            float one = 0.0625f;
            fx_add(&f, fx_name(layer, "input_scale"), "F32", &one, 1, (int64_t)1);
        }
    } else {
        ADD("weight", "F8_E4M3", w->q_codes, n, k);
        float one = 0.0625f;
        fx_add(&f, fx_name(layer, "input_scale"), "F32", &one, 1, (int64_t)1);
    }
    if (strcmp(w->strategy, "tensor") == 0)
        fx_add(&f, fx_name(layer, "weight_scale"), w->scale_dtype, w->scale, 1, e);
    else
        ADD("weight_scale", w->scale_dtype, w->scale, w->scale_rows, w->scale_cols);
#undef ADD
    if (w->actorder && rank == 3) /* stacked experts: each its own g_idx */
        fx_add(&f, fx_name(layer, "weight_g_idx"), "I32", w->g_idx, 2, e, k);
    else if (w->actorder)
        fx_add(&f, fx_name(layer, "weight_g_idx"), "I32", w->g_idx, 1, k);
    int rc = fx_flush(&f, dir, "model.safetensors");
    char gs[32], block[48];
    snprintf(gs, sizeof gs, "%lld", (long long)w->group_size);
    snprintf(block, sizeof block, "[%lld, %lld]", (long long)w->block_n, (long long)w->block_k);
    rc |= fx_write_json(
        dir, "config.json",
        "{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"torch_dtype\": \"bfloat16\",\n"
        "  \"quantization_config\": {\n    \"config_groups\": {\n      \"group_0\": {\n"
        "        \"format\": \"%s\",\n        \"input_activations\": %s,\n        \"output_activations\": null,\n"
        "        \"targets\": [\"Linear\"],\n        \"weights\": {\n          \"actorder\": %s,\n"
        "          \"block_structure\": %s,\n          \"dynamic\": false,\n          \"group_size\": %s,\n"
        "          \"num_bits\": %d,\n          \"observer\": \"minmax\",\n          \"observer_kwargs\": {},\n"
        "          \"strategy\": \"%s\",\n          \"symmetric\": %s,\n          \"type\": \"%s\"\n        }\n"
        "      }\n    },\n    \"format\": \"%s\",\n    \"global_compression_ratio\": null,\n"
        "    \"ignore\": [\"lm_head\"],\n    \"kv_cache_scheme\": null,\n    \"quant_method\": "
        "\"compressed-tensors\",\n"
        "    \"quantization_status\": \"compressed\",\n    \"sparsity_config\": {},\n    \"transform_config\": {},\n"
        "    \"version\": \"%s\"\n  }\n}\n",
        w->format, w->input_activations ? w->input_activations : "null", w->actorder ? "\"group\"" : "null",
        strcmp(w->strategy, "block") == 0 ? block : "null", w->group_size > 0 ? gs : "null", w->bits, w->strategy,
        w->sym ? "true" : "false", w->type, w->format, w->version);
    return rc;
}
