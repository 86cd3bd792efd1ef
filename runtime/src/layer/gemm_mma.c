/* Shape rules of the mma.sync GEMM family (see gemm_mma.h). */
#include "gemm_mma.h"

#include "internal.h"

static int container_bits(int b)
{
    return b <= 1 ? 1 : b <= 2 ? 2 : b <= 4 ? 4 : 8;
}

hum_status hum_gemm_mma_check(const hum_gemm_variant *v)
{
    const int bits = v->layer->weight_bits, warp_n = v->tuning->warp_n;
    const int cont = container_bits(bits);
    if ((int64_t)warp_n * cont < 64)
        return hum_fail(HUM_ERR_UNSUPPORTED,
                        "warp N %d too narrow for %d-bit weights (warp N times %d container bits must reach 64)",
                        warp_n, bits, cont);
    if (cont != bits && warp_n % 64 != 0)
        return hum_fail(HUM_ERR_UNSUPPORTED, "%d-bit weights need warp N a multiple of 64 (got %d)", bits, warp_n);
    return HUM_OK;
}
