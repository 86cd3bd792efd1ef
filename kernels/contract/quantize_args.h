/* The activation-quantization contract: the one argument of kernels/prep/quantize_a.cu, a
 * `const __grid_constant__ hum_quantize_args`, filled by libhum (and by the GPU tests). Plain C,
 * read by both the C11 library and NVRTC. The CPU twin, hum_quantize_activations
 * (runtime/src/quant/quantize_a.c, hum/hum_tools.h), takes the same choices and writes the same
 * bits.
 *
 * What the kernel writes, per row r < m:
 *   q[r][j], j < k:       code of a[r][j] * inv (e4m3fn: nearest even, saturating at +-448;
 *                         int8: nearest even of the value clamped to +-127)
 *   q[r][j], k <= j < kq: 0
 *   scale:                group 0 (per token): scale[r * scale_row] = amax(row) / max, float32;
 *                         group > 0: scale[r * scale_row + g * scale_group] for each group g of
 *                         `group` columns (the last one may be partial): float32 amax / max, or
 *                         with e8m0 the OCP MX shared exponent as a float8_e8m0 byte;
 *                         group -1 (static per tensor): nothing, the scale is *input_scale
 *   inv:                  max / amax in float32 (0 when amax is 0: the codes are 0, never NaN,
 *                         and the scale 0); at most FLT_MAX; e8m0: the power of two 1 / scale
 *                         (exact); static: 1 / *input_scale (0 when that is 0)
 * The entry hum_quantize_a_round (MXFP8 as rounding, for a GEMM of 16-bit A: group 32, e8m0,
 * e4m3fn codes; the entry, not an argument, says it) writes q in A's 16-bit type instead of
 * codes, ldq in its elements:
 *   q[r][j], j < k:       the value of that code times its group's scale (1 / inv, a power of
 *                         two: exact in float32), rounded to nearest even to A's type (exact
 *                         unless below its normal range)
 *   q[r][j], k <= j < kq: 0
 *   scale:                nothing (NULL)
 * max is 448 for e4m3fn and 127 for int8. All float32 arithmetic is IEEE (no fast math), so the
 * CPU twin matches bit for bit. Elements must be finite.
 *
 * Launch: blocks of a multiple of 32 threads, at most HUM_QUANTIZE_MAX_THREADS; each thread owns
 * 8-column chunks, so a CTA pass covers 8 x blockDim.x columns. Per token: grid x = 1, each CTA
 * walks a whole row, its first HUM_QUANTIZE_HELD passes held in registers (hum_act_quant_launch
 * gives a row the fewest threads that hold it where the rows outnumber one wave of the largest
 * CTAs); other modes: grid x = ceil(kq / (8 x blockDim.x)), each CTA's rows HUM_QUANTIZE_ROWS_HELD
 * at a time. Any grid y >= 1 (rows blockIdx.y, + gridDim.y, ...). */
#ifndef HUM_CONTRACT_QUANTIZE_ARGS_H
#define HUM_CONTRACT_QUANTIZE_ARGS_H

#define HUM_QUANTIZE_MAX_THREADS 256
/* CTAs of HUM_QUANTIZE_MAX_THREADS an SM: the kernel's launch bounds (64 registers a thread) */
#define HUM_QUANTIZE_CTAS 4
#define HUM_QUANTIZE_HELD 8
#define HUM_QUANTIZE_ROWS_HELD 4

typedef struct hum_quantize_args {
    const void *a;            /* float16 or bfloat16 [m][lda] */
    long long lda;
    void *q;                  /* e4m3fn or int8 [m][ldq]; round: A's 16-bit type [m][ldq] */
    long long ldq;
    void *scale;              /* float32 or e8m0 bytes; NULL for static per-tensor and round */
    long long scale_row, scale_group; /* element strides of the scales */
    const float *input_scale; /* static per-tensor: one float32 in device memory */
    int m, k, kq;             /* rows, columns of A, columns of q written (kq >= k) */
    int bf16;                 /* A is bfloat16 (else float16) */
    int int8;                 /* codes are int8 (else e4m3fn) */
    int group;                /* 0: per token; -1: static per tensor; 8..256 (a power of two) */
    int e8m0;                 /* group scales as e8m0 powers of two (MX), e4m3fn codes only */
} hum_quantize_args;

#ifdef __cplusplus
static_assert(sizeof(hum_quantize_args) == 96, "hum_quantize_args: both compilers lay it out alike");
#else
_Static_assert(sizeof(hum_quantize_args) == 96, "hum_quantize_args: both compilers lay it out alike");
#endif

#endif
