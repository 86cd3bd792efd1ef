/* See gemm_test.h. */
#define _POSIX_C_SOURCE 200809L
#include "gemm_test.h"
#include "device.h"
#include "rt_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int gemm_test_have_gpu(void)
{
    int32_t count = 0;
    return hum_device_count(&count) == HUM_OK && count > 0;
}

hum_tensor gemm_test_matrix(void *data, hum_dtype dtype, int64_t rows, int64_t cols, int64_t ld)
{
    hum_tensor t = quant_matrix(data, dtype, rows, cols, HUM_MEMORY_DEVICE);
    if (ld != 0) {
        t.strides[0] = ld;
        t.strides[1] = 1;
    }
    return t;
}

double gemm_test_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* One forward at M rows; returns the relative error or -1 on a failed check. */
static double run_m(hum_layer *layer, quant_rng *rng, const char *name, const hum_standard_weight *w, hum_dtype act,
                    int64_t m)
{
    const int64_t n = w->n, k = w->k;
    uint16_t *a_codes = malloc((size_t)(m * k) * 2), *c_codes = malloc((size_t)(m * n) * 2);
    double *a = malloc((size_t)(m * k) * sizeof *a), *ref = malloc((size_t)(m * n) * sizeof *ref);
    double *got = malloc((size_t)(m * n) * sizeof *got);
    void *d_a = NULL, *d_c = NULL;
    double err = -1;
    if (!QUANT_CHECK(a_codes && c_codes && a && ref && got, "%s: host buffers for M = %lld", name, (long long)m))
        goto done;
    if (quant_fill_activations(rng, act, m * k, 1.0, a_codes, a) != 0 ||
        !QUANT_CHECK(hum_reference_gemm(w, 0, a, m, ref) == HUM_OK, "%s: reference: %s", name, hum_last_error()))
        goto done;
    /* A and C are followed by a guard row of NaN: a kernel that reads past A's last row (or
     * past K) poisons its output, one that writes past C's last row is caught below. */
    if (!QUANT_CHECK(hum_device_alloc(0, (size_t)((m + 1) * k) * 2, &d_a) == HUM_OK &&
                         hum_device_alloc(0, (size_t)((m + 1) * n) * 2, &d_c) == HUM_OK &&
                         hum_memset_d8(d_a, 0xFF, (size_t)((m + 1) * k) * 2) == HUM_OK &&
                         hum_memcpy_htod(d_a, a_codes, (size_t)(m * k) * 2) == HUM_OK &&
                         hum_memset_d8(d_c, 0xFF, (size_t)((m + 1) * n) * 2) == HUM_OK,
                     "%s: device buffers: %s", name, hum_last_error()))
        goto done;
    const hum_tensor ta = gemm_test_matrix(d_a, act, m, k, 0), tc = gemm_test_matrix(d_c, act, m, n, 0);
    if (!QUANT_CHECK(hum_layer_forward(layer, NULL, &ta, NULL, &tc) == HUM_OK, "%s: forward M = %lld: %s", name,
                     (long long)m, hum_last_error()) ||
        !QUANT_CHECK(hum_stream_synchronize(NULL) == HUM_OK, "%s: M = %lld: %s", name, (long long)m,
                     hum_last_error()) ||
        !QUANT_CHECK(hum_memcpy_dtoh(c_codes, d_c, (size_t)(m * n) * 2) == HUM_OK, "%s: %s", name, hum_last_error()))
        goto done;
    uint16_t guard[64];
    const int64_t g = n < 64 ? n : 64;
    if (hum_memcpy_dtoh(guard, (uint16_t *)d_c + m * n, (size_t)g * 2) == HUM_OK)
        for (int64_t i = 0; i < g; i++)
            if (!QUANT_CHECK(guard[i] == 0xFFFF, "%s: M = %lld: C written past its last row", name, (long long)m))
                goto done;
    hum_dtype_decode(act, c_codes, m * n, got);
    int64_t unwritten = 0, first = -1;
    for (int64_t i = 0; i < m * n; i++)
        if (!isfinite(got[i]) && unwritten++ == 0)
            first = i;
    if (!QUANT_CHECK(unwritten == 0, "%s: M = %lld: %lld of %lld outputs not finite (first at row %lld, column %lld)",
                     name, (long long)m, (long long)unwritten, (long long)(m * n), (long long)(first / n),
                     (long long)(first % n)))
        goto done;
    err = quant_rel_error(got, ref, m * n);
    const double tol = act == HUM_DTYPE_BFLOAT16 ? 2e-2 : 1e-2;
    if (!QUANT_CHECK(err < tol, "%s: M = %lld: relative error %.3e above %.0e", name, (long long)m, err, tol))
        err = -1;
done:
    hum_device_free(d_a);
    hum_device_free(d_c);
    free(a_codes);
    free(c_codes);
    free(a);
    free(ref);
    free(got);
    return err;
}

double gemm_test_layer(hum_runtime *rt, quant_rng *rng, const char *name, const hum_standard_weight *w, hum_dtype act,
                       const int64_t *ms, int count)
{
    if (!quant_test_selected(name))
        return 0;
    hum_layer_options opts = {.activation_dtype = act};
    hum_layer *layer = NULL;
    if (!QUANT_CHECK(hum_layer_from_standard(rt, w, &opts, &layer) == HUM_OK, "%s: %s", name, hum_last_error()))
        return -1;
    double worst = 0;
    if (!QUANT_CHECK(hum_layer_prepare(layer) == HUM_OK, "%s: prepare: %s", name, hum_last_error())) {
        worst = -1;
    } else {
        for (int i = 0; i < count && worst >= 0; i++) {
            const double e = run_m(layer, rng, name, w, act, ms[i]);
            worst = e < 0 ? -1 : (e > worst ? e : worst);
        }
    }
    printf("  %-58s %s %.2e\n", name, worst < 0 ? "FAIL" : "ok  ", worst < 0 ? 0.0 : worst);
    fflush(stdout);
    hum_layer_destroy(layer);
    return worst;
}

double gemm_test_spec(hum_runtime *rt, quant_rng *rng, const char *spec, const int64_t *ms, int count)
{
    hum_layer_spec s;
    hum_standard_weight w;
    if (!QUANT_CHECK(hum_layer_spec_parse(spec, &s) == HUM_OK, "%s: %s", spec, hum_last_error()) ||
        !QUANT_CHECK(hum_layer_spec_weight(&s, quant_rng_next(rng), &w) == HUM_OK, "%s: %s", spec, hum_last_error()))
        return -1;
    const double e = gemm_test_layer(rt, rng, spec, &w, s.activation_dtype, ms, count);
    hum_standard_free(&w);
    return e;
}

hum_runtime *gemm_test_site_runtime(const char *edit, char *dir, size_t cap)
{
    char text[2048];
    snprintf(text, sizeof text,
             "local policy = require('hum.policy')\n"
             "return {\n"
             "  name = 'test-site',\n"
             "  applies = function(device) return true end,\n"
             "  tunings = function(device, layer)\n"
             "    local list = policy.below(device, layer)\n"
             "    for _, e in ipairs(list) do\n"
             "      local t = e.tuning\n"
             "      %s\n"
             "    end\n"
             "    return list\n"
             "  end,\n"
             "}\n",
             edit);
    rt_tmpdir("site", dir, cap);
    rt_write(dir, "site.lua", text);
    const char *config = rt_write(dir, "hum.yaml", "policy_paths: [site.lua]\n");
    hum_runtime_options opts;
    hum_runtime_options_init(&opts);
    opts.config_path = config;
    hum_runtime *rt = NULL;
    if (hum_runtime_create(&opts, &rt) != HUM_OK) {
        fprintf(stderr, "gemm_test_site_runtime: %s\n", hum_last_error());
        return NULL;
    }
    return rt;
}

hum_runtime *gemm_test_workspace_sum_runtime(const char *wgmma_family, char *dir, size_t cap)
{
    char edit[256];
    snprintf(edit, sizeof edit,
             "t.stream_k, t.stream_k_sum = true, 'workspace'\n"
             "      if t.kernel == 'wgmma' or t.kernel == 'wgmma_ws' then t.kernel = '%s' end",
             wgmma_family);
    return gemm_test_site_runtime(edit, dir, cap);
}

int gemm_test_abs_products(const hum_standard_weight *w, const double *a, int64_t m, double *s)
{
    const int64_t n = w->n, k = w->k;
    double *wd = malloc((size_t)(n * k) * sizeof *wd);
    const int ok = QUANT_CHECK(wd && hum_reference_dequant(w, 0, wd) == HUM_OK,
                               "sums of |a * w| of N = %lld, K = %lld: %s", (long long)n, (long long)k,
                               wd ? hum_last_error() : "out of memory");
    for (int64_t i = 0; ok && i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double sum = 0.0;
            for (int64_t t = 0; t < k; t++)
                sum += fabs(a[i * k + t] * wd[j * k + t]);
            s[i * n + j] = sum;
        }
    free(wd);
    return ok ? 0 : -1;
}

/* One unit in the last place of v in `dtype` (7 or 10 stored fraction bits; below the least
 * normal exponent the spacing stays that of the least normal binade). */
static double ulp_of(hum_dtype dtype, double v)
{
    const int bf16 = dtype == HUM_DTYPE_BFLOAT16, fraction_bits = bf16 ? 7 : 10, least_exp = bf16 ? -126 : -14;
    int e = 0;
    frexp(v, &e); /* |v| = f * 2^e, f in [0.5, 1): v's binade is 2^(e - 1) */
    const int binade = v != 0.0 && e - 1 > least_exp ? e - 1 : least_exp;
    return ldexp(1.0, binade - fraction_bits);
}

/* Why k * 2^-21 * s: both results sum the same k products in float32, in whatever tree (a tile's
 * running sum; slices summed apart, then added in the workspace). A float32 sum of k terms whose
 * every addition errs by at most u relative is within gamma(k - 1) * sum |p| of the exact sum,
 * gamma(j) = j u / (1 - j u) (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
 * section 4.2), whatever the order. u = 2^-24 for round to nearest; tensor cores may truncate
 * their additions (Fasi et al., "Numerical behavior of NVIDIA tensor cores", 2021): u = 2^-23.
 * Two such sums differ by at most 2 gamma(k - 1) sum |p| ~ k * 2^-22 * sum |p|; doubled, the
 * bound also covers the kernel's weights rounded to a 16-bit type (sum |p| up to 2^-8 above the
 * reference's s) and gamma's denominator (k u < 2^-9 for k <= 8192). Each result is then rounded
 * once to C, which moves it by at most half its own ulp. A slice lost or added twice moves an
 * output by the sum of its k / slices products, of the order of sqrt(k / slices) |p|, against a
 * bound of about k^2 * 2^-21 |p|: K = 8192 in 16 slices puts about a third of the outputs apart
 * (tests/c/test_gemm_reorder.c). */
int64_t gemm_test_reordered_apart(hum_dtype dtype, const uint16_t *x, const uint16_t *y, const double *s, int64_t k,
                                  int64_t count)
{
    if (!QUANT_CHECK(dtype == HUM_DTYPE_FLOAT16 || dtype == HUM_DTYPE_BFLOAT16,
                     "gemm_test_reordered_apart: dtype %d, want float16 or bfloat16", (int)dtype))
        return count;
    int64_t apart = 0;
    for (int64_t i = 0; i < count; i++) {
        double u = 0.0, v = 0.0;
        hum_dtype_decode(dtype, &x[i], 1, &u);
        hum_dtype_decode(dtype, &y[i], 1, &v);
        const double reorder = k > 0 ? (double)k * ldexp(s[i], -21) : 0.0;
        apart += !isfinite(u) || !isfinite(v) || fabs(u - v) > reorder + (ulp_of(dtype, u) + ulp_of(dtype, v)) / 2;
    }
    return apart;
}
