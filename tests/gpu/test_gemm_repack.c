/* The preprocessing kernels (kernels/prep/repack.cu) against their CPU twins
 * (runtime/src/quant/repack.c): bit-identical outputs for weights of every width 1..8 (one repack
 * instantiation each) on padded shapes, scales of every scale dtype into float16 and bfloat16
 * (with exponent adjustments and BLOCK rows), and integer zero points packed along N. Skipped
 * (77) without a GPU. */
#include "gemm_test.h"
#include "hum/hum_tools.h"
#include "repack.h"
#include "jit.h"
#include "launch.h"
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kernels {
    hum_kernel *repack[9]; /* hum_repack_weight<b> at [b], b = 1..8 */
    hum_kernel *params;
} kernels;

/* The nine kernels, compiled side by side (requests 0..7: widths 1..8, request 8: params). */
static int load(const char *arch, kernels *k)
{
    char names[8][32];
    hum_jit_request reqs[9];
    hum_jit_result res[9];
    memset(reqs, 0, sizeof reqs);
    for (int i = 0; i < 9; i++) {
        reqs[i].source = "kernels/prep/repack.cu";
        reqs[i].arch = arch;
        if (i < 8)
            snprintf(names[i], sizeof names[i], "hum_repack_weight<%d>", i + 1);
        reqs[i].kernel_name = i < 8 ? names[i] : "hum_prep_params";
    }
    if (!QUANT_CHECK(hum_jit_compile_many(NULL, reqs, 9, res, 0) == HUM_OK, "%s", hum_last_error()))
        return 0;
    int ok = 1;
    for (int i = 0; i < 9; i++) {
        hum_kernel **slot = i < 8 ? &k->repack[i + 1] : &k->params;
        ok &= QUANT_CHECK(hum_kernel_load(0, &res[i], 0, slot) == HUM_OK, "%s: %s", reqs[i].kernel_name,
                          hum_last_error());
        hum_jit_result_free(&res[i]);
    }
    return ok;
}

static void *to_device(const void *host, size_t bytes)
{
    void *d = NULL;
    if (hum_device_alloc(0, bytes, &d) != HUM_OK || (host && hum_memcpy_htod(d, host, bytes) != HUM_OK))
        QUANT_CHECK(0, "device buffer of %zu bytes: %s", bytes, hum_last_error());
    return d;
}

static void check_weights(const kernels *k, quant_rng *rng)
{
    static const int64_t shapes[][2] = {{64, 16}, {200, 320}, {136, 203}, {1000, 1024}};
    for (int a8 = 0; a8 <= 2; a8++)
    for (int bits = a8 == 2 ? 4 : 1; bits <= (a8 == 2 ? 4 : 8); bits++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            const int64_t n = shapes[s][0], kk = shapes[s][1];
            const int64_t np = (n + 63) / 64 * 64, kp = (kk + 127) / 128 * 128;
            const int64_t row_words = (kk * bits + 31) / 32, words = hum_repack_words(np, kp, bits);
            uint32_t *src = malloc((size_t)(n * row_words) * 4), *cpu = malloc((size_t)words * 4);
            uint32_t *gpu = malloc((size_t)words * 4);
            for (int64_t i = 0; i < n * row_words; i++)
                src[i] = (uint32_t)quant_rng_next(rng);
            QUANT_CHECK(hum_repack_weight_cpu(src, row_words, n, kk, np, kp, bits, a8, cpu) == HUM_OK, "%s",
                        hum_last_error());
            void *d_src = to_device(src, (size_t)(n * row_words) * 4), *d_dst = to_device(NULL, (size_t)words * 4);
            int ni = (int)n, ki = (int)kk, npi = (int)np, kpi = (int)kp;
            int64_t rw = row_words;
            void *args[] = {&d_src, &rw, &ni, &ki, &npi, &kpi, &a8, &d_dst};
            hum_launch_config cfg = {.grid = {64, 1, 1}, .block = {256, 1, 1}};
            QUANT_CHECK(hum_memset_d8(d_dst, 0xA5, (size_t)words * 4) == HUM_OK &&
                            hum_kernel_launch(k->repack[bits], &cfg, args) == HUM_OK &&
                            hum_stream_synchronize(NULL) == HUM_OK &&
                            hum_memcpy_dtoh(gpu, d_dst, (size_t)words * 4) == HUM_OK,
                        "repack uint%d: %s", bits, hum_last_error());
            int64_t diff = 0;
            for (int64_t i = 0; i < words; i++)
                diff += gpu[i] != cpu[i];
            QUANT_CHECK(diff == 0, "repack uint%d a8=%d %lldx%lld: %lld of %lld words differ between GPU and CPU", bits,
                        a8, (long long)n, (long long)kk, (long long)diff, (long long)words);
            hum_device_free(d_src);
            hum_device_free(d_dst);
            free(src);
            free(cpu);
            free(gpu);
        }
}

static void check_params(const kernels *k, quant_rng *rng)
{
    static const hum_dtype dtypes[] = {HUM_DTYPE_FLOAT16, HUM_DTYPE_BFLOAT16, HUM_DTYPE_FLOAT32,
                                       HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT8_E5M2, HUM_DTYPE_FLOAT8_E8M0};
    const int64_t n = 200, groups = 5, np = 256, gp = 6;
    uint16_t cpu[6 * 256], gpu[6 * 256];
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0] + 1; d++) /* the last round: packed zero points */
        for (int bf16 = 0; bf16 <= 1; bf16++)
            for (int n_div = 1; n_div <= 128; n_div *= 128) {
                const int packed = d == sizeof dtypes / sizeof dtypes[0] ? 1 + (int)quant_rng_below(rng, 8) : 0;
                if (packed && n_div > 1)
                    continue;
                const hum_dtype dt = packed ? HUM_DTYPE_INT32 : dtypes[d];
                const int64_t rows = packed ? (n * packed + 31) / 32 : (n + n_div - 1) / n_div;
                const size_t bytes = (size_t)(rows * groups) * (packed ? 4 : (size_t)hum_dtype_code_size(dt));
                uint8_t *raw = malloc(bytes);
                for (size_t i = 0; i < bytes; i++) /* every bit pattern, NaN and inf included */
                    raw[i] = (uint8_t)quant_rng_next(rng);
                const int adj = (int)quant_rng_below(rng, 41) - 20;
                QUANT_CHECK(hum_prep_params_cpu(raw, dt, packed, n, groups, n_div, np, gp, bf16, adj, cpu) == HUM_OK,
                            "%s", hum_last_error());
                void *d_raw = to_device(raw, bytes), *d_out = to_device(NULL, sizeof gpu);
                uint32_t dtc = dt;
                int ni = (int)n, g = (int)groups, nd = n_div, npi = (int)np, gpi = (int)gp, bf = bf16, a = adj,
                    pb = packed;
                void *args[] = {&d_raw, &dtc, &pb, &ni, &g, &nd, &npi, &gpi, &bf, &a, &d_out};
                hum_launch_config cfg = {.grid = {8, 1, 1}, .block = {128, 1, 1}};
                QUANT_CHECK(hum_kernel_launch(k->params, &cfg, args) == HUM_OK &&
                                hum_stream_synchronize(NULL) == HUM_OK &&
                                hum_memcpy_dtoh(gpu, d_out, sizeof gpu) == HUM_OK,
                            "prep %s: %s", hum_dtype_name(dt), hum_last_error());
                int64_t diff = 0;
                for (int64_t i = 0; i < gp * np; i++)
                    diff += gpu[i] != cpu[i];
                QUANT_CHECK(diff == 0, "prep %s%s -> %s, n_div %d, 2^%d: %lld values differ", hum_dtype_name(dt),
                            packed ? " (packed zero points)" : "", bf16 ? "bfloat16" : "float16", n_div, adj,
                            (long long)diff);
                hum_device_free(d_raw);
                hum_device_free(d_out);
                free(raw);
            }
}

int main(void)
{
    if (!gemm_test_have_gpu())
        return 77;
    quant_rng rng = quant_rng_fresh("test_gemm_repack");
    hum_device_info dev;
    char arch[16];
    kernels k;
    memset(&k, 0, sizeof k);
    if (QUANT_CHECK(hum_device_query(0, &dev) == HUM_OK && hum_arch_for_device(&dev, arch, sizeof arch) == HUM_OK,
                    "%s", hum_last_error()) &&
        load(arch, &k)) {
        check_weights(&k, &rng);
        check_params(&k, &rng);
    }
    for (int b = 1; b <= 8; b++)
        hum_kernel_destroy(k.repack[b]);
    hum_kernel_destroy(k.params);
    return quant_test_result("test_gemm_repack");
}
