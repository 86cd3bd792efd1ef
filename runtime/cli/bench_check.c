/* Output checks against the float64 reference (see bench_check.h). */
#define _POSIX_C_SOURCE 200809L

#include "bench_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

bench_rng bench_rng_seeded(uint64_t seed)
{
    bench_rng r = {seed};
    return r;
}

bench_rng bench_rng_fresh(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return bench_rng_seeded(((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^ ((uint64_t)getpid() << 32));
}

/* splitmix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators"). */
uint64_t bench_rng_next(bench_rng *r)
{
    uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1]: never 0, so the logarithm below is finite. */
static double uniform(bench_rng *r)
{
    return ((double)(bench_rng_next(r) >> 11) + 1.0) * 0x1.0p-53;
}

void bench_random_normal(bench_rng *r, float *out, int64_t count)
{
    /* Box-Muller: two normals from two uniforms. */
    for (int64_t i = 0; i < count; i += 2) {
        double radius = sqrt(-2.0 * log(uniform(r))), angle = 2.0 * 3.14159265358979323846 * uniform(r);
        out[i] = (float)(radius * cos(angle));
        if (i + 1 < count)
            out[i + 1] = (float)(radius * sin(angle));
    }
}

hum_status bench_random_activations(bench_rng *r, hum_dtype dtype, int64_t count, uint16_t *codes)
{
    if (dtype != HUM_DTYPE_FLOAT16 && dtype != HUM_DTYPE_BFLOAT16)
        return hum_fail(HUM_ERR_INVALID_ARG, "activations of %s (expected float16 or bfloat16)", hum_dtype_name(dtype));
    enum { CHUNK = 4096 };
    float values[CHUNK];
    for (int64_t done = 0; done < count; done += CHUNK) {
        int64_t len = count - done < CHUNK ? count - done : CHUNK;
        bench_random_normal(r, values, len);
        hum_status st = hum_dtype_from_float(dtype, values, len, codes + done);
        if (st != HUM_OK)
            return st;
    }
    return HUM_OK;
}

int64_t bench_check_rows(int64_t m, int64_t n, int64_t k, int64_t *rows, int64_t cap)
{
    double per_row = (double)n * (double)k;
    int64_t count = m;
    if ((double)m * per_row > BENCH_CHECK_MAC_BUDGET)
        count = (int64_t)(BENCH_CHECK_MAC_BUDGET / per_row);
    if (count < 2)
        count = m < 2 ? m : 2;
    if (count > cap)
        count = cap;
    for (int64_t i = 0; i < count; i++)
        rows[i] = count == 1 ? 0 : (int64_t)((double)i * (double)(m - 1) / (double)(count - 1) + 0.5);
    return count;
}

double bench_check_tolerance(hum_dtype dtype)
{
    return dtype == HUM_DTYPE_BFLOAT16 ? 2e-2 : 1e-2;
}

hum_status bench_check_verdict(int64_t m, double err, double tol, int64_t bad, const char *of, int64_t checked,
                               const char *unit)
{
    if (bad != 0 || !(err <= tol))
        return hum_fail(HUM_ERR_INTERNAL, "the layer's output at M = %lld is wrong: relative error %.3e against the "
                        "float64 reference%s (tolerance %.0e), %lld elements unwritten or not finite", (long long)m,
                        err, of, tol, (long long)bad);
    printf("check: M = %lld, relative error %.2e against the float64 reference%s (%lld %s)\n", (long long)m, err, of,
           (long long)checked, unit);
    return HUM_OK;
}

hum_status bench_check_reference(const hum_standard_weight *w, hum_dtype dtype, const uint16_t *a,
                                 const int64_t *rows, int64_t row_count, double *ref)
{
    const int64_t k = w->k;
    double *a_rows = calloc((size_t)(row_count * k + 1), sizeof *a_rows);
    if (a_rows == NULL)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "the reference of %lld rows of K = %lld", (long long)row_count,
                        (long long)k);
    hum_status st = HUM_OK;
    for (int64_t r = 0; st == HUM_OK && r < row_count; r++)
        st = hum_dtype_decode(dtype, a + rows[r] * k, k, a_rows + r * k);
    if (st == HUM_OK)
        st = hum_reference_gemm(w, 0, a_rows, row_count, ref);
    free(a_rows);
    return st;
}

hum_status bench_check_against(hum_dtype dtype, int64_t n, const uint16_t *out, int64_t m, const int64_t *rows,
                               int64_t row_count, const double *ref, double *rel_error, int64_t *bad)
{
    *rel_error = INFINITY;
    int64_t non_finite = 0;
    double *got = malloc((size_t)(n + 1) * sizeof *got);
    hum_status st = got ? HUM_OK : hum_fail(HUM_ERR_OUT_OF_MEMORY, "a row of N = %lld", (long long)n);
    /* Unwritten or non-finite outputs anywhere in the M x N result. */
    for (int64_t i = 0; st == HUM_OK && i < m; i++) {
        st = hum_dtype_decode(dtype, out + i * n, n, got);
        for (int64_t j = 0; st == HUM_OK && j < n; j++)
            non_finite += !isfinite(got[j]);
    }
    double diff2 = 0.0, ref2 = 0.0;
    for (int64_t r = 0; st == HUM_OK && r < row_count; r++) {
        st = hum_dtype_decode(dtype, out + rows[r] * n, n, got);
        for (int64_t j = 0; st == HUM_OK && j < n; j++) {
            double d = got[j] - ref[r * n + j];
            diff2 += d * d;
            ref2 += ref[r * n + j] * ref[r * n + j];
        }
    }
    if (st == HUM_OK && non_finite == 0)
        *rel_error = ref2 > 0.0 ? sqrt(diff2 / ref2) : sqrt(diff2);
    if (bad)
        *bad = non_finite;
    free(got);
    return st;
}

hum_status bench_check_output(const hum_standard_weight *w, hum_dtype dtype, const uint16_t *a, const uint16_t *out,
                              int64_t m, const int64_t *rows, int64_t row_count, double *rel_error, int64_t *bad)
{
    *rel_error = INFINITY;
    if (bad)
        *bad = 0;
    double *ref = malloc((size_t)(row_count * w->n + 1) * sizeof *ref);
    hum_status st = ref ? bench_check_reference(w, dtype, a, rows, row_count, ref)
                        : hum_fail(HUM_ERR_OUT_OF_MEMORY, "the check of %lld rows of N = %lld, K = %lld",
                                   (long long)row_count, (long long)w->n, (long long)w->k);
    if (st == HUM_OK)
        st = bench_check_against(dtype, w->n, out, m, rows, row_count, ref, rel_error, bad);
    free(ref);
    return st;
}

int bench_check_quantizes(const hum_layer_config *c, hum_act_quant *how)
{
    if (c->a_round == HUM_A_ROUND_MXFP8) {
        *how = (hum_act_quant){HUM_DTYPE_FLOAT8_E4M3FN, HUM_ACT_SCALE_GROUP, 32, HUM_DTYPE_FLOAT8_E8M0};
        return 1;
    }
    if (hum_dtype_is_activation(c->a_dtype))
        return 0;
    const int group = c->a_scale == HUM_ACT_SCALE_GROUP;
    *how = (hum_act_quant){c->a_dtype, (hum_act_scale)c->a_scale, group ? (int32_t)c->a_group : 0,
                           group && c->a_group == 32 ? HUM_DTYPE_FLOAT8_E8M0 : HUM_DTYPE_FLOAT32};
    return 1;
}

double bench_check_tolerance_quantized(hum_dtype c_dtype)
{
    return c_dtype == HUM_DTYPE_BFLOAT16 ? 4e-3 : 1e-3;
}

double bench_check_tolerance_made(const hum_layer_config *c)
{
    return c->a_round != HUM_A_ROUND_NONE ? bench_check_tolerance(c->c_dtype) : bench_check_tolerance_quantized(c->c_dtype);
}

/* One row of A as the layer's GEMM sees it: codes times scales (float64, exact). */
static hum_status dequantized_row(const hum_standard_weight *w, const hum_act_quant *how, hum_dtype dtype,
                                  const uint16_t *a, int64_t k, uint8_t *codes, float *scales, double *out)
{
    const int64_t groups = how->scale == HUM_ACT_SCALE_GROUP ? (k + how->group - 1) / how->group : 1;
    const float input_scale = how->scale == HUM_ACT_SCALE_TENSOR ? *(const float *)w->input_scale.data : 0.0f;
    hum_tensor ta = {.data = (void *)a, .dtype = dtype, .rank = 2, .shape = {1, k}, .memory = HUM_MEMORY_HOST};
    hum_tensor tq = {.data = codes, .dtype = how->dtype, .rank = 2, .shape = {1, k}, .memory = HUM_MEMORY_HOST};
    hum_tensor ts = {.data = scales, .dtype = how->scale_dtype, .rank = 2, .shape = {1, groups},
                     .memory = HUM_MEMORY_HOST};
    hum_status st =
        hum_quantize_activations(&ta, how, input_scale, &tq, how->scale == HUM_ACT_SCALE_TENSOR ? NULL : &ts);
    if (st == HUM_OK)
        st = hum_dtype_decode(how->dtype, codes, k, out);
    for (int64_t j = 0; st == HUM_OK && j < k; j++) {
        if (how->scale == HUM_ACT_SCALE_TENSOR)
            out[j] *= (double)input_scale;
        else if (how->scale_dtype == HUM_DTYPE_FLOAT8_E8M0)
            out[j] *= ldexp(1.0, (int)((const uint8_t *)scales)[j / how->group] - 127);
        else
            out[j] *= (double)scales[how->scale == HUM_ACT_SCALE_GROUP ? j / how->group : 0];
    }
    return st;
}

hum_status bench_check_reference_as(const hum_standard_weight *w, const hum_act_quant *how, hum_dtype dtype,
                                    const uint16_t *a, const int64_t *rows, int64_t row_count, double *ref)
{
    if (how == NULL)
        return bench_check_reference(w, dtype, a, rows, row_count, ref);
    const int64_t k = w->k;
    double *a_rows = calloc((size_t)(row_count * k + 1), sizeof *a_rows);
    uint8_t *codes = malloc((size_t)k);
    float *scales = malloc((size_t)k * sizeof *scales);
    hum_status st = a_rows && codes && scales
                        ? HUM_OK
                        : hum_fail(HUM_ERR_OUT_OF_MEMORY, "the reference of %lld rows of K = %lld",
                                   (long long)row_count, (long long)k);
    for (int64_t r = 0; st == HUM_OK && r < row_count; r++)
        st = dequantized_row(w, how, dtype, a + rows[r] * k, k, codes, scales, a_rows + r * k);
    if (st == HUM_OK)
        st = hum_reference_gemm(w, 0, a_rows, row_count, ref);
    free(a_rows);
    free(codes);
    free(scales);
    return st;
}
