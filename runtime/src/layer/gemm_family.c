/* The table of GEMM kernel families (see gemm_family.h). */
#include "gemm_family.h"

#include "gemm_mma.h"
#include "gemm_wgmma.h"
#include "internal.h"
#include "tma.h"

#include <string.h>

_Static_assert(sizeof(hum_gemm_tma_map) == sizeof(hum_tensor_map), "the contract's tensor map is a CUtensorMap");

/* A through a TMA tensor map, box block_m rows x 128 bytes (64 16-bit or 128 8-bit elements)
 * with the 128-byte swizzle. */
static hum_status bind_a_map(hum_gemm_bind_state *state, hum_dtype dtype, int64_t k, int32_t block_m,
                             hum_gemm_args *args)
{
    if (state->a != args->a || state->m != args->m || state->lda != args->lda || state->k != k ||
        state->dtype != dtype || state->block_m != block_m) {
        const uint32_t elem = (dtype & 0xff) / 8;
        const hum_tma_2d map = {.dtype = dtype, .global_address = (void *)args->a, .rows = (uint64_t)args->m,
                                .cols = (uint64_t)k, .row_stride_bytes = (uint64_t)args->lda * elem,
                                .box_rows = (uint32_t)block_m, .box_cols = 128 / elem,
                                .swizzle = HUM_TMA_SWIZZLE_128B};
        hum_tensor_map encoded;
        state->a = NULL;
        const hum_status st = hum_tma_encode_2d(&map, &encoded);
        if (st != HUM_OK)
            return hum_fail_context(st, "the tensor map of a");
        memcpy(&state->a_map, &encoded, sizeof state->a_map);
        state->a = args->a;
        state->m = args->m;
        state->lda = args->lda;
        state->k = k;
        state->dtype = dtype;
        state->block_m = block_m;
    }
    args->a_map = state->a_map;
    return HUM_OK;
}

static const hum_gemm_family families[] = {
    [HUM_GEMM_KERNEL_MMA] = {.name = "mma", .source = "kernels/gemm/gemm_mma.cu", .entry = "hum_gemm",
                             .check = hum_gemm_mma_check, .min_stages = 2, .fit = hum_gemm_mma_fit,
                             .max_warps_k = 4, .smem_align = 128},
    /* the same kernel, its warps reading their operands straight into registers */
    [HUM_GEMM_KERNEL_MMA_DIRECT] = {.name = "mma_direct", .source = "kernels/gemm/gemm_mma.cu", .entry = "hum_gemm",
                                    .takes = hum_gemm_mma_direct_takes, .check = hum_gemm_mma_direct_check,
                                    .min_stages = 2, .fit = hum_gemm_mma_direct_fit, .max_warps_k = 8,
                                    .smem_align = 128},
    [HUM_GEMM_KERNEL_WGMMA] = {.name = "wgmma", .source = "kernels/gemm/gemm_wgmma.cu", .entry = "hum_gemm_wgmma",
                               .arch = "sm_90a", .takes = hum_gemm_wgmma_takes, .check = hum_gemm_wgmma_check,
                               .min_stages = 3, .fit = hum_gemm_wgmma_fit, .extra_smem = HUM_GEMM_WGMMA_EXTRA_SMEM,
                               .static_smem = HUM_GEMM_WGMMA_STATIC_SMEM, .bind = bind_a_map, .max_warps_k = 4,
                               .smem_align = 1024, .c_row_table = 1},
    /* the same kernel, warp-specialised (a producer warpgroup, the epilogue tile apart) */
    [HUM_GEMM_KERNEL_WGMMA_WS] = {.name = "wgmma_ws", .source = "kernels/gemm/gemm_wgmma.cu",
                                  .entry = "hum_gemm_wgmma", .arch = "sm_90a", .takes = hum_gemm_wgmma_takes,
                                  .check = hum_gemm_wgmma_check, .min_stages = 2, .fit = hum_gemm_wgmma_fit,
                                  .extra_smem = HUM_GEMM_WGMMA_EXTRA_SMEM,
                                  .epilogue_smem = hum_gemm_wgmma_epilogue_smem, .load_warps = 4,
                                  .static_smem = HUM_GEMM_WGMMA_STATIC_SMEM, .bind = bind_a_map,
                                  .max_warps_k = 4, .smem_align = 1024, .c_row_table = 1},
};

const char *hum_gemm_kernel_name(int32_t kernel)
{
    const hum_gemm_family *f = hum_gemm_family_of(kernel);
    return f ? f->name : NULL;
}

const hum_gemm_family *hum_gemm_family_of(int32_t kernel)
{
    if (kernel < 0 || (size_t)kernel >= sizeof families / sizeof families[0] || !families[kernel].name)
        return NULL;
    return &families[kernel];
}
