/* BitNet b1.58 checkpoints (transformers layout: 4 ternary values per byte, planar along N) ->
 * standard format -> reference dequantizer: every element must equal t * weight_scale
 * (AutoBitLinear) or t / weight_scale (BitLinear) for the raw ternary values t. */
#include "fixture.h"
#include "formats_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run_case(const char *linear_class, int64_t n, int64_t k, unsigned seed)
{
    const char *layer = "model.layers.0.mlp.down_proj";
    fmt_rng r = {seed};
    int8_t *t = malloc((size_t)(n * k));
    for (int64_t i = 0; i < n * k; i++)
        t[i] = (int8_t)fmt_rand_range(&r, -1, 1);
    double scale = 1.3515625; /* a bfloat16 value */
    char *dir = fmt_tmpdir("bitnet");
    fx_bitnet fx = {.n = n, .k = k, .t = t, .scale = fx_bf16_bits(scale), .linear_class = linear_class};
    FMT_CHECK(fx_write_bitnet(dir, layer, &fx) == 0, "bitnet fixture");
    char what[80];
    snprintf(what, sizeof what, "bitnet %s N=%lld K=%lld", linear_class, (long long)n, (long long)k);
    int divide = !strcmp(linear_class, "bitlinear");
    double *want = malloc(sizeof(double) * (size_t)(n * k));
    for (int64_t i = 0; i < n * k; i++)
        want[i] = divide ? t[i] / scale : t[i] * scale;
    hum_standard_weight w;
    hum_status s = fmt_load(dir, layer, &w);
    FMT_CHECK(s == HUM_OK, "%s: load: %s", what, hum_last_error());
    if (s == HUM_OK) {
        FMT_CHECK(w.n == n && w.k == k && w.weight_dtype == HUM_DTYPE_UINT2 && w.scale_type == HUM_SCALE_TENSOR,
                  "%s: standard fields", what);
        double *got = fmt_dequant(&w, 0);
        /* BitLinear: 1 / weight_scale is rounded to float32 once. */
        if (got)
            fmt_compare(got, want, n * k, divide ? 6e-8 : 0, what);
        free(got);
        hum_standard_free(&w);
    }
    hum_layer_list list;
    s = fmt_list(dir, &list);
    FMT_CHECK(s == HUM_OK && list.count == 1 && list.items[0].n == n && list.items[0].bits == 2 &&
                  !strcmp(list.items[0].format, "bitnet"),
              "%s: listing", what);
    hum_layer_list_free(&list);
    /* A field of 3 is not a ternary value. */
    uint8_t bad = 0xff;
    hum_safetensors_tensor tt = {.name = "model.layers.0.mlp.down_proj.weight", .dtype = HUM_DTYPE_UINT8, .rank = 2,
                                 .shape = {1, 1}, .data = &bad};
    uint16_t sc = fx_bf16_bits(scale);
    hum_safetensors_tensor ts = {.name = "model.layers.0.mlp.down_proj.weight_scale", .dtype = HUM_DTYPE_BFLOAT16,
                                 .rank = 1, .shape = {1}, .data = &sc};
    hum_safetensors_tensor both[2] = {tt, ts};
    hum_safetensors_write(fmt_path(dir, "model.safetensors"), both, 2, NULL);
    FMT_EXPECT_ERROR(fmt_load(dir, layer, &w), HUM_ERR_FORMAT, "bitnet field 3", "outside [0, 2]");
    fmt_rmtree(dir);
    free(dir);
    free(t);
    free(want);
}

int main(void)
{
    run_case("autobitlinear", 64, 96, 1);
    run_case("bitlinear", 32, 40, 2);
    run_case("autobitlinear", 4, 7, 3); /* one byte row per plane, odd K */
    fmt_runtime_destroy();
    return fmt_finish("test_format_bitnet");
}
