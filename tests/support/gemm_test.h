/* Helpers of the dense GEMM tests (tests/gpu/test_gemm*.c): one layer checked against the
 * float64 reference (hum_reference_gemm) at several M, with fresh random activations and the
 * output poisoned before every run. */
#ifndef HUM_GEMM_TEST_H
#define HUM_GEMM_TEST_H

#include "hum/hum_tools.h"
#include "quant_test.h"

/* 1 when a GPU is present (else the test should return 77). */
int gemm_test_have_gpu(void);

/* A rows x cols device tensor of `dtype` at `data`; ld is the row stride in elements, 0 for
 * contiguous rows (hum's all-zero strides). */
hum_tensor gemm_test_matrix(void *data, hum_dtype dtype, int64_t rows, int64_t cols, int64_t ld);

/* A monotonic clock in microseconds, for the host-overhead and latency figures. */
double gemm_test_now_us(void);

/* Prepares a layer from `w` with activations `act` and runs it at each M of ms[0..count):
 * A ~ N(0, 1) rounded to `act`, C poisoned with 0xFF (NaN), then every element must be finite
 * and ||C - ref|| / ||ref|| below the tolerance (1e-2 float16, 2e-2 bfloat16). `name` labels
 * the messages. Returns the largest relative error seen, or -1 after a failed check (the
 * failure is recorded with QUANT_CHECK); 0 without running when HUM_TEST_CASES leaves `name`
 * out (quant_test_selected). */
double gemm_test_layer(hum_runtime *rt, quant_rng *rng, const char *name, const hum_standard_weight *w, hum_dtype act,
                       const int64_t *ms, int count);

/* The same for a SPEC string (hum_layer_spec_parse + hum_layer_spec_weight with a seed from rng). */
double gemm_test_spec(hum_runtime *rt, quant_rng *rng, const char *spec, const int64_t *ms, int count);

/* A runtime whose site policy gives every layer the built-in tables (policy.below) with every
 * entry under stream-K, its slices summed in the workspace (stream_k_sum = "workspace"; the
 * built-in whole-tile entries too) and their wgmma and wgmma_ws entries all on family `wgmma_family` ("wgmma":
 * the plain kernel, which the built-in tables no longer run for most layers on sm_90;
 * "wgmma_ws": warp-specialised). Its policy and config go to a fresh directory (path in
 * dir[cap]); NULL (with a message printed) on failure. Release with hum_runtime_destroy, then
 * rt_rmtree(dir). */
hum_runtime *gemm_test_workspace_sum_runtime(const char *wgmma_family, char *dir, size_t cap);
/* A runtime whose site policy gives every layer the built-in tables (policy.below) after the Lua
 * statements `edit` ran on each entry's tuning `t`; dir, cap and errors as above. */
hum_runtime *gemm_test_site_runtime(const char *edit, char *dir, size_t cap);

/* s[i][n] = sum_k |a[i][k] * W[n][k]| in float64 (W as hum_reference_dequant gives it, `a` as
 * hum_reference_gemm takes it): the size of what a float32 accumulation of output (i, n) can
 * round away. Returns 0, or -1 after a failed check. */
int gemm_test_abs_products(const hum_standard_weight *w, const double *a, int64_t m, double *s);

/* Of two results of one GEMM (count codes x and y of `dtype`, float16 or bfloat16) that summed
 * the same k products per output in float32 in two orders, the outputs further apart than the
 * orders and the rounding of C can put them: |x - y| > k * 2^-21 * s + (ulp(x) + ulp(y)) / 2,
 * s from gemm_test_abs_products; a non-finite output is apart. k = 0 allows one rounding of C
 * only (one ulp, the outputs of one order). The bound is derived where it is computed. */
int64_t gemm_test_reordered_apart(hum_dtype dtype, const uint16_t *x, const uint16_t *y, const double *s, int64_t k,
                                  int64_t count);

#endif
