/* The wgmma GEMM kernel without a GPU: its tuning rules (accepted shapes with their shared
 * memory and threads, plain and warp-specialised, every weight width 1..8, refused ones with the
 * rule named), the dispatch table a wgmma policy gives (tiles adapted to narrow layers, layers
 * the kernel does not take refused by name), and NVRTC compiles of its variants for sm_90a (4-
 * and 8-bit, 1/2/3/7-bit and float6 codes; warp-specialised 4-, 8- and 3-bit and e4m3),
 * including a refusal for any other arch. */
#include "gemm_test.h"
#include "hum/hum_tools.h"
#include "quant_test.h"
#include "rt_test.h"
#include "wgmma_test.h"
#include "gemm_wgmma.h"
#include "hum_ffi.h"

#include <string.h>

static hum_layer_config config_for(int bits, int64_t n, int64_t k, int64_t group)
{
    hum_layer_config c;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.k = k;
    c.a_dtype = c.c_dtype = HUM_DTYPE_FLOAT16;
    c.weight_dtype = (hum_dtype)((1 << 24) | bits); /* HUM_DTYPE_UINT1 .. HUM_DTYPE_UINT8 */
    c.param_dtype = HUM_DTYPE_FLOAT16;
    c.scale_dtype = HUM_DTYPE_FLOAT16;
    c.scale_type = HUM_SCALE_GROUP;
    c.group_size = group;
    c.padded_n = (n + 63) / 64 * 64;
    c.padded_k = (k + 127) / 128 * 128;
    c.kernel_group = group;
    c.scale_rows = c.padded_k / group;
    c.has_scale = 1;
    c.weight_bits = bits;
    return c;
}

static hum_tuning wgmma_tuning(int bm, int bn, int wn, int stages)
{
    hum_tuning t = {1, INT64_MAX, bm, bn, 64, bm, wn, 64, stages, 1, 1, HUM_GEMM_KERNEL_WGMMA, 0, 0, 0, 0, 0, 0, 0, 0};
    return t;
}

static void check_rules(void)
{
    /* accepted: smem = stages * (A tile + weight tile + scale rows) + 2048 spare bytes (alignment
     * and barriers), threads = 32 * block_n / warp_n; warp-specialised (wgmma_ws) the epilogue
     * tile (block_m rows of 2 * block_n bytes) on top, the producer warpgroup's 128
     * threads, and two stages suffice; the expert tiles of policies/sm90.lua among them (block M 8
     * on both families, 144 x 256 on wgmma_ws alone on its SM: 144 accumulator registers of 192,
     * which plain wgmma refuses below) */
    const hum_layer_config c = config_for(4, 8192, 8192, 128);
    struct {
        int bm, bn, wn, stages, ws;
    } ok[] = {{128, 256, 32, 5, 0}, {64, 128, 16, 4, 0}, {256, 128, 16, 4, 0}, {64, 64, 16, 3, 0},
              {16, 128, 16, 8, 0},  {32, 256, 32, 6, 0}, {96, 256, 32, 4, 0}, {80, 128, 16, 5, 0},
              {176, 128, 16, 4, 0}, {128, 256, 32, 5, 1}, {256, 128, 16, 2, 1}, {64, 64, 16, 3, 1},
              {16, 128, 16, 8, 1},  {80, 128, 16, 5, 1}, {64, 256, 64, 4, 0}, {16, 256, 64, 4, 0},
              {8, 128, 32, 4, 0},   {8, 256, 64, 4, 1},  {8, 128, 32, 4, 1}, {144, 256, 32, 4, 1},
              {80, 256, 32, 4, 1}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        hum_tuning t = wgmma_tuning(ok[i].bm, ok[i].bn, ok[i].wn, ok[i].stages);
        t.kernel = ok[i].ws ? HUM_GEMM_KERNEL_WGMMA_WS : HUM_GEMM_KERNEL_WGMMA;
        int64_t smem = 0;
        int32_t threads = 0;
        const int64_t want = (int64_t)ok[i].stages * (ok[i].bm * 64 * 2 + 64 * ok[i].bn / 2 + ok[i].bn * 2) + 2048 +
                             (ok[i].ws ? (int64_t)ok[i].bm * 2 * ok[i].bn : 0);
        QUANT_CHECK(hum_layer_tuning_check(&c, &t, &smem, &threads) == HUM_OK && smem == want &&
                        threads == 32 * ok[i].bn / ok[i].wn + (ok[i].ws ? 128 : 0),
                    "%s %dx%d/%d s%d: %s (smem %lld, want %lld; threads %d)", ok[i].ws ? "wgmma_ws" : "wgmma",
                    ok[i].bm, ok[i].bn, ok[i].wn, ok[i].stages, hum_last_error(), (long long)smem, (long long)want,
                    threads);
    }

    /* every width 1..8 with the sm90 policy's large-M tile; the weight tile is 64 x block_n
     * codes of `bits` bits; narrow warps that the mma.sync kernel refuses (warp N x container
     * bits < 64, odd widths below warp N 64) are fine here */
    for (int bits = 1; bits <= 8; bits++) {
        const hum_layer_config cb = config_for(bits, 8192, 8192, 128);
        hum_tuning t = wgmma_tuning(256, 128, 16, 4);
        int64_t smem = 0;
        const int64_t want = 4 * (256 * 64 * 2 + 8 * 128 * bits + 128 * 2) + 2048;
        QUANT_CHECK(hum_layer_tuning_check(&cb, &t, &smem, NULL) == HUM_OK && smem == want,
                    "wgmma %d-bit 256x128/16 s4: %s (smem %lld, want %lld)", bits, hum_last_error(), (long long)smem,
                    (long long)want);
    }

    /* both families take the expert GEMMs of every MoE type (rows of A gathered by cp.async) */
    {
        hum_layer_config e = config_for(4, 1536, 2048, 128);
        e.num_experts = 8;
        hum_compute_config compute;
        memset(&compute, 0, sizeof compute);
        for (int type = HUM_GEMM_MOE_INDEXED; type <= HUM_GEMM_MOE_GROUPED_MASKED; type++) {
            compute.gemm_type = (hum_gemm_type)type;
            QUANT_CHECK(hum_layer_kernel_takes(&e, &compute, HUM_GEMM_KERNEL_WGMMA, "sm_90a") == HUM_OK,
                        "wgmma with experts, GEMM type %d: %s", type, hum_last_error());
            QUANT_CHECK(hum_layer_kernel_takes(&e, &compute, HUM_GEMM_KERNEL_WGMMA_WS, "sm_90a") == HUM_OK,
                        "wgmma_ws with experts, GEMM type %d: %s", type, hum_last_error());
        }
    }

    /* refused, each naming its rule */
    struct {
        const char *what, *needle;
        hum_layer_config c;
        hum_tuning t;
    } bad[] = {
        {"block_m 40", "block_m 40", config_for(4, 8192, 8192, 128), wgmma_tuning(40, 256, 32, 4)},
        {"warp_m below block_m", "warp_m", config_for(4, 8192, 8192, 128), wgmma_tuning(128, 256, 32, 4)},
        {"half a warpgroup", "warpgroups", config_for(4, 8192, 8192, 128), wgmma_tuning(128, 128, 64, 4)},
        {"four warpgroups", "2 warpgroups", config_for(4, 8192, 8192, 128), wgmma_tuning(64, 256, 16, 4)},
        {"256 accumulators", "128 accumulators", config_for(4, 8192, 8192, 128), wgmma_tuning(256, 256, 32, 4)},
        {"two stages", "at least 3", config_for(4, 8192, 8192, 128), wgmma_tuning(128, 256, 32, 2)},
        {"K not a multiple of 8", "multiple of 8", config_for(4, 8192, 8190, 128), wgmma_tuning(128, 256, 32, 4)},
        {"block_m 272", "block_m 272", config_for(4, 8192, 8192, 128), wgmma_tuning(272, 256, 16, 4)},
        {"wgmma_ws 128x128 at two CTAs", "the 80 registers that 2 CTAs per SM leave",
         config_for(4, 8192, 8192, 128), wgmma_tuning(128, 128, 16, 4)},
        {"four slabs of 96 rows", "128 accumulators", config_for(4, 8192, 8192, 128), wgmma_tuning(96, 256, 64, 4)},
        {"eight slabs", "at most 4 slabs", config_for(4, 8192, 8192, 128), wgmma_tuning(32, 512, 128, 4)},
        {"block_m 24 (N 8 only alone)", "block_m 24", config_for(4, 8192, 8192, 128), wgmma_tuning(24, 256, 32, 4)},
        {"two slabs of 144 rows, plain", "128 accumulators", config_for(4, 8192, 8192, 128),
         wgmma_tuning(144, 256, 32, 4)},
    };
    bad[1].t.warp_m = 64;
    /* two CTAs per SM leave a thread 128 registers (wgmma) or 80 (wgmma_ws, until setmaxnreg):
     * 64 accumulators and the 32 beside them fit the first, not the second (ptxas C7602) */
    bad[8].t.kernel = HUM_GEMM_KERNEL_WGMMA_WS;
    bad[8].t.ctas_per_sm = 2;
    /* MXFP8 A (e8m0 scales per 32 columns): two ping-pong sets beside the totals, 3 x 64 */
    hum_layer_config mx = config_for(8, 8192, 8192, 8192);
    mx.a_dtype = mx.weight_dtype = HUM_DTYPE_FLOAT8_E4M3FN;
    mx.a_group = 32;
    mx.weight_float = 1;
    mx.scale_type = HUM_SCALE_CHANNEL;
    mx.scale_dtype = HUM_DTYPE_FLOAT32;
    const hum_tuning mx_t = wgmma_tuning(64, 256, 32, 4);
    hum_status mx_st = hum_layer_tuning_check(&mx, &mx_t, NULL, NULL);
    QUANT_CHECK(mx_st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), "192 accumulator registers"),
                "MXFP8 64x256/32: status %d, message '%s' should name '192 accumulator registers'", mx_st,
                hum_last_error());
    /* W8A8 e4m3 (channel scales), promoted every 128 of K: wgmma_ws alone on its SM holds 192
     * accumulator registers (192-row tiles: 2 x 96), plain wgmma 128; 128 x 256 (two slabs) is 256 */
    hum_layer_config w8 = mx;
    w8.a_group = 0;
    hum_tuning w8_t = wgmma_tuning(128, 128, 16, 4);
    w8_t.block_k = w8_t.warp_k = 128;
    w8_t.stream_k = 0; /* 8-bit A sums stream-K slices only in the workspace */
    QUANT_CHECK(hum_layer_tuning_check(&w8, &w8_t, NULL, NULL) == HUM_OK && hum_gemm_wgmma_acc_regs(&w8, &w8_t) == 128,
                "W8A8 wgmma 128x128x128/4: %s", hum_last_error());
    w8_t.block_m = w8_t.warp_m = 192;
    hum_status w8_st = hum_layer_tuning_check(&w8, &w8_t, NULL, NULL);
    QUANT_CHECK(w8_st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), "192 accumulator registers") &&
                    strstr(hum_last_error(), "at most 128"),
                "W8A8 wgmma 192x128x128: status %d, message '%s' should name 192 of at most 128", w8_st,
                hum_last_error());
    w8_t.kernel = HUM_GEMM_KERNEL_WGMMA_WS;
    QUANT_CHECK(hum_layer_tuning_check(&w8, &w8_t, NULL, NULL) == HUM_OK && hum_gemm_wgmma_acc_regs(&w8, &w8_t) == 192,
                "W8A8 wgmma_ws 192x128x128/4: %s", hum_last_error());
    /* 128 rows promoted every 128 of K, the block K: the stages alternate between two sets (3 x 64
     * registers with the totals); not at 192 rows (3 x 96), every 256 (a period's stages share one
     * set), or at two CTAs per SM */
    w8_t.block_m = w8_t.warp_m = 128;
    QUANT_CHECK(hum_layer_tuning_check(&w8, &w8_t, NULL, NULL) == HUM_OK && hum_gemm_wgmma_stage_sets(&w8, &w8_t) &&
                    hum_gemm_wgmma_acc_regs(&w8, &w8_t) == 192,
                "W8A8 wgmma_ws 128x128x128: %s (sets by stage %d, %d accumulator registers)", hum_last_error(),
                hum_gemm_wgmma_stage_sets(&w8, &w8_t), hum_gemm_wgmma_acc_regs(&w8, &w8_t));
    w8_t.promote_k = 256;
    QUANT_CHECK(!hum_gemm_wgmma_stage_sets(&w8, &w8_t) && hum_gemm_wgmma_acc_regs(&w8, &w8_t) == 128,
                "W8A8 wgmma_ws 128x128x128 promoted every 256: one set");
    w8_t.promote_k = 0;
    w8_t.ctas_per_sm = 2;
    QUANT_CHECK(!hum_gemm_wgmma_stage_sets(&w8, &w8_t), "W8A8 wgmma_ws 128x128x128 at two CTAs per SM: one set");
    w8_t.ctas_per_sm = 1;
    /* a K of 128 is never promoted (kernels/gemm/config.cuh, kPromote): one set, no totals (the
     * stage-set header of such a layer failed NVRTC's static_assert, session 16's review) */
    hum_layer_config w8_k128 = w8;
    w8_k128.k = w8_k128.padded_k = 128;
    QUANT_CHECK(!hum_gemm_promotes(&w8_k128, &w8_t) && !hum_gemm_wgmma_stage_sets(&w8_k128, &w8_t) &&
                    hum_gemm_wgmma_acc_regs(&w8_k128, &w8_t) == 64,
                "W8A8 wgmma_ws 128x128x128 at K = 128: promoted %d, sets by stage %d, %d accumulator registers",
                hum_gemm_promotes(&w8_k128, &w8_t), hum_gemm_wgmma_stage_sets(&w8_k128, &w8_t),
                hum_gemm_wgmma_acc_regs(&w8_k128, &w8_t));
    /* FP8 block-wise (A per 1 x 128, weights per 128 x 128 block), promoted every 128 of K: the
     * stages alternate between two sets only on SS weights without A multicast (the promotion reads
     * each stage's factors where it multiplies; register fragments or the multicast's releases beside
     * three sets spilled), so its budget is 192 there and 128 elsewhere; likewise e4m3 channel
     * weights beside A per 1 x 128; not MXFP8 A (every 32) */
    hum_layer_config blk = w8;
    blk.weight_exp = 4;
    blk.a_group = 128;
    blk.scale_type = HUM_SCALE_BLOCK;
    blk.kernel_group = blk.group_size = 128;
    blk.scale_rows = blk.padded_k / 128;
    hum_tuning blk_t = w8_t;
    blk_t.weights_ss = 1;
    QUANT_CHECK(hum_layer_tuning_check(&blk, &blk_t, NULL, NULL) == HUM_OK && hum_gemm_wgmma_stage_sets(&blk, &blk_t) &&
                    hum_gemm_wgmma_acc_regs(&blk, &blk_t) == 192 && hum_gemm_wgmma_acc_budget(&blk, &blk_t) == 192,
                "FP8 block-wise wgmma_ws 128x128x128 SS: %s (sets by stage %d, %d of %d accumulator registers)",
                hum_last_error(), hum_gemm_wgmma_stage_sets(&blk, &blk_t), hum_gemm_wgmma_acc_regs(&blk, &blk_t),
                hum_gemm_wgmma_acc_budget(&blk, &blk_t));
    hum_layer_config e4_ag = w8;
    e4_ag.weight_exp = 4;
    e4_ag.a_group = 128;
    QUANT_CHECK(hum_gemm_wgmma_stage_sets(&e4_ag, &blk_t), "e4m3 channel x A per 1 x 128, SS: sets by stage");
    blk_t.weights_ss = 0;
    QUANT_CHECK(hum_layer_tuning_check(&blk, &blk_t, NULL, NULL) == HUM_OK && !hum_gemm_wgmma_stage_sets(&blk, &blk_t) &&
                    hum_gemm_wgmma_acc_regs(&blk, &blk_t) == 128 && hum_gemm_wgmma_acc_budget(&blk, &blk_t) == 128,
                "FP8 block-wise wgmma_ws 128x128x128 on register fragments: %s (sets by stage %d, %d of %d)",
                hum_last_error(), hum_gemm_wgmma_stage_sets(&blk, &blk_t), hum_gemm_wgmma_acc_regs(&blk, &blk_t),
                hum_gemm_wgmma_acc_budget(&blk, &blk_t));
    blk_t.weights_ss = 1;
    blk_t.block_m = blk_t.warp_m = 192;
    w8_st = hum_layer_tuning_check(&blk, &blk_t, NULL, NULL);
    QUANT_CHECK(w8_st == HUM_ERR_UNSUPPORTED && !hum_gemm_wgmma_stage_sets(&blk, &blk_t) &&
                    strstr(hum_last_error(), "192 accumulator registers") && strstr(hum_last_error(), "at most 128"),
                "FP8 block-wise wgmma_ws 192x128x128 SS: status %d, message '%s' should name 192 of at most 128", w8_st,
                hum_last_error());
    blk_t.block_m = blk_t.warp_m = 128;
    blk_t.ctas_per_sm = 2;
    QUANT_CHECK(!hum_gemm_wgmma_stage_sets(&blk, &blk_t), "FP8 block-wise wgmma_ws 128x128x128 at two CTAs: one set");
    blk_t.ctas_per_sm = 1;
    blk_t.multicast_a = 1;
    QUANT_CHECK(!hum_gemm_wgmma_stage_sets(&blk, &blk_t), "FP8 block-wise wgmma_ws 128x128x128, A multicast: one set");
    blk_t.multicast_a = 0;
    hum_layer_config blk_mx = blk;
    blk_mx.a_group = 32;
    QUANT_CHECK(!hum_gemm_wgmma_stage_sets(&blk_mx, &blk_t), "MXFP8 A over block weights, SS: no sets by stage");
    w8_t.block_m = w8_t.warp_m = 192;
    QUANT_CHECK(!hum_gemm_wgmma_stage_sets(&w8, &w8_t), "W8A8 wgmma_ws 192x128x128: one set");
    w8_t.ctas_per_sm = 2;
    QUANT_CHECK(hum_gemm_wgmma_acc_budget(&w8, &w8_t) == 128, "W8A8 wgmma_ws, two CTAs per SM: a budget of %d",
                hum_gemm_wgmma_acc_budget(&w8, &w8_t));
    w8_t.ctas_per_sm = 1;
    w8_t.block_m = w8_t.warp_m = 128;
    w8_t.block_n = 256;
    w8_t.warp_n = 32;
    w8_st = hum_layer_tuning_check(&w8, &w8_t, NULL, NULL);
    QUANT_CHECK(w8_st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), "256 accumulator registers") &&
                    strstr(hum_last_error(), "at most 192"),
                "W8A8 wgmma_ws 128x256x128: status %d, message '%s' should name 256 of at most 192", w8_st,
                hum_last_error());
    /* one slab of 256 rows: half the totals in shared memory (128 + 64 registers), in the epilogue
     * tile's place, as large (65536 bytes, 256 threads x 64 x 4) */
    w8_t.block_n = 128;
    w8_t.warp_n = 16;
    w8_t.block_m = w8_t.warp_m = 256;
    const hum_gemm_variant w8_v = {&w8, NULL, &w8_t};
    QUANT_CHECK(hum_layer_tuning_check(&w8, &w8_t, NULL, NULL) == HUM_OK && hum_gemm_wgmma_smem_totals(&w8, &w8_t) &&
                    hum_gemm_wgmma_acc_regs(&w8, &w8_t) == 192 &&
                    hum_gemm_wgmma_epilogue_smem(&w8_v) == 256 * 128 * 2,
                "W8A8 wgmma_ws 256x128x128: %s (totals in shared memory %d, %d accumulator registers, %lld bytes)",
                hum_last_error(), hum_gemm_wgmma_smem_totals(&w8, &w8_t), hum_gemm_wgmma_acc_regs(&w8, &w8_t),
                (long long)hum_gemm_wgmma_epilogue_smem(&w8_v));
    /* the totals' tile stays: C in the last stage's slot is fitted away and refused */
    hum_tuning w8_c = w8_t, w8_c_out;
    w8_c.c_tile = 1;
    const hum_compute_config w8_dense = {.gemm_type = HUM_GEMM_DENSE};
    QUANT_CHECK(hum_layer_fit_tuning(&w8, &w8_dense, &w8_c, "sm_90a", 232448, "test", &w8_c_out) == HUM_OK &&
                    w8_c_out.c_tile == 0,
                "W8A8 wgmma_ws 256x128x128, c_tile stage fitted: c_tile %d %s", w8_c_out.c_tile, hum_last_error());
    w8_st = hum_layer_tuning_check(&w8, &w8_c, NULL, NULL);
    QUANT_CHECK(w8_st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), "c_tile"),
                "W8A8 wgmma_ws 256x128x128, c_tile stage: status %d, message '%s' should name c_tile", w8_st,
                hum_last_error());
    w8_t.promote_k = 8192; /* never promoted (K = 8192): no totals at all */
    QUANT_CHECK(!hum_gemm_wgmma_smem_totals(&w8, &w8_t) && hum_gemm_wgmma_acc_regs(&w8, &w8_t) == 128,
                "W8A8 wgmma_ws 256x128x128 never promoted: no totals");
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const hum_status st = hum_layer_tuning_check(&bad[i].c, &bad[i].t, NULL, NULL);
        QUANT_CHECK(st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), bad[i].needle),
                    "%s: status %d, message '%s' should name '%s'", bad[i].what, st, hum_last_error(), bad[i].needle);
    }

    /* at two CTAs per SM: 128 x 128 on plain wgmma and 96 x 128 on wgmma_ws are taken; fitted,
     * wgmma_ws 128 x 128 falls back to one CTA and 96 x 128 keeps two */
    const hum_compute_config dense = {.gemm_type = HUM_GEMM_DENSE};
    struct {
        int bm, ws, want_ctas;
    } two[] = {{128, 0, 2}, {96, 1, 2}, {128, 1, 1}};
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++) {
        hum_tuning t = wgmma_tuning(two[i].bm, 128, 16, 4), out;
        t.kernel = two[i].ws ? HUM_GEMM_KERNEL_WGMMA_WS : HUM_GEMM_KERNEL_WGMMA;
        t.ctas_per_sm = 2;
        const char *name = two[i].ws ? "wgmma_ws" : "wgmma";
        if (two[i].want_ctas == 2)
            QUANT_CHECK(hum_layer_tuning_check(&c, &t, NULL, NULL) == HUM_OK, "%s %dx128 at two CTAs: %s", name,
                        two[i].bm, hum_last_error());
        QUANT_CHECK(hum_layer_fit_tuning(&c, &dense, &t, "sm_90a", 232448, "test", &out) == HUM_OK &&
                        out.ctas_per_sm == two[i].want_ctas,
                    "%s %dx128 at two CTAs, fitted: %d CTAs per SM (want %d) %s", name, two[i].bm, out.ctas_per_sm,
                    two[i].want_ctas, hum_last_error());
    }
    /* c_tile "stage": C in the last stage's A slot (64 KiB at 256 x 128 x 128 of 16-bit A, the whole
     * tile), no tile of its own: uint4 g128 takes three stages of 73,984 bytes where its own tile
     * leaves two; fitted away on plain wgmma and where the slot holds fewer than 8 rows of C
     * (8 x 256 x 64: 1 KiB of A, 2 rows of 512 bytes), which the check refuses */
    struct {
        int bm, bn, bk, kernel, c_tile, want_c, want_stages;
    } ct[] = {{256, 128, 128, HUM_GEMM_KERNEL_WGMMA_WS, 1, 1, 3},
              {256, 128, 128, HUM_GEMM_KERNEL_WGMMA_WS, 0, 0, 2},
              {128, 256, 64, HUM_GEMM_KERNEL_WGMMA, 1, 0, 4},
              {8, 256, 64, HUM_GEMM_KERNEL_WGMMA_WS, 1, 0, 4}};
    for (size_t i = 0; i < sizeof ct / sizeof ct[0]; i++) {
        hum_tuning t = wgmma_tuning(ct[i].bm, ct[i].bn, ct[i].bn / 8, 4), out;
        t.block_k = t.warp_k = ct[i].bk;
        t.kernel = ct[i].kernel;
        t.c_tile = ct[i].c_tile;
        QUANT_CHECK(hum_layer_fit_tuning(&c, &dense, &t, "sm_90a", 232448, "test", &out) == HUM_OK &&
                        out.c_tile == ct[i].want_c && out.stages == ct[i].want_stages,
                    "kernel %d %dx%dx%d c_tile %d, fitted: c_tile %d (want %d), %d stages (want %d) %s", ct[i].kernel,
                    ct[i].bm, ct[i].bn, ct[i].bk, ct[i].c_tile, out.c_tile, ct[i].want_c, out.stages,
                    ct[i].want_stages, hum_last_error());
        /* the shared memory: the stages (A, uint4 codes, one row of group-128 scales), 2048 spare
         * bytes, and the tile of its own on wgmma_ws unless C is in the stage */
        int64_t smem = 0;
        const int64_t stage = (int64_t)ct[i].bm * ct[i].bk * 2 + ct[i].bk / 16 * (ct[i].bn / 64) * 32 * 4 * 4 +
                              ct[i].bn * 2;
        const int64_t want = out.stages * stage + 2048 +
                             (ct[i].kernel == HUM_GEMM_KERNEL_WGMMA_WS && !out.c_tile ? ct[i].bm * ct[i].bn * 2 : 0);
        QUANT_CHECK(hum_layer_tuning_check(&c, &out, &smem, NULL) == HUM_OK && smem == want,
                    "kernel %d %dx%dx%d c_tile %d, fitted: %lld bytes of shared memory (want %lld) %s", ct[i].kernel,
                    ct[i].bm, ct[i].bn, ct[i].bk, out.c_tile, (long long)smem, (long long)want, hum_last_error());
        if (ct[i].c_tile && !ct[i].want_c) {
            const hum_status st = hum_layer_tuning_check(&c, &t, NULL, NULL);
            QUANT_CHECK(st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), "c_tile"),
                        "kernel %d %dx%dx%d c_tile stage: status %d, message '%s' should name c_tile", ct[i].kernel,
                        ct[i].bm, ct[i].bn, ct[i].bk, st, hum_last_error());
        }
    }
    /* multicast_a: kept on wgmma_ws where N holds n-blocks in pairs, whole tiles or stream-K; fitted
     * away on plain wgmma, on an odd count of n-blocks (N = 1152: 9 of 128) and where each CTA's
     * half of block M is no whole 8-row atom (block M 8); refused there by the check */
    const hum_layer_config odd_n = config_for(4, 1152, 8192, 128);
    struct {
        const hum_layer_config *c;
        int bm, kernel, stream_k, want;
    } mc[] = {{&c, 256, HUM_GEMM_KERNEL_WGMMA_WS, 0, 1},
              {&c, 256, HUM_GEMM_KERNEL_WGMMA_WS, 1, 1},
              {&c, 128, HUM_GEMM_KERNEL_WGMMA, 0, 0},
              {&odd_n, 128, HUM_GEMM_KERNEL_WGMMA_WS, 0, 0},
              {&c, 8, HUM_GEMM_KERNEL_WGMMA_WS, 0, 0}};
    for (size_t i = 0; i < sizeof mc / sizeof mc[0]; i++) {
        hum_tuning t = wgmma_tuning(mc[i].bm, 128, 16, 3), out;
        t.kernel = mc[i].kernel;
        t.stream_k = mc[i].stream_k;
        t.multicast_a = 1;
        QUANT_CHECK(hum_layer_fit_tuning(mc[i].c, &dense, &t, "sm_90a", 232448, "test", &out) == HUM_OK &&
                        out.multicast_a == mc[i].want,
                    "multicast_a, kernel %d block M %d stream-K %d N %lld, fitted: %d (want %d) %s", mc[i].kernel,
                    mc[i].bm, mc[i].stream_k, (long long)mc[i].c->padded_n, out.multicast_a, mc[i].want,
                    hum_last_error());
        const hum_status st = hum_layer_tuning_check(mc[i].c, &t, NULL, NULL);
        QUANT_CHECK(mc[i].want ? st == HUM_OK : st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), "multicast_a"),
                    "multicast_a, kernel %d block M %d stream-K %d: status %d, '%s'", mc[i].kernel, mc[i].bm,
                    mc[i].stream_k, st, hum_last_error());
    }
    /* weights_ss: kept on wgmma_ws for e4m3 weights beside e4m3 A with block N up to 128 (one TMA box
     * row of 256 eight-byte words); fitted away on plain wgmma, block N 256, int8 A (its uint8 codes
     * become int8 in registers), 4-bit floats (widened in registers) and expert GEMMs; refused there
     * by the check, naming the field; the mma.sync kernel refuses it too */
    {
        hum_layer_config e4 = config_for(8, 8192, 8192, 8192), u8 = e4, e2 = config_for(4, 8192, 8192, 32),
                         moe = e4;
        e4.weight_dtype = HUM_DTYPE_FLOAT8_E4M3FN;
        e4.weight_float = 1;
        e4.weight_exp = 4;
        e4.a_dtype = HUM_DTYPE_FLOAT8_E4M3FN;
        e4.c_dtype = HUM_DTYPE_BFLOAT16;
        moe = e4;
        moe.num_experts = 8;
        u8.a_dtype = HUM_DTYPE_INT8;
        e2.weight_dtype = HUM_DTYPE_FLOAT4_E2M1;
        e2.weight_float = 1;
        e2.weight_exp = 2;
        e2.a_dtype = HUM_DTYPE_FLOAT8_E4M3FN;
        e2.scale_dtype = HUM_DTYPE_FLOAT8_E8M0;
        const hum_compute_config indexed = {.gemm_type = HUM_GEMM_MOE_INDEXED};
        struct {
            const hum_layer_config *c;
            const hum_compute_config *compute;
            int kernel, bm, bn, wn, want;
        } ss[] = {{&e4, &dense, HUM_GEMM_KERNEL_WGMMA_WS, 128, 128, 16, 1},
                  {&e4, &dense, HUM_GEMM_KERNEL_WGMMA_WS, 128, 64, 16, 1},
                  {&e4, &dense, HUM_GEMM_KERNEL_WGMMA, 128, 128, 16, 0},
                  {&e4, &dense, HUM_GEMM_KERNEL_WGMMA_WS, 64, 256, 32, 0},
                  {&u8, &dense, HUM_GEMM_KERNEL_WGMMA_WS, 128, 128, 16, 0},
                  {&e2, &dense, HUM_GEMM_KERNEL_WGMMA_WS, 128, 128, 16, 0},
                  {&moe, &indexed, HUM_GEMM_KERNEL_WGMMA_WS, 128, 128, 16, 0}};
        for (size_t i = 0; i < sizeof ss / sizeof ss[0]; i++) {
            hum_tuning t = wgmma_tuning(ss[i].bm, ss[i].bn, ss[i].wn, 3), out;
            t.block_k = t.warp_k = 128;
            t.kernel = ss[i].kernel;
            t.weights_ss = 1;
            QUANT_CHECK(hum_layer_fit_tuning(ss[i].c, ss[i].compute, &t, "sm_90a", 232448, "test", &out) == HUM_OK &&
                            out.weights_ss == ss[i].want,
                        "weights_ss, case %zu (kernel %d block N %d), fitted: %d (want %d) %s", i, ss[i].kernel,
                        ss[i].bn, out.weights_ss, ss[i].want, hum_last_error());
            const hum_gemm_variant v = {ss[i].c, ss[i].compute, &t};
            const hum_status st = hum_gemm_wgmma_check(&v);
            QUANT_CHECK(ss[i].want ? st == HUM_OK : st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), "weights_ss"),
                        "weights_ss, case %zu: status %d, '%s'", i, st, hum_last_error());
        }
        hum_tuning t = {1, INT64_MAX, 16, 64, 256, 16, 32, 64, 8, 1, 1, HUM_GEMM_KERNEL_MMA, 0, 0, 0, 0, 0, 1, 0, 0}, out;
        QUANT_CHECK(hum_layer_fit_tuning(&e4, &dense, &t, "sm_90a", 232448, "test", &out) == HUM_OK && !out.weights_ss,
                    "weights_ss on mma.sync, fitted: %d %s", out.weights_ss, hum_last_error());
        const hum_status st = hum_layer_tuning_check(&e4, &t, NULL, NULL);
        QUANT_CHECK(st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), "weights_ss"),
                    "weights_ss on mma.sync: status %d, '%s'", st, hum_last_error());
    }
    /* quantize_a outside dense 8-bit A per token: refused by the check, naming the field */
    {
        hum_layer_config a16 = config_for(4, 1024, 1024, 128);
        hum_tuning t = wgmma_tuning(128, 128, 16, 3);
        t.kernel = HUM_GEMM_KERNEL_WGMMA_WS;
        t.quantize_a = 1;
        const hum_gemm_variant v = {&a16, &dense, &t};
        const hum_status st = hum_gemm_wgmma_check(&v);
        QUANT_CHECK(st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), "quantize_a"),
                    "quantize_a with 16-bit A: status %d, '%s'", st, hum_last_error());
    }
    /* an expert GEMM (rows of A gathered by cp.async, no TMA): fitted away, and refused by the check */
    {
        hum_layer_config e = config_for(4, 1536, 2048, 128);
        e.num_experts = 8;
        const hum_compute_config indexed = {.gemm_type = HUM_GEMM_MOE_INDEXED};
        hum_tuning t = wgmma_tuning(128, 128, 16, 3), out;
        t.kernel = HUM_GEMM_KERNEL_WGMMA_WS;
        t.stream_k = 0;
        t.multicast_a = 1;
        QUANT_CHECK(hum_layer_fit_tuning(&e, &indexed, &t, "sm_90a", 232448, "test", &out) == HUM_OK &&
                        !out.multicast_a,
                    "multicast_a on an indexed expert GEMM, fitted: %d %s", out.multicast_a, hum_last_error());
        const hum_gemm_variant v = {&e, &indexed, &t};
        const hum_status st = hum_gemm_wgmma_check(&v);
        QUANT_CHECK(st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), "multicast_a"),
                    "multicast_a on an indexed expert GEMM: status %d, '%s'", st, hum_last_error());
    }
    /* the expert tile of one row per expert (policies/sm90.lua): wgmma_ws 8 x 128 x 256, three stages
     * at three CTAs per SM (3 x 67,072 bytes); fitted, it keeps both */
    hum_tuning t8 = wgmma_tuning(8, 128, 32, 3), out8;
    t8.kernel = HUM_GEMM_KERNEL_WGMMA_WS;
    t8.block_k = t8.warp_k = 256;
    t8.ctas_per_sm = 3;
    int64_t smem8 = 0;
    QUANT_CHECK(hum_layer_tuning_check(&c, &t8, &smem8, NULL) == HUM_OK && smem8 == 67072 &&
                    hum_layer_fit_tuning(&c, &dense, &t8, "sm_90a", 232448, "test", &out8) == HUM_OK &&
                    out8.ctas_per_sm == 3 && out8.stages == 3,
                "wgmma_ws 8x128x256/3 at three CTAs: smem %lld, fitted %d CTAs, %d stages %s", (long long)smem8,
                out8.ctas_per_sm, out8.stages, hum_last_error());
}

/* The site policy's table for `spec` on sm_90a: `count` entries (equal neighbours merge), every
 * one of family `kernel` with block N bn[i] after fitting, a warp N that keeps whole warpgroups
 * and c_tile `c_tile`; the kernels compile. */
static void check_compile(hum_runtime *rt, int32_t kernel, int c_tile, const char *spec, int count, const int *bn)
{
    const hum_standard_weight *w = quant_spec_weight(spec, 11);
    if (!w)
        return;
    hum_layer_info info;
    if (QUANT_CHECK(hum_layer_compile(rt, w, NULL, "sm_90a", &info) == HUM_OK, "%s: %s", spec, hum_last_error()) &&
        QUANT_CHECK(info.entry_count == count && !strcmp(info.policy_name, "wgmma-test"), "%s: %d entries from '%s'",
                    spec, info.entry_count, info.policy_name)) {
        for (int i = 0; i < count; i++) {
            const hum_tuning *t = &info.entries[i];
            QUANT_CHECK(t->kernel == kernel && t->block_n == bn[i] && t->warp_m == t->block_m &&
                            t->warp_k == t->block_k && (t->block_n / t->warp_n == 4 || t->block_n / t->warp_n == 8) &&
                            t->c_tile == c_tile,
                        "%s entry %d: kernel %d, block %dx%dx%d, warp %dx%dx%d, c_tile %d (block N %d, c_tile %d "
                        "expected)", spec, i, t->kernel, t->block_m, t->block_n, t->block_k, t->warp_m, t->warp_n,
                        t->warp_k, t->c_tile, bn[i], c_tile);
        }
        printf("  sm_90a %-8s %-5s %-48s %d kernels, %5.0f ms, %d compiled, %d cached\n",
               kernel == HUM_GEMM_KERNEL_WGMMA ? "wgmma" : "wgmma_ws", c_tile ? "stage" : "own", spec, info.entry_count, info.compile_ms,
               info.kernels_compiled, info.kernels_cached);
    }
}

static void check_refusals(hum_runtime *rt)
{
    struct {
        const char *spec, *arch, *needle;
    } cases[] = {
        {"n=256,k=256,w=uint4,group=128", "sm_80", "sm_90a only"},
        {"n=256,k=250,w=uint4", "sm_90a", "multiple of 8"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const hum_standard_weight *w = quant_spec_weight(cases[i].spec, 11);
        if (!w)
            continue;
        hum_layer_info info;
        const hum_status st = hum_layer_compile(rt, w, NULL, cases[i].arch, &info);
        QUANT_CHECK(st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), cases[i].needle),
                    "%s on %s: status %d, message '%s' should name '%s'", cases[i].spec, cases[i].arch, st,
                    hum_last_error(), cases[i].needle);
    }
}

int main(void)
{
    check_rules();
    char dir[512];
    /* N = 520 pads to 576: every block N falls to 64; the entries still differ in block K,
     * stages or block M, so none merge */
    const int wide[6] = {256, 128, 128, 128, 256, 128}, narrow[6] = {64, 64, 64, 64, 64, 64};
    hum_runtime *rt = wgmma_test_runtime("wgmma", "own", dir, sizeof dir);
    if (QUANT_CHECK(rt != NULL, "runtime with the wgmma site policy")) {
        const int32_t k = HUM_GEMM_KERNEL_WGMMA;
        check_compile(rt, k, 0, "n=1000,k=1096,w=uint4,a=float16,group=128", 6, wide);
        check_compile(rt, k, 0, "n=520,k=328,w=uint8,a=bfloat16,group=64,zp=int,bias=1", 6, narrow);
        check_compile(rt, k, 0, "n=200,k=320,w=e4m3,a=bfloat16", 6, wide);
        /* the widths whose codes each warp picks from the lane's words (odd widths rebuilt) */
        check_compile(rt, k, 0, "n=1000,k=1096,w=uint2,a=float16", 6, wide);
        check_compile(rt, k, 0, "n=520,k=328,w=uint3,a=bfloat16,group=64,zp=int,bias=1", 6, narrow);
        check_compile(rt, k, 0, "n=200,k=320,w=uint1,a=float16,group=32", 6, wide);
        check_compile(rt, k, 0, "n=200,k=320,w=uint7,a=bfloat16,zp=float,group=128", 6, wide);
        check_compile(rt, k, 0, "n=200,k=320,w=e3m2,a=bfloat16,group=32", 6, wide);
        /* act-order: A arrives permuted (kernels/prep/permute_a.cu), so the wgmma kernel takes it */
        check_compile(rt, k, 0, "n=1000,k=1096,w=uint4,a=float16,group=128,actorder=1", 6, wide);
        check_compile(rt, k, 0, "n=520,k=328,w=uint3,a=bfloat16,group=64,zp=int,actorder=1", 6, narrow);
        check_refusals(rt);
        hum_runtime_destroy(rt);
    }
    rt_rmtree(dir);
    /* warp-specialised: share mode (4 and 8 bits), lane mode (odd widths), float codes */
    rt = wgmma_test_runtime("wgmma_ws", "own", dir, sizeof dir);
    if (QUANT_CHECK(rt != NULL, "runtime with the wgmma_ws site policy")) {
        const int32_t k = HUM_GEMM_KERNEL_WGMMA_WS;
        check_compile(rt, k, 0, "n=1000,k=1096,w=uint4,a=float16,group=128", 6, wide);
        check_compile(rt, k, 0, "n=520,k=328,w=uint8,a=bfloat16,group=64,zp=int,bias=1", 6, narrow);
        check_compile(rt, k, 0, "n=200,k=320,w=e4m3,a=bfloat16", 6, wide);
        check_compile(rt, k, 0, "n=520,k=328,w=uint3,a=bfloat16,group=64,zp=int,bias=1", 6, narrow);
        hum_runtime_destroy(rt);
    }
    rt_rmtree(dir);
    /* A multicast to 2-CTA clusters on the built-in tables' wgmma_ws entries, whole tiles with C in
     * either place, and stream-K summed in the workspace (C in either place) and through C: every
     * such entry keeps it, and the kernels compile */
    static const struct {
        const char *edit;
        int c_tile, stream_k;
    } mc_edits[] = {
        {"if t.kernel == 'wgmma_ws' then t.stream_k = false; t.stream_k_sum = 'output'; t.multicast_a = true; "
         "t.c_tile = 'own' end",
         0, 0},
        {"if t.kernel == 'wgmma_ws' then t.stream_k = false; t.stream_k_sum = 'output'; t.multicast_a = true; "
         "t.c_tile = 'stage' end",
         1, 0},
        {"if t.kernel == 'wgmma_ws' then t.stream_k = true; t.stream_k_sum = 'workspace'; t.multicast_a = true; "
         "t.c_tile = 'own' end",
         0, 1},
        {"if t.kernel == 'wgmma_ws' then t.stream_k = true; t.stream_k_sum = 'output'; t.multicast_a = true; "
         "t.c_tile = 'own' end",
         0, 1},
        {"if t.kernel == 'wgmma_ws' then t.stream_k = true; t.stream_k_sum = 'workspace'; t.multicast_a = true; "
         "t.c_tile = 'stage' end",
         1, 1}};
    /* the production shape, and tests/gpu/test_gemm_wgmma.c's multicast specs */
    static const char *const mc_specs[] = {"n=8192,k=8192,w=uint8", "n=2048,k=4096,w=uint4,a=float16,group=128",
                                           "n=1000,k=1096,w=uint8,a=bfloat16,group=64,zp=int,bias=1",
                                           "n=2048,k=1024,w=uint2,a=bfloat16", "n=8192,k=1024,w=uint4,a=float16,group=128",
                                           "n=1000,k=1096,w=uint8,a=float16,group=64,actorder=1",
                                           "n=8192,k=1024,w=uint8,a=float16",
                                           "n=8192,k=1024,w=uint8,a=bfloat16,group=128,actorder=1"};
    for (size_t e = 0; e < sizeof mc_edits / sizeof mc_edits[0]; e++) {
        rt = gemm_test_site_runtime(mc_edits[e].edit, dir, sizeof dir);
        if (!QUANT_CHECK(rt != NULL, "runtime with A multicast (%zu)", e))
            continue;
        for (size_t i = 0; i < sizeof mc_specs / sizeof mc_specs[0]; i++) {
            const hum_standard_weight *w = quant_spec_weight(mc_specs[i], 11);
            hum_layer_info info;
            if (!w)
                continue;
            if (QUANT_CHECK(hum_layer_compile(rt, w, NULL, "sm_90a", &info) == HUM_OK, "%s: %s", mc_specs[i],
                            hum_last_error())) {
                int ws = 0;
                for (int j = 0; j < info.entry_count; j++) {
                    const hum_tuning *t = &info.entries[j];
                    if (t->kernel != HUM_GEMM_KERNEL_WGMMA_WS)
                        continue;
                    ws++;
                    QUANT_CHECK(t->multicast_a && t->stream_k == mc_edits[e].stream_k && t->c_tile == mc_edits[e].c_tile,
                                "%s, A multicast (%zu), entry %d: multicast_a %d, stream-K %d, c_tile %d", mc_specs[i],
                                e, j, t->multicast_a, t->stream_k, t->c_tile);
                }
                QUANT_CHECK(ws > 0, "%s: no wgmma_ws entry", mc_specs[i]);
                printf("  sm_90a wgmma_ws A multicast%s%s %-40s %d kernels, %5.0f ms, %d compiled\n",
                       mc_edits[e].c_tile ? ", C in the stage" : "", mc_edits[e].stream_k ? ", stream-K" : "",
                       mc_specs[i], info.entry_count, info.compile_ms, info.kernels_compiled);
            }
        }
        hum_runtime_destroy(rt);
        rt_rmtree(dir);
    }
    /* The GEMM quantizing its own A (quantize_a) on every wgmma_ws entry of the built-in tables:
     * kept on dense layers of 8-bit A per token (W8A8 on A multicast, C in the stage, whole tiles
     * and stream-K; int8 A; W4A8 MXFP4 on its 256-row tiles; K = 2064 and 2080 end on a partial
     * round of a warp's chunks), fitted away elsewhere (16-bit A, A per tensor, 1 x 128 groups);
     * the kernels compile (sm90.lua sets it on W8A8 e4m3 above M = 1024 alone) */
    static const struct {
        const char *spec;
        int keeps;
    } qa_specs[] = {{"n=1024,k=2064,w=e4m3,a=e4m3,out=bfloat16", 1},
                    {"n=8192,k=1024,w=e4m3,a=e4m3", 1},
                    {"n=1024,k=1024,w=uint8,a=int8,out=float16", 1},
                    {"n=1024,k=2080,w=e2m1,group=32,scale=e8m0,a=e4m3,out=bfloat16", 1},
                    {"n=1000,k=1096,w=uint4,a=float16,group=128", 0},
                    {"n=512,k=4096,w=e4m3,scale=tensor,a=e4m3,ascale=tensor,out=bfloat16", 0},
                    {"n=1024,k=2048,w=e4m3,block=128x128,a=e4m3,ascale=group128", 0}};
    rt = gemm_test_site_runtime("if t.kernel == 'wgmma_ws' then t.quantize_a = true end", dir, sizeof dir);
    if (QUANT_CHECK(rt != NULL, "runtime with quantize_a")) {
        for (size_t i = 0; i < sizeof qa_specs / sizeof qa_specs[0]; i++) {
            const hum_standard_weight *w = quant_spec_weight(qa_specs[i].spec, 11);
            hum_layer_info info;
            if (!w || !QUANT_CHECK(hum_layer_compile(rt, w, NULL, "sm_90a", &info) == HUM_OK, "%s: %s",
                                   qa_specs[i].spec, hum_last_error()))
                continue;
            int ws = 0, kept = 0;
            for (int j = 0; j < info.entry_count; j++) {
                ws += info.entries[j].kernel == HUM_GEMM_KERNEL_WGMMA_WS;
                kept += info.entries[j].quantize_a;
            }
            QUANT_CHECK(ws > 0 && kept == (qa_specs[i].keeps ? ws : 0),
                        "%s: quantize_a on %d of %d wgmma_ws entries (expected %s)", qa_specs[i].spec, kept, ws,
                        qa_specs[i].keeps ? "all" : "none");
            printf("  sm_90a wgmma_ws quantize_a %-64s %d of %d entries, %5.0f ms, %d compiled\n",
                   qa_specs[i].spec, kept, info.entry_count, info.compile_ms, info.kernels_compiled);
        }
        hum_runtime_destroy(rt);
    }
    rt_rmtree(dir);
    /* C in the last stage's slot: one, two and four row splits, stream-K slices summed in the
     * workspace on three of the ranges (tests/support/wgmma_test.h) */
    rt = wgmma_test_runtime("wgmma_ws", "stage", dir, sizeof dir);
    if (QUANT_CHECK(rt != NULL, "runtime with the wgmma_ws site policy, c_tile stage")) {
        const int32_t k = HUM_GEMM_KERNEL_WGMMA_WS;
        check_compile(rt, k, 1, "n=1000,k=1096,w=uint4,a=float16,group=128", 6, wide);
        check_compile(rt, k, 1, "n=520,k=328,w=uint8,a=bfloat16,group=64,zp=int,bias=1", 6, narrow);
        check_compile(rt, k, 1, "n=520,k=328,w=uint3,a=bfloat16,group=64,zp=int,bias=1", 6, narrow);
        hum_runtime_destroy(rt);
    }
    rt_rmtree(dir);
    quant_spec_weights_free();
    return quant_test_result("test_gemm_wgmma_rules");
}
