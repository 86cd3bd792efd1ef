/* mma_direct (kernels/gemm/gemm_mma.cu, kDirectB: 8-row warps reading their weights, scales and A
 * straight into registers) on the GPU against the float64 reference, M in {1, 3, 8, 12, 16}: every
 * layer kind it takes (integer codes of every width with group and channel scales, integer and float
 * zero points, bias; float16 and bfloat16), N and K that are not multiples of 64 or of block K,
 * tiles whole, split over CTAs (stream-K slices summed in the workspace, and through C), several
 * tiles per CTA (n = 14336 on 64-column tiles, and M above 8 on blocks of 8 rows: the ring runs
 * on across tiles and the warps along K meet once per tile), two or four warps along N (of 64 and
 * 16 columns), two along M (blocks of 16 rows), rings of 2 to 6 items, through site policies that
 * put M <= 16 on it (a layer it refused would fail the policy, not pass on another kernel).
 * Skipped (77) without a GPU. */
#include "gemm_test.h"
#include "rt_test.h"

#include <stdio.h>

static const int64_t MS[] = {1, 3, 8, 12, 16};

/* Specs mma_direct takes; each runs with float16 and bfloat16 activations ("a=" appended). */
static const char *const SPECS[] = {
    "n=200,k=320,w=uint4,group=128",
    "n=200,k=320,w=uint4,group=128,zp=int,bias=1",
    "n=200,k=320,w=uint4,group=64,zp=float",
    "n=200,k=320,w=uint4",
    "n=200,k=320,w=uint8,group=64",
    "n=200,k=320,w=uint8,zp=int",
    "n=200,k=320,w=uint3,group=64,zp=int",
    "n=200,k=320,w=uint2",
    "n=200,k=320,w=uint1,group=64",
    "n=200,k=320,w=uint5,group=128,zp=int",
    "n=200,k=320,w=uint6,group=64",
    "n=200,k=320,w=uint7,zp=float,group=64",
    "n=136,k=200,w=uint4,group=64,zp=int",
    "n=4096,k=8192,w=uint4,group=128,bias=1",
    "n=14336,k=4096,w=uint4,group=128",
    "n=4096,k=4096,w=uint8",
    /* a group of several k-blocks (the accumulators promoted every other item) */
    "n=256,k=2048,w=uint4,group=512,zp=int",
};

/* Tiles of block_m x block_n x 256 on warps of 8 rows: warp N and K, ring items, CTAs per SM,
 * stream-K and where its slices meet. */
static const char *const TILES[] = {
    "block_m = 8, block_n = 64, warp_n = 64, warp_k = 32, stages = 4, ctas_per_sm = 1, stream_k = false",
    "block_m = 8, block_n = 64, warp_n = 32, warp_k = 64, stages = 2, ctas_per_sm = 1, stream_k = true, "
    "stream_k_sum = 'workspace'",
    "block_m = 8, block_n = 128, warp_n = 64, warp_k = 64, stages = 6, ctas_per_sm = 2, stream_k = true, "
    "stream_k_sum = 'output'",
    "block_m = 16, block_n = 64, warp_n = 64, warp_k = 64, stages = 3, ctas_per_sm = 1, stream_k = true, "
    "stream_k_sum = 'workspace'",
    "block_m = 8, block_n = 64, warp_n = 16, warp_k = 64, stages = 3, ctas_per_sm = 1, stream_k = true, "
    "stream_k_sum = 'workspace'",
};

int main(void)
{
    if (!gemm_test_have_gpu())
        return 77;
    quant_rng rng = quant_rng_fresh("test_gemm_direct");
    for (size_t t = 0; t < sizeof TILES / sizeof TILES[0]; t++) {
        char edit[512], dir[512];
        snprintf(edit, sizeof edit,
                 "if e.m_max <= 16 then assert(layer.kernels.mma_direct, 'mma_direct refuses the layer'); "
                 "e.tuning = { kernel = 'mma_direct', warp_m = 8, block_k = 256, %s } end",
                 TILES[t]);
        hum_runtime *rt = gemm_test_site_runtime(edit, dir, sizeof dir);
        if (!QUANT_CHECK(rt, "the mma_direct runtime of tile %zu", t))
            continue;
        printf("mma_direct %s, M 1 / 3 / 8 / 12 / 16:\n", TILES[t]);
        fflush(stdout);
        for (size_t i = 0; i < sizeof SPECS / sizeof SPECS[0]; i++)
            for (int bf16 = 0; bf16 <= 1; bf16++) {
                char spec[256];
                snprintf(spec, sizeof spec, "%s,a=%s", SPECS[i], bf16 ? "bfloat16" : "float16");
                gemm_test_spec(rt, &rng, spec, MS, 5);
            }
        hum_runtime_destroy(rt);
        rt_rmtree(dir);
    }
    return quant_test_result("test_gemm_direct");
}
