/* mma_direct (kernels/gemm/gemm_mma.cu, kDirectB) without a GPU: its tuning rules (accepted tiles
 * with the shared memory of the warps along K alone and their threads, eight warps along K where
 * the staged mma kernel takes four, refused tunings and layers with the rule named) and NVRTC
 * compiles of its variants for every arch from sm_75 to sm_90a (4-bit codes with group scales,
 * 8-bit with channel scales and integer zero points, odd widths, warps of 32 columns). */
#include "gemm_test.h"
#include "hum/hum_tools.h"
#include "hum_ffi.h"
#include "quant_test.h"
#include "rt_test.h"

#include <string.h>

static hum_layer_config config_for(hum_dtype weight, int bits, int64_t n, int64_t k, int64_t group)
{
    hum_layer_config c;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.k = k;
    c.a_dtype = c.c_dtype = c.param_dtype = c.scale_dtype = HUM_DTYPE_FLOAT16;
    c.weight_dtype = weight;
    c.weight_bits = bits;
    c.weight_float = weight == HUM_DTYPE_FLOAT8_E4M3FN;
    c.scale_type = HUM_SCALE_GROUP;
    c.group_size = group;
    c.padded_n = (n + 63) / 64 * 64;
    c.padded_k = (k + 127) / 128 * 128;
    c.kernel_group = group;
    c.scale_rows = c.padded_k / group;
    c.has_scale = 1;
    return c;
}

/* 8 x block_n x 256, warps 8 x warp_n x warp_k, on `kernel` */
static hum_tuning tile(int32_t kernel, int bn, int wn, int wk, int stages)
{
    hum_tuning t;
    memset(&t, 0, sizeof t);
    t.m_min = 1;
    t.m_max = INT64_MAX;
    t.block_m = t.warp_m = 8;
    t.block_n = bn;
    t.block_k = 256;
    t.warp_n = wn;
    t.warp_k = wk;
    t.stages = stages;
    t.ctas_per_sm = 1;
    t.kernel = kernel;
    return t;
}

static void check_rules(void)
{
    const hum_layer_config c = config_for(HUM_DTYPE_UINT4, 4, 8192, 8192, 128);
    /* accepted: no stages in shared memory, the warps along K meet in (warps K - 1) x 8 x block_n
     * floats; whatever the ring's depth */
    struct {
        int bn, wn, wk, stages;
    } ok[] = {{64, 64, 32, 4}, {64, 64, 32, 8}, {64, 32, 64, 2}, {128, 64, 64, 6}, {64, 64, 128, 3}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        const hum_tuning t = tile(HUM_GEMM_KERNEL_MMA_DIRECT, ok[i].bn, ok[i].wn, ok[i].wk, ok[i].stages);
        int64_t smem = -1;
        int32_t threads = 0;
        const int warps_k = 256 / ok[i].wk, warps = warps_k * ok[i].bn / ok[i].wn;
        const int64_t want = (int64_t)(warps_k - 1) * 8 * ok[i].bn * 4;
        QUANT_CHECK(hum_layer_tuning_check(&c, &t, &smem, &threads) == HUM_OK && smem == want && threads == 32 * warps,
                    "mma_direct 8x%dx256 warps 8x%dx%d, %d items: %s (smem %lld, want %lld; threads %d, want %d)",
                    ok[i].bn, ok[i].wn, ok[i].wk, ok[i].stages, hum_last_error(), (long long)smem, (long long)want,
                    threads, 32 * warps);
    }

    /* refused, the rule named */
    const hum_layer_config g32 = config_for(HUM_DTYPE_UINT4, 4, 8192, 8192, 32);
    hum_layer_config e4m3 = config_for(HUM_DTYPE_FLOAT8_E4M3FN, 8, 8192, 8192, 8192);
    hum_layer_config act = c;
    act.act_order = 1;
    hum_layer_config k8 = config_for(HUM_DTYPE_UINT4, 4, 8192, 8188, 128);
    hum_tuning m16 = tile(HUM_GEMM_KERNEL_MMA_DIRECT, 64, 64, 32, 4);
    m16.block_m = m16.warp_m = 16;
    struct {
        const hum_layer_config *c;
        hum_tuning t;
        const char *needle;
    } bad[] = {
        {&c, tile(HUM_GEMM_KERNEL_MMA, 64, 64, 32, 4), "8 warps along K (the mma kernel takes at most 4)"},
        {&c, tile(HUM_GEMM_KERNEL_MMA_DIRECT, 64, 64, 16, 4),
         "16 warps along K (the mma_direct kernel takes at most 8)"},
        {&c, m16, "mma_direct on warp M 16"},
        {&g32, tile(HUM_GEMM_KERNEL_MMA_DIRECT, 64, 64, 64, 4), "scale groups of 32 and warp K 64"},
        {&e4m3, tile(HUM_GEMM_KERNEL_MMA_DIRECT, 64, 64, 32, 4), "scaled float8_e4m3fn weights"},
        {&act, tile(HUM_GEMM_KERNEL_MMA_DIRECT, 64, 64, 32, 4), "in act-order"},
        {&k8, tile(HUM_GEMM_KERNEL_MMA_DIRECT, 64, 64, 32, 4), "K = 8188"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const hum_status st = hum_layer_tuning_check(bad[i].c, &bad[i].t, NULL, NULL);
        QUANT_CHECK(st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), bad[i].needle),
                    "refusal %zu: status %d, message '%s' should name '%s'", i, st, hum_last_error(), bad[i].needle);
    }
}

/* A layer of `spec` compiled for `arch` with every M range on mma_direct's 8 x block_n x 256 tile,
 * warps 8 x warp_n x warp_k (one kernel: the entries fit to the same variant). */
static void check_compile(const char *arch, const char *spec, int bn, int wn, int wk)
{
    char edit[512], dir[512];
    snprintf(edit, sizeof edit,
             "assert(layer.kernels.mma_direct, 'mma_direct refuses the layer'); e.tuning = { kernel = 'mma_direct', "
             "block_m = 8, warp_m = 8, block_n = %d, warp_n = %d, block_k = 256, warp_k = %d, stages = 4, "
             "ctas_per_sm = 1, stream_k = true, stream_k_sum = 'workspace' }",
             bn, wn, wk);
    hum_runtime *rt = gemm_test_site_runtime(edit, dir, sizeof dir);
    const hum_standard_weight *w = quant_spec_weight(spec, 11);
    hum_layer_info info;
    if (QUANT_CHECK(rt && w, "%s: the runtime and weight", spec) &&
        QUANT_CHECK(hum_layer_compile(rt, w, NULL, arch, &info) == HUM_OK, "%s for %s: %s", spec, arch,
                    hum_last_error())) {
        for (int i = 0; i < info.entry_count; i++)
            QUANT_CHECK(info.entries[i].kernel == HUM_GEMM_KERNEL_MMA_DIRECT, "%s for %s: entry %d on kernel %d", spec,
                        arch, i, info.entries[i].kernel);
        printf("  %-6s %-52s %d entries, %5.0f ms, %d compiled\n", arch, spec, info.entry_count, info.compile_ms,
               info.kernels_compiled);
    }
    if (rt)
        hum_runtime_destroy(rt);
    rt_rmtree(dir);
}

int main(void)
{
    check_rules();
    static const char *const ARCHS[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90a"};
    for (size_t a = 0; a < sizeof ARCHS / sizeof ARCHS[0]; a++) {
        check_compile(ARCHS[a], "n=1000,k=1096,w=uint4,a=float16,group=128,bias=1", 64, 64, 32);
        check_compile(ARCHS[a], "n=520,k=328,w=uint8,a=float16,zp=int", 128, 64, 64);
        check_compile(ARCHS[a], "n=200,k=320,w=uint3,a=float16,group=64,zp=float", 64, 64, 64);
        /* bfloat16 from sm_80 */
        check_compile(ARCHS[a], a ? "n=200,k=320,w=uint2,a=bfloat16" : "n=200,k=320,w=uint2,a=float16", 64, 32, 64);
    }
    return quant_test_result("test_gemm_direct_rules");
}
