/* Timed calls (see bench_calls.h). */
#include "bench_calls.h"


#include <stdlib.h>

hum_status bench_enqueue_hum(void *call, CUstream stream)
{
    bench_hum_call *h = call;
    return h->ws ? hum_layer_forward_ws(h->layer, h->ws, stream, &h->a, NULL, &h->c)
                 : hum_layer_forward(h->layer, stream, &h->a, NULL, &h->c);
}

hum_status bench_enqueue_cublas(void *call, CUstream stream)
{
    bench_cublas_call *b = call;
    return bench_cublas_gemm(b->cublas, stream, b->dtype, b->m, b->n, b->k, b->a, b->w, b->c);
}

hum_status bench_enqueue_cublaslt(void *call, CUstream stream)
{
    bench_cublaslt_call *b = call;
    return bench_cublaslt_fp8_gemm(b->lt, stream, b->out, b->m, b->n, b->k, b->a, b->w, b->a_scale, b->w_scale,
                                   b->c);
}

hum_status bench_fp8_buffer(int32_t ordinal, int64_t count, bench_rng *rng, void **out)
{
    enum { BLOCK = 1 << 20 };
    *out = NULL;
    uint8_t *block = malloc(BLOCK);
    if (block == NULL)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "the fp8 block");
    for (int i = 0; i < BLOCK; i++) /* e4m3 codes of magnitude up to about 1, both signs */
        block[i] = (uint8_t)(bench_rng_next(rng) % 0x38) | (uint8_t)(bench_rng_next(rng) & 0x80);
    hum_status st = hum_device_alloc(ordinal, (size_t)count, out);
    for (int64_t done = 0; st == HUM_OK && done < count; done += BLOCK) {
        const int64_t len = count - done < BLOCK ? count - done : BLOCK;
        st = hum_memcpy_htod((uint8_t *)*out + done, block, (size_t)len);
    }
    free(block);
    if (st != HUM_OK) {
        hum_device_free(*out);
        *out = NULL;
    }
    return st;
}

hum_status bench_dense_weight(int32_t ordinal, hum_dtype dtype, int64_t n, int64_t k, bench_rng *rng, void **out)
{
    enum { BLOCK = 1 << 20 };
    *out = NULL;
    size_t total = (size_t)(n * k);
    uint16_t *block = malloc(BLOCK * sizeof *block);
    if (block == NULL)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "the cuBLAS weight block");
    hum_status st = bench_random_activations(rng, dtype, BLOCK, block);
    if (st == HUM_OK)
        st = hum_device_alloc(ordinal, total * 2, out);
    for (size_t done = 0; st == HUM_OK && done < total; done += BLOCK) {
        size_t len = total - done < BLOCK ? total - done : BLOCK;
        st = hum_memcpy_htod((uint16_t *)*out + done, block, len * 2);
    }
    free(block);
    if (st != HUM_OK) {
        hum_device_free(*out);
        *out = NULL;
    }
    return st;
}
