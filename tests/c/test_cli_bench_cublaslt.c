/* The contract bench_cublaslt_fp8_gemm holds a call to before cuBLASLt sees it (cuBLAS guide,
 * cublasLtMatmul's fp8 requirements): float16 or bfloat16 out, 16-byte rows (K a multiple of 16,
 * N of 8) and every pointer, the two scale pointers included, 16-byte aligned; each refusal is
 * HUM_ERR_INVALID_ARG naming what is wrong. These checks come before the library is touched, so
 * they run without a GPU (no handle is needed to reach them). The layout and the call itself
 * are checked on the GPU by `hum bench` of an e4m3 layer. */
#include "bench_cublaslt.h"
#include "rt_test.h"

#include <stdint.h>

int main(void)
{
    /* addresses of the alignment cuMemAlloc gives, never dereferenced */
    const void *a = (const void *)(uintptr_t)0x10000, *w = (const void *)(uintptr_t)0x20000;
    void *c = (void *)(uintptr_t)0x30000;
    const float *scales = (const float *)(uintptr_t)0x40000;
    const float *w_scale = scales + BENCH_CUBLASLT_SCALE_ALIGN / sizeof(float);
    RT_CHECK(BENCH_CUBLASLT_SCALE_ALIGN % 16 == 0, "scale slots of %d bytes", BENCH_CUBLASLT_SCALE_ALIGN);
    RT_EXPECT_ERROR(bench_cublaslt_fp8_gemm(NULL, NULL, HUM_DTYPE_FLOAT8_E4M3FN, 16, 256, 256, a, w, scales, w_scale, c),
                    HUM_ERR_INVALID_ARG, "e4m3 output", "output float8_e4m3fn", "float16 or bfloat16");
    RT_EXPECT_ERROR(bench_cublaslt_fp8_gemm(NULL, NULL, HUM_DTYPE_BFLOAT16, 16, 256, 200, a, w, scales, w_scale, c),
                    HUM_ERR_INVALID_ARG, "K = 200", "K a multiple of 16");
    RT_EXPECT_ERROR(bench_cublaslt_fp8_gemm(NULL, NULL, HUM_DTYPE_FLOAT16, 16, 260, 256, a, w, scales, w_scale, c),
                    HUM_ERR_INVALID_ARG, "N = 260", "N of 8");
    /* the second of two packed floats: the scale layout of the bench before this check */
    RT_EXPECT_ERROR(bench_cublaslt_fp8_gemm(NULL, NULL, HUM_DTYPE_BFLOAT16, 16, 256, 256, a, w, scales, scales + 1, c),
                    HUM_ERR_INVALID_ARG, "W's scale 4 bytes on", "W's scale", "16-byte alignment");
    RT_EXPECT_ERROR(bench_cublaslt_fp8_gemm(NULL, NULL, HUM_DTYPE_BFLOAT16, 16, 256, 256, (const char *)a + 8, w,
                                            scales, w_scale, c),
                    HUM_ERR_INVALID_ARG, "A 8 bytes on", "A at", "16-byte alignment");
    RT_EXPECT_ERROR(bench_cublaslt_fp8_gemm(NULL, NULL, HUM_DTYPE_FLOAT16, 16, 256, 256, a, w, scales, w_scale,
                                            (char *)c + 2),
                    HUM_ERR_INVALID_ARG, "C 2 bytes on", "C at", "16-byte alignment");
    return rt_test_result("test_cli_bench_cublaslt");
}
