/* Fixture checkpoints for ModelOpt, DeepSeek-style FP8 blocks, gpt-oss MXFP4 and BitNet. */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two e2m1 codes per byte, the even index in the low nibble. */
static uint8_t *pack_fp4(const uint8_t *codes, int64_t count)
{
    uint8_t *b = calloc((size_t)(count / 2 + 1), 1);
    for (int64_t i = 0; i < count; i++)
        b[i / 2] |= (uint8_t)((codes[i] & 15) << (4 * (i % 2)));
    return b;
}

int fx_write_modelopt(const char *dir, const char *layer, const fx_modelopt *w)
{
    int64_t n = w->n, k = w->k;
    fx_file f = {0};
    fx_add_dense(&f);
    float input_scale = 0.015625f;
    if (strcmp(w->algo, "NVFP4") == 0) {
        uint8_t *b = pack_fp4(w->codes, n * k);
        fx_add(&f, fx_name(layer, "weight"), "U8", b, 2, n, k / 2);
        free(b);
        fx_add(&f, fx_name(layer, "weight_scale"), "F8_E4M3", w->scale, 2, n, k / w->group_size);
        fx_add(&f, fx_name(layer, "weight_scale_2"), "F32", &w->scale_2, 0);
    } else {
        fx_add(&f, fx_name(layer, "weight"), "F8_E4M3", w->codes, 2, n, k);
        if (strcmp(w->algo, "FP8") == 0)
            fx_add(&f, fx_name(layer, "weight_scale"), "F32", w->scale, 0);
        else if (strcmp(w->algo, "MXFP8") == 0)
            fx_add(&f, fx_name(layer, "weight_scale"), "U8", w->scale, 2, n, k / 32);
        else
            fx_add(&f, fx_name(layer, "weight_scale"), "F32", w->scale, 1, n);
    }
    fx_add(&f, fx_name(layer, "input_scale"), "F32", &input_scale, 0);
    int rc = fx_flush(&f, dir, "model.safetensors");
    rc |= fx_write_json(
        dir, "hf_quant_config.json",
        "{\n    \"producer\": {\n        \"name\": \"modelopt\",\n        \"version\": \"0.29.0\"\n    },\n"
        "    \"quantization\": {\n        \"quant_algo\": \"%s\",\n        \"kv_cache_quant_algo\": null,\n"
        "        \"group_size\": %lld,\n        \"exclude_modules\": [\n            \"lm_head\"\n        ]\n"
        "    }\n}\n",
        w->algo, (long long)w->group_size);
    rc |= fx_write_json(dir, "config.json",
                        "{\"architectures\": [\"LlamaForCausalLM\"], \"torch_dtype\": \"bfloat16\", "
                        "\"quantization_config\": {\"quant_method\": \"modelopt\", \"quant_algo\": \"%s\", "
                        "\"ignore\": [\"lm_head\"], \"kv_cache_scheme\": null, "
                        "\"producer\": {\"name\": \"modelopt\", \"version\": \"0.29.0\"}}}\n",
                        w->algo);
    return rc;
}

int fx_write_fp8_block(const char *dir, const char *layer, const fx_fp8_block *w)
{
    int64_t rows = (w->n + w->block_n - 1) / w->block_n, cols = (w->k + w->block_k - 1) / w->block_k;
    fx_file f = {0};
    fx_add_dense(&f);
    fx_add(&f, fx_name(layer, "weight"), "F8_E4M3", w->codes, 2, w->n, w->k);
    fx_add(&f, fx_name(layer, "weight_scale_inv"), w->scale_dtype, w->scale, 2, rows, cols);
    int rc = fx_flush(&f, dir, "model.safetensors");
    rc |= fx_write_json(dir, "config.json",
                        "{\"architectures\": [\"DeepseekV3ForCausalLM\"], \"torch_dtype\": \"bfloat16\", "
                        "\"quantization_config\": {\"activation_scheme\": \"dynamic\", \"fmt\": \"e4m3\", "
                        "\"quant_method\": \"fp8\", \"weight_block_size\": [%lld, %lld]}}\n",
                        (long long)w->block_n, (long long)w->block_k);
    return rc;
}

int fx_write_gptoss(const char *dir, const char *proj, const fx_gptoss *w)
{
    int64_t e = w->experts, n = w->n, k = w->k;
    uint8_t *b = pack_fp4(w->codes, e * n * k);
    char name[512];
    fx_file f = {0};
    fx_add_dense(&f);
    snprintf(name, sizeof name, "%s_blocks", proj);
    fx_add(&f, name, "U8", b, 4, e, n, k / 32, (int64_t)16);
    snprintf(name, sizeof name, "%s_scales", proj);
    fx_add(&f, name, "U8", w->scales, 3, e, n, k / 32);
    snprintf(name, sizeof name, "%s_bias", proj);
    fx_add(&f, name, "BF16", w->bias, 2, e, n);
    free(b);
    int rc = fx_flush(&f, dir, "model.safetensors");
    rc |= fx_write_json(dir, "config.json",
                        "{\"architectures\": [\"GptOssForCausalLM\"], \"num_local_experts\": %lld, "
                        "\"quantization_config\": {\"modules_to_not_convert\": [\"model.layers.*.self_attn\", "
                        "\"model.layers.*.mlp.router\", \"model.embed_tokens\", \"lm_head\"], "
                        "\"quant_method\": \"mxfp4\"}}\n",
                        (long long)e);
    return rc;
}

int fx_write_bitnet(const char *dir, const char *layer, const fx_bitnet *w)
{
    int64_t r = w->n / 4, k = w->k;
    uint8_t *b = calloc((size_t)(r * k), 1);
    for (int64_t n = 0; n < w->n; n++)
        for (int64_t j = 0; j < k; j++)
            b[(n % r) * k + j] |= (uint8_t)((w->t[n * k + j] + 1) << (2 * (n / r)));
    fx_file f = {0};
    fx_add_dense(&f);
    fx_add(&f, fx_name(layer, "weight"), "U8", b, 2, r, k);
    fx_add(&f, fx_name(layer, "weight_scale"), "BF16", &w->scale, 1, (int64_t)1);
    free(b);
    int rc = fx_flush(&f, dir, "model.safetensors");
    rc |= fx_write_json(dir, "config.json",
                        "{\"architectures\": [\"BitNetForCausalLM\"], \"torch_dtype\": \"bfloat16\", "
                        "\"quantization_config\": {\"linear_class\": \"%s\", \"modules_to_not_convert\": null, "
                        "\"quant_method\": \"bitnet\", \"quantization_mode\": \"offline\", \"use_rms_norm\": false}}\n",
                        w->linear_class);
    return rc;
}
