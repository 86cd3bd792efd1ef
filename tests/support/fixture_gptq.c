/* GPTQ and AWQ fixture checkpoints, laid out as AutoGPTQ / optimum and AutoAWQ write them. */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fx_write_gptq(const char *dir, const char *layer, const fx_gptq *w)
{
    int b = w->bits;
    int64_t n = w->n, k = w->k, gs = w->group_size > 0 ? w->group_size : k, g = (k + gs - 1) / gs;
    int64_t kw = k * b / 32, nw = n * b / 32;
    uint32_t *qweight = calloc((size_t)(kw * n), 4), *qzeros = calloc((size_t)(g * nw), 4),
             *col = calloc((size_t)kw + 1, 4);
    uint8_t *vals = malloc((size_t)(k > n ? k : n));
    /* qweight: for each output column n, the K codes as one stream down dim 0. */
    for (int64_t c = 0; c < n; c++) {
        for (int64_t r = 0; r < k; r++)
            vals[r] = w->q[r * n + c];
        fx_pack_dense(vals, k, b, col);
        for (int64_t r = 0; r < kw; r++)
            qweight[r * n + c] = col[r];
    }
    /* qzeros: per group, the N zero points as one stream along dim 1; v1 stores z - 1. */
    unsigned mask = (1u << b) - 1;
    int word_minus = !w->v2 && w->gptqmodel && b != 3;
    for (int64_t r = 0; r < g; r++) {
        for (int64_t c = 0; c < n; c++)
            vals[c] = (uint8_t)((w->zero[r * n + c] - (w->v2 || word_minus ? 0 : 1)) & mask);
        fx_pack_dense(vals, n, b, qzeros + r * nw);
    }
    if (word_minus) {
        uint32_t ones = b == 2 ? 0x55555555u : b == 4 ? 0x11111111u : 0x01010101u;
        for (int64_t i = 0; i < g * nw; i++)
            qzeros[i] -= ones; /* unsigned: wraps mod 2^32 like torch's int32 */
    }
    fx_file f = {0};
    fx_add_dense(&f);
    fx_add(&f, fx_name(layer, "qweight"), "I32", qweight, 2, kw, n);
    fx_add(&f, fx_name(layer, "qzeros"), "I32", qzeros, 2, g, nw);
    fx_add(&f, fx_name(layer, "scales"), "F16", w->scale, 2, g, n);
    fx_add(&f, fx_name(layer, "g_idx"), "I32", w->g_idx, 1, k);
    if (w->bias)
        fx_add(&f, fx_name(layer, "bias"), "F16", w->bias, 1, n);
    free(qweight);
    free(qzeros);
    free(col);
    free(vals);
    const char *fmt = w->v2 ? "gptq_v2" : "gptq";
    const char *t = w->sym ? "true" : "false", *d = w->desc_act ? "true" : "false";
    const char *meta = w->gptqmodel ? "\"meta\": {\"quantizer\": [\"gptqmodel:4.2.5\"], "
                                      "\"uri\": \"https://github.com/modelcloud/gptqmodel\"}, "
                                    : "";
    int rc = fx_flush(&f, dir, "model.safetensors");
    rc |= fx_write_json(dir, "config.json",
                        "{\n  \"architectures\": [\"LlamaForCausalLM\"],\n  \"model_type\": \"llama\",\n"
                        "  \"torch_dtype\": \"float16\",\n  \"quantization_config\": {\n    %s\"bits\": %d,\n"
                        "    \"checkpoint_format\": \"%s\",\n    \"damp_percent\": 0.01,\n    \"desc_act\": %s,\n"
                        "    \"group_size\": %lld,\n    \"model_file_base_name\": null,\n"
                        "    \"model_name_or_path\": null,\n    \"quant_method\": \"gptq\",\n"
                        "    \"static_groups\": false,\n    \"sym\": %s,\n    \"true_sequential\": true\n  }\n}\n",
                        meta, b, fmt, d, (long long)w->group_size, t);
    rc |= fx_write_json(dir, "quantize_config.json",
                        "{%s\"bits\": %d, \"group_size\": %lld, \"damp_percent\": 0.01, \"desc_act\": %s, "
                        "\"static_groups\": false, \"sym\": %s, \"true_sequential\": true, "
                        "\"model_name_or_path\": null, \"model_file_base_name\": \"model\", "
                        "\"quant_method\": \"gptq\", \"checkpoint_format\": \"%s\"}\n",
                        meta, b, (long long)w->group_size, d, t, fmt);
    return rc;
}

/* AutoAWQ packs logical column 8c + order[i] into nibble i (awq/utils/packing_utils.py). */
static const int awq_order[8] = {0, 2, 4, 6, 1, 3, 5, 7};

static void awq_pack_rows(const uint8_t *vals, int64_t rows, int64_t n, uint32_t *out)
{
    for (int64_t r = 0; r < rows; r++)
        for (int64_t c = 0; c < n / 8; c++) {
            uint32_t word = 0;
            for (int i = 0; i < 8; i++)
                word |= (uint32_t)(vals[r * n + 8 * c + awq_order[i]] & 15) << (4 * i);
            out[r * (n / 8) + c] = word;
        }
}

int fx_write_awq(const char *dir, const char *layer, const fx_awq *w)
{
    int64_t n = w->n, k = w->k, g = w->group_size > 0 ? k / w->group_size : 1;
    uint32_t *qweight = calloc((size_t)(k * n / 8), 4), *qzeros = calloc((size_t)(g * n / 8), 4);
    awq_pack_rows(w->q, k, n, qweight);
    awq_pack_rows(w->zero, g, n, qzeros);
    fx_file f = {0};
    fx_add_dense(&f);
    fx_add(&f, fx_name(layer, "qweight"), "I32", qweight, 2, k, n / 8);
    fx_add(&f, fx_name(layer, "qzeros"), "I32", qzeros, 2, g, n / 8);
    fx_add(&f, fx_name(layer, "scales"), "F16", w->scale, 2, g, n);
    if (w->bias)
        fx_add(&f, fx_name(layer, "bias"), "F16", w->bias, 1, n);
    free(qweight);
    free(qzeros);
    int rc = fx_flush(&f, dir, "model.safetensors");
    rc |= fx_write_json(dir, "config.json",
                        "{\"architectures\": [\"MistralForCausalLM\"], \"model_type\": \"mistral\", "
                        "\"torch_dtype\": \"float16\", \"quantization_config\": {\"bits\": 4, \"group_size\": %lld, "
                        "\"modules_to_not_convert\": null, \"quant_method\": \"awq\", \"version\": \"gemm\", "
                        "\"zero_point\": true}}\n",
                        (long long)w->group_size);
    rc |= fx_write_json(dir, "quant_config.json",
                        "{\"zero_point\": true, \"q_group_size\": %lld, \"w_bit\": 4, \"version\": \"GEMM\", "
                        "\"modules_to_not_convert\": null}\n",
                        (long long)w->group_size);
    return rc;
}
