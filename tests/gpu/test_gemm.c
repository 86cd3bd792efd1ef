/* Dense GEMM on the GPU against the float64 reference: every supported weight type x
 * activation type x scale type x zero point, M in {1, 3, 16, 100} (and 1024 on the main path),
 * N and K that are not multiples of 64 or 128, act-order, bias, FP8 block scales, and large
 * layers whose small-M runs split K across CTAs (stream-K) or run their tiles whole; then every
 * spec again at M <= 16 on mma.sync warps of 8 rows (the products transposed,
 * kernels/gemm/gemm_mma.cu kSwapAB), blocks of 16 rows holding two of them where a table's entry
 * reaches past M = 8, through a site policy.
 * Skipped (77) without a GPU. */
#include "gemm_test.h"
#include "hum/hum_tools.h"
#include "rt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int64_t MS[] = {1, 3, 16, 100};
static const int64_t MS_LONG[] = {1, 3, 16, 100, 1024};
static const int64_t MS_SMALL[] = {1, 3, 16};

/* A site policy's edit: the mma.sync entries up to M = 16 on warps of 8 rows, in blocks of 8 rows to
 * M = 8 and of 16 (two such warps along M) above. */
#define ROWS8                                                                                             \
    "if (t.kernel == nil or t.kernel == 'mma') and e.m_max <= 16 then "                                  \
    "t.block_m, t.warp_m = e.m_max <= 8 and 8 or 16, 8 end"

/* Every spec runs once with float16 and once with bfloat16 activations ("a=" appended). */
static const char *const SPECS[] = {
    /* integer weights: symmetric, integer and float zero points, every width */
    "n=200,k=320,w=uint4,group=128",
    "n=200,k=320,w=uint4,group=128,zp=int",
    "n=200,k=320,w=uint4,group=64,zp=float",
    "n=200,k=320,w=uint4",
    "n=200,k=320,w=uint4,group=32,bias=1",
    "n=200,k=320,w=uint8,group=64",
    "n=200,k=320,w=uint8,zp=int",
    "n=200,k=320,w=uint3,group=32,zp=int",
    "n=200,k=320,w=uint2",
    "n=200,k=320,w=uint1,group=64",
    "n=200,k=320,w=uint5,group=128,zp=int",
    "n=200,k=320,w=uint6,group=16",
    "n=200,k=320,w=uint7,zp=float,group=64",
    /* act-order (GPTQ desc_act) and a K that is not a multiple of 8 */
    "n=200,k=384,w=uint4,group=128,actorder=1,bias=1",
    /* act-order rows wider than the permutation stages in shared memory (32768 columns), and rows
     * of A that are not 16-byte aligned */
    "n=72,k=33024,w=uint4,group=128,actorder=1",
    "n=72,k=203,w=uint4,group=32,actorder=1",
    "n=136,k=203,w=uint4,group=32,zp=int",
    /* floating-point weights and the scale types and dtypes that go with them */
    "n=200,k=320,w=e4m3",
    "n=200,k=320,w=e4m3,scale=float32,bias=1",
    "n=200,k=320,w=e5m2,scale=tensor",
    "n=200,k=320,w=e4m3,scale=tensor",
    "n=200,k=320,w=e2m1,group=32,scale=e8m0",
    "n=200,k=320,w=e2m1,group=16,scale=e4m3,global=1",
    "n=200,k=320,w=e3m2,group=128",
    "n=200,k=320,w=e2m3,group=64,scale=e4m3",
    "n=200,k=320,w=uint4,group=128,scale=e4m3,global=1",
};

/* FP8 block-wise scales (DeepSeek style weight_scale_inv): float32 per 128 x 128 block. */
static double block_case(hum_runtime *rt, quant_rng *rng, hum_dtype act, const int64_t *ms, int count)
{
    const int64_t n = 256, k = 384;
    float *w = malloc((size_t)(n * k) * sizeof *w);
    quant_fill_normal_f32(rng, w, n * k, 0.02);
    hum_quant_spec q;
    memset(&q, 0, sizeof q);
    q.weight_dtype = HUM_DTYPE_FLOAT8_E4M3FN;
    q.param_dtype = act;
    q.scale_type = HUM_SCALE_BLOCK;
    q.group_size = 128;
    q.group_size_n = 128;
    hum_standard_weight sw;
    double e = -1;
    if (QUANT_CHECK(hum_quantize_reference(w, n, k, &q, &sw) == HUM_OK, "block weight: %s", hum_last_error())) {
        e = gemm_test_layer(rt, rng,
                            act == HUM_DTYPE_BFLOAT16 ? "e4m3 block 128x128 bfloat16" : "e4m3 block 128x128 float16",
                            &sw, act, ms, count);
        hum_standard_free(&sw);
    }
    free(w);
    return e;
}

int main(void)
{
    if (!gemm_test_have_gpu())
        return 77;
    quant_rng rng = quant_rng_fresh("test_gemm");
    hum_runtime *rt = NULL;
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error()))
        return quant_test_result("test_gemm");

    /* the benchmark path, with long M sweeps */
    gemm_test_spec(rt, &rng, "n=1000,k=1024,w=uint4,a=float16,group=128", MS_LONG, 5);
    gemm_test_spec(rt, &rng, "n=1000,k=1024,w=uint4,a=bfloat16,group=128", MS_LONG, 5);
    /* short narrow: on 132 SMs (policies/sm90.lua, small_short_k) M <= 8 on 64-column tiles
     * whole, M = 16 on 64-column tiles split over many CTAs (stream-K slices summed) */
    gemm_test_spec(rt, &rng, "n=4096,k=4096,w=uint4,a=float16,group=128,bias=1", MS, 3);
    /* K split over many CTAs at every M <= 16 (the slices summed in the workspace), and, on 132
     * SMs, 128-column tiles whole at M <= 16 where they fill the SMs (n = 14336: 112), and other code
     * widths on both kinds of whole tile (their warps fitted per width) */
    gemm_test_spec(rt, &rng, "n=4096,k=8192,w=uint4,a=float16,group=128", MS_SMALL, 3);
    gemm_test_spec(rt, &rng, "n=14336,k=4096,w=uint4,a=bfloat16,group=128,bias=1", MS_SMALL, 3);
    gemm_test_spec(rt, &rng, "n=14336,k=4096,w=uint8,a=float16", MS_SMALL, 3);
    gemm_test_spec(rt, &rng, "n=4096,k=4096,w=uint5,a=bfloat16,group=64,zp=int", MS_SMALL, 3);

    char dir[512];
    hum_runtime *rows8 = gemm_test_site_runtime(ROWS8, dir, sizeof dir);
    QUANT_CHECK(rows8, "the 8-row runtime");
    for (int pass = 0; pass < 2; pass++) {
        hum_runtime *use = pass ? rows8 : rt;
        const int64_t *ms = pass ? MS_SMALL : MS;
        const int count = pass ? 3 : 4;
        if (!use)
            continue;
        /* the cases print the same names in both passes: a header tells their lines apart */
        printf("%s\n", pass ? "8-row warps (site policy ROWS8), M 1 / 3 / 16:"
                             : "built-in policy, M 1 / 3 / 16 / 100:");
        fflush(stdout);
        if (pass) /* stream-K slices of 8-row tiles summed in the workspace */
            gemm_test_spec(use, &rng, "n=4096,k=8192,w=uint4,a=float16,group=128,bias=1", ms, count);
        for (size_t i = 0; i < sizeof SPECS / sizeof SPECS[0]; i++)
            for (int bf16 = 0; bf16 <= 1; bf16++) {
                char spec[256];
                snprintf(spec, sizeof spec, "%s,a=%s", SPECS[i], bf16 ? "bfloat16" : "float16");
                gemm_test_spec(use, &rng, spec, ms, count);
            }
        block_case(use, &rng, HUM_DTYPE_FLOAT16, ms, count);
        block_case(use, &rng, HUM_DTYPE_BFLOAT16, ms, count);
    }
    if (rows8) {
        hum_runtime_destroy(rows8);
        rt_rmtree(dir);
    }

    hum_runtime_destroy(rt);
    return quant_test_result("test_gemm");
}
