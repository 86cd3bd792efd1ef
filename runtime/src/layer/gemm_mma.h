/* The mma.sync family of the dense GEMM (kernels/gemm/gemm_mma.cu, a row of gemm_family.c):
 * the shape rules it adds to those of hum_gemm_variant_check, and its part of fitting a
 * policy's tuning to a layer. */
#ifndef HUM_GEMM_MMA_H
#define HUM_GEMM_MMA_H

#include "gemm_variant.h"

/* The static_asserts of kernels/gemm/gemm_mma.cu: a warp covers whole repacked words (warp_n
 * times the container bits of the width, the power of two >= it, at least 64) and, for odd
 * widths (3, 5, 6, 7), whole 64-column units (warp_n a multiple of 64); warp_m 8 (the products
 * transposed: the weights are the m16 operand) or a multiple of 16; at most 64 accumulators per
 * thread (warp_m x warp_n / 32) when they are promoted (hum_gemm_promotes). HUM_ERR_UNSUPPORTED
 * naming the rule. */
hum_status hum_gemm_mma_check(const hum_gemm_variant *v);

/* Fitting a policy's tuning: warp N widened to whole repacked words (64 / container bits, at
 * least 16) or, for odd widths, to a whole 64-column unit, within block N; with promoted
 * accumulators warp N, then warp M, halved until 64 accumulators per thread. */
void hum_gemm_mma_fit(const hum_layer_config *c, const hum_compute_config *compute, hum_tuning *t);

/* The layers mma_direct takes (kernels/gemm/gemm_mma.cu, kDirectB): dense, float16 or bfloat16
 * activations in whole 16-byte rows (K a multiple of 8), integer codes with scales and without
 * act-order, whose scales multiply the float accumulators once per group. HUM_ERR_UNSUPPORTED
 * naming the rule. */
hum_status hum_gemm_mma_direct_takes(const hum_layer_config *c, const hum_compute_config *compute);

/* Fitting a policy's tuning to mma_direct: hum_gemm_mma_fit's, then the ring shortened (stages, at
 * least 2) until its items fit the registers a thread has beside the rest of the kernel. */
void hum_gemm_mma_direct_fit(const hum_layer_config *c, const hum_compute_config *compute, hum_tuning *t);

/* mma_direct's tunings: hum_gemm_mma_check's, on warps of 8 rows (the weights the m16 operand),
 * each warp's K within one scale group (the group a multiple of warp K). HUM_ERR_UNSUPPORTED
 * naming the rule. */
hum_status hum_gemm_mma_direct_check(const hum_gemm_variant *v);

#endif
