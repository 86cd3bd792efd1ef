/* Test helpers of the quantization core, shared by every C test that needs them: a check
 * macro that counts failures, a seeded random generator (fresh seed per run, printed, and
 * overridable with HUM_TEST_SEED to replay), and float64 error measures. */
#ifndef HUM_QUANT_TEST_H
#define HUM_QUANT_TEST_H

#include "hum/hum_tools.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

extern int quant_failures;

/* Records a failure with file:line and a printf-style explanation; evaluates to cond. The
 * explanation's arguments are evaluated only when cond fails, after it, so one may read
 * hum_last_error() of the call in cond (a function's arguments have no order in C), and a
 * helper called there may run checks of its own. */
#define QUANT_CHECK(cond, ...) ((cond) ? quant_check_passed() : quant_check_at(0, __FILE__, __LINE__, #cond, __VA_ARGS__))
static inline int quant_check_passed(void) { return 1; }
int quant_check_at(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Exit status for main: 0 when no check failed, 1 otherwise (prints the count). */
int quant_test_result(const char *test_name);

typedef struct quant_rng {
    uint64_t state;
} quant_rng;

/* Seeds from HUM_TEST_SEED when set, else from the clock; prints the seed. */
quant_rng quant_rng_fresh(const char *test_name);

/* Whether a test runs its case `name`: every case, or with HUM_TEST_CASES set (non-empty) only
 * those whose name contains one of its comma-separated pieces (a short run on a device whose
 * time is scarce); with HUM_TEST_SHARD=i/n only every n-th case named from the i-th (ctest runs
 * the longest GPU tests as n shards side by side: tests/CMakeLists.txt). */
int quant_test_selected(const char *name);
quant_rng quant_rng_seeded(uint64_t seed);
uint64_t quant_rng_next(quant_rng *r);
/* Uniform in [0, 1). */
double quant_rng_uniform(quant_rng *r);
/* Uniform integer in [0, n). */
int64_t quant_rng_below(quant_rng *r, int64_t n);
/* Standard normal (Box-Muller). */
double quant_rng_normal(quant_rng *r);
void quant_fill_normal_f32(quant_rng *r, float *out, int64_t count, double stddev);
void quant_fill_normal_f64(quant_rng *r, double *out, int64_t count, double stddev);

/* Random activations for a GEMM test: normal values rounded to `dtype` (float16 or bfloat16),
 * written both as codes (what the kernel reads) and as their exact float64 values (what the
 * reference reads). Returns 0 on success, -1 (with a printed message) on a bad dtype. */
int quant_fill_activations(quant_rng *r, uint32_t dtype, int64_t count, double stddev, uint16_t *codes,
                           double *values);
/* Fills `bytes` with 0xFF: NaN in float16, bfloat16 and float32, so an output element the
 * kernel never writes fails the comparison. */
void quant_poison(void *data, size_t bytes);

/* ||out - ref||_2 / ||ref||_2 in float64 (absolute norm when ref is all zero). */
double quant_rel_error(const double *out, const double *ref, int64_t count);
/* The same for a float32 result, e.g. a GPU output converted to float. */
double quant_rel_error_f32(const float *out, const double *ref, int64_t count);
/* A GEMM's output of 16-bit type c against its float64 reference: decodes the count codes into got
 * and returns ||got - r(ref)|| / ||ref||, r(ref) the reference rounded to c (no output can be
 * closer than that); -1 when an output is not finite, their number in *unwritten. rounded
 * (count codes) and ref_r (count doubles) are scratch. */
double quant_rel_error_rounded(hum_dtype c, const uint16_t *codes, const double *ref, int64_t count, double *got,
                               uint16_t *rounded, double *ref_r, int64_t *unwritten);

/* A contiguous rows x cols tensor of `dtype` at `data` in `memory` (strides 0). */
hum_tensor quant_matrix(void *data, hum_dtype dtype, int64_t rows, int64_t cols, hum_memory memory);

/* 2^k by repeated multiplication, independent of ldexp (for expected values in tests). */
double quant_pow2(int k);

/* The random weight of layer SPEC (hum_layer_spec_weight, `seed`), made once per spec and seed
 * and kept for the tests that compile one layer for several archs and policies (making it was most
 * of their time); NULL after a failed check. Borrowed: quant_spec_weights_free releases them all. */
const hum_standard_weight *quant_spec_weight(const char *spec, uint64_t seed);
void quant_spec_weights_free(void);

#endif
