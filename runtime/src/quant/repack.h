/* CPU twins of the weight-preprocessing kernels in kernels/prep/repack.cu: the same inputs give
 * bit-identical outputs (tests/gpu/test_gemm_repack.c compares them). The layouts are described
 * at the top of kernels/prep/repack.cu. */
#ifndef HUM_REPACK_H
#define HUM_REPACK_H

#include "hum/hum.h"

#include <stdint.h>

/* Words of a repacked weight of padded size np x kp (np % 64 == 0, kp % 16 == 0). */
int64_t hum_repack_words(int64_t np, int64_t kp, int bits);

/* Standard weight rows (n rows of row_words int32, `bits`-bit codes LSB-first along K, k codes
 * each) -> the fragment layout of hum_gemm, np x kp with zero codes outside n x k; a8 1: the
 * K order inside k16 rows of the 8-bit-activation MMAs, a8 2 (4-bit codes): that order with each
 * word's codes in the e2m1 table order (kernels/prep/repack.cu).
 * HUM_ERR_INVALID_ARG for bits outside 1..8, a8 outside 0..2 or 2 with other than 4 bits, np/kp
 * not multiples of 64/16 or smaller than n/k, or row_words too small for k codes. */
hum_status hum_repack_weight_cpu(const uint32_t *src, int64_t row_words, int64_t n, int64_t k, int64_t np,
                                 int64_t kp, int bits, int a8, uint32_t *dst);

/* Scales or zero points -> [gp][np] float16 (bf16 == 0) or bfloat16 bits, times 2^exp_adjust,
 * columns permuted inside 64-column blocks (position 8g + i holds column g + 8i).
 * packed_bits == 0: src is [ceil(n / n_div)][groups] elements of `dtype` (float16, bfloat16,
 * float32, float8_e4m3fn, float8_e5m2, float8_e8m0). packed_bits == b (1..8): src is int32
 * [ceil(n*b/32)][groups] with b-bit codes LSB-first along N. HUM_ERR_INVALID_ARG otherwise. */
hum_status hum_prep_params_cpu(const void *src, hum_dtype dtype, int packed_bits, int64_t n, int64_t groups,
                               int64_t n_div, int64_t np, int64_t gp, int bf16, int exp_adjust, uint16_t *dst);

/* sign * sig * 2^exp (sig < 2^31) as float16 (bf16 == 0) or bfloat16 bits: nearest even,
 * subnormals kept, overflow to infinity. */
uint16_t hum_round16(uint32_t sign, uint32_t sig, int exp, int bf16);

#endif
