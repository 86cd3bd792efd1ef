/* Shape rules of the mma.sync GEMM family (see gemm_mma.h). */
#include "gemm_mma.h"

#include "internal.h"

static int container_bits(int b)
{
    return b <= 1 ? 1 : b <= 2 ? 2 : b <= 4 ? 4 : 8;
}

hum_status hum_gemm_mma_check(const hum_gemm_variant *v)
{
    const int cont = container_bits(v->weight_bits);
    if ((int64_t)v->warp_n * cont < 64)
        return hum_fail(HUM_ERR_UNSUPPORTED,
                        "warp N %d too narrow for %d-bit weights (warp N times %d container bits must reach 64)",
                        v->warp_n, v->weight_bits, cont);
    if (cont != v->weight_bits && v->warp_n % 64 != 0)
        return hum_fail(HUM_ERR_UNSUPPORTED, "%d-bit weights need warp N a multiple of 64 (got %d)", v->weight_bits,
                        v->warp_n);
    return HUM_OK;
}
