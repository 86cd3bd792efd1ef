/* Layers without a GPU: SPEC strings (parse, format, errors, reproducible weights), the
 * LayerConfig checks (unsupported combinations named), the tuning rules, and NVRTC compiling
 * every kernel the built-in policies give for the main layer types on sm_75 (float16), sm_80,
 * sm_86, sm_89 and sm_90a, a second time from the cache, and the act-order A permutation and
 * weight preparation kernels on each. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "hum/hum_tools.h"
#include "quant_test.h"
#include "rt_test.h"
#include "hum_ffi.h"
#include "gemm_variant.h"
#include "jit.h"
#include "layer.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_spec_parsing(void)
{
    hum_layer_spec s;
    QUANT_CHECK(hum_layer_spec_parse("n=8192,k=8192,w=uint4,a=float16,group=128", &s) == HUM_OK, "%s",
                hum_last_error());
    QUANT_CHECK(s.n == 8192 && s.k == 8192 && s.weight_dtype == HUM_DTYPE_UINT4 &&
                    s.activation_dtype == HUM_DTYPE_FLOAT16 && s.scale_type == HUM_SCALE_GROUP && s.group_size == 128 &&
                    s.zero_point == HUM_ZERO_POINT_NONE && !s.bias && !s.act_order,
                "main spec fields");
    QUANT_CHECK(hum_layer_spec_parse("k=64,n=32", &s) == HUM_OK && s.weight_dtype == HUM_DTYPE_UINT4 &&
                    s.scale_type == HUM_SCALE_CHANNEL && s.activation_dtype == HUM_DTYPE_FLOAT16,
                "defaults: %s", hum_last_error());
    QUANT_CHECK(hum_layer_spec_parse("n=32,k=64,w=e2m1,a=bfloat16,group=32,scale=e4m3,global=1,bias=1", &s) == HUM_OK &&
                    s.scale_type == HUM_SCALE_GROUP_TENSOR && s.scale_dtype == HUM_DTYPE_FLOAT8_E4M3FN && s.bias,
                "NVFP4 spec: %s", hum_last_error());
    QUANT_CHECK(hum_layer_spec_parse("n=32,k=64,w=e4m3,scale=tensor", &s) == HUM_OK && s.scale_type == HUM_SCALE_TENSOR,
                "tensor scale: %s", hum_last_error());
    char text[256];
    hum_layer_spec back;
    QUANT_CHECK(hum_layer_spec_parse("n=100,k=203,w=uint3,a=bfloat16,group=32,zp=int,actorder=1", &s) == HUM_OK &&
                    hum_layer_spec_format(&s, text, sizeof text) == HUM_OK &&
                    hum_layer_spec_parse(text, &back) == HUM_OK && !memcmp(&s, &back, sizeof s),
                "format round trip: '%s' %s", text, hum_last_error());

    /* 8-bit activations: e4m3 / int8 with their scale mode, mxfp8, the output dtype */
    QUANT_CHECK(hum_layer_spec_parse("n=64,k=128,w=e4m3,a=e4m3", &s) == HUM_OK &&
                    s.activation_dtype == HUM_DTYPE_FLOAT8_E4M3FN && s.act_scale == HUM_ACT_SCALE_TOKEN &&
                    s.act_group == 0 && s.output_dtype == HUM_DTYPE_BFLOAT16,
                "a=e4m3 defaults (token scales, bfloat16 out): %s", hum_last_error());
    QUANT_CHECK(hum_layer_spec_parse("n=64,k=128,w=uint8,a=int8,ascale=tensor,out=float16", &s) == HUM_OK &&
                    s.activation_dtype == HUM_DTYPE_INT8 && s.act_scale == HUM_ACT_SCALE_TENSOR &&
                    s.output_dtype == HUM_DTYPE_FLOAT16,
                "a=int8,ascale=tensor: %s", hum_last_error());
    QUANT_CHECK(hum_layer_spec_parse("n=64,k=128,w=e4m3,a=e4m3,ascale=group128", &s) == HUM_OK &&
                    s.act_scale == HUM_ACT_SCALE_GROUP && s.act_group == 128,
                "ascale=group128: %s", hum_last_error());
    QUANT_CHECK(hum_layer_spec_parse("n=64,k=128,w=e2m1,a=mxfp8,group=32,scale=e8m0", &s) == HUM_OK &&
                    s.activation_dtype == HUM_DTYPE_FLOAT8_E4M3FN && s.act_scale == HUM_ACT_SCALE_GROUP &&
                    s.act_group == 32,
                "a=mxfp8: %s", hum_last_error());
    QUANT_CHECK(hum_layer_spec_parse("n=64,k=128,a=bfloat16", &s) == HUM_OK && s.output_dtype == HUM_DTYPE_BFLOAT16,
                "16-bit A gives C in its dtype: %s", hum_last_error());
    static const char *const trips[] = {"n=64,k=128,w=e2m1,a=mxfp8,group=32,scale=e8m0,out=float16",
                                        "n=64,k=128,w=e4m3,a=e4m3,ascale=group128,out=bfloat16",
                                        "n=64,k=128,w=uint8,a=int8,ascale=tensor"};
    for (size_t i = 0; i < sizeof trips / sizeof trips[0]; i++)
        QUANT_CHECK(hum_layer_spec_parse(trips[i], &s) == HUM_OK &&
                        hum_layer_spec_format(&s, text, sizeof text) == HUM_OK &&
                        hum_layer_spec_parse(text, &back) == HUM_OK && !memcmp(&s, &back, sizeof s),
                    "format round trip of '%s': '%s' %s", trips[i], text, hum_last_error());

    static const struct {
        const char *spec, *needle;
    } bad[] = {
        {"n=32,k=64,ascale=token", "ascale= is for 8-bit"}, {"n=32,k=64,a=e4m3,ascale=group64", "ascale=group64"},
        {"n=32,k=64,a=mxfp8,ascale=token", "a=mxfp8"},     {"n=32,k=64,ascale=group128,a=mxfp8", "a=mxfp8"},
        {"n=32,k=64,a=e4m3,out=float32", "out=float32"},   {"n=32,k=64,a=float16,out=bfloat16", "expected out=float16"},
        {"n=32,k=64,a=e5m2", "a=float8_e5m2"},             {"n=32,k=64,a=e4m3,out=int8", "out=int8"},
        {"n=32", "n and k are required"},     {"n=32,k=0", "k=0"},
        {"n=32,k=64,w=uint9", "w=uint9"},     {"n=32,k=64,a=float32", "a=float32"},
        {"n=32,k=64,zp=yes", "zp=yes"},       {"n=32,k=64,bias=2", "bias=2"},
        {"n=32,k=64,colour=red", "colour"},   {"n=32,k=64,group", "not key=value"},
        {"n=32,k=64,global=1", "global=1"},   {"n=32,k=64,scale=tensor,group=32", "scale=tensor"},
        {"n=x,k=64", "n=x"},
        {"n=32,,k=64", "empty entry"},        {"n=32,k=64,", "empty entry"},
        {"n=32,n=64,k=64", "given twice"},
        /* a byte a message would print raw is named instead */
        {"n=32,k=64,w=uint4\nfoo", "byte 0x0a at offset 17 is not a printable ASCII character"},
        {"n=32,k=64,w=\xffuint4", "byte 0xff at offset 12"},
        /* each value checked by the parser: strtoll took these, the quantizer refused w=int4 */
        {"n=+32,k=64", "n=+32"},              {"n= 32,k=64", "n= 32"},
        {"n=32,k=0x40", "k=0x40"},            {"n=4611686018427387904,k=64", "n=4611686018427387904"},
        {"n=32,k=64,w=int4", "w=int4"},       {"n=32,k=64,w=float16", "w=float16"},
        {"n=32,k=64,scale=int8", "scale=int8"}, {"n=32,k=64,w=e4m3,zp=int", "zp=int"},
        {"n=32,k=64,scale=tensor,zp=float", "zp=float"}, {"n=32,k=64,group=-1", "group=-1"},
        /* a name that is no dtype says what the key takes */
        {"n=32,k=64,a=fp8", "a=fp8: not a dtype name (expected float16, bfloat16, e4m3, int8 or mxfp8)"},
        {"n=32,k=64,out=f16x", "out=f16x: not a dtype name (expected float16 or bfloat16)"},
        {"n=32,k=64,w=foo", "w=foo: not a dtype name (expected uint1 .. uint8 or a float of 8 bits or fewer"},
        {"n=32,k=64,scale=f32x", "(expected float16, bfloat16, float32, e4m3, e5m2, e8m0 or tensor)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const hum_status st = hum_layer_spec_parse(bad[i].spec, &s);
        QUANT_CHECK(st == HUM_ERR_INVALID_ARG && strstr(hum_last_error(), bad[i].needle),
                    "'%s': status %d, message '%s' should name '%s'", bad[i].spec, st, hum_last_error(), bad[i].needle);
    }
    /* a spec built by hand that parse would refuse has no text (zp 9 printed "none", n -5 "-5") */
    if (QUANT_CHECK(hum_layer_spec_parse("n=32,k=64", &s) == HUM_OK, "%s", hum_last_error())) {
        char text[256];
        hum_layer_spec h = s;
        h.zero_point = (hum_zero_point_kind)9;
        QUANT_CHECK(hum_layer_spec_format(&h, text, sizeof text) == HUM_ERR_INVALID_ARG &&
                        strstr(hum_last_error(), "hum_layer_spec_format"),
                    "zp 9 formatted: %s", hum_last_error());
        h = s;
        h.n = -5;
        QUANT_CHECK(hum_layer_spec_format(&h, text, sizeof text) == HUM_ERR_INVALID_ARG &&
                        strstr(hum_last_error(), "n=-5"),
                    "n -5 formatted: %s", hum_last_error());
    }
}

static void check_spec_weights(void)
{
    hum_layer_spec s;
    hum_standard_weight a, b;
    /* n * k * 4 bytes past the address space must be refused, not wrapped into a small malloc. */
    QUANT_CHECK(hum_layer_spec_parse("n=2147483648,k=2147483648", &s) == HUM_OK &&
                    hum_layer_spec_weight(&s, 1, &a) == HUM_ERR_INVALID_ARG &&
                    strstr(hum_last_error(), "do not fit"),
                "huge spec: %s", hum_last_error());
    QUANT_CHECK(hum_layer_spec_parse("n=64,k=96,w=uint4,group=32,zp=int,bias=1,actorder=1", &s) == HUM_OK, "%s",
                hum_last_error());
    if (!QUANT_CHECK(hum_layer_spec_weight(&s, 7, &a) == HUM_OK && hum_layer_spec_weight(&s, 7, &b) == HUM_OK, "%s",
                     hum_last_error()))
        return;
    QUANT_CHECK(a.n == 64 && a.k == 96 && a.has_zero_point && a.bias.data && a.k_perm.data &&
                    a.scale_type == HUM_SCALE_GROUP && a.group_size == 32,
                "spec weight fields");
    QUANT_CHECK(!memcmp(a.weight.data, b.weight.data, 64 * 12 * 4) && !memcmp(a.k_perm.data, b.k_perm.data, 96 * 4),
                "the same seed gives the same weight");
    hum_standard_free(&b);
    QUANT_CHECK(hum_layer_spec_weight(&s, 8, &b) == HUM_OK && memcmp(a.weight.data, b.weight.data, 64 * 12 * 4),
                "another seed gives another weight");
    hum_standard_free(&a);
    hum_standard_free(&b);
}

/* hum_layer_spec_weight draws its rows in bands on threads: the weight must be the one its stream
 * gives drawn in order (splitmix64 and Box-Muller written out again here: a row's spread from one
 * uniform, then two uniforms a weight; then a normal per bias and the act-order shuffle's draws),
 * quantized by hum_quantize_reference; N = 130 is three bands. */
static uint64_t splitmix(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *state)
{
    return (double)(splitmix(state) >> 11) * (1.0 / 9007199254740992.0);
}

static float normal(uint64_t *state)
{
    const double u = 1.0 - uniform(state), v = uniform(state);
    return (float)(sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v));
}

static void check_spec_weight_stream(void)
{
    enum { N = 130, K = 40 };
    hum_layer_spec s;
    hum_standard_weight got, want;
    float *w = malloc((size_t)N * K * sizeof *w), bias[N];
    int32_t perm[K];
    if (!QUANT_CHECK(w && hum_layer_spec_parse("n=130,k=40,w=uint8,group=8,bias=1,actorder=1", &s) == HUM_OK &&
                         hum_layer_spec_weight(&s, 5, &got) == HUM_OK,
                     "%s", w ? hum_last_error() : "out of memory")) {
        free(w);
        return;
    }
    uint64_t state = 5;
    for (int64_t r = 0; r < N; r++) {
        const double spread = 0.01 + 0.02 * uniform(&state);
        for (int64_t c = 0; c < K; c++)
            w[r * K + c] = (float)(spread * normal(&state));
    }
    for (int64_t r = 0; r < N; r++)
        bias[r] = normal(&state);
    for (int32_t c = 0; c < K; c++)
        perm[c] = c;
    for (int32_t c = K - 1; c > 0; c--) {
        const int32_t j = (int32_t)(splitmix(&state) % (uint64_t)(c + 1)), t = perm[c];
        perm[c] = perm[j];
        perm[j] = t;
    }
    const hum_quant_spec q = {.weight_dtype = HUM_DTYPE_UINT8, .param_dtype = HUM_DTYPE_FLOAT16,
                              .scale_type = HUM_SCALE_GROUP, .group_size = 8, .bias = bias, .k_perm = perm};
    if (QUANT_CHECK(hum_quantize_reference(w, N, K, &q, &want) == HUM_OK, "%s", hum_last_error())) {
        QUANT_CHECK(!memcmp(got.weight.data, want.weight.data, (size_t)N * K) &&
                        !memcmp(got.scale.data, want.scale.data, (size_t)N * K / 8 * 2) &&
                        !memcmp(got.bias.data, want.bias.data, (size_t)N * 2) &&
                        !memcmp(got.k_perm.data, want.k_perm.data, (size_t)K * 4),
                    "n=130,k=40,w=uint8,group=8,bias=1,actorder=1 seed 5: not the stream's draws in order");
        hum_standard_free(&want);
    }
    hum_standard_free(&got);
    free(w);
}

/* Compiles weight `w` (made from `spec`) for `arch`; returns the entry count (0 on failure). */
static int compile_weight(hum_runtime *rt, const char *spec, const hum_standard_weight *w, const char *arch,
                          hum_layer_info *info)
{
    const hum_status st = hum_layer_compile(rt, w, NULL, arch, info);
    if (!QUANT_CHECK(st == HUM_OK, "%s on %s: %s", spec, arch, hum_last_error()))
        return 0;
    printf("  %-6s %-52s %d kernels, %5.0f ms, %d compiled, %d cached\n", arch, spec, info->entry_count,
           info->compile_ms, info->kernels_compiled, info->kernels_cached);
    /* From the spec alone (no weight): the same plan, so the same kernels, all in the cache now
     * (but for fold_window, a fact of the weight's values that a spec has not, which changes no
     * kernel of 16-bit A: these specs' activations) */
    hum_layer_spec s;
    hum_layer_info from_spec;
    if (QUANT_CHECK(hum_layer_spec_parse(spec, &s) == HUM_OK &&
                        hum_layer_compile_spec(rt, &s, arch, &from_spec) == HUM_OK,
                    "%s on %s from the spec: %s", spec, arch, hum_last_error())) {
        from_spec.config.fold_window = info->config.fold_window;
        QUANT_CHECK(from_spec.entry_count == info->entry_count &&
                        !memcmp(from_spec.entries, info->entries, sizeof info->entries) &&
                        !memcmp(&from_spec.config, &info->config, sizeof info->config) &&
                        !strcmp(from_spec.policy_name, info->policy_name) && from_spec.kernels_compiled == 0,
                    "%s on %s: planned from the spec as from its weight (%d entries, %d compiled)", spec, arch,
                    from_spec.entry_count, from_spec.kernels_compiled);
    }
    hum_layer_dispatch by_weight, by_spec;
    if (QUANT_CHECK(hum_layer_describe_plan(rt, w, NULL, arch, &by_weight) == HUM_OK &&
                        hum_layer_describe_spec(rt, &s, arch, &by_spec) == HUM_OK,
                    "%s on %s: described: %s", spec, arch, hum_last_error()))
        QUANT_CHECK(by_spec.row_count == by_weight.row_count && !memcmp(&by_spec, &by_weight, sizeof by_spec),
                    "%s on %s: the spec's table is the weight's", spec, arch);
    return info->entry_count;
}

static int make_weight(const char *spec, hum_standard_weight *w)
{
    hum_layer_spec s;
    return QUANT_CHECK(hum_layer_spec_parse(spec, &s) == HUM_OK && hum_layer_spec_weight(&s, 1, w) == HUM_OK, "%s: %s",
                       spec, hum_last_error());
}

static void check_compiles(hum_runtime *rt)
{
    static const char *const archs[] = {"sm_80", "sm_86", "sm_89", "sm_90a"};
    static const char *const main_specs[] = {"n=8192,k=8192,w=uint4,a=float16,group=128",
                                             "n=8192,k=8192,w=uint4,a=bfloat16,group=128"};
    hum_layer_info info;
    for (size_t s = 0; s < 2; s++) {
        hum_standard_weight w;
        if (!make_weight(main_specs[s], &w))
            continue;
        for (size_t a = 0; a < sizeof archs / sizeof archs[0]; a++) {
            const int n = compile_weight(rt, main_specs[s], &w, archs[a], &info);
            QUANT_CHECK(n >= 1 && n <= 6, "%s on %s: %d kernels (a table of 1..6 ranges expected)", main_specs[s],
                        archs[a], n);
            QUANT_CHECK(info.entries[0].m_min == 1 && info.entries[n > 0 ? n - 1 : 0].m_max == INT64_MAX,
                        "the table covers M = 1 .. any");
        }
        if (s == 0) {
            compile_weight(rt, main_specs[s], &w, "sm_75", &info);
            /* a second time: everything from the cache */
            if (compile_weight(rt, main_specs[s], &w, "sm_90a", &info))
                QUANT_CHECK(info.kernels_compiled == 0 && info.kernels_cached == info.entry_count,
                            "second compile: %d compiled, %d cached", info.kernels_compiled, info.kernels_cached);
        }
        hum_standard_free(&w);
    }
    /* the other kernel families once each on the H200's arch */
    static const char *const others[] = {
        "n=1000,k=1000,w=uint3,a=bfloat16,group=64,zp=int",
        "n=1024,k=1024,w=uint8,a=float16,zp=float,bias=1",
        /* 8-bit codes where two row blocks of 128 columns fill the SMs: 192-row tiles whole at
         * M 129..192 and 257..384 (policies/sm90.lua) */
        "n=8192,k=1024,w=uint8,a=float16",
        "n=1024,k=1024,w=e4m3,a=bfloat16",
        "n=1024,k=1024,w=e2m1,a=bfloat16,group=32,scale=e8m0",
        "n=1024,k=1024,w=uint4,a=float16,group=128,actorder=1",
        "n=1000,k=1003,w=uint4,a=float16,group=32",
        "n=1024,k=1024,w=e4m3,a=float16,scale=tensor",
        "n=1024,k=1024,w=uint2,a=float16",
        /* e4m3 A at K = 128, never promoted: one accumulator set (its 128-row tile took two
         * alternating ones and failed NVRTC's static_assert before session 16's review) */
        "n=1024,k=128,w=e4m3,a=e4m3",
    };
    for (size_t s = 0; s < sizeof others / sizeof others[0]; s++) {
        hum_standard_weight w;
        if (make_weight(others[s], &w)) {
            compile_weight(rt, others[s], &w, "sm_90a", &info);
            hum_standard_free(&w);
        }
    }
    /* the act-order A permutation (one kernel for every layer) on every arch */
    static const char *const all[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90a"};
    for (size_t a = 0; a < sizeof all / sizeof all[0]; a++) {
        const hum_jit_request req = {
            .source = "kernels/prep/permute_a.cu", .kernel_name = "hum_permute_a", .arch = all[a]};
        hum_jit_result res;
        QUANT_CHECK(hum_jit_compile(hum_runtime_cache_dir(rt), &req, &res) == HUM_OK && res.cubin_size > 0,
                    "permute_a.cu for %s: %s", all[a], hum_last_error());
        hum_jit_result_free(&res);
    }
    /* the weight preparation (kernels/prep/repack.cu): the scale kernel and the repack of one
     * width on every arch, every width on the H200's */
    for (size_t a = 0; a < sizeof all / sizeof all[0]; a++)
        for (int bits = 1; bits <= 8; bits++) {
            const int last = !strcmp(all[a], "sm_90a");
            if (!last && bits != 4)
                continue;
            char name[32];
            snprintf(name, sizeof name, "hum_repack_weight<%d>", bits);
            for (int params = 0; params < (bits == 4 ? 2 : 1); params++) {
                const hum_jit_request req = {.source = "kernels/prep/repack.cu",
                                             .kernel_name = params ? "hum_prep_params" : name, .arch = all[a]};
                hum_jit_result res;
                QUANT_CHECK(hum_jit_compile(hum_runtime_cache_dir(rt), &req, &res) == HUM_OK && res.cubin_size > 0,
                            "repack.cu %s for %s: %s", req.kernel_name, all[a], hum_last_error());
                hum_jit_result_free(&res);
            }
        }
}

static void expect_unsupported(hum_runtime *rt, const char *spec, const char *arch, const char *needle)
{
    hum_layer_spec s;
    hum_standard_weight w;
    if (!QUANT_CHECK(hum_layer_spec_parse(spec, &s) == HUM_OK && hum_layer_spec_weight(&s, 1, &w) == HUM_OK, "%s: %s",
                     spec, hum_last_error()))
        return;
    hum_layer_info info;
    const hum_status st = hum_layer_compile(rt, &w, NULL, arch, &info);
    QUANT_CHECK(st == HUM_ERR_UNSUPPORTED && strstr(hum_last_error(), needle),
                "%s on %s: status %d '%s' should be unsupported naming '%s'", spec, arch, st, hum_last_error(), needle);
    hum_standard_free(&w);
}

static void check_rejections(hum_runtime *rt)
{
    expect_unsupported(rt, "n=64,k=256,w=uint4,group=48", "sm_90a", "group size 48");
    expect_unsupported(rt, "n=64,k=256,w=uint4,a=bfloat16", "sm_75", "bfloat16 activations need sm_80");

    /* a 9-bit-mantissa float weight cannot ride bfloat16 */
    hum_layer_spec s;
    hum_standard_weight w;
    hum_layer_info info;
    QUANT_CHECK(hum_layer_spec_parse("n=64,k=128,w=e5m2,a=float16", &s) == HUM_OK, "%s", hum_last_error());
    if (QUANT_CHECK(hum_layer_spec_weight(&s, 1, &w) == HUM_OK, "%s", hum_last_error())) {
        hum_layer_options bf = {.activation_dtype = HUM_DTYPE_BFLOAT16};
        QUANT_CHECK(hum_layer_compile(rt, &w, &bf, "sm_90a", &info) == HUM_OK, "e5m2 fits bfloat16: %s",
                    hum_last_error());
        hum_layer_options f32 = {.activation_dtype = HUM_DTYPE_FLOAT32};
        QUANT_CHECK(hum_layer_compile(rt, &w, &f32, "sm_90a", &info) == HUM_ERR_INVALID_ARG &&
                        strstr(hum_last_error(), "float32"),
                    "float32 activations refused: %s", hum_last_error());
        QUANT_CHECK(hum_layer_compile(rt, &w, NULL, "sm_42", &info) == HUM_ERR_INVALID_ARG, "bad arch refused");
        /* MoE weights are no dense layer */
        w.num_experts = 2;
        hum_layer *layer = NULL;
        QUANT_CHECK(hum_layer_from_standard(rt, &w, NULL, &layer) != HUM_OK && layer == NULL, "MoE refused");
        w.num_experts = 0;
        hum_standard_free(&w);
    }

    /* hum_layer_compile_spec checks a spec built by hand as the parser checks text */
    hum_layer_spec good;
    QUANT_CHECK(hum_layer_spec_parse("n=64,k=128", &good) == HUM_OK, "%s", hum_last_error());
    static const struct {
        const char *field, *needle;
    } bad_fields[] = {{"w", "w=int4"}, {"zp", "zp=5"}, {"n", "n=0"}, {"group", "group=7"}, {"dims", "2^31"}};
    for (size_t i = 0; i < sizeof bad_fields / sizeof bad_fields[0]; i++) {
        hum_layer_spec b = good;
        hum_status want = HUM_ERR_INVALID_ARG;
        if (!strcmp(bad_fields[i].field, "w"))
            b.weight_dtype = HUM_DTYPE_INT4;
        else if (!strcmp(bad_fields[i].field, "zp"))
            b.zero_point = 5;
        else if (!strcmp(bad_fields[i].field, "n"))
            b.n = 0;
        else if (!strcmp(bad_fields[i].field, "group"))
            b.group_size = 7; /* CHANNEL scales take none */
        else {
            b.n = INT32_MAX; /* a valid spec, beyond the kernels */
            want = HUM_ERR_UNSUPPORTED;
        }
        const hum_status st = hum_layer_compile_spec(rt, &b, "sm_80", &info);
        QUANT_CHECK(st == want && strstr(hum_last_error(), bad_fields[i].needle),
                    "spec with a bad %s: status %d, '%s' should name '%s'", bad_fields[i].field, st, hum_last_error(),
                    bad_fields[i].needle);
    }

    /* tuning rules, with the message naming the rule */
    hum_layer_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.n = cfg.padded_n = 4096;
    cfg.k = cfg.padded_k = 4096;
    cfg.a_dtype = cfg.c_dtype = HUM_DTYPE_FLOAT16;
    cfg.weight_bits = 4;
    cfg.kernel_group = 128;
    cfg.scale_rows = 32;
    cfg.has_scale = 1;
    hum_tuning t = {1, INT64_MAX, 16, 256, 128, 16, 64, 64, 4, 1, 1, HUM_GEMM_KERNEL_MMA, 0, 0, 0, 0, 0, 0, 0, 0};
    int64_t smem = 0;
    int32_t threads = 0;
    QUANT_CHECK(hum_layer_tuning_check(&cfg, &t, &smem, &threads) == HUM_OK && threads == 256 &&
                    smem == 4 * (16 * 128 * 2 + 128 * 256 / 2 + 256 * 2) + 16 * 256 * 4,
                "16x256x128 tuning: %s (smem %lld, threads %d)", hum_last_error(), (long long)smem, threads);
    t.warp_n = 8;
    QUANT_CHECK(hum_layer_tuning_check(&cfg, &t, NULL, NULL) == HUM_ERR_UNSUPPORTED, "warp N 8 refused");
    t.warp_n = 64;
    t.block_k = 512;
    QUANT_CHECK(hum_layer_tuning_check(&cfg, &t, NULL, NULL) == HUM_ERR_UNSUPPORTED &&
                    strstr(hum_last_error(), "block K"),
                "block K 512 refused: %s", hum_last_error());
    t.block_k = 128;
    cfg.weight_bits = 3;
    t.warp_n = 32;
    t.block_n = 128;
    QUANT_CHECK(hum_layer_tuning_check(&cfg, &t, NULL, NULL) == HUM_ERR_UNSUPPORTED &&
                    strstr(hum_last_error(), "3-bit"),
                "odd width needs warp N 64: %s", hum_last_error());

    /* group_m: 8 (the default) fitted to 0, so that both spellings make one kernel; 1..64 kept
     * and given to the kernel as kGroupM; others refused naming the rule */
    cfg.weight_bits = 4;
    t.block_n = 256;
    t.warp_n = 64;
    const hum_compute_config dense = {.gemm_type = HUM_GEMM_DENSE};
    hum_tuning out;
    t.group_m = 8;
    hum_status st = hum_layer_fit_tuning(&cfg, &dense, &t, "sm_90a", 232448, "test", &out);
    QUANT_CHECK(st == HUM_OK && out.group_m == 0, "group_m 8: status %d '%s', fitted to %d (expected 0)", st,
                st ? hum_last_error() : "", out.group_m);
    t.group_m = 4;
    st = hum_layer_fit_tuning(&cfg, &dense, &t, "sm_90a", 232448, "test", &out);
    char header[4096] = "";
    const hum_gemm_variant v = {&cfg, &dense, &out};
    QUANT_CHECK(st == HUM_OK && out.group_m == 4 && hum_gemm_constants(&v, header, sizeof header) == HUM_OK &&
                    strstr(header, "constexpr int kGroupM = 4;\n"),
                "group_m 4: status %d '%s', fitted to %d, constants:\n%s", st, st ? hum_last_error() : "",
                out.group_m, header);
    const int32_t bad[] = {-1, 65};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        t.group_m = bad[i];
        char needle[64];
        snprintf(needle, sizeof needle, "group_m = %d: expected 0 (8) or m-blocks in 1..64", bad[i]);
        st = hum_layer_fit_tuning(&cfg, &dense, &t, "sm_90a", 232448, "test", &out);
        QUANT_CHECK(st == HUM_ERR_POLICY && strstr(hum_last_error(), needle), "group_m %d: status %d '%s'", bad[i],
                    st, hum_last_error());
    }
}

/* A plan from a replaced lua/hum/layer.lua (HUM_LUA_PATH) that C could overrun with is refused,
 * and so is a layer whose N does not fit the kernels' 32-bit indexing. */
static void check_untrusted_plans(void)
{
    hum_layer_spec s;
    hum_standard_weight w;
    if (!QUANT_CHECK(hum_layer_spec_parse("n=64,k=128", &s) == HUM_OK && hum_layer_spec_weight(&s, 3, &w) == HUM_OK,
                     "%s", hum_last_error()))
        return;
    static const struct {
        const char *lua, *needle;
    } bad[] = {
        /* HUM_LAYER_MAX_ENTRIES + 1 */
        {"return { plan = function(_, p) p.entry_count = 17 end }", "17 dispatch entries"},
        {"return { plan = function(_, p) p.entry_count = 1; p.entries[0].m_min = 1; p.entries[0].m_max = 100 end }",
         "M 1..100"},
        {"return { plan = function(_, p) p.entry_count = 2; p.entries[0].m_min = 1; p.entries[0].m_max = 8;\n"
         "  p.entries[1].m_min = 10; p.entries[1].m_max = 9223372036854775807LL end }",
         "M 10.."},
    };
    char dir[4096];
    rt_tmpdir("layer-plan", dir, sizeof dir);
    char lua_dir[4200];
    snprintf(lua_dir, sizeof lua_dir, "%s/lua", dir);
    setenv("HUM_LUA_PATH", lua_dir, 1);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rt_write(lua_dir, "hum/layer.lua", bad[i].lua);
        hum_runtime *rt = NULL;
        hum_layer_info info;
        if (QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error())) {
            const hum_status st = hum_layer_compile(rt, &w, NULL, "sm_80", &info);
            QUANT_CHECK(st == HUM_ERR_POLICY && strstr(hum_last_error(), bad[i].needle),
                        "bad plan %zu: status %d, '%s' should name '%s'", i, st, hum_last_error(), bad[i].needle);
        }
        hum_runtime_destroy(rt);
    }
    unsetenv("HUM_LUA_PATH");
    rt_rmtree(dir);

    hum_standard_weight huge = w;
    huge.n = (int64_t)INT32_MAX;
    hum_layer *layer = NULL;
    hum_runtime *rt = NULL;
    if (QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error()))
        QUANT_CHECK(hum_layer_from_standard(rt, &huge, NULL, &layer) == HUM_ERR_UNSUPPORTED &&
                        strstr(hum_last_error(), "2^31") && layer == NULL,
                    "N = 2^31 - 1: %s", hum_last_error());
    hum_runtime_destroy(rt);
    hum_standard_free(&w);
}

/* A layer made from a weight (not moved) owns a copy of every tensor, the static input_scale
 * too: the weight can be freed before the layer. */
static void check_weight_copy(hum_runtime *rt)
{
    hum_layer_spec s;
    hum_standard_weight w;
    hum_layer *layer = NULL;
    if (!QUANT_CHECK(hum_layer_spec_parse("n=64,k=128,w=uint4,a=e4m3,ascale=tensor", &s) == HUM_OK &&
                         hum_layer_spec_weight(&s, 1, &w) == HUM_OK,
                     "static input scale: %s", hum_last_error()))
        return;
    const float scale = *(const float *)w.input_scale.data;
    if (QUANT_CHECK(hum_layer_from_standard(rt, &w, NULL, &layer) == HUM_OK, "%s", hum_last_error())) {
        const hum_tensor *copy = &layer->weight.input_scale;
        QUANT_CHECK(copy->data && copy->data != w.input_scale.data && *(const float *)copy->data == scale,
                    "the layer's input_scale is its own copy of %g", (double)scale);
    }
    hum_standard_free(&w);
    hum_layer_destroy(layer);
}

int main(void)
{
    check_spec_parsing();
    check_spec_weights();
    check_spec_weight_stream();
    check_untrusted_plans();
    hum_runtime *rt = NULL;
    if (QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error())) {
        check_rejections(rt);
        check_weight_copy(rt);
        check_compiles(rt);
    }
    hum_runtime_destroy(rt);
    return quant_test_result("test_layer");
}
