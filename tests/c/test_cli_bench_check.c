/* The CPU half of `hum run --check` and `hum demo`: random activations are standard normal and
 * exactly representable; the relative error of an output equal to the float64 reference
 * rounded to 16 bits is at the rounding level, a perturbed output moves it by the amount an
 * independent computation here predicts, and a poisoned (unwritten) element anywhere in the
 * output fails the check even outside the rows compared; the row sampler stays within budget
 * and keeps the first and last row; the verdict fails above the tolerance, on NaN and on
 * any bad element. */
#include "bench_check.h"
#include "rt_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_activations(hum_dtype dtype)
{
    enum { COUNT = 1 << 16 };
    uint16_t *codes = malloc(COUNT * sizeof *codes);
    double *v = malloc(COUNT * sizeof *v);
    bench_rng r = bench_rng_fresh();
    RT_CHECK(bench_random_activations(&r, dtype, COUNT, codes) == HUM_OK, "%s", hum_last_error());
    RT_CHECK(hum_dtype_decode(dtype, codes, COUNT, v) == HUM_OK, "%s", hum_last_error());
    double sum = 0, sum2 = 0;
    int finite = 1;
    for (int i = 0; i < COUNT; i++) {
        finite &= isfinite(v[i]) != 0;
        sum += v[i];
        sum2 += v[i] * v[i];
    }
    double mean = sum / COUNT, var = sum2 / COUNT - mean * mean;
    /* 4 standard errors of the mean (1/256) and of the variance (sqrt(2/65536) ~ 0.0055). */
    RT_CHECK(finite, "%s activations are finite", hum_dtype_name(dtype));
    RT_CHECK(fabs(mean) < 4.0 / 256 && fabs(var - 1.0) < 0.03, "%s: mean %g, variance %g", hum_dtype_name(dtype), mean,
             var);
    RT_EXPECT_ERROR(bench_random_activations(&r, HUM_DTYPE_FLOAT32, 4, codes), HUM_ERR_INVALID_ARG, "float32",
                    "float32");
    free(codes);
    free(v);
}

/* Dot products in long double, independent of hum_reference_gemm's loop. */
static void naive_ref(const hum_standard_weight *w, const double *a, int64_t m, double *c)
{
    double *deq = malloc((size_t)(w->n * w->k) * sizeof *deq);
    hum_reference_dequant(w, 0, deq);
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < w->n; j++) {
            long double acc = 0;
            for (int64_t kk = 0; kk < w->k; kk++)
                acc += (long double)a[i * w->k + kk] * deq[j * w->k + kk];
            c[i * w->n + j] = (double)acc;
        }
    free(deq);
}

static void check_output(hum_dtype dtype)
{
    const int64_t n = 96, k = 256, m = 5;
    bench_rng r = bench_rng_fresh();
    float *wf = malloc((size_t)(n * k) * sizeof *wf);
    uint16_t *wcodes = malloc((size_t)(n * k) * sizeof *wcodes);
    bench_random_activations(&r, HUM_DTYPE_FLOAT16, n * k, wcodes);
    hum_dtype_to_float(HUM_DTYPE_FLOAT16, wcodes, n * k, wf);
    hum_quant_spec spec = {.weight_dtype = HUM_DTYPE_UINT4, .param_dtype = dtype, .scale_type = HUM_SCALE_GROUP,
                           .group_size = 128, .zero_point = HUM_ZERO_POINT_INT};
    hum_standard_weight w = {0};
    RT_CHECK(hum_quantize_reference(wf, n, k, &spec, &w) == HUM_OK, "quantize: %s", hum_last_error());

    uint16_t *a = malloc((size_t)(m * k) * sizeof *a), *out = malloc((size_t)(m * n) * sizeof *out);
    double *ad = malloc((size_t)(m * k) * sizeof *ad), *ref = malloc((size_t)(m * n) * sizeof *ref);
    bench_random_activations(&r, dtype, m * k, a);
    hum_dtype_decode(dtype, a, m * k, ad);
    naive_ref(&w, ad, m, ref);
    hum_dtype_encode(dtype, ref, m * n, out);

    int64_t rows[] = {0, 2, 4}, bad = -1;
    double err = -1;
    RT_CHECK(bench_check_output(&w, dtype, a, out, m, rows, 3, &err, &bad) == HUM_OK, "check: %s", hum_last_error());
    /* Rounding to 16 bits is at most half an ulp: 2^-11 (float16) or 2^-8 (bfloat16) relative. */
    double ulp = dtype == HUM_DTYPE_BFLOAT16 ? 0x1p-8 : 0x1p-11;
    RT_CHECK(bad == 0 && err > 0 && err <= ulp, "%s: rounded reference, error %g (bound %g)", hum_dtype_name(dtype),
             err, ulp);
    RT_CHECK(err < bench_check_tolerance(dtype), "passes the tolerance");

    /* Every checked element doubled: ||out - ref|| / ||ref|| becomes ~1, as computed here. */
    uint16_t *twice = malloc((size_t)(m * n) * sizeof *twice);
    double *dbl = malloc((size_t)(m * n) * sizeof *dbl);
    for (int64_t i = 0; i < m * n; i++)
        dbl[i] = 2.0 * ref[i];
    hum_dtype_encode(dtype, dbl, m * n, twice);
    double d2 = 0, r2 = 0;
    for (int64_t ri = 0; ri < 3; ri++)
        for (int64_t j = 0; j < n; j++) {
            double got;
            hum_dtype_decode(dtype, twice + rows[ri] * n + j, 1, &got);
            double ref_v = ref[rows[ri] * n + j];
            d2 += (got - ref_v) * (got - ref_v);
            r2 += ref_v * ref_v;
        }
    RT_CHECK(bench_check_output(&w, dtype, a, twice, m, rows, 3, &err, &bad) == HUM_OK, "check: %s", hum_last_error());
    RT_CHECK(fabs(err - sqrt(d2 / r2)) < 1e-3 && err > 0.9, "doubled output: error %g, expected %g", err,
             sqrt(d2 / r2));
    RT_CHECK(err > bench_check_tolerance(dtype), "fails the tolerance");

    /* One poisoned element in row 1, which is not among the rows compared. */
    out[1 * n + 7] = 0xFFFF;
    RT_CHECK(bench_check_output(&w, dtype, a, out, m, rows, 3, &err, &bad) == HUM_OK, "check: %s", hum_last_error());
    RT_CHECK(bad == 1 && isinf(err), "poison: %lld bad, error %g", (long long)bad, err);

    hum_standard_free(&w);
    free(wf), free(wcodes), free(a), free(out), free(ad), free(ref), free(twice), free(dbl);
}

static void check_rows(void)
{
    int64_t rows[4096];
    RT_CHECK(bench_check_rows(16, 4096, 4096, rows, 4096) == 16 && rows[15] == 15, "small M: every row");
    int64_t count = bench_check_rows(1000, 4096, 14336, rows, 4096);
    RT_CHECK(count >= 2 && (double)count * 4096 * 14336 <= BENCH_CHECK_MAC_BUDGET, "large M: %lld rows",
             (long long)count);
    RT_CHECK(rows[0] == 0 && rows[count - 1] == 999, "first and last rows kept (%lld, %lld)", (long long)rows[0],
             (long long)rows[count - 1]);
    int increasing = 1;
    for (int64_t i = 1; i < count; i++)
        increasing &= rows[i] > rows[i - 1];
    RT_CHECK(increasing, "rows distinct and increasing");
    RT_CHECK(bench_check_rows(8192, 65536, 65536, rows, 4096) == 2 && rows[1] == 8191, "huge layer: 2 rows");
    RT_CHECK(bench_check_rows(1, 65536, 65536, rows, 4096) == 1 && rows[0] == 0, "M = 1");
}

/* The pass mark is inclusive; a NaN error, or any bad element at a small error, fails with
 * the figures named. */
static void check_verdict(void)
{
    RT_CHECK(bench_check_verdict(7, 1e-2, 1e-2, 0, "", 7, "rows") == HUM_OK, "an error at the tolerance passes: %s",
             hum_last_error());
    RT_EXPECT_ERROR(bench_check_verdict(7, 1.5e-2, 1e-2, 0, "", 7, "rows"), HUM_ERR_INTERNAL, "above the tolerance",
                    "M = 7", "1.500e-02", "tolerance 1e-02");
    RT_EXPECT_ERROR(bench_check_verdict(7, NAN, 1e-2, 0, " of x", 7, "rows"), HUM_ERR_INTERNAL, "a NaN error",
                    "reference of x");
    RT_EXPECT_ERROR(bench_check_verdict(9, 1e-6, 1e-2, 3, "", 2, "tokens"), HUM_ERR_INTERNAL, "bad elements",
                    "3 elements unwritten or not finite");
}

int main(void)
{
    check_verdict();
    check_activations(HUM_DTYPE_FLOAT16);
    check_activations(HUM_DTYPE_BFLOAT16);
    check_output(HUM_DTYPE_FLOAT16);
    check_output(HUM_DTYPE_BFLOAT16);
    check_rows();
    return rt_test_result("test_cli_bench_check");
}
