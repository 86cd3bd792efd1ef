/* Per-expert MoE checkpoints ("...experts.<i>.<proj>" modules) load as one layer
 * "...experts.*.<proj>" with every standard tensor stacked along E: each expert's dequantized
 * weight must equal the one loaded alone. Experts quantized differently are refused by name; an
 * incomplete expert set stays a list of separate layers. */
#define _GNU_SOURCE
#include "fixture.h"
#include "formats_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *layer = "model.layers.0.mlp.experts.0.gate_proj";

/* Writes a compressed-tensors NVFP4 (or W4A16 pack-quantized) fixture per expert and merges them
 * into `dir` as experts idx[0..count-1] of one MoE projection. */
static void write_experts(const char *dir, const int *idx, int count, int nvfp4, unsigned seed)
{
    fmt_rng r = {seed};
    int64_t n = 32, k = 64, g = nvfp4 ? k / 16 : k / 32;
    hum_safetensors_tensor all[64];
    char *names[64];
    int total = 0;
    hum_checkpoint *parts[8];
    char *tmp[8];
    for (int e = 0; e < count; e++) {
        int8_t *qi = malloc((size_t)(n * k));
        uint8_t *qc = malloc((size_t)(n * k)), *s8 = malloc((size_t)(n * g));
        uint16_t *s16 = malloc(2 * (size_t)(n * g));
        for (int64_t i = 0; i < n * k; i++) {
            qi[i] = (int8_t)fmt_rand_range(&r, -8, 7);
            qc[i] = (uint8_t)fmt_rand_range(&r, 0, 15);
        }
        for (int64_t i = 0; i < n * g; i++) {
            s8[i] = (uint8_t)fmt_rand_range(&r, 0x20, 0x60);
            s16[i] = fx_bf16_bits((double)fmt_rand_range(&r, 1, 255) / 1024.0);
        }
        fx_ct fx = {.format = nvfp4 ? "nvfp4-pack-quantized" : "pack-quantized", .version = "0.18.0",
                    .type = nvfp4 ? "float" : "int", .strategy = nvfp4 ? "tensor_group" : "group", .bits = 4,
                    .sym = 1, .group_size = nvfp4 ? 16 : 32, .n = n, .k = k, .q_int = qi, .q_codes = qc,
                    .scale = nvfp4 ? (const void *)s8 : (const void *)s16, .scale_dtype = nvfp4 ? "F8_E4M3" : "BF16",
                    .scale_rows = n, .scale_cols = g, .global = 1000.0f + 250.0f * (float)e};
        tmp[e] = fmt_tmpdir("expert");
        fx_write_ct(tmp[e], layer, &fx);
        hum_checkpoint_open(tmp[e], &parts[e]);
        for (int64_t t = 0; t < hum_checkpoint_tensor_count(parts[e]); t++) {
            hum_safetensors_tensor ts;
            hum_checkpoint_tensor(parts[e], t, &ts);
            if (strncmp(ts.name, layer, strlen(layer)) != 0)
                continue;
            char name[256];
            snprintf(name, sizeof name, "model.layers.0.mlp.experts.%d.gate_proj%s", idx[e], ts.name + strlen(layer));
            all[total] = ts;
            all[total].name = names[total] = strdup(name);
            all[total].dtype_name = ts.dtype_name;
            total++;
        }
        if (e == 0) {
            const char *cfg = hum_checkpoint_config(parts[0], "config.json");
            fmt_write_text(fmt_path(dir, "config.json"), cfg);
        }
        free(qi);
        free(qc);
        free(s8);
        free(s16);
    }
    FMT_CHECK(hum_safetensors_write(fmt_path(dir, "model.safetensors"), all, total, NULL) == HUM_OK, "merge: %s",
              hum_last_error());
    for (int i = 0; i < total; i++)
        free(names[i]);
    for (int e = 0; e < count; e++) {
        hum_checkpoint_close(parts[e]);
        fmt_rmtree(tmp[e]);
        free(tmp[e]);
    }
}

static void stacked(int nvfp4)
{
    const char *what = nvfp4 ? "nvfp4 experts" : "w4a16 experts";
    char *dir = fmt_tmpdir("experts");
    int idx[3] = {0, 1, 2};
    write_experts(dir, idx, 3, nvfp4, nvfp4 ? 5 : 6);
    hum_layer_list list;
    hum_status s = fmt_list(dir, &list);
    FMT_CHECK(s == HUM_OK && list.count == 1 && !strcmp(list.items[0].name, "model.layers.0.mlp.experts.*.gate_proj") &&
                  list.items[0].num_experts == 3,
              "%s: listing: %s (%lld entries)", what, hum_last_error(), (long long)list.count);
    hum_layer_list_free(&list);
    hum_standard_weight moe;
    s = fmt_load(dir, "model.layers.0.mlp.experts.*.gate_proj", &moe);
    FMT_CHECK(s == HUM_OK, "%s: load: %s", what, hum_last_error());
    if (s == HUM_OK) {
        FMT_CHECK(moe.num_experts == 3 && moe.weight.rank == 3 && moe.weight.shape[0] == 3 &&
                      (!nvfp4 || (moe.global_scale.rank == 1 && moe.global_scale.shape[0] == 3)),
                  "%s: stacked shapes", what);
        for (int e = 0; e < 3; e++) {
            char name[128];
            snprintf(name, sizeof name, "model.layers.0.mlp.experts.%d.gate_proj", e);
            hum_standard_weight one;
            if (fmt_load(dir, name, &one) != HUM_OK) {
                FMT_CHECK(0, "%s: expert %d alone: %s", what, e, hum_last_error());
                continue;
            }
            double *a = fmt_dequant(&moe, e), *b = fmt_dequant(&one, 0);
            if (a && b)
                fmt_compare(a, b, moe.n * moe.k, 0, what);
            free(a);
            free(b);
            hum_standard_free(&one);
        }
        hum_standard_free(&moe);
    }
    fmt_rmtree(dir);
    free(dir);
}

static void incomplete(void)
{
    char *dir = fmt_tmpdir("experts-gap");
    int idx[2] = {0, 2};
    write_experts(dir, idx, 2, 0, 9);
    hum_layer_list list;
    hum_status s = fmt_list(dir, &list);
    FMT_CHECK(s == HUM_OK && list.count == 2 && list.items[0].num_experts == 0 &&
                  strstr(list.items[1].name, "experts.2.gate_proj"),
              "gap: listing");
    hum_layer_list_free(&list);
    hum_standard_weight w;
    FMT_EXPECT_ERROR(fmt_load(dir, "model.layers.0.mlp.experts.*.gate_proj", &w), HUM_ERR_FORMAT, "gap: load",
                     "no quantized layer");
    fmt_rmtree(dir);
    free(dir);
}

int main(void)
{
    stacked(1);
    stacked(0);
    incomplete();
    fmt_runtime_destroy();
    return fmt_finish("test_format_experts");
}
