/* cuBLASLt through dlopen (see bench_cublaslt.h). Only its types come from the toolkit headers. */
#define _POSIX_C_SOURCE 200809L

#include "bench_cublaslt.h"

#include <cublasLt.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
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
typedef const char *(*pfn_status_name)(cublasStatus_t);
typedef size_t (*pfn_version)(void);
typedef cublasStatus_t (*pfn_logger_callback)(cublasLtLoggerCallback_t);
typedef cublasStatus_t (*pfn_logger_mask)(int);
typedef cublasStatus_t (*pfn_matmul)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,
                                     cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t, const void *,
                                     const void *, cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
                                     const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t);

/* 32 MiB: cuBLAS's recommended workspace on Hopper (cublasSetWorkspace). Up to 8 algorithms are
 * asked of the heuristic: NVIDIA's fp8 sample notes that its first answer may still be refused
 * by cublasLtMatmul and that the next ones can be tried in turn. */
enum { BENCH_CUBLASLT_WORKSPACE = 32 << 20, BENCH_CUBLASLT_ALGOS = 8 };

struct bench_cublaslt {
    void *lib;
    char path[4096];
    cublasLtHandle_t handle;
    void *workspace;
    size_t version; /* cublasLtGetVersion, e.g. 130100 */
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
    pfn_status_name status_name;
};

/* cuBLASLt's own account of a refusal: its logger's last error line (mask 1 = errors), caught
 * by a callback so that the bench can print it beside the status. The logger is process-wide
 * and the bench calls cuBLASLt from one thread; cleared before each GEMM. */
static char lt_log[512];

static void lt_log_error(int level, const char *function, const char *message)
{
    (void)level;
    snprintf(lt_log, sizeof lt_log, "%s: %s", function ? function : "?", message ? message : "?");
}

static hum_status check(const bench_cublaslt *lt, cublasStatus_t s, const char *what)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return HUM_OK;
    return hum_fail(HUM_ERR_CUDA, "%s (%s, version %zu): %s (cuBLAS status %d)%s%s", what, lt->path, lt->version,
                    lt->status_name(s), (int)s, lt_log[0] ? "; cuBLASLt log: " : "", lt_log);
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
    lt->status_name = (pfn_status_name)dlsym(lt->lib, "cublasLtGetStatusName");
    pfn_version version = (pfn_version)dlsym(lt->lib, "cublasLtGetVersion");
    pfn_logger_callback logger_callback = (pfn_logger_callback)dlsym(lt->lib, "cublasLtLoggerSetCallback");
    pfn_logger_mask logger_mask = (pfn_logger_mask)dlsym(lt->lib, "cublasLtLoggerSetMask");
    if (!create || !lt->destroy || !lt->desc_create || !lt->desc_set || !lt->desc_destroy || !lt->layout_create ||
        !lt->layout_destroy || !lt->pref_create || !lt->pref_set || !lt->pref_destroy || !lt->heuristic ||
        !lt->matmul || !lt->status_name || !version || !logger_callback || !logger_mask) {
        st = hum_fail(HUM_ERR_UNSUPPORTED, "cuBLASLt: %s lacks an entry point of cublasLtMatmul's (cuBLAS 11.8 or "
                      "newer is needed for fp8)", lt->path);
        bench_cublaslt_close(lt);
        return st;
    }
    lt->version = version();
    /* Errors only, unless the user asked cuBLASLt for more through its own variables. */
    if (getenv("CUBLASLT_LOG_MASK") == NULL && getenv("CUBLASLT_LOG_LEVEL") == NULL &&
        logger_callback(lt_log_error) == CUBLAS_STATUS_SUCCESS)
        logger_mask(1);
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

/* The largest power of two, up to 256, that divides the address: the alignment the heuristic is
 * told each matrix has, so that it offers no algorithm that cublasLtMatmul then refuses for
 * these pointers (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES, whose default assumes 256). */
static uint32_t alignment_of(const void *p)
{
    uint32_t a = 256;
    while (a > 1 && (uintptr_t)p % a)
        a /= 2;
    return a;
}

hum_status bench_cublaslt_fp8_gemm(bench_cublaslt *lt, CUstream stream, hum_dtype out, int64_t m, int64_t n, int64_t k,
                                   const void *a, const void *w, const float *a_scale, const float *w_scale, void *c)
{
    /* cuBLAS guide, cublasLtMatmul, "To use tensor- or block-scaled FP8 kernels": e4m3 A and B
     * with D (and C, which must match it) in bfloat16 or float16 ... */
    cudaDataType type;
    if (out == HUM_DTYPE_FLOAT16)
        type = CUDA_R_16F;
    else if (out == HUM_DTYPE_BFLOAT16)
        type = CUDA_R_16BF;
    else
        return hum_fail(HUM_ERR_INVALID_ARG, "cuBLASLt fp8 baseline: output %s (expected float16 or bfloat16)",
                        hum_dtype_name(out));
    /* ... "pointers and matrix dimension must support 16-byte alignment" (Tensor Core Usage: the
     * leading dimensions, K for the e4m3 operands and N for C, and the pointers); the scale
     * pointers are held to 16 bytes as well, the rule the guide states for scale tensors. */
    if (m < 1 || n < 1 || k < 16 || k % 16 || n % 8 || m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
        return hum_fail(HUM_ERR_INVALID_ARG, "cuBLASLt fp8 baseline: M, N, K = %lld, %lld, %lld (each up to 2^31-1, "
                        "K a multiple of 16 and N of 8: 16-byte rows)", (long long)m, (long long)n, (long long)k);
    const struct { const char *name; const void *p; } ptrs[] = {
        {"A", a}, {"W", w}, {"C", c}, {"A's scale", a_scale}, {"W's scale", w_scale}};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        if (alignment_of(ptrs[i].p) < 16)
            return hum_fail(HUM_ERR_INVALID_ARG, "cuBLASLt fp8 baseline: %s at %p (expected 16-byte alignment)",
                            ptrs[i].name, ptrs[i].p);
    /* ... the "TN" form on sm_89/sm_90 (A transposed, B not), column-major. Row-major C[M][N] =
     * A[M][K] W[N][K]^T is column-major C^T (N x M, ld N) = W^T A^T: cuBLAS's A is W, stored as a
     * K x N column-major matrix (ld K) and transposed (TRANSA = T); cuBLAS's B is A, a K x M
     * column-major matrix (ld K), not transposed (TRANSB = N). So each scale goes with the
     * operand it scales: A_SCALE_POINTER is W's, B_SCALE_POINTER is A's (device pointers, one
     * float32 each: the default tensor-wide mode, SCALAR_32F). C is D (in place: C == D with one
     * layout, as cublasLtMatmul allows) and beta = 0, so C is not read. */
    cublasLtMatmulDesc_t desc = NULL;
    cublasLtMatrixLayout_t lw = NULL, la = NULL, lc = NULL;
    cublasLtMatmulPreference_t pref = NULL;
    const cublasOperation_t op_t = CUBLAS_OP_T, op_n = CUBLAS_OP_N;
    const uint64_t ws_bytes = BENCH_CUBLASLT_WORKSPACE;
    const uint32_t align_w = alignment_of(w), align_a = alignment_of(a), align_c = alignment_of(c);
    lt_log[0] = '\0';
    /* ... compute type CUBLAS_COMPUTE_32F and scale type (alpha, beta) CUDA_R_32F. */
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
    /* cuBLASLt's A is W, its B is A, and C and D are both the output (column-major C^T) */
    const struct {
        cublasLtMatmulPreferenceAttributes_t attr;
        uint32_t bytes;
        const char *name;
    } aligns[] = {{CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, align_w, "MIN_ALIGNMENT_A_BYTES"},
                  {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, align_a, "MIN_ALIGNMENT_B_BYTES"},
                  {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, align_c, "MIN_ALIGNMENT_C_BYTES"},
                  {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, align_c, "MIN_ALIGNMENT_D_BYTES"}};
    for (size_t i = 0; i < sizeof aligns / sizeof aligns[0] && st == HUM_OK; i++)
        st = check(lt, lt->pref_set(pref, aligns[i].attr, &aligns[i].bytes, sizeof aligns[i].bytes), aligns[i].name);
    /* The heuristic failing, or finding nothing, means this library has no fp8 kernel for the
     * shape on this GPU (before sm_89, or a contract above broken). Its answers are used only
     * where their state is CUBLAS_STATUS_SUCCESS (its other fields are not valid otherwise). */
    cublasLtMatmulHeuristicResult_t found[BENCH_CUBLASLT_ALGOS];
    int count = 0;
    if (st == HUM_OK)
        st = check(lt, lt->heuristic(lt->handle, desc, lw, la, lc, lc, pref, BENCH_CUBLASLT_ALGOS, found, &count),
                   "cublasLtMatmulAlgoGetHeuristic");
    int usable = 0;
    for (int i = 0; st == HUM_OK && i < count; i++)
        usable += found[i].state == CUBLAS_STATUS_SUCCESS;
    if (st == HUM_OK && usable == 0)
        st = hum_fail(HUM_ERR_UNSUPPORTED, "cuBLASLt (%s, version %zu) has no fp8 algorithm for M, N, K = %lld, "
                      "%lld, %lld on this GPU%s%s", lt->path, lt->version, (long long)m, (long long)n, (long long)k,
                      lt_log[0] ? "; cuBLASLt log: " : "", lt_log);
    /* cublasLtMatmul checks what the heuristic could not see (the pointers themselves); an
     * algorithm it refuses is passed over for the next, and the first refusal is the one
     * reported when all are. */
    const float one = 1.0f, zero = 0.0f;
    cublasStatus_t first = CUBLAS_STATUS_SUCCESS, s = CUBLAS_STATUS_NOT_SUPPORTED;
    char first_log[sizeof lt_log] = "";
    for (int i = 0; st == HUM_OK && i < count && s != CUBLAS_STATUS_SUCCESS; i++) {
        if (found[i].state != CUBLAS_STATUS_SUCCESS)
            continue;
        lt_log[0] = '\0';
        s = lt->matmul(lt->handle, desc, &one, w, lw, a, la, &zero, c, lc, c, lc, &found[i].algo, lt->workspace,
                       BENCH_CUBLASLT_WORKSPACE, (cudaStream_t)stream);
        if (s != CUBLAS_STATUS_SUCCESS && first == CUBLAS_STATUS_SUCCESS) {
            first = s;
            memcpy(first_log, lt_log, sizeof first_log);
        }
    }
    if (st == HUM_OK && s != CUBLAS_STATUS_SUCCESS) {
        memcpy(lt_log, first_log, sizeof lt_log);
        st = check(lt, first, "cublasLtMatmul (every algorithm the heuristic offered)");
    }
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
