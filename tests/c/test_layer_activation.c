/* Which activation type a layer runs (lua/hum/activation.lua), without a GPU: the checkpoint's
 * scheme (a SPEC's a=, a standard weight's act_dtype) by default, the deployment overrides
 * linear.activation instead, the fallback where the target lacks the instruction or the kernels
 * the combination (fp8 before sm_89, fp4 activations everywhere, W4A8), mxfp8 rounded by the
 * layer and computed in 16-bit wherever 16-bit A runs (act-order falls back), the host's 8-bit A
 * (mxfp8 included) kept as it is, and what hum_layer_describe_spec says; the layers planned so
 * compile for every arch (NVRTC), the quantize kernel with them where A is 8-bit or rounded. */
#include "hum/hum_tools.h"
#include "rt_test.h"

#include <stdio.h>
#include <string.h>

static hum_runtime *runtime_with(const char *dir, const char *yaml)
{
    hum_runtime_options o;
    hum_runtime_options_init(&o);
    o.config_path = yaml ? rt_write(dir, "deploy.yaml", yaml) : NULL;
    hum_runtime *rt = NULL;
    RT_CHECK(hum_runtime_create(&o, &rt) == HUM_OK, "runtime (%s): %s", yaml ? yaml : "no config", hum_last_error());
    return rt;
}

/* spec on arch: a_dtype runs, rounded through mxfp8 or not (round), and the note holds every
 * needle. */
static void expect_as(hum_runtime *rt, const char *spec, const char *arch, hum_dtype runs, int round,
                      const char *needle, const char *needle2)
{
    hum_layer_spec s;
    hum_layer_dispatch d;
    hum_layer_info info;
    if (!RT_CHECK(hum_layer_spec_parse(spec, &s) == HUM_OK, "%s: %s", spec, hum_last_error()))
        return;
    if (!RT_CHECK(hum_layer_describe_spec(rt, &s, arch, &d) == HUM_OK, "%s on %s: %s", spec, arch, hum_last_error()))
        return;
    RT_CHECK(strstr(d.activation, needle) && (!needle2 || strstr(d.activation, needle2)),
             "%s on %s: activations '%s' should name '%s'%s%s", spec, arch, d.activation, needle,
             needle2 ? " and " : "", needle2 ? needle2 : "");
    /* compiled for the arch (NVRTC), the plan the same */
    if (RT_CHECK(hum_layer_compile_spec(rt, &s, arch, &info) == HUM_OK, "%s compiled for %s: %s", spec, arch,
                 hum_last_error()))
        RT_CHECK(info.config.a_dtype == runs && info.config.a_round == (round ? HUM_A_ROUND_MXFP8 : HUM_A_ROUND_NONE),
                 "%s on %s runs %s, a_round %d, expected %s, %d", spec, arch, hum_dtype_name(info.config.a_dtype),
                 (int)info.config.a_round, hum_dtype_name(runs), round);
}

static void expect(hum_runtime *rt, const char *spec, const char *arch, hum_dtype runs, const char *needle,
                   const char *needle2)
{
    expect_as(rt, spec, arch, runs, 0, needle, needle2);
}

/* spec's mxfp8 rounded by the layer into `runs`, computed in it */
static void expect_rounded(hum_runtime *rt, const char *spec, const char *arch, hum_dtype runs, const char *needle,
                           const char *needle2)
{
    expect_as(rt, spec, arch, runs, 1, needle, needle2);
}

int main(void)
{
    char dir[4096];
    rt_tmpdir("layer-activation", dir, sizeof dir);
    const hum_dtype E4 = HUM_DTYPE_FLOAT8_E4M3FN, I8 = HUM_DTYPE_INT8, BF = HUM_DTYPE_BFLOAT16,
                    F16 = HUM_DTYPE_FLOAT16;

    hum_runtime *rt = runtime_with(dir, NULL);
    if (rt) {
        /* the checkpoint's scheme where the GPU has it, 16-bit where it has not */
        static const char *const all[] = {"sm_75", "sm_80", "sm_86"};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
            expect(rt, "n=256,k=512,w=e4m3,a=e4m3,out=float16", all[i], F16, "fallback from e4m3 per token",
                   "need sm_89");
        expect(rt, "n=256,k=512,w=e4m3,a=e4m3", "sm_89", E4, "e4m3 per token", "quantized by the layer");
        expect(rt, "n=256,k=512,w=e4m3,a=e4m3,ascale=tensor", "sm_90a", E4, "e4m3 per tensor", NULL);
        expect(rt, "n=256,k=512,w=uint8,a=int8", "sm_80", I8, "int8 per token", "the checkpoint's");
        expect(rt, "n=256,k=512,w=uint4,group=128,a=int8,out=float16", "sm_75", F16, "fallback from int8 per token",
               "need sm_80");
        /* NVFP4's e4m3 group-16 scales take no 8-bit A: 16-bit, the note whole (it outgrew 256
         * bytes, where it was cut before the rule's last clause) */
        expect(rt, "n=256,k=512,w=e2m1,group=16,scale=e4m3,global=1,a=e4m3", "sm_90a", BF,
               "fallback from e4m3 per token, the checkpoint's",
               "e8m0 groups of a multiple of 32 with float4_e2m1 weights and float8_e4m3fn activations))");
        /* W4A8 with grouped int4 weights runs int8 per token (the groups promoted from int32), from
         * sm_80; uint4 groups of 16 have no kernel: 16-bit, the rule named */
        expect(rt, "n=256,k=512,w=uint4,group=128,a=int8", "sm_90a", I8, "int8 per token", "the checkpoint's");
        expect(rt, "n=256,k=512,w=uint4,group=128,a=int8,out=float16", "sm_80", I8, "int8 per token", NULL);
        expect(rt, "n=256,k=512,w=uint4,group=16,a=int8", "sm_90a", BF, "fallback from int8",
               "16 (weight, along K) columns with int8 activations");
        /* mxfp8 as the checkpoint's scheme: rounded by the layer, computed in the output's 16-bit type
         * (no block-scaled MMA before sm_100); 1x128 groups (kernels/gemm/kscale.cuh) run from sm_89 */
        expect_rounded(rt, "n=256,k=512,w=e4m3,a=mxfp8", "sm_90a", BF,
                       "mxfp8 (the checkpoint's; rounded by the layer, computed in bfloat16: no block-scaled MMA "
                       "before sm_100)",
                       NULL);
        expect(rt, "n=256,k=512,w=e4m3,block=128x128,a=e4m3,ascale=group128", "sm_89", E4,
               "e4m3 per 1x128 group (the checkpoint's; quantized by the layer)", NULL);
        static const char *const pre89[] = {"sm_75", "sm_86"};
        for (size_t i = 0; i < sizeof pre89 / sizeof pre89[0]; i++)
            expect(rt, "n=256,k=512,w=e4m3,block=128x128,a=e4m3,ascale=group128,out=float16", pre89[i], F16,
                   "fallback from e4m3 per 1x128 group", "need sm_89");
        /* the rounding needs no sm_89: it runs where 16-bit A does (float16 from sm_75) */
        expect_rounded(rt, "n=256,k=512,w=e4m3,a=mxfp8,out=float16", "sm_80", F16,
                       "mxfp8 (the checkpoint's; rounded by the layer, computed in float16", NULL);
        expect_rounded(rt, "n=256,k=512,w=uint4,group=128,a=mxfp8,out=float16", "sm_75", F16,
                       "rounded by the layer, computed in float16", NULL);
        /* act-order takes no rounding (A is permuted in the workspace): 16-bit, the rule named */
        expect(rt, "n=256,k=512,w=uint4,group=128,a=mxfp8,actorder=1", "sm_90a", BF,
               "bfloat16 (fallback from mxfp8, the checkpoint's: mxfp8 rounding with act-order", NULL);
        /* a 16-bit checkpoint stays 16-bit */
        expect(rt, "n=256,k=512,w=uint4,group=128,a=bfloat16", "sm_90a", BF, "bfloat16", NULL);
        /* where not even the fallback runs (8-bit A's default bfloat16 output on sm_75), the error
         * says what the layer fell back from */
        hum_layer_spec s;
        hum_layer_dispatch d;
        if (RT_CHECK(hum_layer_spec_parse("n=256,k=512,w=e4m3,a=e4m3", &s) == HUM_OK, "%s", hum_last_error()))
            RT_CHECK(hum_layer_describe_spec(rt, &s, "sm_75", &d) == HUM_ERR_UNSUPPORTED &&
                         strstr(hum_last_error(), "bfloat16 activations need sm_80") &&
                         strstr(hum_last_error(), "(fallback from e4m3 per token, the checkpoint's: float8_e4m3fn "
                                                  "activations need sm_89"),
                     "e4m3 with bfloat16 output on sm_75: '%s'", hum_last_error());
        hum_runtime_destroy(rt);
    }

    /* the deployment override replaces the checkpoint's scheme, with the same fallbacks */
    rt = runtime_with(dir, "overrides:\n  linear:\n    activation: e4m3\n");
    if (rt) {
        expect(rt, "n=256,k=512,w=e4m3,a=bfloat16", "sm_90a", E4, "override linear.activation = e4m3", NULL);
        expect(rt, "n=256,k=512,w=e4m3,a=bfloat16", "sm_80", BF, "fallback from e4m3 per token, override", NULL);
        /* an e4m3 checkpoint keeps its static scale under an e4m3 override */
        expect(rt, "n=256,k=512,w=e4m3,a=e4m3,ascale=tensor", "sm_90a", E4, "e4m3 per tensor", NULL);
        /* an FP8 block-wise checkpoint keeps its own scheme under an e4m3 override; block scales with
         * 16-bit A run e4m3 per token */
        expect(rt, "n=256,k=512,w=e4m3,block=128x128,a=e4m3,ascale=group128", "sm_89", E4,
               "e4m3 per 1x128 group (override linear.activation = e4m3", NULL);
        expect(rt, "n=256,k=512,w=e4m3,block=128x128,a=bfloat16", "sm_90a", E4,
               "e4m3 per token (override linear.activation = e4m3", NULL);
        hum_runtime_destroy(rt);
    }
    rt = runtime_with(dir, "overrides:\n  linear:\n    activation: mxfp8\n");
    if (rt) {
        /* rounded by the layer over channel or 128 x 128 block weight scales, on any arch of 16-bit A */
        expect_rounded(rt, "n=256,k=512,w=e4m3,a=bfloat16", "sm_90a", BF,
                       "mxfp8 (override linear.activation = mxfp8; rounded by the layer, computed in bfloat16: no "
                       "block-scaled MMA before sm_100)",
                       NULL);
        expect_rounded(rt, "n=256,k=512,w=e4m3,block=128x128,a=e4m3,ascale=group128", "sm_89", BF,
                       "mxfp8 (override linear.activation = mxfp8; rounded by the layer", NULL);
        expect_rounded(rt, "n=256,k=512,w=e4m3,a=bfloat16", "sm_86", BF,
                       "mxfp8 (override linear.activation = mxfp8; rounded by the layer", NULL);
        hum_runtime_destroy(rt);
    }
    rt = runtime_with(dir, "overrides:\n  linear:\n    activation: nvfp4\n");
    if (rt) {
        /* W4A4 NVFP4 on Hopper runs as W4A8 where a kernel takes it, else W4A16 */
        expect(rt, "n=256,k=512,w=e4m3,a=bfloat16", "sm_90a", E4, "fallback from nvfp4", "float4_e2m1 activations");
        expect(rt, "n=256,k=512,w=e2m1,group=16,scale=e4m3,global=1,a=bfloat16", "sm_90a", BF, "fallback from nvfp4",
               NULL);
        hum_runtime_destroy(rt);
    }
    rt = runtime_with(dir, "overrides:\n  linear:\n    activation: bfloat16\n");
    if (rt) {
        expect(rt, "n=256,k=512,w=e4m3,a=e4m3", "sm_90a", BF, "override linear.activation = bfloat16", NULL);
        /* a 16-bit override names no quantization: a float16 layer stays float16, and says why */
        expect(rt, "n=256,k=512,w=uint4,group=128,a=float16", "sm_90a", F16, "override linear.activation = bfloat16",
               "16-bit activations run as the host passes them, float16");
        hum_runtime_destroy(rt);
    }
    rt = runtime_with(dir, "overrides:\n  linear:\n    activation: e5m2\n");
    if (rt) {
        expect(rt, "n=256,k=512,w=e4m3,a=float16", "sm_90a", F16, "e5m2 activations have no kernels", NULL);
        hum_runtime_destroy(rt);
    }
    /* the moe key leaves dense layers alone */
    rt = runtime_with(dir, "overrides:\n  moe:\n    activation: mxfp8\n");
    if (rt) {
        expect(rt, "n=256,k=512,w=e4m3,a=float16", "sm_90a", F16, "float16", NULL);
        hum_runtime_destroy(rt);
    }

    /* a reload re-reads the file's overrides: layers planned afterwards follow them; a bad file
     * changes nothing */
    const char *yaml = rt_write(dir, "reload.yaml", "overrides:\n  linear:\n    activation: e4m3\n");
    hum_runtime_options o;
    hum_runtime_options_init(&o);
    o.config_path = yaml;
    rt = NULL;
    if (RT_CHECK(hum_runtime_create(&o, &rt) == HUM_OK, "%s", hum_last_error())) {
        expect(rt, "n=256,k=512,w=e4m3", "sm_90a", E4, "override linear.activation = e4m3", NULL);
        rt_write(dir, "reload.yaml", "overrides:\n  linear:\n    activation: bfloat16\n");
        rt_set_mtime(yaml, 2000000000);
        RT_CHECK(hum_runtime_reload_policies(rt) == HUM_OK && hum_runtime_override(rt, "linear.activation") &&
                     !strcmp(hum_runtime_override(rt, "linear.activation"), "bfloat16"),
                 "reload: %s", hum_last_error());
        expect(rt, "n=256,k=512,w=e4m3,a=e4m3", "sm_90a", BF, "override linear.activation = bfloat16", NULL);
        rt_write(dir, "reload.yaml", "overrides:\n  linear:\n    activation: fp7\n");
        RT_CHECK(hum_runtime_reload_policies(rt) == HUM_ERR_CONFIG &&
                     !strcmp(hum_runtime_override(rt, "linear.activation"), "bfloat16"),
                 "a bad config keeps the overrides in force: %s", hum_last_error());
        hum_runtime_destroy(rt);
    }

    /* the host's 8-bit A is what runs: no override, no fallback (the layer is refused instead) */
    rt = runtime_with(dir, "overrides:\n  linear:\n    activation: bfloat16\n");
    if (rt) {
        hum_layer_spec s;
        hum_standard_weight w;
        hum_layer_info info;
        if (RT_CHECK(hum_layer_spec_parse("n=256,k=512,w=e4m3", &s) == HUM_OK && hum_layer_spec_weight(&s, 1, &w) ==
                         HUM_OK, "%s", hum_last_error())) {
            const hum_layer_options host8 = {.activation_dtype = E4, .output_dtype = BF};
            RT_CHECK(hum_layer_compile(rt, &w, &host8, "sm_90a", &info) == HUM_OK && info.config.a_dtype == E4 &&
                         info.config.a_fixed,
                     "host e4m3 on sm_90a: %s", hum_last_error());
            RT_EXPECT_ERROR(hum_layer_compile(rt, &w, &host8, "sm_80", &info), HUM_ERR_UNSUPPORTED,
                            "host e4m3 on sm_80", "need sm_89");
            /* the host's mxfp8 (codes and e8m0 scales) runs on the fp8 tensor cores, not rounded */
            const hum_layer_options host_mx = {.activation_dtype = E4, .output_dtype = BF, .activation_group = 32};
            RT_CHECK(hum_layer_compile(rt, &w, &host_mx, "sm_90a", &info) == HUM_OK && info.config.a_dtype == E4 &&
                         info.config.a_group == 32 && info.config.a_fixed && info.config.a_round == HUM_A_ROUND_NONE,
                     "host mxfp8 on sm_90a: %s (A %s, group %lld, a_round %d)", hum_last_error(),
                     hum_dtype_name(info.config.a_dtype), (long long)info.config.a_group, (int)info.config.a_round);
            hum_standard_free(&w);
        }
        hum_runtime_destroy(rt);
    }
    rt_rmtree(dir);
    return rt_test_result("test_layer_activation");
}
