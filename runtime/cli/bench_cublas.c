/* cuBLAS through dlopen (see bench_cublas.h). Only its types come from the toolkit headers. */
#define _POSIX_C_SOURCE 200809L

#include "bench_cublas.h"


#include <cublas_api.h>
#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef cublasStatus_t (*pfn_create)(cublasHandle_t *);
typedef cublasStatus_t (*pfn_destroy)(cublasHandle_t);
typedef cublasStatus_t (*pfn_set_stream)(cublasHandle_t, cudaStream_t);
typedef cublasStatus_t (*pfn_set_workspace)(cublasHandle_t, void *, size_t);
typedef const char *(*pfn_status_string)(cublasStatus_t);
typedef cublasStatus_t (*pfn_gemm_ex)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                      const void *, const void *, cudaDataType, int, const void *, cudaDataType,
                                      int, const void *, void *, cudaDataType, int, cublasComputeType_t,
                                      cublasGemmAlgo_t);

enum { BENCH_CUBLAS_WORKSPACE = 32 << 20 };

struct bench_cublas {
    void *lib;
    char path[4096];
    cublasHandle_t handle;
    void *workspace;
    pfn_destroy destroy;
    pfn_set_stream set_stream;
    pfn_status_string status_string;
    pfn_gemm_ex gemm_ex;
};

/* Tries one candidate; appends it to `tried` for the error message. */
static void *try_open(const char *candidate, char *tried, size_t cap)
{
    void *lib = dlopen(candidate, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        size_t used = strlen(tried);
        snprintf(tried + used, cap - used, "%s%.1024s", used ? ", " : "", candidate);
    }
    return lib;
}

static void *open_library(char *path, size_t path_cap, char *tried, size_t tried_cap)
{
    static const char *const sonames[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    static const char *const patterns[] = {
        "/usr/local/cuda/lib64/libcublas.so.1[0-9]",
        "/usr/local/lib/python3*/dist-packages/nvidia/cublas/lib/libcublas.so.1[0-9]",
        "/usr/local/lib/python3*/site-packages/nvidia/cublas/lib/libcublas.so.1[0-9]",
        "/usr/lib/python3*/dist-packages/nvidia/cublas/lib/libcublas.so.1[0-9]",
        "/opt/torch/.venv/lib/python3*/site-packages/nvidia/cublas/lib/libcublas.so.1[0-9]",
    };
    void *lib = NULL;
    const char *env = getenv("HUM_CUBLAS");
    if (env != NULL && env[0] != '\0') {
        struct stat sb;
        if (stat(env, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            for (size_t i = 0; lib == NULL && i < sizeof sonames / sizeof sonames[0]; i++) {
                snprintf(path, path_cap, "%s/%s", env, sonames[i]);
                lib = try_open(path, tried, tried_cap);
            }
        } else {
            snprintf(path, path_cap, "%s", env);
            lib = try_open(path, tried, tried_cap);
        }
    }
    for (size_t i = 0; lib == NULL && i < sizeof sonames / sizeof sonames[0]; i++) {
        snprintf(path, path_cap, "%s", sonames[i]);
        lib = try_open(path, tried, tried_cap);
    }
    const char *cuda_home = getenv("CUDA_HOME");
    if (lib == NULL && cuda_home != NULL && cuda_home[0] != '\0') {
        for (size_t i = 0; lib == NULL && i < 2; i++) {
            snprintf(path, path_cap, "%s/lib64/%s", cuda_home, sonames[i]);
            lib = try_open(path, tried, tried_cap);
        }
    }
    for (size_t p = 0; lib == NULL && p < sizeof patterns / sizeof patterns[0]; p++) {
        glob_t g;
        if (glob(patterns[p], 0, NULL, &g) == 0) {
            /* glob sorts: the last match is the newest major version. */
            for (size_t i = g.gl_pathc; lib == NULL && i-- > 0;) {
                snprintf(path, path_cap, "%s", g.gl_pathv[i]);
                lib = try_open(path, tried, tried_cap);
            }
        } else {
            size_t used = strlen(tried);
            snprintf(tried + used, tried_cap - used, "%s%s", used ? ", " : "", patterns[p]);
        }
        globfree(&g);
    }
    return lib;
}

static hum_status check(const bench_cublas *b, cublasStatus_t s, const char *what)
{
    if (s == CUBLAS_STATUS_SUCCESS)
        return HUM_OK;
    return hum_fail(HUM_ERR_CUDA, "%s (%s): %s", what, b->path, b->status_string ? b->status_string(s) : "failed");
}

hum_status bench_cublas_open(int32_t ordinal, bench_cublas **out)
{
    *out = NULL;
    bench_cublas *b = calloc(1, sizeof *b);
    if (b == NULL)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "cuBLAS loader state");
    /* The workspace first: it also makes the device's primary context current for the handle. */
    hum_status st = hum_device_alloc(ordinal, BENCH_CUBLAS_WORKSPACE, &b->workspace);
    if (st != HUM_OK) {
        free(b);
        return st;
    }
    char tried[4096] = "";
    b->lib = open_library(b->path, sizeof b->path, tried, sizeof tried);
    if (b->lib == NULL) {
        bench_cublas_close(b);
        return hum_fail(HUM_ERR_UNSUPPORTED, "no cuBLAS library found (tried %s; set HUM_CUBLAS to its path)", tried);
    }
    pfn_create create = (pfn_create)dlsym(b->lib, "cublasCreate_v2");
    pfn_set_workspace set_workspace = (pfn_set_workspace)dlsym(b->lib, "cublasSetWorkspace_v2");
    b->destroy = (pfn_destroy)dlsym(b->lib, "cublasDestroy_v2");
    b->set_stream = (pfn_set_stream)dlsym(b->lib, "cublasSetStream_v2");
    b->status_string = (pfn_status_string)dlsym(b->lib, "cublasGetStatusString");
    b->gemm_ex = (pfn_gemm_ex)dlsym(b->lib, "cublasGemmEx");
    if (create == NULL || set_workspace == NULL || b->destroy == NULL || b->set_stream == NULL ||
        b->gemm_ex == NULL) {
        st = hum_fail(HUM_ERR_UNSUPPORTED, "%s lacks cublasCreate_v2, cublasSetWorkspace_v2, cublasSetStream_v2 "
                                           "or cublasGemmEx (cuBLAS 11.0 or newer is needed)", b->path);
        bench_cublas_close(b);
        return st;
    }
    if ((st = check(b, create(&b->handle), "cublasCreate")) != HUM_OK ||
        (st = check(b, set_workspace(b->handle, b->workspace, BENCH_CUBLAS_WORKSPACE), "cublasSetWorkspace")) !=
            HUM_OK) {
        bench_cublas_close(b);
        return st;
    }
    *out = b;
    return HUM_OK;
}

void bench_cublas_close(bench_cublas *b)
{
    if (b == NULL)
        return;
    if (b->handle != NULL)
        b->destroy(b->handle);
    /* The library stays loaded: cuBLAS registers process-exit work of its own. */
    hum_device_free(b->workspace);
    free(b);
}

const char *bench_cublas_path(const bench_cublas *b)
{
    return b->path;
}

hum_status bench_cublas_gemm(bench_cublas *b, CUstream stream, hum_dtype dtype, int64_t m, int64_t n, int64_t k,
                             const void *a, const void *w, void *c)
{
    cudaDataType type;
    if (dtype == HUM_DTYPE_FLOAT16)
        type = CUDA_R_16F;
    else if (dtype == HUM_DTYPE_BFLOAT16)
        type = CUDA_R_16BF;
    else
        return hum_fail(HUM_ERR_INVALID_ARG, "cuBLAS baseline: dtype %s (expected float16 or bfloat16)",
                        hum_dtype_name(dtype));
    if (m < 1 || n < 1 || k < 1 || m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
        return hum_fail(HUM_ERR_INVALID_ARG, "cuBLAS baseline: M, N, K = %lld, %lld, %lld (each 1..2^31-1)",
                        (long long)m, (long long)n, (long long)k);
    const float one = 1.0f, zero = 0.0f;
    hum_status st = check(b, b->set_stream(b->handle, (cudaStream_t)stream), "cublasSetStream");
    if (st != HUM_OK)
        return st;
    /* cuBLAS is column-major: the row-major C[M][N] is the column-major N x M product of W
     * (row-major [N][K], read transposed) and A (row-major [M][K], column-major K x M). */
    return check(b,
                 b->gemm_ex(b->handle, CUBLAS_OP_T, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, w, type, (int)k, a,
                            type, (int)k, &zero, c, type, (int)n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "cublasGemmEx");
}
