/* e4m3 activations with scales that change along K, on the CPU (kernels/gemm/kscale.cuh): the
 * SPEC key block=NxK (parse, format, the weight it makes, refusals); NVRTC compiles for sm_90a
 * (and a subset for sm_89, mma.sync only) of every variant the built-in policies give for FP8
 * block-wise layers (e4m3 x e4m3
 * 128 x 128 float32 block scales, A per 1 x 128 group, float16 and bfloat16 C), uint4 with
 * group-128 scales, each the checkpoint's scheme by default, and the host's quantized A
 * (activation_group 128, and 32: MXFP8 A over block and channel weight scales, which a
 * checkpoint's or a SPEC's mxfp8 no longer runs: it is rounded into 16-bit A,
 * tests/c/test_layer_activation.c),
 * each entry's warp K a whole number of promotion periods, stream-K only summed in the
 * workspace (sm_90a); and the combinations refused, each naming its rule. The fallback to
 * 16-bit on sm_75..sm_86 and the overrides: tests/c/test_layer_activation.c. */
#include "hum/hum_tools.h"
#include "quant_test.h"

#include <stdio.h>
#include <string.h>

static void check_spec(void)
{
    hum_layer_spec s;
    const char *text = "n=1000,k=2064,w=e4m3,block=128x64,a=e4m3,ascale=group128";
    if (QUANT_CHECK(hum_layer_spec_parse(text, &s) == HUM_OK, "%s: %s", text, hum_last_error())) {
        QUANT_CHECK(s.scale_type == HUM_SCALE_BLOCK && s.group_size == 64 && s.group_size_n == 128 &&
                        s.scale_dtype == HUM_DTYPE_FLOAT32 && s.act_scale == HUM_ACT_SCALE_GROUP && s.act_group == 128,
                    "%s: scale type %d, group %lld x %lld, scale %s, act %d/%d", text, (int)s.scale_type,
                    (long long)s.group_size_n, (long long)s.group_size, hum_dtype_name(s.scale_dtype),
                    (int)s.act_scale, (int)s.act_group);
        char out[256];
        hum_layer_spec back;
        QUANT_CHECK(hum_layer_spec_format(&s, out, sizeof out) == HUM_OK && strstr(out, ",block=128x64,") &&
                        !strstr(out, "group=") && hum_layer_spec_parse(out, &back) == HUM_OK &&
                        !memcmp(&back, &s, sizeof s),
                    "%s formats as '%s', which must parse back the same", text, out);
        hum_standard_weight w;
        if (QUANT_CHECK(hum_layer_spec_weight(&s, 7, &w) == HUM_OK, "%s: %s", text, hum_last_error())) {
            /* the checkpoint's layout: [ceil(N / 128)][ceil(K / 64)] float32, A per 1 x 128 */
            QUANT_CHECK(w.scale_type == HUM_SCALE_BLOCK && w.group_size == 64 && w.group_size_n == 128 &&
                            w.scale.dtype == HUM_DTYPE_FLOAT32 && w.scale.rank == 2 && w.scale.shape[0] == 8 &&
                            w.scale.shape[1] == 33 && w.act_dtype == HUM_DTYPE_FLOAT8_E4M3FN &&
                            w.act_scale == HUM_ACT_SCALE_GROUP && w.act_group == 128,
                        "%s: weight scale type %d %lldx%lld [%lld, %lld] %s, act %s/%d/%d", text, (int)w.scale_type,
                        (long long)w.group_size_n, (long long)w.group_size, (long long)w.scale.shape[0],
                        (long long)w.scale.shape[1], hum_dtype_name(w.scale.dtype), hum_dtype_name(w.act_dtype),
                        (int)w.act_scale, (int)w.act_group);
            hum_standard_free(&w);
        }
    }
    static const struct {
        const char *spec, *needle;
    } bad[] = {
        {"n=256,k=256,w=e4m3,block=128", "block=128: expected NxK"},
        {"n=256,k=256,w=e4m3,block=0x128", "block N=0"},
        {"n=256,k=256,w=e4m3,block=128x", "block K="},
        {"n=256,k=256,w=e4m3,block=128x128,group=128", "block= takes no group, scale or global"},
        {"n=256,k=256,w=e4m3,block=128x128,scale=float16", "block= takes no group, scale or global"},
        {"n=256,k=256,w=e4m3,block=128x128,block=64x64", "key 'block' given twice"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        QUANT_CHECK(hum_layer_spec_parse(bad[i].spec, &s) == HUM_ERR_INVALID_ARG &&
                        strstr(hum_last_error(), bad[i].needle),
                    "%s: '%s' should name '%s'", bad[i].spec, hum_last_error(), bad[i].needle);
}

/* Checks the compiled table of `what`: e4m3 A in groups of a_group, every entry's warp K a
 * multiple of the promotion period, stream-K only summed in the workspace, the wgmma entries
 * warp-specialised (their K-group scales staged), MXFP8's at most 64 rows. */
static void check_info(const char *what, const char *arch, const hum_layer_info *info, int64_t a_group,
                       int32_t period)
{
    printf("  %-6s %-80s %d kernels, %5.0f ms, %d compiled\n", arch, what, info->entry_count, info->compile_ms,
           info->kernels_compiled);
    QUANT_CHECK(info->entry_count >= 1 && info->config.a_dtype == HUM_DTYPE_FLOAT8_E4M3FN &&
                    info->config.a_group == a_group,
                "%s on %s: %d entries, A %s in groups of %lld (expected %lld)", what, arch, info->entry_count,
                hum_dtype_name(info->config.a_dtype), (long long)info->config.a_group, (long long)a_group);
    for (int i = 0; i < info->entry_count; i++) {
        const hum_tuning *t = &info->entries[i];
        QUANT_CHECK(t->block_k >= 128 && t->warp_k % period == 0 && (!t->stream_k || t->stream_k_sum == 1) &&
                        t->kernel != HUM_GEMM_KERNEL_WGMMA &&
                        (period >= 64 || t->kernel == HUM_GEMM_KERNEL_MMA || t->block_m <= 64),
                    "%s on %s: entry %d kernel %d block %dx%dx%d warp K %d stream-K %d sum %d (expected sums in the "
                    "workspace, not plain wgmma: kernel 1; promotions every %d)",
                    what, arch, i, (int)t->kernel, t->block_m, t->block_n, t->block_k, t->warp_k,
                    t->stream_k, t->stream_k_sum, period);
    }
}

/* The checkpoint's scheme (the SPEC's a=), compiled for arch. */
static void compile_spec(hum_runtime *rt, const char *spec, const char *arch, int64_t a_group, int32_t period)
{
    hum_layer_spec s;
    hum_layer_info info;
    if (QUANT_CHECK(hum_layer_spec_parse(spec, &s) == HUM_OK, "%s: %s", spec, hum_last_error()) &&
        QUANT_CHECK(hum_layer_compile_spec(rt, &s, arch, &info) == HUM_OK, "%s on %s: %s", spec, arch,
                    hum_last_error()))
        check_info(spec, arch, &info, a_group, period);
}

/* The host's quantized A (options o) with spec's weight on arch: `want`, naming `needle`. */
static void compile_host(hum_runtime *rt, const char *spec, hum_layer_options o, const char *arch, hum_status want,
                         const char *needle, int32_t period)
{
    hum_layer_spec s;
    hum_standard_weight w;
    if (!QUANT_CHECK(hum_layer_spec_parse(spec, &s) == HUM_OK && hum_layer_spec_weight(&s, 3, &w) == HUM_OK, "%s: %s",
                     spec, hum_last_error()))
        return;
    hum_layer_info info;
    const hum_status st = hum_layer_compile(rt, &w, &o, arch, &info);
    char what[160];
    snprintf(what, sizeof what, "%s, host A %s group %d", spec, hum_dtype_name(o.activation_dtype),
             (int)o.activation_group);
    if (QUANT_CHECK(st == want && (st == HUM_OK || strstr(hum_last_error(), needle)),
                    "%s on %s: status %d '%s', expected %d naming '%s'", what, arch, st,
                    st == HUM_OK ? "" : hum_last_error(), want, needle ? needle : "") &&
        st == HUM_OK)
        check_info(what, arch, &info, o.activation_group, period);
    hum_standard_free(&w);
}

int main(void)
{
    check_spec();
    hum_runtime *rt = NULL;
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error()))
        return quant_test_result("test_layer_kgroup");
    const char *block = "n=7168,k=7168,w=e4m3,block=128x128";
    const hum_layer_options g128 = {.activation_dtype = HUM_DTYPE_FLOAT8_E4M3FN, .activation_group = 128};
    const hum_layer_options g32 = {.activation_dtype = HUM_DTYPE_FLOAT8_E4M3FN, .output_dtype = HUM_DTYPE_BFLOAT16,
                                   .activation_group = 32};
    const hum_layer_options g32_f16 = {.activation_dtype = HUM_DTYPE_FLOAT8_E4M3FN,
                                       .output_dtype = HUM_DTYPE_FLOAT16, .activation_group = 32};
    const hum_layer_options token = {.activation_dtype = HUM_DTYPE_FLOAT8_E4M3FN};
    /* sm_89 (mma.sync only): the block-wise layer, MXFP8, the host's A; sm_90a every variant */
    compile_spec(rt, "n=1000,k=2064,w=e4m3,block=128x128,a=e4m3,ascale=group128,out=float16,bias=1", "sm_89", 128,
                 128);
    compile_host(rt, "n=1000,k=2080,w=e4m3,block=128x128", g32_f16, "sm_89", HUM_OK, NULL, 32);
    compile_host(rt, block, g32, "sm_89", HUM_OK, NULL, 32);
    /* FP8 block-wise as DeepSeek-V3 runs it, both output dtypes, N and K off the tiles */
    compile_spec(rt, "n=7168,k=7168,w=e4m3,block=128x128,a=e4m3,ascale=group128", "sm_90a", 128, 128);
    compile_spec(rt, "n=1000,k=2064,w=e4m3,block=128x128,a=e4m3,ascale=group128,out=float16,bias=1", "sm_90a", 128,
                 128);
    /* MXFP8 over block and channel weight scales; 64-column weight blocks */
    compile_host(rt, "n=1000,k=2080,w=e4m3,block=128x128", g32_f16, "sm_90a", HUM_OK, NULL, 32);
    compile_host(rt, "n=4096,k=4096,w=e4m3,scale=float32", g32, "sm_90a", HUM_OK, NULL, 32);
    compile_spec(rt, "n=1024,k=1024,w=e4m3,block=128x64,a=e4m3,ascale=group128", "sm_90a", 128, 64);
    /* W4A8 with float32 group scales along K */
    compile_spec(rt, "n=4096,k=4096,w=uint4,group=128,scale=float32,a=e4m3,ascale=group128", "sm_90a", 128, 128);
    /* the host's quantized A: its groups, or one scale per row over block weight scales */
    compile_host(rt, block, g128, "sm_90a", HUM_OK, NULL, 128);
    compile_host(rt, block, token, "sm_90a", HUM_OK, NULL, 128);
    /* refused, naming the rule: groups that do not nest, int8 groups, groups the host may not pass */
    compile_host(rt, "n=256,k=256,w=uint4,group=16,scale=float32", g128, "sm_90a", HUM_ERR_UNSUPPORTED,
                 "scale groups of 128 (activations) and 16 (weight, along K)", 0);
    const hum_layer_options i8 = {.activation_dtype = HUM_DTYPE_INT8, .activation_group = 32};
    compile_host(rt, "n=256,k=256,w=uint8", i8, "sm_90a", HUM_ERR_INVALID_ARG, "activation group 32 with int8", 0);
    const hum_layer_options g64 = {.activation_dtype = HUM_DTYPE_FLOAT8_E4M3FN, .activation_group = 64};
    compile_host(rt, block, g64, "sm_90a", HUM_ERR_INVALID_ARG, "expected 0, 128 or 32 (MXFP8)", 0);
    /* the host's e4m3 A is what runs: no fallback where the target lacks e4m3 */
    compile_host(rt, block, g128, "sm_86", HUM_ERR_UNSUPPORTED, "float8_e4m3fn activations need sm_89", 0);
    hum_runtime_destroy(rt);
    return quant_test_result("test_layer_kgroup");
}
