/* Numerical checks of a layer's output for `hum run --check` and `hum demo`: random 16-bit
 * activations, the float64 reference of dequantize-then-matmul (hum_reference_gemm) on a
 * chosen set of rows, and the relative error ||out - ref|| / ||ref|| over those rows. */
#ifndef HUM_BENCH_CHECK_H
#define HUM_BENCH_CHECK_H

#include "hum/hum_tools.h"

#include <stdint.h>

/* Multiply-adds one check may spend in the float64 reference; past it, rows are sampled. */
enum { BENCH_CHECK_MAC_BUDGET = 1 << 30 };

typedef struct bench_rng {
    uint64_t state;
} bench_rng;

/* A generator seeded from the clock and the process id (fresh inputs on every run). */
bench_rng bench_rng_fresh(void);
bench_rng bench_rng_seeded(uint64_t seed);
uint64_t bench_rng_next(bench_rng *r);

/* out[count] = standard normal values. */
void bench_random_normal(bench_rng *r, float *out, int64_t count);

/* codes[count] = standard normal values rounded to `dtype` (float16 or bfloat16), as its
 * 16-bit codes. HUM_ERR_INVALID_ARG for another dtype. */
hum_status bench_random_activations(bench_rng *r, hum_dtype dtype, int64_t count, uint16_t *codes);

/* The rows of an M-row output to compare: all of them when M * N * K fits the budget, else
 * an evenly spaced subset that always holds the first and the last row. Writes at most
 * `cap` indices and returns how many. */
int64_t bench_check_rows(int64_t m, int64_t n, int64_t k, int64_t *rows, int64_t cap);

/* Relative error ||out - ref|| / ||ref|| (Euclidean norms over every element of the listed
 * rows) of `out` (codes of `dtype`, [M][N], as the layer wrote them) against the float64
 * reference of W applied to the listed rows of `a` (codes of `dtype`, [M][K], in checkpoint
 * column order). An output element that is not finite (the 0xFF poison left unwritten, an
 * overflow) makes the error infinite; *bad (may be NULL) counts such elements.
 * Errors: those of hum_reference_gemm; HUM_ERR_OUT_OF_MEMORY. */
hum_status bench_check_output(const hum_standard_weight *w, hum_dtype dtype, const uint16_t *a, const uint16_t *out,
                              int64_t m, const int64_t *rows, int64_t row_count, double *rel_error, int64_t *bad);

/* bench_check_output in two steps, for checking several outputs of one input: the float64
 * reference ref[row_count][N] of W applied to the listed rows of `a`, then the relative error
 * (and *bad) of `out` against it. */
hum_status bench_check_reference(const hum_standard_weight *w, hum_dtype dtype, const uint16_t *a,
                                 const int64_t *rows, int64_t row_count, double *ref);
hum_status bench_check_against(hum_dtype dtype, int64_t n, const uint16_t *out, int64_t m, const int64_t *rows,
                               int64_t row_count, const double *ref, double *rel_error, int64_t *bad);

/* The pass mark of a check with `dtype` activations: 1e-2 for float16, 2e-2 for bfloat16. */
double bench_check_tolerance(hum_dtype dtype);

/* The verdict of a check at M of `checked` rows (`unit`: "rows", "tokens"; `of`: what the
 * reference was of, appended to "the float64 reference", "" for none): HUM_ERR_INTERNAL naming
 * the error, the tolerance and the bad count when any element was unwritten or not finite
 * (bad) or err is above tol (or NaN); else HUM_OK after printing the check line. One wording
 * for every bench, so a failing bench reads the same whatever it timed. */
hum_status bench_check_verdict(int64_t m, double err, double tol, int64_t bad, const char *of, int64_t checked,
                               const char *unit);

/* bench_check_reference for a layer that quantizes its 16-bit activations (`how`, the layer's
 * plan; input_scale: the weight's for HUM_ACT_SCALE_TENSOR): each listed row of `a` quantized
 * as the layer does it (hum_quantize_activations), its codes times their scales in float64, then
 * W applied: the layer and this reference differ by the accumulation order and C's rounding
 * only. how NULL: bench_check_reference. */
hum_status bench_check_reference_as(const hum_standard_weight *w, const hum_act_quant *how, hum_dtype dtype,
                                    const uint16_t *a, const int64_t *rows, int64_t row_count, double *ref);
/* Whether a layer of config c makes its A from the host's 16-bit A (8-bit A it quantizes, or
 * mxfp8 it rounds into 16-bit A: a_round), and then *how, the scheme bench_check_reference_as
 * checks it against: the layer's codes and scales, or mxfp8's (e4m3fn, e8m0 per 32 columns),
 * whose values the rounded rows hold exactly (but below the 16-bit type's normal range). */
int bench_check_quantizes(const hum_layer_config *c, hum_act_quant *how);
/* The pass mark against that reference for 8-bit A, by C's dtype: 1e-3 for float16, 4e-3 for
 * bfloat16 (its rounding of C alone is about 2e-3). */
double bench_check_tolerance_quantized(hum_dtype c_dtype);
/* The pass mark of a layer of config c that makes its A (bench_check_quantizes): the 8-bit one
 * above, or for A rounded through mxfp8 the 16-bit GEMM's (bench_check_tolerance), whose weights
 * round to A's 16-bit type with their scales (bfloat16: 2.3e-03 .. 2.6e-03 on n = k = 8192 e4m3,
 * bench/NOTES.md, session 38). */
double bench_check_tolerance_made(const hum_layer_config *c);

#endif
