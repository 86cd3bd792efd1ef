/* Layers of 8-bit activations on the CPU: hum_layer_options resolved and checked (dtypes, output
 * dtype, activation groups), C's rules for which targets, weights and scales take 8-bit A, and
 * NVRTC compiles of every 8-bit-A variant (W8A8 e4m3 and int8, W4A8 uint4 per channel and, with
 * int8 A, in groups along K; int8 x uint8 groups, MXFP4) the built-in policies
 * give on sm_80, sm_86, sm_89 and sm_90a (the archs that refuse it name the rule), and on sm_90a
 * warp-specialised (wgmma_ws) with the workspace sums; stream-K with 8-bit A only where its
 * slices sum in the workspace (tuning field stream_k_sum), which sm_90a's built-in table asks
 * for on every entry but its whole-tile ones (W8A8, FP8 block-wise and W4A8 MXFP4 where one wave
 * fills the SMs). */
#include "gemm_test.h"
#include "hum/hum_tools.h"
#include "hum_ffi.h"
#include "quant_test.h"
#include "rt_test.h"

#include <string.h>

static int make_weight(const char *spec, hum_standard_weight *w)
{
    hum_layer_spec s;
    return QUANT_CHECK(hum_layer_spec_parse(spec, &s) == HUM_OK && hum_layer_spec_weight(&s, 1, w) == HUM_OK, "%s: %s",
                       spec, hum_last_error());
}

/* Compiles `spec`'s weight with options o for arch; expects `want` and, when failing, `needle`
 * in the message, and on sm_90a stream-K summed in the workspace on every entry but those that
 * `whole` (nwhole strings, entry i's at i; NULL for stream-K) names "BLOCK_MxBLOCK_N/STAGES": tiles
 * whole, W8A8, FP8 block-wise and W4A8 MXFP4 where one wave of them fills the SMs; there too
 * every entry's promote_k equal to `promote`, from M = 1025 on to `promote_wide` (W8A8's 192-row tiles, promoted
 * every other stage: policies/sm90.lua), unless it is -1. Returns the entry count. */
static int compile_expect(hum_runtime *rt, const char *spec, hum_layer_options o, const char *arch, hum_status want,
                          const char *needle, const char *const *whole, int nwhole, int promote, int promote_wide)
{
    const hum_standard_weight *w = quant_spec_weight(spec, 1);
    if (!w)
        return 0;
    hum_layer_info info;
    memset(&info, 0, sizeof info);
    const hum_status st = hum_layer_compile(rt, w, &o, arch, &info);
    const char *a = hum_dtype_name(o.activation_dtype);
    if (!QUANT_CHECK(st == want && (want == HUM_OK || strstr(hum_last_error(), needle)),
                     "%s a=%s on %s: status %d '%s', expected %d%s%s", spec, a, arch, st,
                     st == HUM_OK ? "" : hum_last_error(), want, needle ? " naming " : "", needle ? needle : ""))
        return 0;
    if (st != HUM_OK)
        return 0;
    printf("  %-6s %-40s a=%-14s %d kernels, %5.0f ms, %d compiled\n", arch, spec, a, info.entry_count,
           info.compile_ms, info.kernels_compiled);
    QUANT_CHECK(info.config.a_dtype == o.activation_dtype &&
                    info.config.c_dtype == (o.output_dtype ? o.output_dtype : HUM_DTYPE_FLOAT16) &&
                    info.config.exp_compensation == 0,
                "%s on %s: config a %s c %s compensation %d", spec, arch, hum_dtype_name(info.config.a_dtype),
                hum_dtype_name(info.config.c_dtype), info.config.exp_compensation);
    /* sm90.lua sums 8-bit A's stream-K slices in the workspace on every entry (bench/NOTES.md,
     * "Session 5") but the whole-tile entries; the other built-in policies leave the field out, so
     * their fit drops stream-K */
    const int sm90 = strcmp(arch, "sm_90a") == 0;
    if (!sm90)
        nwhole = 0;
    for (int i = 0; i < info.entry_count; i++) {
        const char *tile = i < nwhole ? whole[i] : NULL;
        const int sum = sm90 && !tile;
        QUANT_CHECK(info.entries[i].block_k >= 128 && info.entries[i].warp_k % 32 == 0 &&
                        info.entries[i].stream_k == sum && info.entries[i].stream_k_sum == sum,
                    "%s on %s: entry %d block K %d warp K %d stream-K %d sum %d (expected %d, %d)", spec, arch, i,
                    info.entries[i].block_k, info.entries[i].warp_k, info.entries[i].stream_k,
                    info.entries[i].stream_k_sum, sum, sum);
        char got[32];
        snprintf(got, sizeof got, "%dx%d/%d", info.entries[i].block_m, info.entries[i].block_n,
                 info.entries[i].stages);
        QUANT_CHECK(!tile || strcmp(got, tile) == 0, "%s on %s: entry %d (M to %lld) whole on %s (expected %s)", spec,
                    arch, i, (long long)info.entries[i].m_max, got, tile ? tile : "");
        const int expect = info.entries[i].m_min > 1024 ? promote_wide : promote;
        QUANT_CHECK(!sm90 || expect < 0 || info.entries[i].promote_k == expect,
                    "%s on %s: entry %d promoted every %d of K (expected %d)", spec, arch, i,
                    info.entries[i].promote_k, expect);
    }
    QUANT_CHECK(nwhole <= info.entry_count, "%s on %s: %d entries, %d expected", spec, arch, info.entry_count,
                nwhole);
    return info.entry_count;
}

/* sm_90a's table of `spec` under options o sets whole_fill (95: its launches run the tiles whole
 * where they fill the waves of the SMs to 95 %, policies/sm90.lua) on the entries up to M = fill_to
 * and (unless 0) M = fill_also alone (fill_to 0: on none): W8A8 e4m3 with channel or tensor scales
 * at M 385..1024, FP8 block-wise at 129..1024, W4A8 MXFP4 at 513..2048 (where two row blocks of
 * 128 columns fill the SMs, n = 8192 on 132: at 513..768 on 192-row tiles and 769..2048 on 256-row
 * ones), at every N. */
static void expect_whole_fill(hum_runtime *rt, const char *spec, hum_layer_options o, int64_t fill_to,
                              int64_t fill_also)
{
    hum_standard_weight w;
    if (!make_weight(spec, &w))
        return;
    hum_layer_info info;
    memset(&info, 0, sizeof info);
    if (QUANT_CHECK(hum_layer_compile(rt, &w, &o, "sm_90a", &info) == HUM_OK, "%s: %s", spec, hum_last_error())) {
        int found = 0;
        for (int i = 0; i < info.entry_count; i++) {
            const hum_tuning *t = &info.entries[i];
            const int want = fill_to && (t->m_max == fill_to || t->m_max == fill_also) ? 95 : 0;
            found += want != 0;
            QUANT_CHECK(t->whole_fill == want && (!want || (t->stream_k && t->stream_k_sum)),
                        "%s: entry %d (M %lld..%lld) whole_fill %d stream-K %d sum %d (expected %d)", spec, i,
                        (long long)t->m_min, (long long)t->m_max, t->whole_fill, t->stream_k, t->stream_k_sum, want);
        }
        const int expected = (fill_to != 0) + (fill_also != 0);
        QUANT_CHECK(found == expected, "%s: %d entries up to M = %lld / %lld (expected %d)", spec, found,
                    (long long)fill_to, (long long)fill_also, expected);
    }
    hum_standard_free(&w);
}

static int compile(hum_runtime *rt, const char *spec, hum_layer_options o, const char *arch, hum_status want,
                   const char *needle)
{
    return compile_expect(rt, spec, o, arch, want, needle, NULL, 0, -1, -1);
}

/* The fit keeps stream-K for 8-bit A only with its slices summed in the workspace, drops the
 * workspace sums of a tuning without stream-K, and refuses a stream_k_sum it does not know. */
static void check_stream_k_sum(void)
{
    hum_layer_config c;
    memset(&c, 0, sizeof c);
    c.n = c.k = c.padded_n = c.padded_k = c.kernel_group = 4096;
    c.a_dtype = HUM_DTYPE_FLOAT8_E4M3FN;
    c.c_dtype = c.param_dtype = c.scale_dtype = HUM_DTYPE_FLOAT16;
    c.weight_dtype = HUM_DTYPE_FLOAT8_E4M3FN;
    c.scale_type = HUM_SCALE_CHANNEL;
    c.scale_rows = c.has_scale = c.weight_float = 1;
    c.weight_bits = 8;
    c.weight_exp = 4;
    const hum_compute_config dense = {.gemm_type = HUM_GEMM_DENSE};
    hum_tuning t = {1, INT64_MAX, 16, 128, 256, 16, 32, 128, 4, 1, 1, HUM_GEMM_KERNEL_MMA, 0, 0, 0, 0, 0, 0, 0, 0}, out;
    hum_status st = hum_layer_fit_tuning(&c, &dense, &t, "sm_90a", 232448, "test", &out);
    QUANT_CHECK(st == HUM_OK && !out.stream_k && !out.stream_k_sum, "e4m3, sums through C: status %d '%s', "
                "stream-K %d sum %d (expected stream-K off)", st, st ? hum_last_error() : "", out.stream_k,
                out.stream_k_sum);
    t.stream_k_sum = 1;
    st = hum_layer_fit_tuning(&c, &dense, &t, "sm_90a", 232448, "test", &out);
    QUANT_CHECK(st == HUM_OK && out.stream_k && out.stream_k_sum, "e4m3, sums in the workspace: status %d '%s', "
                "stream-K %d sum %d (expected both kept)", st, st ? hum_last_error() : "", out.stream_k,
                out.stream_k_sum);
    c.a_dtype = HUM_DTYPE_FLOAT16;
    t.stream_k = 0;
    st = hum_layer_fit_tuning(&c, &dense, &t, "sm_90a", 232448, "test", &out);
    QUANT_CHECK(st == HUM_OK && !out.stream_k && !out.stream_k_sum, "no stream-K: status %d '%s', sum %d kept",
                st, st ? hum_last_error() : "", out.stream_k_sum);
    t.stream_k = 1;
    t.stream_k_sum = 2;
    st = hum_layer_fit_tuning(&c, &dense, &t, "sm_90a", 232448, "test", &out);
    QUANT_CHECK(st == HUM_ERR_POLICY && strstr(hum_last_error(), "stream_k_sum = 2"),
                "stream_k_sum 2: status %d '%s'", st, hum_last_error());
    /* whole_fill: kept on a dense layer's stream-K summed in the workspace, fitted to 0 through
     * C, without stream-K and on expert GEMMs (their launches know a bound on the row blocks
     * alone), refused outside 0..100 */
    c.a_dtype = HUM_DTYPE_FLOAT8_E4M3FN;
    t.stream_k_sum = 1;
    t.whole_fill = 95;
    st = hum_layer_fit_tuning(&c, &dense, &t, "sm_90a", 232448, "test", &out);
    QUANT_CHECK(st == HUM_OK && out.whole_fill == 95, "whole_fill 95, sums in the workspace: status %d '%s', %d",
                st, st ? hum_last_error() : "", out.whole_fill);
    t.stream_k_sum = 0;
    st = hum_layer_fit_tuning(&c, &dense, &t, "sm_90a", 232448, "test", &out);
    QUANT_CHECK(st == HUM_OK && out.whole_fill == 0, "whole_fill 95, no workspace sums: status %d '%s', %d kept", st,
                st ? hum_last_error() : "", out.whole_fill);
    const hum_compute_config indexed = {.gemm_type = HUM_GEMM_MOE_INDEXED};
    t.stream_k_sum = 1;
    c.num_experts = 8;
    st = hum_layer_fit_tuning(&c, &indexed, &t, "sm_90a", 232448, "test", &out);
    QUANT_CHECK(st == HUM_OK && out.whole_fill == 0, "whole_fill 95, expert GEMM: status %d '%s', %d kept", st,
                st ? hum_last_error() : "", out.whole_fill);
    c.num_experts = 0;
    t.whole_fill = 101;
    st = hum_layer_fit_tuning(&c, &dense, &t, "sm_90a", 232448, "test", &out);
    QUANT_CHECK(st == HUM_ERR_POLICY && strstr(hum_last_error(), "whole_fill = 101: expected a percent in 0..100"),
                "whole_fill 101: status %d '%s'", st, hum_last_error());
}

/* promote_k fitted: e4m3 A's alone (int8's exact sums and K-group scales set none), 128 the
 * default (0), a period at or above K the padded K; e4m3 keeps the plain wgmma kernel's 256-row
 * tiles only when never promoted (int8 always), wgmma_ws's promoted too (half the totals in shared
 * memory, hum_gemm_wgmma_smem_totals); a period not a multiple of 128, or within K not a power of
 * two, refused. */
static void check_promote_k(void)
{
    hum_layer_config c;
    memset(&c, 0, sizeof c);
    c.n = c.k = c.padded_n = c.padded_k = c.kernel_group = 4096;
    c.a_dtype = c.weight_dtype = HUM_DTYPE_FLOAT8_E4M3FN;
    c.c_dtype = c.param_dtype = c.scale_dtype = HUM_DTYPE_FLOAT16;
    c.scale_type = HUM_SCALE_CHANNEL;
    c.scale_rows = c.has_scale = c.weight_float = 1;
    c.weight_bits = 8;
    c.weight_exp = 4;
    const hum_compute_config dense = {.gemm_type = HUM_GEMM_DENSE};
    hum_tuning t = {1, INT64_MAX, 256, 128, 128, 256, 16, 128, 3, 1, 1, HUM_GEMM_KERNEL_WGMMA_WS, 1, 0, 0, 0, 0, 0, 0, 0}, out;
    const hum_gemm_kernel plain = HUM_GEMM_KERNEL_WGMMA, ws = HUM_GEMM_KERNEL_WGMMA_WS;
    const struct {
        hum_dtype a;
        int32_t promote_k, fitted, block_m;
        hum_gemm_kernel kernel;
    } cases[] = {{HUM_DTYPE_FLOAT8_E4M3FN, 0, 0, 128, plain},        {HUM_DTYPE_FLOAT8_E4M3FN, 128, 0, 128, plain},
                 {HUM_DTYPE_FLOAT8_E4M3FN, 512, 512, 128, plain},    {HUM_DTYPE_FLOAT8_E4M3FN, 4096, 4096, 256, plain},
                 {HUM_DTYPE_FLOAT8_E4M3FN, 1 << 30, 4096, 256, plain}, {HUM_DTYPE_INT8, 1024, 0, 256, plain},
                 {HUM_DTYPE_FLOAT8_E4M3FN, 0, 0, 256, ws},           {HUM_DTYPE_FLOAT8_E4M3FN, 512, 512, 256, ws}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        c.a_dtype = cases[i].a;
        t.kernel = cases[i].kernel;
        c.weight_dtype = cases[i].a == HUM_DTYPE_INT8 ? HUM_DTYPE_UINT8 : HUM_DTYPE_FLOAT8_E4M3FN;
        c.weight_float = cases[i].a != HUM_DTYPE_INT8;
        c.weight_exp = c.weight_float ? 4 : 0;
        t.promote_k = cases[i].promote_k;
        const hum_status st = hum_layer_fit_tuning(&c, &dense, &t, "sm_90a", 232448, "test", &out);
        QUANT_CHECK(st == HUM_OK && out.promote_k == cases[i].fitted && out.block_m == cases[i].block_m,
                    "%s promote_k %d: status %d '%s', fitted %d block M %d (expected %d, %d)",
                    hum_dtype_name(cases[i].a), cases[i].promote_k, st, st ? hum_last_error() : "", out.promote_k,
                    out.block_m, cases[i].fitted, cases[i].block_m);
    }
    c.a_dtype = c.weight_dtype = HUM_DTYPE_FLOAT8_E4M3FN;
    c.weight_float = 1;
    c.weight_exp = 4;
    t.promote_k = 100;
    hum_status st = hum_layer_fit_tuning(&c, &dense, &t, "sm_90a", 232448, "test", &out);
    QUANT_CHECK(st == HUM_ERR_POLICY && strstr(hum_last_error(), "promote_k = 100"), "promote_k 100: status %d '%s'",
                st, hum_last_error());
    t.promote_k = 384;
    st = hum_layer_fit_tuning(&c, &dense, &t, "sm_90a", 232448, "test", &out);
    QUANT_CHECK(st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), "promote_k 384 within K 4096"),
                "promote_k 384: status %d '%s'", st, hum_last_error());
}

/* The built-in sm_90a table of `spec` with options o, its wgmma entries warp-specialised and
 * every slice summed in the workspace (tests/support/gemm_test.c): it compiles, and the entries
 * above M = 16 run wgmma_ws with stream-K. */
static void compile_ws(const char *spec, hum_layer_options o)
{
    char dir[512];
    hum_runtime *rt = gemm_test_workspace_sum_runtime("wgmma_ws", dir, sizeof dir);
    hum_standard_weight w;
    if (QUANT_CHECK(rt != NULL, "the wgmma_ws runtime") && make_weight(spec, &w)) {
        hum_layer_info info;
        memset(&info, 0, sizeof info);
        const char *a = hum_dtype_name(o.activation_dtype);
        if (QUANT_CHECK(hum_layer_compile(rt, &w, &o, "sm_90a", &info) == HUM_OK, "%s a=%s on wgmma_ws: %s", spec, a,
                        hum_last_error())) {
            printf("  sm_90a %-40s a=%-14s wgmma_ws: %d kernels, %5.0f ms, %d compiled\n", spec, a, info.entry_count,
                   info.compile_ms, info.kernels_compiled);
            for (int i = 0; i < info.entry_count; i++) {
                const hum_tuning *t = &info.entries[i];
                QUANT_CHECK(t->m_min <= 16 || (t->kernel == HUM_GEMM_KERNEL_WGMMA_WS && t->stream_k && t->stream_k_sum),
                            "%s a=%s: entry %d (M from %lld) kernel %d stream-K %d sum %d", spec, a, i,
                            (long long)t->m_min, t->kernel, t->stream_k, t->stream_k_sum);
            }
        }
        hum_standard_free(&w);
    }
    hum_runtime_destroy(rt);
    rt_rmtree(dir);
}

/* MXFP4's fold_window, read from the weights: a row whose one group lies 11 binades above the
 * others keeps every group in e4m3 A's byte tables' window (the kernels take the IMADs alone,
 * kFoldWindow), 12 does not (the kernels test the groups); both compile for mma.sync (sm_89)
 * and wgmma (sm_90a). */
static void check_fold_window(hum_runtime *rt)
{
    const hum_layer_options o = {.activation_dtype = HUM_DTYPE_FLOAT8_E4M3FN, .output_dtype = HUM_DTYPE_BFLOAT16};
    static const char *const archs[] = {"sm_89", "sm_90a"};
    static const struct {
        int above, window;
    } cases[] = {{0, 1}, {11, 1}, {12, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
            const char *spec = "n=256,k=256,w=e2m1,group=32,scale=e8m0";
            hum_standard_weight w;
            if (!make_weight(spec, &w))
                return;
            uint8_t *row = (uint8_t *)w.scale.data + 77 * w.scale.shape[1];
            for (int64_t g = 0; g < w.scale.shape[1]; g++)
                row[g] = (uint8_t)(g == 3 ? 120 + cases[i].above : 120);
            hum_layer_info info;
            memset(&info, 0, sizeof info);
            const hum_status st = hum_layer_compile(rt, &w, &o, archs[a], &info);
            hum_standard_free(&w);
            QUANT_CHECK(st == HUM_OK && info.config.fold_window == cases[i].window,
                        "%s on %s, a group 2^%d above its row's others: status %d '%s', fold_window %d (expected %d)",
                        spec, archs[a], cases[i].above, st, st ? hum_last_error() : "", info.config.fold_window,
                        cases[i].window);
            if (st == HUM_OK)
                printf("  %-6s %-40s group 2^%-2d above: fold_window %d, %d kernels, %d compiled\n", archs[a], spec,
                       cases[i].above, info.config.fold_window, info.entry_count, info.kernels_compiled);
        }
    /* a layer spec has no weights: the fact is unknown, the kernels test the groups */
    hum_layer_spec s;
    hum_layer_info info;
    memset(&info, 0, sizeof info);
    QUANT_CHECK(hum_layer_spec_parse("n=256,k=256,w=e2m1,group=32,scale=e8m0,a=e4m3", &s) == HUM_OK &&
                    hum_layer_compile_spec(rt, &s, "sm_90a", &info) == HUM_OK && !info.config.fold_window,
                "a spec's fold_window: '%s', %d", hum_last_error(), info.config.fold_window);
}

int main(void)
{
    check_stream_k_sum();
    check_promote_k();
    hum_runtime *rt = NULL;
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error()))
        return quant_test_result("test_layer_a8");
    const hum_layer_options fp8 = {.activation_dtype = HUM_DTYPE_FLOAT8_E4M3FN};
    const hum_layer_options fp8_bf16 = {.activation_dtype = HUM_DTYPE_FLOAT8_E4M3FN,
                                        .output_dtype = HUM_DTYPE_BFLOAT16};
    const hum_layer_options i8 = {.activation_dtype = HUM_DTYPE_INT8};
    const hum_layer_options i8_bf16 = {.activation_dtype = HUM_DTYPE_INT8, .output_dtype = HUM_DTYPE_BFLOAT16};
    const char *e4m3 = "n=4096,k=4096,w=e4m3,a=float16", *e4m3_tensor = "n=1000,k=4096,w=e4m3,scale=tensor";
    const char *u8 = "n=4096,k=4096,w=uint8,a=float16", *u8_bias = "n=1000,k=2064,w=uint8,bias=1,scale=float32";
    const char *u4 = "n=4096,k=4096,w=uint4", *mxfp4 = "n=4096,k=4096,w=e2m1,group=32,scale=e8m0";
    const char *u4_g128 = "n=4096,k=4096,w=uint4,group=128";

    /* every variant of the built-in policies, on the archs that run it */
    static const char *const fp8_archs[] = {"sm_89", "sm_90a"};
    static const char *const int8_archs[] = {"sm_80", "sm_86", "sm_89", "sm_90a"};
    for (size_t a = 0; a < sizeof fp8_archs / sizeof fp8_archs[0]; a++) {
        QUANT_CHECK(compile(rt, e4m3, fp8, fp8_archs[a], HUM_OK, NULL) >= 1, "fp8 table");
        /* W8A8 at M <= 384 on whole tiles where they fill the nominal sm_90a's 132 SMs
         * (policies/sm90.lua; 8 rows to M = 8): n = 8192 and 7616 (119 tiles; to M = 128: 7616 is
         * not whole 128-column tiles, which M 129..384 needs), not 7552 (118, under 90 %) nor int8
         * A, channel-scaled e2m1 or uint4 weights under e4m3. FP8 block-wise on the same tiles to
         * M = 128 where they leave at most a fifth of the SMs idle: n = 8192 and 7168 (112 tiles),
         * not 6656 (104). W4A8 MXFP4 there at M <= 256,
         * and 257..512 on two row blocks of 128 columns (not at n = 7616), every entry of its
         * table promoted every 1024 of K at every N (W8A8's every 128, 0, to M = 1024 and every 256
         * above; channel-scaled e2m1's and uint4's every 128: 0; FP8 block-wise's by its scales: 0) */
        static const char *const w8a8[] = {"8x64/8",   "16x64/8",   "32x64/6",  "64x64/5",
                                           "128x64/6", "128x128/4", "192x128/4"};
        static const char *const mx[] = {"8x64/8",   "16x64/8",  "32x64/6",  "64x64/5",
                                         "128x64/4", "256x64/4", "192x128/4", "256x128/3"};
        compile_expect(rt, "n=8192,k=512,w=e4m3,a=float16", fp8, fp8_archs[a], HUM_OK, NULL, w8a8, 7, 0, 256);
        compile_expect(rt, "n=7616,k=512,w=e4m3,a=float16", fp8, fp8_archs[a], HUM_OK, NULL, w8a8, 5, 0, 256);
        compile_expect(rt, "n=8192,k=2048,w=e2m1,group=32,scale=e8m0", fp8_bf16, fp8_archs[a], HUM_OK, NULL, mx, 8,
                       1024, 1024);
        compile_expect(rt, "n=7616,k=2048,w=e2m1,group=32,scale=e8m0", fp8_bf16, fp8_archs[a], HUM_OK, NULL, mx, 6,
                       1024, 1024);
        compile_expect(rt, "n=7552,k=2048,w=e2m1,group=32,scale=e8m0", fp8_bf16, fp8_archs[a], HUM_OK, NULL, NULL, 0,
                       1024, 1024);
        compile(rt, "n=7552,k=512,w=e4m3,a=float16", fp8, fp8_archs[a], HUM_OK, NULL);
        compile_expect(rt, "n=8192,k=2048,w=e2m1,scale=e8m0", fp8_bf16, fp8_archs[a], HUM_OK, NULL, NULL, 0, 0, 0);
        compile_expect(rt, "n=8192,k=2048,w=uint4", fp8, fp8_archs[a], HUM_OK, NULL, NULL, 0, 0, 0);
        compile_expect(rt, "n=8192,k=2048,w=e4m3,a=float16,block=128x128", fp8, fp8_archs[a], HUM_OK, NULL, w8a8, 5,
                       0, 0);
        compile_expect(rt, "n=7168,k=2048,w=e4m3,a=float16,block=128x128", fp8, fp8_archs[a], HUM_OK, NULL, w8a8, 5,
                       0, 0);
        compile_expect(rt, "n=6656,k=2048,w=e4m3,a=float16,block=128x128", fp8, fp8_archs[a], HUM_OK, NULL, NULL, 0,
                       0, 0);
        compile(rt, e4m3_tensor, fp8_bf16, fp8_archs[a], HUM_OK, NULL);
        QUANT_CHECK(compile(rt, u4, fp8, fp8_archs[a], HUM_OK, NULL) >= 1, "W4A8 fp8 table");
        QUANT_CHECK(compile(rt, mxfp4, fp8_bf16, fp8_archs[a], HUM_OK, NULL) >= 1, "MXFP4 x e4m3 table");
    }
    for (size_t a = 0; a < sizeof int8_archs / sizeof int8_archs[0]; a++) {
        QUANT_CHECK(compile(rt, u8, i8, int8_archs[a], HUM_OK, NULL) >= 1, "int8 table");
        compile(rt, u8_bias, i8_bf16, int8_archs[a], HUM_OK, NULL);
        compile(rt, "n=8192,k=512,w=uint8", i8, int8_archs[a], HUM_OK, NULL);
        QUANT_CHECK(compile(rt, u4, i8, int8_archs[a], HUM_OK, NULL) >= 1, "W4A8 int8 table");
        /* weight groups along K promoted from int32 (128; 32: ping-pong sets on wgmma) */
        QUANT_CHECK(compile(rt, u4_g128, i8, int8_archs[a], HUM_OK, NULL) >= 1, "W4A8 int8 g128 table");
        compile(rt, "n=1000,k=2064,w=uint4,group=32,scale=float32,bias=1", i8_bf16, int8_archs[a], HUM_OK, NULL);
        compile(rt, "n=4096,k=4096,w=uint8,group=64", i8, int8_archs[a], HUM_OK, NULL);
    }

    check_fold_window(rt);

    expect_whole_fill(rt, "n=8192,k=512,w=e4m3", fp8, 1024, 0);
    expect_whole_fill(rt, e4m3, fp8, 1024, 0);
    expect_whole_fill(rt, e4m3_tensor, fp8_bf16, 1024, 0);
    expect_whole_fill(rt, "n=8192,k=2048,w=e2m1,group=32,scale=e8m0", fp8_bf16, 2048, 768);
    expect_whole_fill(rt, "n=7616,k=2048,w=e2m1,group=32,scale=e8m0", fp8_bf16, 2048, 0);
    expect_whole_fill(rt, "n=8192,k=2048,w=e4m3,block=128x128", fp8, 1024, 0);
    expect_whole_fill(rt, "n=8192,k=2048,w=uint4", fp8, 0, 0);
    expect_whole_fill(rt, u8, i8, 0, 0);

    /* warp-specialised, with the workspace fix-up among its math warpgroups */
    compile_ws(e4m3, fp8);
    compile_ws(mxfp4, fp8_bf16);
    compile_ws(u4, fp8);
    compile_ws(u8_bias, i8_bf16);
    compile_ws(u4, i8);
    compile_ws(u4_g128, i8);

    /* the targets without the instruction */
    compile(rt, e4m3, fp8, "sm_86", HUM_ERR_UNSUPPORTED, "float8_e4m3fn activations need sm_89");
    compile(rt, e4m3, fp8, "sm_80", HUM_ERR_UNSUPPORTED, "float8_e4m3fn activations need sm_89");
    compile(rt, u8, i8, "sm_75", HUM_ERR_UNSUPPORTED, "int8 activations need sm_80");
    /* a bfloat16 C names the activations' rule too, not C's dtype */
    compile(rt, u8, i8_bf16, "sm_75", HUM_ERR_UNSUPPORTED, "int8 activations need sm_80");
    compile(rt, e4m3, fp8_bf16, "sm_75", HUM_ERR_UNSUPPORTED, "float8_e4m3fn activations need sm_89");
    /* the weights, scales and layouts 8-bit A does not take */
    compile(rt, "n=256,k=256,w=uint3", i8, "sm_90a", HUM_ERR_UNSUPPORTED,
            "uint3 weights with int8 activations (expected uint8 or uint4 weights)");
    compile(rt, "n=256,k=256,w=e2m1", i8, "sm_90a", HUM_ERR_UNSUPPORTED, "float4_e2m1 weights with int8");
    compile(rt, "n=256,k=256,w=e2m1,group=32", fp8, "sm_90a", HUM_ERR_UNSUPPORTED,
            "float16 weight scales in groups of 32");
    compile(rt, "n=256,k=256,w=e2m1,group=16,scale=e8m0", fp8, "sm_90a", HUM_ERR_UNSUPPORTED, "groups of 16 along K");
    compile(rt, u8, fp8, "sm_90a", HUM_ERR_UNSUPPORTED, "uint8 weights with float8_e4m3fn");
    compile(rt, e4m3, i8, "sm_90a", HUM_ERR_UNSUPPORTED, "float8_e4m3fn weights with int8");
    compile(rt, "n=256,k=256,w=uint8,group=16", i8, "sm_90a", HUM_ERR_UNSUPPORTED, "16 (weight, along K) columns");
    compile(rt, "n=256,k=256,w=uint8,zp=int", i8, "sm_90a", HUM_ERR_UNSUPPORTED, "a zero point");
    compile(rt, "n=256,k=256,w=uint8,actorder=1", i8, "sm_90a", HUM_ERR_UNSUPPORTED, "act-order");
    compile(rt, "n=256,k=200,w=uint8", i8, "sm_90a", HUM_ERR_UNSUPPORTED, "multiple of 16");
    /* groups along K are e4m3's (tests/c/test_layer_kgroup.c) */
    const hum_layer_options grouped = {.activation_dtype = HUM_DTYPE_INT8, .activation_group = 128};
    compile(rt, u8, grouped, "sm_90a", HUM_ERR_INVALID_ARG,
            "activation group 128 with int8 activations (expected 0: one scale per token)");

    /* options refused before planning */
    const hum_layer_options bad_a = {.activation_dtype = HUM_DTYPE_FLOAT8_E5M2};
    compile(rt, e4m3, bad_a, "sm_90a", HUM_ERR_INVALID_ARG, "activation dtype float8_e5m2");
    const hum_layer_options bad_c = {.activation_dtype = HUM_DTYPE_FLOAT8_E4M3FN, .output_dtype = HUM_DTYPE_FLOAT32};
    compile(rt, e4m3, bad_c, "sm_90a", HUM_ERR_INVALID_ARG, "output dtype float32");
    const hum_layer_options mixed16 = {.activation_dtype = HUM_DTYPE_FLOAT16, .output_dtype = HUM_DTYPE_BFLOAT16};
    compile(rt, e4m3, mixed16, "sm_90a", HUM_ERR_INVALID_ARG, "output dtype bfloat16 with float16");
    const hum_layer_options group16 = {.activation_dtype = HUM_DTYPE_FLOAT16, .activation_group = 128};
    compile(rt, e4m3, group16, "sm_90a", HUM_ERR_INVALID_ARG, "activation group 128 with float16");
    const hum_layer_options group64 = {.activation_dtype = HUM_DTYPE_INT8, .activation_group = 64};
    compile(rt, u8, group64, "sm_90a", HUM_ERR_INVALID_ARG, "activation group 64");

    hum_runtime_destroy(rt);
    quant_spec_weights_free();
    return quant_test_result("test_layer_a8");
}
