/* The self-check: kernels/selfcheck.cu compiled through the cache, run, and verified against a
 * host computation of every element. */
#include "cuda_driver.h"
#include "internal.h"
#include "launch.h"
#include "jit.h"
#include "selfcheck.h"
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    SELFCHECK_BLOCK = 256,
    /* Not a multiple of the block, so the bounds check of the last block is exercised too. */
    SELFCHECK_ELEMENTS = 65536 + 77
};

/* Twin of selfcheck_value() in kernels/selfcheck.cu. */
static uint32_t selfcheck_value(uint32_t i, uint32_t seed)
{
    uint32_t x = i * 0x9E3779B1u + seed;
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    return x;
}

hum_status hum_selfcheck_compile(const char *cache_dir, const char *arch, uint32_t seed, hum_jit_result *out)
{
    char constants[128], name[64];
    snprintf(constants, sizeof constants, "#pragma once\nconstexpr unsigned int kSelfcheckSeed = 0x%08xu;\n", seed);
    snprintf(name, sizeof name, "hum_selfcheck<%d>", SELFCHECK_BLOCK);
    hum_jit_request req = {.source = "kernels/selfcheck.cu", .constants = constants, .kernel_name = name, .arch = arch};
    return hum_jit_compile(cache_dir, &req, out);
}

/* Compares the device's output with the host's values; HUM_ERR_INTERNAL on any difference. */
static hum_status verify(const uint32_t *values, const float *halves, uint32_t n, uint32_t seed, const char *where)
{
    int64_t wrong = 0, first = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (values[i] != selfcheck_value(i, seed) || halves[i] != (float)(i % 2048) * 0.5f) {
            if (first < 0)
                first = i;
            wrong++;
        }
    }
    if (!wrong)
        return HUM_OK;
    return hum_fail(
        HUM_ERR_INTERNAL,
        "self-check on %s: %lld of %u elements wrong; first: element %lld is (0x%08x, %g), expected (0x%08x, %g)",
        where, (long long)wrong, n, (long long)first, values[first], halves[first],
        selfcheck_value((uint32_t)first, seed), (float)(first % 2048) * 0.5f);
}

hum_status hum_selfcheck_run(int32_t ordinal, const char *cache_dir, uint32_t seed, hum_selfcheck_report *out)
{
    if (!out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_selfcheck_run: out is NULL");
    memset(out, 0, sizeof *out);
    hum_device_info info;
    hum_status st = hum_device_query(ordinal, &info);
    if (st != HUM_OK || (st = hum_arch_for_device(&info, out->arch, sizeof out->arch)) != HUM_OK)
        return st;
    char where[320];
    snprintf(where, sizeof where, "device %d (%s, %s)", ordinal, info.name, out->arch);

    const uint32_t n = SELFCHECK_ELEMENTS;
    const size_t bytes = (size_t)n * 4;
    hum_jit_result compiled;
    hum_kernel *kernel = NULL;
    void *d_values = NULL, *d_halves = NULL;
    uint32_t *values = malloc(bytes);
    float *halves = malloc(bytes);
    CUstream stream = NULL;
    const hum_cuda_api *cu = hum_cuda();
    if ((st = hum_selfcheck_compile(cache_dir, out->arch, seed, &compiled)) != HUM_OK)
        goto done;
    out->cache_hit = compiled.cache_hit;
    out->compile_ms = compiled.milliseconds;
    if (!values || !halves) {
        st = hum_fail(HUM_ERR_OUT_OF_MEMORY, "self-check: out of host memory");
        goto done;
    }
    uint32_t grid = (n + SELFCHECK_BLOCK - 1) / SELFCHECK_BLOCK, smem = SELFCHECK_BLOCK * 4;
    if ((st = hum_kernel_load(ordinal, &compiled, (int32_t)smem, &kernel)) != HUM_OK ||
        (st = hum_device_alloc(ordinal, bytes, &d_values)) != HUM_OK ||
        (st = hum_device_alloc(ordinal, bytes, &d_halves)) != HUM_OK ||
        /* Poisoned, so that an element the kernel skips cannot pass by accident. */
        (st = hum_memset_d8(d_values, 0xA5, bytes)) != HUM_OK ||
        (st = hum_memset_d8(d_halves, 0xFF, bytes)) != HUM_OK ||
        (st = hum_cuda_check(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate")) != HUM_OK)
        goto done;
    uint32_t count = n;
    void *args[] = {&d_values, &d_halves, &count};
    hum_launch_config launch = {
        .grid = {grid}, .block = {SELFCHECK_BLOCK}, .dynamic_smem_bytes = smem, .stream = stream};
    if ((st = hum_kernel_launch(kernel, &launch, args)) != HUM_OK || (st = hum_stream_synchronize(stream)) != HUM_OK ||
        (st = hum_memcpy_dtoh(values, d_values, bytes)) != HUM_OK ||
        (st = hum_memcpy_dtoh(halves, d_halves, bytes)) != HUM_OK)
        goto done;
    if ((st = verify(values, halves, n, seed, where)) == HUM_OK)
        out->elements = n;
done:
    if (st != HUM_OK && strstr(hum_last_error(), "self-check") == NULL)
        hum_fail_context(st, "self-check on %s", where);
    if (stream)
        cu->cuStreamDestroy(stream);
    hum_device_free(d_halves);
    hum_device_free(d_values);
    hum_kernel_destroy(kernel);
    hum_jit_result_free(&compiled);
    free(values);
    free(halves);
    return st;
}
