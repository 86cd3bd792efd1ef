/* hum_quantize_reference passes on a failure of hum_pack_bits (codes or int zero points) and
 * leaves its output zeroed, as hum.h promises. No valid input makes hum_pack_bits fail, so this
 * test is linked with -Wl,--wrap=hum_pack_bits (tests/CMakeLists.txt): the calls inside libhum
 * come here, and the call numbered `fail_at` is turned into a real failure of hum_pack_bits
 * (bit width 0, refused by its own check). */
#include "quant_test.h"

#include "hum/hum_tools.h"

#include <string.h>

hum_status __real_hum_pack_bits(const uint8_t *values, const int64_t shape[3], int32_t bits, hum_pack_dim dim,
                                hum_pack_layout layout, int32_t *words);
hum_status __wrap_hum_pack_bits(const uint8_t *values, const int64_t shape[3], int32_t bits, hum_pack_dim dim,
                                hum_pack_layout layout, int32_t *words);

static int calls, fail_at = -1;
static int zero_point_calls; /* calls packing along rows: the int zero points */

hum_status __wrap_hum_pack_bits(const uint8_t *values, const int64_t shape[3], int32_t bits, hum_pack_dim dim,
                                hum_pack_layout layout, int32_t *words)
{
    zero_point_calls += dim == HUM_PACK_ALONG_ROWS;
    if (calls++ == fail_at)
        bits = 0;
    return __real_hum_pack_bits(values, shape, bits, dim, layout, words);
}

static int all_zero(const hum_standard_weight *q)
{
    static const hum_standard_weight zero;
    return memcmp(q, &zero, sizeof zero) == 0;
}

/* Quantizes with call `at` failing; returns the number of hum_pack_bits calls made. */
static int run(const float *w, int64_t n, int64_t k, const hum_quant_spec *spec, int at, const char *what,
               const char *needle)
{
    calls = 0;
    zero_point_calls = 0;
    fail_at = at;
    hum_standard_weight q;
    memset(&q, 0x5a, sizeof q);
    hum_status st = hum_quantize_reference(w, n, k, spec, &q);
    if (at < 0) {
        QUANT_CHECK(st == HUM_OK, "%s: %s", what, hum_last_error());
        hum_standard_free(&q);
        return calls;
    }
    QUANT_CHECK(st == HUM_ERR_INVALID_ARG, "%s: a failed hum_pack_bits gave %s", what, hum_status_name(st));
    QUANT_CHECK(all_zero(&q), "%s: the output is not zeroed after the failure", what);
    QUANT_CHECK(strstr(hum_last_error(), "hum_pack_bits: bit width 0") && strstr(hum_last_error(), needle),
                "%s: the message should say what was packed and why it failed: %s", what, hum_last_error());
    hum_standard_free(&q);
    return calls;
}

int main(void)
{
    enum { E = 2, N = 4, K = 32 };
    float w[E * N * K];
    for (int i = 0; i < E * N * K; i++)
        w[i] = (float)((i * 37) % 17) / 8.0f - 1.0f;

    /* Symmetric: one call per row. Fail the first, one in the middle and the last. */
    hum_quant_spec sym = {.weight_dtype = HUM_DTYPE_UINT4, .param_dtype = HUM_DTYPE_FLOAT16,
                          .scale_type = HUM_SCALE_GROUP, .group_size = 16};
    int total = run(w, N, K, &sym, -1, "sym", "");
    QUANT_CHECK(total == N, "sym: %d pack calls, expected one per row (%d)", total, N);
    run(w, N, K, &sym, 0, "sym, row 0", "row 0");
    run(w, N, K, &sym, N - 1, "sym, last row", "row 3");

    /* Int zero points, two experts: per expert N row calls, then one for the zero points. */
    hum_quant_spec zp = {.num_experts = E, .weight_dtype = HUM_DTYPE_UINT4, .param_dtype = HUM_DTYPE_FLOAT16,
                         .scale_type = HUM_SCALE_GROUP, .group_size = 16, .zero_point = HUM_ZERO_POINT_INT};
    total = run(w, N, K, &zp, -1, "zp", "");
    QUANT_CHECK(total == E * (N + 1) && zero_point_calls == E,
                "zp: %d pack calls (%d of zero points), expected %d (%d)", total, zero_point_calls, E * (N + 1), E);
    run(w, N, K, &zp, N, "zp, zero points of expert 0", "zero points (expert 0)");
    int made = run(w, N, K, &zp, N + 1, "zp, row 0 of expert 1", "row 0 (expert 1)");
    QUANT_CHECK(made == N + 2, "zp: quantizing went on after the failure (%d calls)", made);
    run(w, N, K, &zp, 2 * N + 1, "zp, zero points of expert 1", "zero points (expert 1)");
    return quant_test_result("test_quantize_pack_fail");
}
