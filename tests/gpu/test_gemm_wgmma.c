/* The Hopper wgmma GEMM kernel, plain and warp-specialised (families "wgmma" and "wgmma_ws"),
 * on the GPU against the float64 reference, through the real prepare and forward path with a
 * site policy that sends every M to it (tests/support/wgmma_test.c): M in {1, 8, 20, 64, 100,
 * 128, 1024} over its six tile shapes, N and K that are not multiples of the tiles, integer
 * weights of every width 1..8 and float weights (e4m3, e5m2, e2m1, e3m2, e2m3), channel scales
 * and group sizes below and above block K, zero points, bias, float16 and bfloat16, act-order,
 * and a long K whose tiles are split over many CTAs (stream-K); warp-specialised also with C staged
 * in the last stage's slot (c_tile "stage": one, two and four row splits, stream-K slices summed
 * through the output and in the workspace); and the built-in tables' wgmma_ws entries on whole tiles
 * with A multicast to 2-CTA clusters (multicast_a), C in either place, on two stages, and under
 * stream-K (slices through C and in the workspace). Output poisoned before every
 * run. Skipped (77) without an sm_90 GPU. */
#include "gemm_test.h"
#include "hum/hum.h"
#include "rt_test.h"
#include "wgmma_test.h"
#include "device.h"

#include <stdio.h>
#include <string.h>

static const int64_t MS[] = {1, 8, 20, 64, 100, 128, 1024};
static const int64_t MS_SHORT[] = {1, 20, 64, 100};

static const char *const SPECS[] = {
    "n=1000,k=1096,w=uint4,a=float16,group=128",
    "n=1000,k=1096,w=uint4,a=bfloat16,group=128",
    "n=520,k=328,w=uint8,a=bfloat16,group=64,zp=int,bias=1",
    "n=520,k=328,w=uint8,a=float16",
    "n=200,k=320,w=uint4,a=float16,group=32,zp=float",
    "n=136,k=200,w=uint4,a=bfloat16,group=64,zp=int,bias=1",
    "n=200,k=320,w=e4m3,a=bfloat16",
    "n=200,k=320,w=e5m2,a=float16,scale=tensor",
    "n=200,k=320,w=e2m1,a=float16,group=32,scale=e8m0",
    /* act-order: A gathered into the weights' K order first (kernels/prep/permute_a.cu) */
    "n=1000,k=1096,w=uint4,a=float16,group=128,actorder=1",
    "n=520,k=328,w=uint8,a=bfloat16,group=64,zp=int,bias=1,actorder=1",
    /* widths whose codes each warp picks from the lane's words, odd widths rebuilt from planes */
    "n=1000,k=1096,w=uint1,a=float16",
    "n=1000,k=1096,w=uint2,a=float16",
    "n=1000,k=1096,w=uint3,a=bfloat16",
    "n=520,k=328,w=uint5,a=float16",
    "n=520,k=328,w=uint6,a=bfloat16",
    "n=520,k=328,w=uint7,a=float16",
    "n=520,k=328,w=uint1,a=bfloat16,group=64,zp=int,bias=1",
    "n=200,k=320,w=uint2,a=float16,group=32,zp=float",
    "n=200,k=320,w=uint3,a=float16,group=128,zp=int",
    "n=136,k=200,w=uint5,a=bfloat16,group=64,bias=1",
    "n=200,k=320,w=uint6,a=float16,group=32,zp=int",
    "n=200,k=320,w=uint7,a=bfloat16,group=64,zp=float",
    "n=200,k=320,w=e3m2,a=bfloat16,group=32",
    "n=200,k=320,w=e2m3,a=float16",
    /* channel scales applied to the float32 sums in the epilogue (kChannelScaleAcc), beside zero
     * points and bias */
    "n=200,k=320,w=uint4,a=bfloat16,zp=float,bias=1",
    "n=520,k=328,w=uint8,a=float16,zp=int,bias=1",
};

int main(void)
{
    if (!gemm_test_have_gpu())
        return 77;
    hum_device_info dev;
    if (hum_device_query(0, &dev) != HUM_OK || dev.sm_major != 9 || dev.sm_minor != 0) {
        printf("test_gemm_wgmma: needs an sm_90 GPU (skipped)\n");
        return 77;
    }
    quant_rng rng = quant_rng_fresh("test_gemm_wgmma");
    /* the family, and where wgmma_ws stages C (c_tile: a tile of its own, or the last stage's slot) */
    static const char *const FAMILIES[][2] = {{"wgmma", "own"}, {"wgmma_ws", "own"}, {"wgmma_ws", "stage"}};
    for (size_t f = 0; f < sizeof FAMILIES / sizeof FAMILIES[0]; f++) {
        printf("family %s, c_tile %s\n", FAMILIES[f][0], FAMILIES[f][1]);
        char dir[512];
        hum_runtime *rt = wgmma_test_runtime(FAMILIES[f][0], FAMILIES[f][1], dir, sizeof dir);
        if (QUANT_CHECK(rt != NULL, "runtime with the %s site policy, c_tile %s", FAMILIES[f][0], FAMILIES[f][1])) {
            for (size_t i = 0; i < sizeof SPECS / sizeof SPECS[0]; i++)
                gemm_test_spec(rt, &rng, SPECS[i], MS, 7);
            /* few tiles of 64 k-blocks at M <= 100: each tile's K is cut into several stream-K slices */
            gemm_test_spec(rt, &rng, "n=2048,k=4096,w=uint4,a=float16,group=128", MS_SHORT, 4);
            gemm_test_spec(rt, &rng, "n=2048,k=4096,w=uint3,a=bfloat16", MS_SHORT, 4);
            /* warp-specialised: CTAs whose later segments refill, by TMA, the slot a segment's
             * epilogue held (c_tile "stage"): 256 tiles at M = 1024 (whole ones, then stream-K; two
             * row splits), and stream-K slices that leave their sums in the workspace and go on
             * (M = 64, and M = 128 on 128 x 256 x 64 tiles: four splits) */
            if (!strcmp(FAMILIES[f][0], "wgmma_ws")) {
                static const int64_t m1024[] = {1024}, m64[] = {64}, m128[] = {128};
                gemm_test_spec(rt, &rng, "n=8192,k=1024,w=uint4,a=float16,group=128", m1024, 1);
                gemm_test_spec(rt, &rng, "n=2048,k=8192,w=uint4,a=bfloat16,group=128", m64, 1);
                gemm_test_spec(rt, &rng, "n=4096,k=8192,w=uint4,a=float16,group=128", m128, 1);
            }
            hum_runtime_destroy(rt);
        }
        rt_rmtree(dir);
    }
    /* A multicast to 2-CTA clusters (multicast_a): the built-in tables' wgmma_ws entries on whole
     * tiles, C in a tile of its own and in the last stage's slot, on two stages, and under stream-K
     * summed either way; N of 16 and 64 n-blocks, M from one tile per cluster to several (the
     * clusters' slots refilled across tiles; at M 20 and 100 every tile's K split over clusters) */
    static const char *const MULTICAST[] = {
        "if t.kernel == 'wgmma_ws' then t.stream_k = false; t.stream_k_sum = 'output'; t.multicast_a = true; "
        "t.c_tile = 'own' end",
        "if t.kernel == 'wgmma_ws' then t.stream_k = false; t.stream_k_sum = 'output'; t.multicast_a = true; "
        "t.c_tile = 'stage' end",
        /* two stages: every slot's release waited on at once, by both CTAs' producers */
        "if t.kernel == 'wgmma_ws' then t.stream_k = false; t.stream_k_sum = 'output'; t.multicast_a = true; "
        "t.c_tile = 'own'; t.stages = 2 end",
        /* stream-K: a cluster's slices meet through C (locks by rank) and in the workspace (slots and
         * flags by rank) */
        "if t.kernel == 'wgmma_ws' then t.stream_k = true; t.stream_k_sum = 'output'; t.multicast_a = true; "
        "t.c_tile = 'own' end",
        "if t.kernel == 'wgmma_ws' then t.stream_k = true; t.stream_k_sum = 'workspace'; t.multicast_a = true; "
        "t.c_tile = 'own' end",
        /* a slice that waits for its turn while it holds the slot C is staged in */
        "if t.kernel == 'wgmma_ws' then t.stream_k = true; t.stream_k_sum = 'workspace'; t.multicast_a = true; "
        "t.c_tile = 'stage' end"};
    static const int64_t MS_MC[] = {20, 100, 300, 1024}, MS_MC_BIG[] = {1024};
    for (size_t p = 0; p < sizeof MULTICAST / sizeof MULTICAST[0]; p++) {
        static const char *const how[] = {"", ", C in the last stage", ", two stages", ", stream-K through C",
                                          ", stream-K in the workspace",
                                          ", stream-K in the workspace, C in the last stage"};
        printf("wgmma_ws, A multicast%s\n", how[p]);
        char dir[512];
        hum_runtime *rt = gemm_test_site_runtime(MULTICAST[p], dir, sizeof dir);
        if (QUANT_CHECK(rt != NULL, "runtime with A multicast (%zu)", p)) {
            /* tests/c/test_gemm_wgmma_rules.c checks that these specs' wgmma_ws entries keep multicast_a */
            gemm_test_spec(rt, &rng, "n=2048,k=4096,w=uint4,a=float16,group=128", MS_MC, 4);
            if (p != 2) {
                gemm_test_spec(rt, &rng, "n=1000,k=1096,w=uint8,a=bfloat16,group=64,zp=int,bias=1", MS_MC, 4);
                gemm_test_spec(rt, &rng, "n=2048,k=1024,w=uint2,a=bfloat16", MS_MC, 4);
                /* act-order: the clusters read the rows permute_a.cu gathered */
                gemm_test_spec(rt, &rng, "n=1000,k=1096,w=uint8,a=float16,group=64,actorder=1", MS_MC, 4);
                /* sm90.lua's 8-bit tile above M = 384 (256 x 128 x 64, five stages; with "stage" C in
                 * two row splits), act-order layers' too */
                gemm_test_spec(rt, &rng, "n=8192,k=1024,w=uint8,a=float16", MS_MC_BIG, 1);
                gemm_test_spec(rt, &rng, "n=8192,k=1024,w=uint8,a=bfloat16,group=128,actorder=1", MS_MC_BIG, 1);
            }
            gemm_test_spec(rt, &rng, "n=8192,k=1024,w=uint4,a=float16,group=128", MS_MC_BIG, 1);
            hum_runtime_destroy(rt);
        }
        rt_rmtree(dir);
    }
    return quant_test_result("test_gemm_wgmma");
}
