/* The GEMM kernel contract: the one argument every GEMM kernel of kernels/gemm/ takes, as a
 * `const __grid_constant__ hum_gemm_args` parameter, and that libhum fills for each launch
 * (runtime/src/layer/layer_forward.c). Plain C, read by both the C11 library and NVRTC, so both sides
 * agree on every offset: only pointers, 32/64-bit integers, floats and the tensor map.
 *
 * Only M, top_k, the pointers and the strides are run-time values; shapes, dtypes and tiles are
 * compile-time constants of the kernel (hum_constants.h). Unused pointers are NULL. Every
 * pointer may point into a per-forward workspace (a permuted copy of A, the stream-K locks). */
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
    /* A [M][lda], the activation dtype. 8-bit A (kAFp8, kAInt8) comes with float32 scales:
     * row m's at a_scale[m * a_scale_ld] (a_scale_ld 1: per token, 0: one for the tensor), which
     * the epilogue multiplies into the accumulators; NULL / 0 for 16-bit A */
    const void *a;
    const float *a_scale;
    long long lda;
    long long a_scale_ld;
    /* the prepared weight (kernels/prep/repack.cu): codes, scale and zero-point rows
     * [groups][N] of the activation dtype (8-bit A: channel scales float32 [N]), bias float32
     * [N]; k_perm int32 [K]: the K order of
     * an act-order layer whose A is read in checkpoint order (reserved for a gathering A
     * loader: NULL today, libhum permutes A first with kernels/prep/permute_a.cu) */
    const void *b;
    const void *b_scale;
    const void *zero;
    const float *bias;
    const int *k_perm;
    /* C [M][ldc], the output dtype (kBF16: bfloat16, else float16) */
    void *c;
    long long ldc;
    /* stream-K: one int32 per stream-K tile of the grid, zero between launches */
    int *locks;
    int m;
    /* the float accumulators are multiplied by this (global scale, exponent bookkeeping) */
    float out_factor;
    /* MoE (reserved for the indexed and grouped GEMM types; NULL / 0 for dense): the token ids
     * sorted by expert, the expert of each block of sorted tokens or the first row of each
     * expert, the router weights applied in the epilogue, and the experts per token */
    const int *sorted_token_ids;
    const int *expert_ids;
    const long long *expert_offsets;
    const float *topk_weights;
    int top_k;
    /* A as a 2-D TMA tensor map (rows M, columns K, row stride lda, box block_m x 64, 128-byte
     * swizzle): the wgmma kernel's A loader; unused by the others */
    hum_gemm_tma_map a_map;
} hum_gemm_args;

/* Both compilers must lay the struct out alike: libhum passes its bytes as the kernel's one
 * parameter. */
#ifdef __cplusplus
static_assert(sizeof(hum_gemm_args) == 320, "hum_gemm_args: 192 bytes of fields, then the 128-byte map");
#else
_Static_assert(sizeof(hum_gemm_args) == 320, "hum_gemm_args: 192 bytes of fields, then the 128-byte map");
#endif

#endif
