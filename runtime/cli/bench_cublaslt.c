/* cuBLASLt through dlopen (see bench_cublaslt.h). Only its types come from the toolkit headers. */
#define _POSIX_C_SOURCE 200809L

#include "bench_cublaslt.h"

#include <cublasLt.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef cublasStatus_t (*pfn_create)(cublasLtHandle_t *);
typedef cublasStatus_t (*pfn_destroy)(cublasLtHandle_t);
typedef cublasStatus_t (*pfn_desc_create)(cublasLtMatmulDesc_t *, cublasComputeType_t, cudaDataType_t);
typedef cublasStatus_t (*pfn_desc_set)(cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t, const void *, size_t);
typedef cublasStatus_t (*pfn_desc_destroy)(cublasLtMatmulDesc_t);
typedef cublasStatus_t (*pfn_layout_create)(cublasLtMatrixLayout_t *, cudaDataType, uint64_t, uint64_t, int64_t);
typedef cublasStatus_t (*pfn_layout_destroy)(cublasLtMatrixLayout_t);
typedef cublasStatus_t (*pfn_pref_create)(cublasLtMatmulPreference_t *);
typedef cublasStatus_t (*pfn_pref_set)(cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t, const void *,
                                       size_t);
typedef cublasStatus_t (*pfn_pref_destroy)(cublasLtMatmulPreference_t);
typedef cublasStatus_t (*pfn_heuristic)(cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t,
                                        cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                        cublasLtMatmulPreference_t, int, cublasLtMatmulHeuristicResult_t *, int *);
typedef cublasStatus_t (*pfn_matmul)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,
                                     cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t, const void *,
                                     const void *, cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
                                     const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t);

enum { BENCH_CUBLASLT_WORKSPACE = 32 << 20 };

struct bench_cublaslt {
    void *lib;
    char path[4096];
    cublasLtHandle_t handle;
    void *workspace;
    pfn_destroy destroy;
    pfn_desc_create desc_create;
    pfn_desc_set desc_set;
    pfn_desc_destroy desc_destroy;
    pfn_layout_create layout_create;
    pfn_layout_destroy layout_destroy;
    pfn_pref_create pref_create;
    pfn_pref_set pref_set;
    pfn_pref_destroy pref_destroy;
    pfn_heuristic heuristic;
    pfn_matmul matmul;
};

static hum_status check(const bench_cublaslt *lt, cublasStatus_t s, const char *what)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return HUM_OK;
    return hum_fail(HUM_ERR_CUDA, "%s (%s): cuBLAS status %d", what, lt->path, (int)s);
}

hum_status bench_cublaslt_open(const bench_cublas *blas, int32_t ordinal, bench_cublaslt **out)
{
    *out = NULL;
    /* libcublas.so.13 -> libcublasLt.so.13, /dir/libcublas.so.12 -> /dir/libcublasLt.so.12 */
    const char *blas_path = bench_cublas_path(blas), *base = strstr(blas_path, "libcublas.");
    if (base == NULL)
        return hum_fail(HUM_ERR_UNSUPPORTED, "cuBLASLt: cannot name it from the cuBLAS file %s (expected libcublas.*)",
                        blas_path);
    bench_cublaslt *lt = calloc(1, sizeof *lt);
    if (lt == NULL)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "cuBLASLt loader state");
    snprintf(lt->path, sizeof lt->path, "%.*slibcublasLt.%s", (int)(base - blas_path), blas_path,
             base + strlen("libcublas."));
    hum_status st = hum_device_alloc(ordinal, BENCH_CUBLASLT_WORKSPACE, &lt->workspace);
    if (st != HUM_OK) {
        free(lt);
        return st;
    }
    lt->lib = dlopen(lt->path, RTLD_NOW | RTLD_LOCAL);
    if (lt->lib == NULL) {
        st = hum_fail(HUM_ERR_UNSUPPORTED, "cuBLASLt: %s not found beside %s", lt->path, blas_path);
        bench_cublaslt_close(lt);
        return st;
    }
    pfn_create create = (pfn_create)dlsym(lt->lib, "cublasLtCreate");
    lt->destroy = (pfn_destroy)dlsym(lt->lib, "cublasLtDestroy");
    lt->desc_create = (pfn_desc_create)dlsym(lt->lib, "cublasLtMatmulDescCreate");
    lt->desc_set = (pfn_desc_set)dlsym(lt->lib, "cublasLtMatmulDescSetAttribute");
    lt->desc_destroy = (pfn_desc_destroy)dlsym(lt->lib, "cublasLtMatmulDescDestroy");
    lt->layout_create = (pfn_layout_create)dlsym(lt->lib, "cublasLtMatrixLayoutCreate");
    lt->layout_destroy = (pfn_layout_destroy)dlsym(lt->lib, "cublasLtMatrixLayoutDestroy");
    lt->pref_create = (pfn_pref_create)dlsym(lt->lib, "cublasLtMatmulPreferenceCreate");
    lt->pref_set = (pfn_pref_set)dlsym(lt->lib, "cublasLtMatmulPreferenceSetAttribute");
    lt->pref_destroy = (pfn_pref_destroy)dlsym(lt->lib, "cublasLtMatmulPreferenceDestroy");
    lt->heuristic = (pfn_heuristic)dlsym(lt->lib, "cublasLtMatmulAlgoGetHeuristic");
    lt->matmul = (pfn_matmul)dlsym(lt->lib, "cublasLtMatmul");
    if (!create || !lt->destroy || !lt->desc_create || !lt->desc_set || !lt->desc_destroy || !lt->layout_create ||
        !lt->layout_destroy || !lt->pref_create || !lt->pref_set || !lt->pref_destroy || !lt->heuristic ||
        !lt->matmul) {
        st = hum_fail(HUM_ERR_UNSUPPORTED, "cuBLASLt: %s lacks an entry point of cublasLtMatmul's (cuBLAS 11.8 or "
                      "newer is needed for fp8)", lt->path);
        bench_cublaslt_close(lt);
        return st;
    }
    if ((st = check(lt, create(&lt->handle), "cublasLtCreate")) != HUM_OK) {
        bench_cublaslt_close(lt);
        return st;
    }
    *out = lt;
    return HUM_OK;
}

void bench_cublaslt_close(bench_cublaslt *lt)
{
    if (lt == NULL)
        return;
    if (lt->handle != NULL)
        lt->destroy(lt->handle);
    hum_device_free(lt->workspace);
    free(lt);
}

const char *bench_cublaslt_path(const bench_cublaslt *lt)
{
    return lt->path;
}

hum_status bench_cublaslt_fp8_gemm(bench_cublaslt *lt, CUstream stream, hum_dtype out, int64_t m, int64_t n, int64_t k,
                                   const void *a, const void *w, const float *a_scale, const float *w_scale, void *c)
{
    cudaDataType type;
    if (out == HUM_DTYPE_FLOAT16)
        type = CUDA_R_16F;
    else if (out == HUM_DTYPE_BFLOAT16)
        type = CUDA_R_16BF;
    else
        return hum_fail(HUM_ERR_INVALID_ARG, "cuBLASLt fp8 baseline: output %s (expected float16 or bfloat16)",
                        hum_dtype_name(out));
    if (m < 1 || n < 1 || k < 16 || k % 16 || m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
        return hum_fail(HUM_ERR_INVALID_ARG, "cuBLASLt fp8 baseline: M, N, K = %lld, %lld, %lld (each up to 2^31-1, "
                        "K a multiple of 16)", (long long)m, (long long)n, (long long)k);
    /* Column-major view of the row-major product: D (N x M, ld N) = W^T (op T of the K x N
     * column-major W) times A (K x M column-major): the "TN" form fp8 matmuls require. */
    cublasLtMatmulDesc_t desc = NULL;
    cublasLtMatrixLayout_t lw = NULL, la = NULL, lc = NULL;
    cublasLtMatmulPreference_t pref = NULL;
    const cublasOperation_t op_t = CUBLAS_OP_T, op_n = CUBLAS_OP_N;
    const uint64_t ws_bytes = BENCH_CUBLASLT_WORKSPACE;
    hum_status st = check(lt, lt->desc_create(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    if (st == HUM_OK)
        st = check(lt, lt->desc_set(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_t, sizeof op_t), "TRANSA");
    if (st == HUM_OK)
        st = check(lt, lt->desc_set(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_n, sizeof op_n), "TRANSB");
    if (st == HUM_OK)
        st = check(lt, lt->desc_set(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &w_scale, sizeof w_scale),
                   "A_SCALE_POINTER");
    if (st == HUM_OK)
        st = check(lt, lt->desc_set(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &a_scale, sizeof a_scale),
                   "B_SCALE_POINTER");
    if (st == HUM_OK)
        st = check(lt, lt->layout_create(&lw, CUDA_R_8F_E4M3, (uint64_t)k, (uint64_t)n, k), "layout W");
    if (st == HUM_OK)
        st = check(lt, lt->layout_create(&la, CUDA_R_8F_E4M3, (uint64_t)k, (uint64_t)m, k), "layout A");
    if (st == HUM_OK)
        st = check(lt, lt->layout_create(&lc, type, (uint64_t)n, (uint64_t)m, n), "layout C");
    if (st == HUM_OK)
        st = check(lt, lt->pref_create(&pref), "cublasLtMatmulPreferenceCreate");
    if (st == HUM_OK)
        st = check(lt, lt->pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes),
                   "MAX_WORKSPACE_BYTES");
    cublasLtMatmulHeuristicResult_t best;
    int found = 0;
    if (st == HUM_OK)
        st = check(lt, lt->heuristic(lt->handle, desc, lw, la, lc, lc, pref, 1, &best, &found),
                   "cublasLtMatmulAlgoGetHeuristic");
    if (st == HUM_OK && found < 1)
        st = hum_fail(HUM_ERR_UNSUPPORTED, "cuBLASLt (%s) has no fp8 algorithm for M, N, K = %lld, %lld, %lld on "
                      "this GPU", lt->path, (long long)m, (long long)n, (long long)k);
    const float one = 1.0f, zero = 0.0f;
    if (st == HUM_OK)
        st = check(lt, lt->matmul(lt->handle, desc, &one, w, lw, a, la, &zero, c, lc, c, lc, &best.algo,
                                  lt->workspace, BENCH_CUBLASLT_WORKSPACE, (cudaStream_t)stream),
                   "cublasLtMatmul");
    if (pref)
        lt->pref_destroy(pref);
    if (lc)
        lt->layout_destroy(lc);
    if (la)
        lt->layout_destroy(la);
    if (lw)
        lt->layout_destroy(lw);
    if (desc)
        lt->desc_destroy(desc);
    return st;
}
