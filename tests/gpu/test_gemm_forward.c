/* hum_layer_forward's contract on a GPU: bad tensors are refused with nothing launched (the
 * poisoned output stays untouched), M = 0 is a no-op, strided A and C rows work, repeated
 * runs give bit-identical results (stream-K slices are serialised and the locks reset
 * themselves), preparing twice is harmless, and the host overhead of one forward is measured
 * (target < 5 us; the check allows 50). Skipped (77) without a GPU. */
#include "gemm_test.h"
#include "hum/hum_tools.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    if (!gemm_test_have_gpu())
        return 77;
    quant_rng rng = quant_rng_fresh("test_gemm_forward");
    hum_runtime *rt = NULL;
    hum_layer *layer = NULL;
    hum_layer_spec spec;
    hum_standard_weight w;
    memset(&w, 0, sizeof w);
    const int64_t n = 2048, k = 4096, m = 16, lda = k + 8, ldc = n + 2;
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error()) ||
        !QUANT_CHECK(hum_layer_spec_parse("n=2048,k=4096,w=uint4,a=float16,group=128,bias=1", &spec) == HUM_OK &&
                         hum_layer_spec_weight(&spec, quant_rng_next(&rng), &w) == HUM_OK,
                     "%s", hum_last_error()) ||
        !QUANT_CHECK(hum_layer_from_standard(rt, &w, NULL, &layer) == HUM_OK, "%s", hum_last_error()) ||
        !QUANT_CHECK(hum_layer_prepare(layer) == HUM_OK && hum_layer_prepare(layer) == HUM_OK, "prepare twice: %s",
                     hum_last_error()))
        goto done;
    hum_layer_info info;
    QUANT_CHECK(hum_layer_get_info(layer, &info) == HUM_OK && info.prepared && info.entry_count >= 1 &&
                    info.device_bytes >= n * k / 2,
                "info: prepared %d, %d entries, %lld device bytes", info.prepared, info.entry_count,
                (long long)info.device_bytes);
    printf("  prepare %.1f ms (compile %.1f ms, %d compiled, %d cached), policy %s, %d kernels\n", info.prepare_ms,
           info.compile_ms, info.kernels_compiled, info.kernels_cached, info.policy_name, info.entry_count);
    /* the phases are nested intervals of the prepare: plan, then compile + load beside context +
     * upload (each of the copies and launches takes time, so upload_ms is never 0) */
    const double side = info.compile_ms + info.load_ms > info.context_ms + info.upload_ms
                            ? info.compile_ms + info.load_ms
                            : info.context_ms + info.upload_ms;
    QUANT_CHECK(info.plan_ms > 0 && info.upload_ms > 0 && info.load_ms > 0 && info.context_ms >= 0 &&
                    info.plan_ms + side <= info.prepare_ms,
                "phases: plan %.3f, compile %.3f + load %.3f | context %.3f + upload %.3f ms, prepare %.3f ms",
                info.plan_ms, info.compile_ms, info.load_ms, info.context_ms, info.upload_ms, info.prepare_ms);

    /* strided rows: A with K + 8 elements per row, C with N + 2 */
    uint16_t *a_codes = malloc((size_t)(m * lda) * 2), *c1 = malloc((size_t)(m * ldc) * 2),
             *c2 = malloc((size_t)(m * ldc) * 2);
    double *a = malloc((size_t)(m * k) * sizeof *a), *ref = malloc((size_t)(m * n) * sizeof *ref),
           *got = malloc((size_t)(m * n) * sizeof *got);
    uint16_t *packed = malloc((size_t)(m * k) * 2);
    quant_fill_activations(&rng, HUM_DTYPE_FLOAT16, m * k, 1.0, packed, a);
    for (int64_t r = 0; r < m; r++)
        memcpy(a_codes + r * lda, packed + r * k, (size_t)k * 2);
    hum_reference_gemm(&w, 0, a, m, ref);
    void *d_a = NULL, *d_c = NULL;
    QUANT_CHECK(hum_device_alloc(0, (size_t)(m * lda) * 2, &d_a) == HUM_OK &&
                    hum_device_alloc(0, (size_t)(m * ldc) * 2, &d_c) == HUM_OK &&
                    hum_memcpy_htod(d_a, a_codes, (size_t)(m * lda) * 2) == HUM_OK,
                "%s", hum_last_error());
    hum_tensor ta = gemm_test_matrix(d_a, HUM_DTYPE_FLOAT16, m, k, lda),
               tc = gemm_test_matrix(d_c, HUM_DTYPE_FLOAT16, m, n, ldc);
    for (int run = 0; run < 2; run++) {
        hum_memset_d8(d_c, 0xFF, (size_t)(m * ldc) * 2);
        QUANT_CHECK(hum_layer_forward(layer, NULL, &ta, NULL, &tc) == HUM_OK && hum_stream_synchronize(NULL) == HUM_OK,
                    "strided forward: %s", hum_last_error());
        hum_memcpy_dtoh(run ? c2 : c1, d_c, (size_t)(m * ldc) * 2);
    }
    for (int64_t r = 0; r < m; r++)
        for (int64_t c = 0; c < n; c++) {
            uint16_t code = c1[r * ldc + c];
            hum_dtype_decode(HUM_DTYPE_FLOAT16, &code, 1, &got[r * n + c]);
        }
    const double err = quant_rel_error(got, ref, m * n);
    QUANT_CHECK(err < 1e-2, "strided A and C: relative error %.3e", err);
    QUANT_CHECK(!memcmp(c1, c2, (size_t)(m * ldc) * 2), "two runs differ: stream-K must be deterministic");
    QUANT_CHECK(c1[ldc - 1] == 0xFFFF && c1[ldc - 2] == 0xFFFF, "the padding between C rows is not written");

    /* refusals: nothing is launched */
    hum_memset_d8(d_c, 0xFF, (size_t)(m * ldc) * 2);
    hum_tensor bad = ta;
    bad.dtype = HUM_DTYPE_BFLOAT16;
    QUANT_CHECK(hum_layer_forward(layer, NULL, &bad, NULL, &tc) == HUM_ERR_INVALID_ARG &&
                    strstr(hum_last_error(), "bfloat16"),
                "wrong dtype: %s", hum_last_error());
    bad = ta;
    bad.shape[1] = k - 1;
    QUANT_CHECK(hum_layer_forward(layer, NULL, &bad, NULL, &tc) == HUM_ERR_INVALID_ARG, "wrong K");
    bad = ta;
    bad.strides[0] = k + 1;
    QUANT_CHECK(hum_layer_forward(layer, NULL, &bad, NULL, &tc) == HUM_ERR_INVALID_ARG &&
                    strstr(hum_last_error(), "16-byte"),
                "misaligned rows: %s", hum_last_error());
    bad = ta;
    bad.strides[1] = -1; /* was taken for contiguous */
    QUANT_CHECK(hum_layer_forward(layer, NULL, &bad, NULL, &tc) == HUM_ERR_INVALID_ARG,
                "negative inner stride refused");
    bad = ta;
    bad.memory = HUM_MEMORY_HOST;
    QUANT_CHECK(hum_layer_forward(layer, NULL, &bad, NULL, &tc) == HUM_ERR_INVALID_ARG, "host memory refused");
    hum_tensor short_c = tc;
    short_c.shape[0] = m - 1;
    QUANT_CHECK(hum_layer_forward(layer, NULL, &ta, NULL, &short_c) == HUM_ERR_INVALID_ARG, "row count mismatch");
    QUANT_CHECK(hum_layer_forward(layer, NULL, &ta, &ta, &tc) == HUM_ERR_INVALID_ARG, "a_scale refused");
    hum_tensor empty_a = ta, empty_c = tc;
    empty_a.shape[0] = empty_c.shape[0] = 0;
    QUANT_CHECK(hum_layer_forward(layer, NULL, &empty_a, NULL, &empty_c) == HUM_OK, "M = 0: %s", hum_last_error());
    hum_stream_synchronize(NULL);
    hum_memcpy_dtoh(c1, d_c, (size_t)(m * ldc) * 2);
    int64_t touched = 0;
    for (int64_t i = 0; i < m * ldc; i++)
        touched += c1[i] != 0xFFFF;
    QUANT_CHECK(touched == 0, "%lld outputs written by refused calls", (long long)touched);

    /* host overhead: launches queued back to back, no synchronisation inside the loop */
    hum_tensor one_a = ta, one_c = tc;
    one_a.shape[0] = one_c.shape[0] = 1;
    for (int i = 0; i < 50; i++)
        hum_layer_forward(layer, NULL, &one_a, NULL, &one_c);
    hum_stream_synchronize(NULL);
    const int calls = 200; /* few enough that the launch queue never fills */
    const double t0 = gemm_test_now_us();
    for (int i = 0; i < calls; i++)
        hum_layer_forward(layer, NULL, &one_a, NULL, &one_c);
    const double per_call = (gemm_test_now_us() - t0) / calls;
    hum_stream_synchronize(NULL);
    printf("  hum_layer_forward host overhead: %.2f us per call (M = 1)\n", per_call);
    QUANT_CHECK(per_call < 50.0, "host overhead %.1f us per forward", per_call);

    hum_device_free(d_a);
    hum_device_free(d_c);
    free(a_codes);
    free(c1);
    free(c2);
    free(a);
    free(ref);
    free(got);
    free(packed);
done:
    hum_layer_destroy(layer);
    hum_standard_free(&w);
    hum_runtime_destroy(rt);
    return quant_test_result("test_gemm_forward");
}
