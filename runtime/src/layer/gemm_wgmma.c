/* Shape rules of the wgmma GEMM variant (see gemm_wgmma.h). */
#include "gemm_wgmma.h"

#include "internal.h"

hum_status hum_gemm_wgmma_check(const hum_gemm_variant *v)
{
#define RULE(cond, ...)                                                          \
    do {                                                                         \
        if (!(cond))                                                             \
            return hum_fail(HUM_ERR_UNSUPPORTED, "wgmma kernel: " __VA_ARGS__); \
    } while (0)
    RULE(v->k_real % 8 == 0, "K %lld is not a multiple of 8", (long long)v->k_real);
    RULE(v->warp_m == v->block_m && v->warp_k == v->block_k,
         "warp_m %d and warp_k %d must equal block_m %d and block_k %d", v->warp_m, v->warp_k, v->block_m,
         v->block_k);
    RULE(v->block_m % 64 == 0 && v->block_m <= 256, "block_m %d (expected 64, 128, 192 or 256)", v->block_m);
    RULE((v->block_n / v->warp_n) % 4 == 0, "block_n %d / warp_n %d is not a whole number of warpgroups",
         v->block_n, v->warp_n);
    /* Registers: at most 128 accumulators and 2 slabs per thread and 2 warpgroups per CTA keep
     * ptxas within 255 registers without spills or serialized wgmma (checked with -Xptxas -v). */
    RULE(v->warp_n <= 32 && v->warp_n / 16 * v->block_m <= 256 && v->block_n / v->warp_n <= 8,
         "warp_n %d, block_m %d, block_n %d: at most 2 slabs (warp_n 32), 128 accumulators (warp_n / 16 * "
         "block_m <= 256) and 2 warpgroups (block_n / warp_n <= 8) per thread",
         v->warp_n, v->block_m, v->block_n);
    RULE(v->stages >= 3, "%d stages (at least 3)", v->stages);
    const int64_t tile = (int64_t)v->block_m * (v->block_n * 2 + 16);
    const int64_t pipeline = hum_gemm_pipeline_bytes(v);
    RULE(tile <= pipeline, "the %lld-byte epilogue tile exceeds the %lld bytes of the pipeline", (long long)tile,
         (long long)pipeline);
    return HUM_OK;
#undef RULE
}
