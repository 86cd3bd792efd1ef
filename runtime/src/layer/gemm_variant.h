/* One compiled variant of a dense GEMM kernel family (gemm_family.h): every compile-time constant
 * of "hum_constants.h", the derived launch figures, and the writer of that header. */
#ifndef HUM_GEMM_VARIANT_H
#define HUM_GEMM_VARIANT_H

#include "hum/hum.h"

#include <stddef.h>

/* CTAs per SM a tuning may ask for: no GPU keeps more resident (sm_75 .. sm_90), and the
 * workspace sizes its stream-K locks for SMs x this. */
enum { HUM_MAX_CTAS_PER_SM = 32 };

typedef struct hum_gemm_variant {
    /* data types */
    int32_t bf16;           /* activations and output are bfloat16 (else float16) */
    int32_t weight_float;   /* weight codes are floats eXmY (else offset-binary uints) */
    int32_t weight_bits;    /* 1..8 */
    int32_t weight_exp;     /* exponent bits of a float weight */
    /* shapes: padded (multiples of 64 / 128) and the real extents */
    int64_t n, k, n_real, k_real;
    int64_t group;          /* K extent of one scale row; k for channel scales */
    int32_t has_scale;      /* scale rows present (else const_scale_exp applies) */
    int32_t const_scale_exp;/* without scale rows: dequantized weights times 2^this (0: none) */
    int32_t zero_point;     /* zero-point rows present (else the midpoint, for ints) */
    int32_t bias;
    /* tuning */
    int32_t block_m, block_n, block_k, warp_m, warp_n, warp_k;
    int32_t stages, stream_k, ctas_per_sm;
    int32_t wgmma;          /* the wgmma family (sm_90a) instead of mma.sync (gemm_family.h) */
} hum_gemm_variant;

/* The variant's kernel family, a hum_gemm_kernel (gemm_family.h). */
int32_t hum_gemm_variant_kernel(const hum_gemm_variant *v);
/* Threads per CTA of the variant. */
int32_t hum_gemm_threads(const hum_gemm_variant *v);
/* Shared memory of the pipeline's stages and the k-warp reduction buffer, bytes: what
 * kernels/gemm/config.cuh checks as kSmemBytes (hum_gemm_smem_bytes adds the family's part). */
int64_t hum_gemm_pipeline_bytes(const hum_gemm_variant *v);
/* Checks the shape rules of kernels/gemm/config.cuh that every family shares, with the
 * family's own (`family_check`, may be NULL) right after the tile shapes are known positive, so
 * that a family's rule is named before a general one it implies; HUM_ERR_UNSUPPORTED naming
 * the rule. hum_gemm_check passes the family of the variant. */
hum_status hum_gemm_variant_check(const hum_gemm_variant *v, hum_status (*family_check)(const hum_gemm_variant *v));
/* Writes the text of "hum_constants.h" for the variant. HUM_ERR_INVALID_ARG when cap is short. */
hum_status hum_gemm_constants(const hum_gemm_variant *v, char *out, size_t cap);

#endif
