/* The two timed calls of `hum bench` and `hum demo`, as bench_enqueue_fn callbacks: one hum
 * layer forward, and the cuBLAS GEMM of the same shape on a dense 16-bit weight. */
#ifndef HUM_BENCH_CALLS_H
#define HUM_BENCH_CALLS_H

#include "bench_check.h"
#include "bench_cublas.h"
#include "bench_cublaslt.h"

#include <cuda.h>

typedef struct bench_hum_call {
    hum_layer *layer;
    hum_workspace *ws; /* NULL: the layer's own */
    hum_tensor a, c;   /* device views */
} bench_hum_call;
/* hum_layer_forward_ws(layer, ws, stream, &a, NULL, &c), or hum_layer_forward without ws. */
hum_status bench_enqueue_hum(void *call, CUstream stream);

typedef struct bench_cublas_call {
    bench_cublas *cublas;
    hum_dtype dtype;
    int64_t m, n, k;
    const void *a, *w; /* device: A [M][K], dense W [N][K] */
    void *c;           /* device: C [M][N] */
} bench_cublas_call;
/* bench_cublas_gemm of the call's operands. */
hum_status bench_enqueue_cublas(void *call, CUstream stream);

typedef struct bench_cublaslt_call {
    bench_cublaslt *lt;
    hum_dtype out;
    int64_t m, n, k;
    const void *a, *w;    /* device: e4m3 A [M][K], W [N][K] */
    const float *a_scale, *w_scale; /* device: one float32 each, per-tensor (BENCH_CUBLASLT_SCALE_ALIGN) */
    void *c;
} bench_cublaslt_call;
/* bench_cublaslt_fp8_gemm of the call's operands. */
hum_status bench_enqueue_cublaslt(void *call, CUstream stream);

/* `count` random e4m3 codes (never NaN) in new device memory on `ordinal` (hum_device_free),
 * a block of 2^20 repeated as bench_dense_weight does. */
hum_status bench_fp8_buffer(int32_t ordinal, int64_t count, bench_rng *rng, void **out);

/* The dense weight cuBLAS multiplies: N * K random 16-bit values of `dtype` in new device
 * memory on `ordinal` (free with hum_device_free). A block of 2^20 values is repeated: the
 * values do not change cuBLAS's speed, generating N * K normals on the host would cost seconds. */
hum_status bench_dense_weight(int32_t ordinal, hum_dtype dtype, int64_t n, int64_t k, bench_rng *rng, void **out);

#endif
