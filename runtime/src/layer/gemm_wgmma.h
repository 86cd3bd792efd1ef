/* The Hopper warpgroup-MMA family of the dense GEMM (kernels/gemm/gemm_wgmma.cu, a row of
 * gemm_family.c): the shape rules it adds to those of hum_gemm_variant_check and its extra shared
 * memory. It shares the constants header, the prepared weights and the argument of the mma.sync
 * kernel. */
#ifndef HUM_GEMM_WGMMA_H
#define HUM_GEMM_WGMMA_H

#include "gemm_variant.h"

/* Shared memory the kernel takes beyond its pipeline: up to 1008 bytes to align the stages to
 * 1024 bytes, then one 8-byte mbarrier per stage. */
enum { HUM_GEMM_WGMMA_EXTRA_SMEM = 2048 };

/* The static_asserts of kernels/gemm/gemm_wgmma.cu, so that a bad tuning is refused at prepare time
 * with its name: no act-order and K a multiple of 8 (every weight width runs); warp_m = block_m in
 * {64, 128, 192, 256}; warp_k = block_k; one or two whole warpgroups (block_n / warp_n 4 or 8)
 * of one or two slabs (warp_n 16 or 32) and at most 128 accumulators per thread (warp_n / 16 *
 * block_m <= 256); at least 3 stages; the epilogue tile within the pipeline's shared memory
 * (block_m * (2 * block_n + 16) bytes). HUM_ERR_UNSUPPORTED
 * naming the rule. Call after hum_gemm_variant_check's general rules passed. */
hum_status hum_gemm_wgmma_check(const hum_gemm_variant *v);

#endif
