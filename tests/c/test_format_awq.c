/* AWQ checkpoints (AutoAWQ GEMM layout) -> standard format -> reference dequantizer: every
 * element must equal AWQ's rule (q[k][n] - z[k/gs][n]) * s[k/gs][n] on the raw values. */
#include "fixture.h"
#include "formats_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *layer = "model.layers.1.mlp.gate_proj";

static void run_case(int64_t group_size, int64_t n, int64_t k, int bias, unsigned seed)
{
    char what[96];
    snprintf(what, sizeof what, "awq g%lld N=%lld K=%lld%s", (long long)group_size, (long long)n, (long long)k,
             bias ? " bias" : "");
    fmt_rng r = {seed * 7919u + 3};
    int64_t gs = group_size > 0 ? group_size : k, g = k / gs;
    uint8_t *q = malloc((size_t)(k * n)), *z = malloc((size_t)(g * n));
    uint16_t *s = malloc(2 * (size_t)(g * n)), *b = malloc(2 * (size_t)n);
    for (int64_t i = 0; i < k * n; i++)
        q[i] = (uint8_t)fmt_rand_range(&r, 0, 15);
    for (int64_t i = 0; i < g * n; i++) {
        z[i] = (uint8_t)fmt_rand_range(&r, 0, 15);
        s[i] = fx_f16_bits((double)fmt_rand_range(&r, 1, 2047) / 32768.0);
    }
    for (int64_t i = 0; i < n; i++)
        b[i] = fx_f16_bits((double)fmt_rand_range(&r, -100, 100) / 8.0);
    char *dir = fmt_tmpdir("awq");
    fx_awq fx = {.group_size = group_size, .n = n, .k = k, .q = q, .zero = z, .scale = s, .bias = bias ? b : NULL};
    FMT_CHECK(fx_write_awq(dir, layer, &fx) == 0, "%s: fixture", what);
    hum_standard_weight w;
    hum_status st = fmt_load(dir, layer, &w);
    FMT_CHECK(st == HUM_OK, "%s: load: %s", what, hum_last_error());
    if (st == HUM_OK) {
        FMT_CHECK(w.has_zero_point && !w.zero_point_is_float && w.k_perm.data == NULL, "%s: zero point / k_perm", what);
        FMT_CHECK(w.scale_type == (group_size > 0 ? HUM_SCALE_GROUP : HUM_SCALE_CHANNEL), "%s: scale type", what);
        double *got = fmt_dequant(&w, 0), *want = malloc(sizeof *want * (size_t)(n * k));
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < k; j++) {
                int64_t grp = j / gs;
                want[i * k + j] = ((double)q[j * n + i] - (double)z[grp * n + i]) * fx_f16_value(s[grp * n + i]);
            }
        if (got)
            fmt_compare(got, want, n * k, 0, what);
        FMT_CHECK(!bias || memcmp(w.bias.data, b, 2 * (size_t)n) == 0, "%s: bias", what);
        free(got);
        free(want);
        hum_standard_free(&w);
    }
    hum_layer_list list;
    st = fmt_list(dir, &list);
    FMT_CHECK(st == HUM_OK && list.count == 1 && strcmp(list.items[0].format, "awq") == 0 && list.items[0].bits == 4 &&
                  list.items[0].n == n && list.items[0].k == k && !list.items[0].symmetric,
              "%s: listing: %s", what, hum_last_error());
    hum_layer_list_free(&list);
    /* Other AWQ layouts are refused by name, not misread. */
    fx_write_json(dir, "config.json",
                  "{\"quantization_config\": {\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": %lld, "
                  "\"zero_point\": true, \"version\": \"gemv_fast\"}}",
                  (long long)group_size);
    remove(fmt_path(dir, "quant_config.json"));
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &w), HUM_ERR_UNSUPPORTED, "gemv_fast", "AWQ version \"gemv_fast\"");
    /* a version that is no name is refused as such, not read as GEMM */
    fx_write_json(dir, "config.json",
                  "{\"quantization_config\": {\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": %lld, "
                  "\"zero_point\": true, \"version\": 2}}",
                  (long long)group_size);
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &w), HUM_ERR_UNSUPPORTED, "numeric version", "AWQ version 2 is not converted");
    /* a string where a boolean belongs is refused, not read as Lua's true */
    fx_write_json(dir, "config.json",
                  "{\"quantization_config\": {\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": %lld, "
                  "\"zero_point\": \"false\"}}",
                  (long long)group_size);
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &w), HUM_ERR_FORMAT, "string zero_point",
                     "AWQ quantization_config.zero_point is \"false\" (a string), expected true or false");
    fmt_rmtree(dir);
    free(dir);
    free(q);
    free(z);
    free(s);
    free(b);
}

/* A checkpoint whose shapes give no output features is the checkpoint's fault, named as such
 * (the standard weight's own check blamed hum's converter, HUM_ERR_INTERNAL). */
static void empty_weight(void)
{
    uint8_t none[1] = {0};
    uint16_t none16[1] = {0};
    char *dir = fmt_tmpdir("awq-empty");
    fx_awq fx = {.group_size = 64, .n = 0, .k = 128, .q = none, .zero = none, .scale = none16};
    FMT_CHECK(fx_write_awq(dir, layer, &fx) == 0, "empty AWQ fixture");
    hum_standard_weight w;
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &w), HUM_ERR_FORMAT, "N = 0", "an empty weight: N = 0, K = 128");
    fmt_rmtree(dir);
    free(dir);
}

int main(void)
{
    empty_weight();
    run_case(128, 64, 256, 1, 1);
    run_case(32, 40, 96, 0, 2);
    run_case(64, 8, 128, 1, 3);
    run_case(-1, 16, 64, 0, 4);
    fmt_runtime_destroy();
    return fmt_finish("test_format_awq");
}
