/* cuBLASLt fp8 as the baseline of `hum bench` for layers that compute with e4m3 activations:
 * cublasLtMatmul with e4m3 A and B, float32 accumulation and per-tensor float32 scales, loaded
 * with dlopen beside the cuBLAS that bench_cublas found (so hum neither links nor requires it). */
#ifndef HUM_BENCH_CUBLASLT_H
#define HUM_BENCH_CUBLASLT_H

#include "bench_cublas.h"

typedef struct bench_cublaslt bench_cublaslt;

/* Loads libcublasLt from where `blas` loaded libcublas (the same name with "Lt", so the same
 * version and directory) and creates its handle and a 32 MiB workspace on device `ordinal`.
 * HUM_ERR_UNSUPPORTED naming the file when it is missing or lacks an entry point;
 * HUM_ERR_CUDA when cuBLASLt refuses to start; HUM_ERR_OUT_OF_MEMORY. */
hum_status bench_cublaslt_open(const bench_cublas *blas, int32_t ordinal, bench_cublaslt **out);
void bench_cublaslt_close(bench_cublaslt *lt);
const char *bench_cublaslt_path(const bench_cublaslt *lt);

/* The scale pointers of bench_cublaslt_fp8_gemm: each float32 at its own 16-byte-aligned address. */
enum { BENCH_CUBLASLT_SCALE_ALIGN = 16 };

/* C[M, N] = (A[M, K] * W[N, K]^T) * a_scale * w_scale, A and W row-major e4m3 device arrays,
 * a_scale and w_scale one float32 each in device memory, C row-major `out` (float16 or
 * bfloat16), queued on `stream`. The fp8 "TN" layout cuBLASLt needs is the row-major one.
 * HUM_ERR_INVALID_ARG for another output dtype, a dimension past INT32_MAX, K not a multiple of
 * 16 or N of 8, or a pointer (A, W, C or a scale) not 16-byte aligned; HUM_ERR_UNSUPPORTED when
 * cuBLASLt has no algorithm for it (before sm_89); HUM_ERR_CUDA with the cuBLAS status, its name
 * and cuBLASLt's logged reason when a call fails (cublasLtMatmul: after every algorithm the
 * heuristic offered was refused). */
hum_status bench_cublaslt_fp8_gemm(bench_cublaslt *lt, CUstream stream, hum_dtype out, int64_t m, int64_t n, int64_t k,
                                   const void *a, const void *w, const float *a_scale, const float *w_scale, void *c);

#endif
