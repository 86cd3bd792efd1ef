/* The check of stream-K slices summed in the workspace (tests/gpu/test_gemm_workspace.c,
 * gemm_test_reordered_apart), on the CPU: a bfloat16 GEMM of the GPU test's shape (uint4 weights,
 * group 128, K = 8192) whose products are summed in float32 as one running sum over K (a whole
 * tile) and as 16 slices summed apart, then added (the workspace's order), has no output apart;
 * the same with a slice lost, a slice added twice, or one 64-wide k-block of a slice lost has
 * outputs apart. The outputs more than one ulp apart (the rule before the bound, which the two
 * orders may break near cancellation) are printed. */
#include "gemm_test.h"

#include <stdlib.h>
#include <string.h>

enum { M = 4, N = 1024, K = 8192, SLICES = 16, SLICE = K / SLICES, BLOCK = 64 };

typedef enum fault { FAULT_NONE, FAULT_SLICE_LOST, FAULT_SLICE_TWICE, FAULT_BLOCK_LOST } fault;

/* The products of row i of a and row j of w (float32, as the kernel forms them) summed in
 * float32: whole (one running sum) or sliced (each slice's running sum, then the slices added
 * in order, with `f` done to slice 5), rounded to bfloat16 into codes[i * N + j]. */
static void gemm_f32(const double *a, const double *w, int sliced, fault f, uint16_t *codes)
{
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            float sum = 0.0f;
            for (int s = 0; s < SLICES; s++) {
                float part = 0.0f;
                const int lost = sliced && s == 5 && f == FAULT_BLOCK_LOST;
                for (int64_t t = s * SLICE + (lost ? BLOCK : 0); t < (s + 1) * SLICE; t++) {
                    const float p = (float)(a[i * K + t] * w[j * K + t]);
                    if (sliced)
                        part += p;
                    else
                        sum += p;
                }
                if (sliced && !(s == 5 && f == FAULT_SLICE_LOST))
                    sum += s == 5 && f == FAULT_SLICE_TWICE ? part + part : part;
            }
            const double c = sum;
            hum_dtype_encode(HUM_DTYPE_BFLOAT16, &c, 1, &codes[i * N + j]);
        }
}

int main(void)
{
    quant_rng rng = quant_rng_fresh("test_gemm_reorder");
    static const struct {
        fault f;
        const char *what;
    } faults[] = {{FAULT_SLICE_LOST, "slice 5 lost"},
                  {FAULT_SLICE_TWICE, "slice 5 added twice"},
                  {FAULT_BLOCK_LOST, "the first 64 columns of slice 5 lost"}};
    hum_layer_spec spec;
    hum_standard_weight w;
    uint16_t *a_codes = malloc((size_t)(M * K) * 2), *whole = malloc(M * N * 2), *sliced = malloc(M * N * 2);
    double *a = malloc((size_t)(M * K) * sizeof *a), *wd = malloc((size_t)(N * K) * sizeof *wd);
    double *s = malloc(M * N * sizeof *s);
    if (!QUANT_CHECK(a_codes && whole && sliced && a && wd && s, "host buffers") ||
        !QUANT_CHECK(hum_layer_spec_parse("n=1024,k=8192,w=uint4,a=bfloat16,group=128", &spec) == HUM_OK &&
                         hum_layer_spec_weight(&spec, quant_rng_next(&rng), &w) == HUM_OK &&
                         hum_reference_dequant(&w, 0, wd) == HUM_OK,
                     "weight: %s", hum_last_error()) ||
        quant_fill_activations(&rng, HUM_DTYPE_BFLOAT16, M * K, 1.0, a_codes, a) != 0 ||
        gemm_test_abs_products(&w, a, M, s) != 0)
        return quant_test_result("test_gemm_reorder");
    gemm_f32(a, wd, 0, FAULT_NONE, whole);
    gemm_f32(a, wd, 1, FAULT_NONE, sliced);
    const int64_t apart = gemm_test_reordered_apart(HUM_DTYPE_BFLOAT16, whole, sliced, s, K, M * N);
    printf("  whole against 16 slices: %lld of %d outputs more than one ulp apart, %lld beyond the bound\n",
           (long long)gemm_test_reordered_apart(HUM_DTYPE_BFLOAT16, whole, sliced, s, 0, M * N), M * N,
           (long long)apart);
    QUANT_CHECK(apart == 0, "16 slices: %lld of %d outputs apart from the whole sums", (long long)apart, M * N);
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
        gemm_f32(a, wd, 1, faults[i].f, sliced);
        const int64_t n = gemm_test_reordered_apart(HUM_DTYPE_BFLOAT16, whole, sliced, s, K, M * N);
        printf("  %s: %lld of %d outputs apart\n", faults[i].what, (long long)n, M * N);
        QUANT_CHECK(n > 0, "%s: no output apart", faults[i].what);
    }
    /* a non-finite output (never written: C poisoned) is apart whatever the bound */
    memcpy(sliced, whole, M * N * 2);
    sliced[7] = 0xFFFF;
    QUANT_CHECK(gemm_test_reordered_apart(HUM_DTYPE_BFLOAT16, whole, sliced, s, K, M * N) == 1,
                "an unwritten output not apart");
    hum_standard_free(&w);
    free(a_codes);
    free(whole);
    free(sliced);
    free(a);
    free(wd);
    free(s);
    return quant_test_result("test_gemm_reorder");
}
