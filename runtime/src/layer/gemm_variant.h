/* Variants of the GEMM kernel families (gemm_family.h). A variant is a planned layer config, its compute
 * config and one tuning; this is where every shape and resource rule of the GEMM lives (the
 * kernels keep static_asserts only as a backstop), where a policy's tuning is fitted to a layer,
 * and where the kernel's constants header is written. */
#ifndef HUM_GEMM_VARIANT_H
#define HUM_GEMM_VARIANT_H

#include "hum/hum.h"

#include <stddef.h>

/* Most CTAs any GPU keeps resident on one SM: sizes the stream-K locks (workspace.h). */
enum { HUM_MAX_CTAS_PER_SM = 32 };

typedef struct hum_gemm_variant {
    const hum_layer_config *layer;   /* derived fields filled */
    const hum_compute_config *compute;
    const hum_tuning *tuning;
} hum_gemm_variant;

/* Whether kernel family `kernel` (a hum_gemm_kernel, gemm_family.h) runs a layer of config c and
 * `compute` on `arch` (NULL: any): HUM_OK, or HUM_ERR_UNSUPPORTED naming the rule. */
hum_status hum_gemm_kernel_takes(int32_t kernel, const hum_layer_config *c, const hum_compute_config *compute,
                                 const char *arch);

/* Whether the layer's A is 8-bit (float8_e4m3fn or int8, hum_layer_options): its products are
 * the k32 MMAs on 8-bit B, its scales and the weight's multiply the float accumulators. */
int hum_gemm_a8(const hum_layer_config *c);
/* Whether the layer's forward passes the host's 16-bit A through the quantizer
 * (kernels/prep/quantize_a.cu) before the GEMM: 8-bit A, or 16-bit A rounded through mxfp8
 * (a_round). */
int hum_gemm_quantizes_a(const hum_layer_config *c);
/* Whether e4m3 A's group scales are folded into the decoded codes (4-bit float codes with e8m0
 * scales in groups of a multiple of 32 along K, MXFP4): float16 rows of each group's power of
 * two relative to its column's factor, which the epilogue applies. */
int hum_gemm_fold_scales(const hum_layer_config *c);
/* The order of the repacked codes (kernels/prep/repack.cu's a8): 0 for 16-bit A, 1 the K order
 * of the 8-bit MMAs, 2 that order with e2m1 codes laid out for e4m3 A's byte table
 * (kernels/gemm/dequant.cuh). */
int hum_gemm_repack_order(const hum_layer_config *c);
/* Whether the accumulators are added to float32 totals along K: always with scales along K
 * (hum_gemm_kscale_k; int8's exact int32 sums too), and e4m3 products, which the tensor cores
 * accumulate with fewer bits than float32, every 128 of K or the tuning's promote_k (fitted:
 * hum_gemm_fit) unless that reaches the padded K (a K of 128: one accumulator set), as the
 * kernels' kPromote. It doubles the accumulator registers: the
 * families keep at most 64 accumulators per thread then. */
int hum_gemm_promotes(const hum_layer_config *c, const hum_tuning *t);
/* Whether 8-bit A's weight has float32 scales per group of kernel_group along K (FP8 block-wise
 * 128 x 128, e4m3 or uint4 group scales under e4m3 A, uint4 or uint8 group scales under int8 A),
 * not folded: float32 rows [scale_rows][padded_n] that multiply the accumulators at each
 * promotion (kernels/gemm/kscale.cuh). */
int hum_gemm_block_scales(const hum_layer_config *c);
/* With K-group scales (e4m3 A's own in groups of a_group, or the weight's under 8-bit A:
 * hum_gemm_block_scales), the K extent of one promotion of the accumulators, where they are
 * applied: 128 or the smaller of the groups; 0 without (promotions then come every 128 of K or
 * at the end of a warp's share of a stage, kernels/gemm/config.cuh). */
int64_t hum_gemm_kscale_k(const hum_layer_config *c);
/* The dtype of 8-bit A's scales: e8m0 bytes for e4m3 A in groups of 32 (MXFP8), else float32. */
hum_dtype hum_gemm_a_scale_dtype(const hum_layer_config *c);
/* Whether the weight's scale rows stream through the pipeline with the codes: 16-bit A's, and
 * 8-bit A's folded group scales (its channel factors are read in the epilogue). */
int hum_gemm_scales_staged(const hum_layer_config *c);

/* Threads per CTA of the variant: the tile's warps plus the family's load warps. */
int32_t hum_gemm_threads(const hum_gemm_variant *v);
/* Whether its weights go straight to registers, with no stages in shared memory (mma_direct:
 * kDirectB of "hum_constants.h"). */
int hum_gemm_direct(const hum_gemm_variant *v);
/* Warps of the variant that only issue the pipeline's copies (the family's load_warps). */
int32_t hum_gemm_load_warps(const hum_gemm_variant *v);
/* The pipeline's shared memory, bytes: what "hum_constants.h" calls kSmemBytes and
 * kernels/gemm/config.cuh recomputes in a static_assert. */
int64_t hum_gemm_pipeline_bytes(const hum_gemm_variant *v);
/* Dynamic shared memory a launch of the variant takes: the pipeline plus the family's extra and
 * epilogue tile. */
int64_t hum_gemm_smem_bytes(const hum_gemm_variant *v);
/* Shared memory one CTA of the variant occupies: the dynamic plus the kernel's static. */
int64_t hum_gemm_cta_smem_bytes(const hum_gemm_variant *v);

/* Every rule of a variant, for `arch` (NULL: no arch rule): its family takes the layer, then the
 * tuning rules every family shares, then the family's own. HUM_ERR_UNSUPPORTED naming the rule. */
hum_status hum_gemm_variant_check(const hum_gemm_variant *v, const char *arch);

/* A policy's tuning fitted to a layer for `arch` and a device of smem_budget bytes of shared
 * memory per block (device_name for the message): the tuning's values checked against what a
 * policy may write (HUM_ERR_POLICY) and the family taking the layer, then block N halved until it
 * divides the padded N, block K nested with the scale group and warp K within 4 warps, the
 * family's own adjustments (gemm_family.h, fit), for 8-bit A block K at least 128, warp K a
 * multiple of 32 and stream-K only with its slices summed in the workspace (stream_k_sum), the
 * stages lowered until ctas_per_sm CTAs fit;
 * the result checked
 * (hum_gemm_variant_check, and the budget: HUM_ERR_UNSUPPORTED). *out is the fitted tuning. */
hum_status hum_gemm_fit(const hum_layer_config *c, const hum_compute_config *compute, const hum_tuning *in,
                        const char *arch, int64_t smem_budget, const char *device_name, hum_tuning *out);

/* Writes the text of "hum_constants.h" for the variant: the constant of every config field that
 * has one (hum.h's field lists), then the figures derived from them. No rule is checked here.
 * HUM_ERR_INVALID_ARG when cap is short. */
hum_status hum_gemm_constants(const hum_gemm_variant *v, char *out, size_t cap);

#endif
