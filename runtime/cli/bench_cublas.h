/* cuBLAS as the dense 16-bit baseline of `hum bench` and `hum demo`, loaded with dlopen so that
 * hum neither links nor requires it: when no library is found the caller reports why. */
#ifndef HUM_BENCH_CUBLAS_H
#define HUM_BENCH_CUBLAS_H

#include "hum/hum_tools.h"

#include <cuda.h>
#include <stddef.h>

typedef struct bench_cublas bench_cublas;

/*
 * Finds and loads cuBLAS, creates its handle (once, on the current context of device
 * `ordinal`) and gives it a 32 MiB workspace of its own so that its calls can be captured into
 * CUDA graphs. Search order: $HUM_CUBLAS (the library file, or a directory holding it), then
 * libcublas.so.13, libcublas.so.12 and libcublas.so through the dynamic loader, then the CUDA
 * toolkit ($CUDA_HOME/lib64, /usr/local/cuda/lib64) and the cuBLAS of Python's nvidia wheels
 * (nvidia/cublas/lib under /usr/local/lib/python3*, /usr/lib/python3*,
 * /opt/torch/.venv/lib/python3*). HUM_ERR_NO_DEVICE for no GPU; HUM_ERR_UNSUPPORTED naming
 * every place tried when no usable library is found; HUM_ERR_CUDA when cuBLAS refuses to start.
 */
hum_status bench_cublas_open(int32_t ordinal, bench_cublas **out);
void bench_cublas_close(bench_cublas *b);
/* The file loaded, e.g. "libcublas.so.13". */
const char *bench_cublas_path(const bench_cublas *b);

/* C[M, N] = A[M, K] * W[N, K]^T, all row-major device arrays of `dtype` (float16 or bfloat16),
 * float32 accumulation (cublasGemmEx, CUBLAS_COMPUTE_32F), queued on `stream`.
 * HUM_ERR_INVALID_ARG for another dtype or a dimension past INT32_MAX; HUM_ERR_CUDA with the
 * cuBLAS status name when it fails. */
hum_status bench_cublas_gemm(bench_cublas *b, CUstream stream, hum_dtype dtype, int64_t m, int64_t n, int64_t k,
                             const void *a, const void *w, void *c);

#endif
