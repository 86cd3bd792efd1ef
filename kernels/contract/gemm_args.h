/* The GEMM kernel contract: the one argument every GEMM kernel of kernels/gemm/ takes, as a
 * `const __grid_constant__ hum_gemm_args` parameter, and that libhum fills for each launch
 * (runtime/src/layer/layer_forward.c, and for the expert GEMMs of a MoE layer
 * runtime/src/layer/expert_forward.c). Plain C, read by both the C11 library and NVRTC, so both
 * sides agree on every offset: only pointers, 32/64-bit integers, floats and the tensor map.
 *
 * Only M, top_k, the pointers and the strides are run-time values; shapes, dtypes and tiles are
 * compile-time constants of the kernel (hum_constants.h), the GEMM type (kGemmTypeId) and the
 * expert count (kExperts) included. Unused pointers are NULL. Every pointer may point into a
 * per-forward workspace (a permuted copy of A, the stream-K locks, the MoE routing).
 *
 * The rows of A and C per GEMM type (kernels/contract/moe_layout.h states the MoE layouts in
 * full, and docs/moe.md for people):
 *   dense               A [m][lda], C [m][ldc]; one weight.
 *   indexed             m tokens, top_k slots each: routed row r = token * top_k + slot, of
 *                       R = m * top_k. sorted_token_ids lists routed rows grouped by expert, in
 *                       blocks of block_m (kBM) rows of one expert (expert_ids[block]); row r
 *                       reads A row r / top_k and writes C row r (C is [R][ldc]); the sentinel
 *                       R is neither read nor written. The down projection, whose A is the
 *                       routed rows themselves, runs with m = R and top_k = 1.
 *   grouped_contiguous  A [m][lda], the rows of expert e are expert_offsets[e] ..
 *                       expert_offsets[e + 1] - 1; C the same rows.
 *   grouped_masked      A [kExperts][m][lda] (m = max tokens per expert, the DeepEP
 *                       low-latency layout), expert e's first expert_counts[e] rows are real;
 *                       C [kExperts][m][ldc], rows past the count not written. */
#ifndef HUM_CONTRACT_GEMM_ARGS_H
#define HUM_CONTRACT_GEMM_ARGS_H

#ifdef __cplusplus
#define HUM_CONTRACT_ALIGN64 alignas(64)
#else
#define HUM_CONTRACT_ALIGN64 _Alignas(64)
#endif

/* A CUtensorMap (cuTensorMapEncodeTiled), 128 bytes, 64-byte aligned as the driver needs. */
typedef struct hum_gemm_tma_map {
    HUM_CONTRACT_ALIGN64 unsigned long long opaque[16];
} hum_gemm_tma_map;

typedef struct hum_gemm_args {
    /* A (rows per GEMM type, above), the activation dtype. 8-bit A (kAFp8, kAInt8) comes with
     * float32 scales: row m's at a_scale[m * a_scale_ld] (a_scale_ld 1: per token, 0: one for
     * the tensor), which the epilogue multiplies into the accumulators; with groups along K
     * (kAGroup > 0) row m's group g at a_scale[m * a_scale_ld + g], e8m0 bytes when
     * kAScaleE8m0, multiplied in where the accumulators are promoted (gemm/kscale.cuh); NULL /
     * 0 for 16-bit A */
    const void *a;
    const float *a_scale;
    long long lda;
    long long a_scale_ld;
    /* the prepared weight (kernels/prep/repack.cu): codes, scale and zero-point rows
     * [groups][N] of the activation dtype (float16 for 8-bit A; float32 for e4m3 A's scales
     * along K, gemm/kscale.cuh), bias float32 [N]; k_perm
     * int32 [K]: the K order of
     * an act-order layer whose A is read in checkpoint order (reserved for a gathering A
     * loader: NULL for dense layers, libhum permutes A first with kernels/prep/permute_a.cu).
     * With kExperts > 0 each is kExperts such weights back to back, one expert stride apart
     * (kernels/contract/moe_layout.h): the expert GEMMs pick their expert's. */
    const void *b;
    const void *b_scale;
    const void *zero;
    const float *bias;
    /* 8-bit A: the weight's float32 factor of each output column [experts or 1][padded N]
     * (channel scales, or what the group scales folded into the codes leave), applied in the
     * epilogue; else NULL */
    const float *col_scale;
    const int *k_perm;
    /* C (rows per GEMM type, above), the output dtype (kBF16: bfloat16, else float16) */
    void *c;
    long long ldc;
    /* stream-K: one int32 per stream-K tile of the grid (slices summed through C), or per CTA
     * (summed in the workspace: partials below), zero between launches */
    int *locks;
    /* dense: rows of A and C; indexed: tokens (routed rows m * top_k); grouped_contiguous: rows
     * of A and C; grouped_masked: rows per expert */
    int m;
    /* the float accumulators are multiplied by this (global scale, exponent bookkeeping) */
    float out_factor;
    /* dense: nonzero when the launch overlaps the kernel before it that writes A (act-order's
     * permutation, 8-bit A's quantization): the GEMM prefetches its first weights into L2 while
     * it waits for that kernel (kernels/gemm/entry.cuh); zero otherwise, where the prefetch only
     * delays the first loads (uint4 g128 M = 1 +0.7 us on the H200, session 6) */
    int overlaps;
    /* indexed: routed rows grouped by expert (int32 [capacity], moe_layout.h), the expert of
     * each block of kBM of them (int32 [capacity / kBM], HUM_MOE_SKIP_BLOCK: skip the block),
     * and how many of them the launch covers (one device int32, a multiple of kBM, read by
     * the kernel: the host sizes the grid for the capacity and never waits for the count) */
    const int *sorted_token_ids;
    const int *expert_ids;
    const int *num_tokens_post_padded;
    /* grouped_contiguous: int64 [kExperts + 1], nondecreasing, the last at most m */
    const long long *expert_offsets;
    /* grouped_masked: int32 [kExperts], each in 0 .. m */
    const int *expert_counts;
    /* indexed: experts per token (1 for the down projection, above) */
    int top_k;
    /* stream-K slices summed in the workspace (kStreamKSum, kernels/gemm/epilogue.cuh): one
     * 32-bit partial tile [block M x block N] per CTA of the grid, in the accumulators' register
     * order; NULL: the kernel runs its tiles whole (no stream-K), as the host sizes the grid then.
     * Unused (NULL) when the slices sum through C. */
    void *partials;
    /* kQuantA (dense 8-bit A per token, quantized by the GEMM itself, kernels/gemm/quant_a.cuh):
     * the host's 16-bit rows of A [m][lda16] in C's type (kBF16), which the kernel quantizes as
     * kernels/contract/quantize_args.h says of its per-token mode (the bits hum_quantize_a
     * writes) into `a` (row stride lda, what a_map reads) and their float32 scales into
     * a_scale [m] (a_scale_ld 1), both written by the kernel; NULL: `a` and a_scale arrive
     * quantized, as for every other kernel. Rows 16-byte aligned (a16, lda16 x 2 bytes). */
    const void *a16;
    long long lda16;
    /* with a16: int32 [2 + ceil(m / block_m)], zero between launches (the launch's last CTA to
     * finish zeroes them): rows claimed, CTAs finished, then the rows of each m-block quantized */
    int *a_ready;
    /* A as a 2-D TMA tensor map (rows M, columns K, row stride lda, box block_m x 64, 128-byte
     * swizzle): the wgmma kernel's A loader of the dense type; unused by the others */
    hum_gemm_tma_map a_map;
    /* the weight's codes as a 2-D TMA tensor map (rows padded K / 16, columns 2 x padded N 64-bit words:
     * one k16 row of 64-column units of 8-bit codes, kernels/numerics/codes.cuh; box 2 x block_n
     * by block_k / 16, no swizzle): the wgmma kernel's weights_ss loader, dense; unused by the others */
    hum_gemm_tma_map b_map;
} hum_gemm_args;

/* Both compilers must lay the struct out alike: libhum passes its bytes as the kernel's one
 * parameter. */
#ifdef __cplusplus
static_assert(sizeof(hum_gemm_args) == 512, "hum_gemm_args: 200 bytes of fields, padded to 256, then two 128-byte maps");
#else
_Static_assert(sizeof(hum_gemm_args) == 512, "hum_gemm_args: 200 bytes of fields, padded to 256, then two 128-byte maps");
#endif

#endif
