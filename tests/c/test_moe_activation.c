/* Which activation type a MoE layer's expert GEMMs run (lua/hum/activation.lua), without a GPU:
 * the checkpoint's scheme (a SPEC's a=) by default, the deployment override moe.activation
 * instead (linear layers keep theirs), the fallback where the target lacks the type (e4m3
 * before sm_89; a static per-tensor scale and 1 x 128 groups, which the expert GEMMs do not
 * take, as e4m3 per token), mxfp8 rounded by the layer into 16-bit A (the hidden rows, the
 * activation's output) wherever 16-bit A runs, a hot reload changing it for layers planned
 * afterwards; the layer compiled (NVRTC: both GEMMs' 8-bit tables, the quantizer, the
 * activation fused with its quantization or rounding) for sm_89 and sm_90a (e4m3), sm_80 (int8,
 * over uint8 channels and uint4 group-128 weights; mxfp8), sm_90a (int8 over uint4 groups); and the float64 reference that follows the layer's numerics (hum_moe_numerics; its
 * mxfp8 rounding gives mxfp8's codes times scales exactly). And an expert GEMM described alone
 * (hum_expert_gemm_describe_spec, its own facts) against the same GEMM in its layer. */
#include "hum/hum_tools.h"
#include "rt_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Both expert GEMMs of the MoE spec as its layer plans them on arch (hum_moe_describe_spec: from
 * the facts of both, as hum_moe_prepare): A runs as `runs`, the note names needle. */
static void expect(hum_runtime *rt, const char *spec, const char *arch, hum_dtype runs, const char *needle)
{
    hum_moe_spec s;
    hum_layer_dispatch d[2];
    if (!RT_CHECK(hum_moe_spec_parse(spec, &s) == HUM_OK, "%s: %s", spec, hum_last_error()) ||
        !RT_CHECK(hum_moe_describe_spec(rt, &s, arch, d) == HUM_OK, "%s on %s: %s", spec, arch, hum_last_error()))
        return;
    for (int i = 0; i < 2; i++) {
        RT_CHECK(strstr(d[i].activation, needle) && d[i].row_count >= 1, "%s GEMM of %s on %s: activations '%s' "
                 "should name '%s'", i ? "down" : "gate_up", spec, arch, d[i].activation, needle);
        /* the policy's tiles fit the type that runs: 8-bit A takes block K >= 128 */
        const int a8 = runs == HUM_DTYPE_FLOAT8_E4M3FN || runs == HUM_DTYPE_INT8;
        for (int32_t r = 0; a8 && r < d[i].row_count; r++)
            RT_CHECK(d[i].rows[r].tuning.block_k >= 128 && !d[i].rows[r].tuning.stream_k,
                     "%s on %s, range %d: block K %d%s with 8-bit A", spec, arch, r, d[i].rows[r].tuning.block_k,
                     d[i].rows[r].tuning.stream_k ? ", stream-K" : "");
    }
}

/* Whether a table has an entry on a wgmma family. */
static int has_wgmma(const hum_layer_dispatch *d)
{
    for (int32_t r = 0; r < d->row_count; r++)
        if (d->rows[r].tuning.kernel != HUM_GEMM_KERNEL_MMA)
            return 1;
    return 0;
}

/* hum_expert_gemm_describe_spec describes an expert GEMM alone, planned from its own facts, as
 * hum_expert_gemm_from_standard's is prepared; a MoE layer plans its GEMMs from the facts of
 * both. Issue 10's layer on sm_90a: its gate/up GEMM (K 96) takes wgmma alone, but not beside
 * its down GEMM (K 100, which wgmma does not take): the policy's block_m follows both. */
static void alone_and_in_layer(hum_runtime *rt)
{
    hum_moe_spec s;
    hum_layer_dispatch alone, layer[2];
    if (!RT_CHECK(hum_moe_spec_parse("e=33,topk=4,n=200,k=96,w=uint4,a=bfloat16,group=32", &s) == HUM_OK, "%s",
                  hum_last_error()) ||
        !RT_CHECK(hum_expert_gemm_describe_spec(rt, &s.gate_up, s.experts, s.gemm_type, "sm_90a", &alone) == HUM_OK &&
                      hum_moe_describe_spec(rt, &s, "sm_90a", layer) == HUM_OK,
                  "issue 10's layer on sm_90a: %s", hum_last_error()))
        return;
    RT_CHECK(has_wgmma(&alone) && !has_wgmma(&layer[0]) && !has_wgmma(&layer[1]),
             "issue 10's gate/up GEMM on sm_90a: wgmma alone %d (expected 1), in its layer %d and %d (expected 0)",
             has_wgmma(&alone), has_wgmma(&layer[0]), has_wgmma(&layer[1]));
}

/* The layer of the spec compiled for arch: both GEMMs run `runs` (8-bit: scaled per group of
 * `group` columns, 0 per token), and every kernel compiled. */
static void compile_as(hum_runtime *rt, const char *spec, const char *arch, hum_dtype runs, int64_t group,
                       int32_t round)
{
    hum_moe_spec s;
    hum_moe_compile_info info;
    if (!RT_CHECK(hum_moe_spec_parse(spec, &s) == HUM_OK, "%s: %s", spec, hum_last_error()) ||
        !RT_CHECK(hum_moe_compile_spec(rt, &s, arch, &info) == HUM_OK, "%s for %s: %s", spec, arch, hum_last_error()))
        return;
    RT_CHECK(info.gate_up.config.a_dtype == runs && info.down.config.a_dtype == runs &&
                 info.gate_up.config.a_group == group && info.down.config.a_group == group &&
                 info.gate_up.config.a_round == round && info.down.config.a_round == round,
             "%s for %s runs %s and %s in groups of %lld and %lld (a_round %d, %d), expected %s in groups of %lld "
             "(a_round %d)", spec, arch, hum_dtype_name(info.gate_up.config.a_dtype),
             hum_dtype_name(info.down.config.a_dtype), (long long)info.gate_up.config.a_group,
             (long long)info.down.config.a_group, (int)info.gate_up.config.a_round, (int)info.down.config.a_round,
             hum_dtype_name(runs), (long long)group, (int)round);
    printf("  %s for %s: %d kernels (%d compiled); gate/up: %s; down: %s\n", spec, arch,
           info.kernels_compiled + info.kernels_cached, info.kernels_compiled, info.gate_up_activation,
           info.down_activation);
}

static void compile(hum_runtime *rt, const char *spec, const char *arch, hum_dtype runs, int64_t group)
{
    compile_as(rt, spec, arch, runs, group, HUM_A_ROUND_NONE);
}

static double rel_diff(const double *a, const double *b, int64_t n)
{
    double num = 0, den = 0;
    for (int64_t i = 0; i < n; i++) {
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return sqrt(num / den);
}

/* M tokens of H bfloat16 hidden values (a wide range of magnitudes within a row, as the host
 * gives them) routed top-2 over `experts` experts, with unnormalised weights. */
static void top2_batch(int m, int h, int experts, double *x, int32_t *ids, float *wt)
{
    uint16_t *codes = malloc((size_t)(m * h) * sizeof *codes);
    for (int i = 0; i < m * h; i++)
        x[i] = sin(0.37 * i) * (1 + i % 5);
    if (RT_CHECK(codes, "%d bfloat16 codes", m * h)) {
        hum_dtype_encode(HUM_DTYPE_BFLOAT16, x, m * h, codes);
        hum_dtype_decode(HUM_DTYPE_BFLOAT16, codes, m * h, x);
    }
    free(codes);
    for (int i = 0; i < m * 2; i++) {
        ids[i] = (i * 3 + i / 2) % experts;
        wt[i] = 0.25f + 0.125f * (float)(i % 3);
    }
}

/* The reference as the layer runs: 16-bit numerics stay within bfloat16 rounding of float64,
 * e4m3 and int8 per token move it by what 8-bit A costs (e4m3 more than int8), and a bad
 * numerics struct is refused. */
static void reference_numerics(void)
{
    hum_moe_spec s;
    hum_standard_weight w13, w2;
    if (!RT_CHECK(hum_moe_spec_parse("e=4,topk=2,n=128,k=256,w=e4m3,a=bfloat16", &s) == HUM_OK &&
                      hum_moe_spec_weights(&s, 7, &w13, &w2) == HUM_OK,
                  "%s", hum_last_error()))
        return;
    enum { M = 6, H = 256 };
    double x[M * H], exact[M * H], got[M * H];
    int32_t ids[M * 2];
    float wt[M * 2];
    top2_batch(M, H, 4, x, ids, wt);
    const hum_tensor t = {.data = ids, .dtype = HUM_DTYPE_INT32, .rank = 2, .shape = {M, 2}, .memory = HUM_MEMORY_HOST};
    hum_moe_options o;
    hum_moe_options_init(&o);
    o.top_k = 2;
    const hum_dtype BF = HUM_DTYPE_BFLOAT16, E4 = HUM_DTYPE_FLOAT8_E4M3FN, I8 = HUM_DTYPE_INT8;
    const int32_t MX = HUM_A_ROUND_MXFP8;
    const hum_moe_numerics n16 = {BF, BF, BF, 0, 0, 0, 0}, ne4 = {BF, E4, E4, 0, 0, 0, 0},
                           ni8 = {BF, I8, I8, 0, 0, 0, 0}, bad = {E4, E4, E4, 0, 0, 0, 0},
                           nmx = {BF, E4, E4, 32, 32, 0, 0}, badgroup = {BF, I8, I8, 32, 32, 0, 0},
                           nround = {BF, BF, BF, 0, 0, MX, MX}, badround = {BF, E4, BF, 32, 0, MX, MX};
    if (RT_CHECK(hum_moe_reference(&w13, &w2, &o, x, &t, wt, NULL, NULL, exact) == HUM_OK, "%s", hum_last_error())) {
        double d[4] = {0};
        const hum_moe_numerics *runs[4] = {&n16, &ne4, &ni8, &nmx};
        for (int i = 0; i < 4; i++)
            if (RT_CHECK(hum_moe_reference(&w13, &w2, &o, x, &t, wt, NULL, runs[i], got) == HUM_OK, "%s",
                         hum_last_error()))
                d[i] = rel_diff(got, exact, M * H);
        RT_CHECK(d[0] > 0 && d[0] < 1e-2 && d[2] > d[0] && d[1] > d[2] && d[1] < 0.1,
                 "as run against float64: 16-bit %.2e, int8 %.2e, e4m3 %.2e", d[0], d[2], d[1]);
        /* mxfp8: e4m3 codes too, scaled per 32 columns by powers of two */
        RT_CHECK(d[3] > d[0] && d[3] < 0.1, "mxfp8 as run against float64: %.2e (16-bit %.2e)", d[3], d[0]);
        printf("  reference as run against float64: 16-bit %.2e, int8 %.2e, e4m3 %.2e, mxfp8 %.2e\n", d[0], d[2],
               d[1], d[3]);
        /* mxfp8 rounded into bfloat16: the same A values as its codes times scales (exact in
         * bfloat16 at these magnitudes), but 16-bit GEMMs, which hold each e4m3 weight times its
         * bfloat16 scale rounded to bfloat16, where the 8-bit ones multiply the codes and scale
         * the float32 sums: apart by that rounding alone, and with unit scales, whose products
         * need no rounding, the same outputs bit for bit */
        double mx[M * H], apart = -1;
        if (RT_CHECK(hum_moe_reference(&w13, &w2, &o, x, &t, wt, NULL, &nmx, mx) == HUM_OK &&
                         hum_moe_reference(&w13, &w2, &o, x, &t, wt, NULL, &nround, got) == HUM_OK,
                     "%s", hum_last_error()))
            apart = rel_diff(got, mx, M * H);
        RT_CHECK(apart > 1e-4 && apart < 2e-2,
                 "mxfp8 rounded into bfloat16 against its codes times scales: %.2e (expected the bfloat16 weights' "
                 "rounding alone)", apart);
        hum_standard_weight *ws[2] = {&w13, &w2};
        int units = 1;
        for (int i = 0; i < 2; i++)
            units &= RT_CHECK(ws[i]->scale.rank == 3 && ws[i]->scale_dtype == BF,
                              "scales of rank %d in %s (expected 3, bfloat16)", ws[i]->scale.rank,
                              hum_dtype_name(ws[i]->scale_dtype));
        const double one = 1.0;
        for (int i = 0; units && i < 2; i++) {
            const hum_tensor *sc = &ws[i]->scale;
            for (int64_t j = 0; j < sc->shape[0] * sc->shape[1] * sc->shape[2]; j++)
                hum_dtype_encode(BF, &one, 1, (uint16_t *)sc->data + j);
        }
        if (units && RT_CHECK(hum_moe_reference(&w13, &w2, &o, x, &t, wt, NULL, &nmx, mx) == HUM_OK &&
                                  hum_moe_reference(&w13, &w2, &o, x, &t, wt, NULL, &nround, got) == HUM_OK,
                              "unit scales: %s", hum_last_error()))
            RT_CHECK(!memcmp(got, mx, sizeof mx), "mxfp8 rounded into bfloat16, unit scales: %.2e against its codes "
                     "times scales", rel_diff(got, mx, M * H));
        printf("  mxfp8 rounded into bfloat16 against its codes times scales: %.2e (bit for bit with unit scales)\n",
               apart);
    }
    RT_EXPECT_ERROR(hum_moe_reference(&w13, &w2, &o, x, &t, wt, NULL, &badround, got), HUM_ERR_INVALID_ARG,
                    "rounding e4m3", "a rounding GEMM's A held");
    RT_EXPECT_ERROR(hum_moe_reference(&w13, &w2, &o, x, &t, wt, NULL, &bad, got), HUM_ERR_INVALID_ARG, "e4m3 held",
                    "as_run held float8_e4m3fn");
    RT_EXPECT_ERROR(hum_moe_reference(&w13, &w2, &o, x, &t, wt, NULL, &badgroup, got), HUM_ERR_INVALID_ARG,
                    "int8 in groups", "groups 32 and 32");
    hum_standard_free(&w13);
    hum_standard_free(&w2);
}

/* A 16-bit GEMM's float-code weights in the reference as the MoE layer holds them: the global
 * scale folded into each scale in float32, that rounded to bfloat16, decode(q) times it rounded
 * again. So weights whose float32 group scales and per-expert global scale give the same outputs,
 * bit for bit, as the same codes with each scale replaced by that folded, rounded value and the
 * global scale 1; and not those of the exact weights. */
static void reference_held_weights(void)
{
    hum_moe_spec s;
    hum_standard_weight w13, w2;
    if (!RT_CHECK(hum_moe_spec_parse("e=3,topk=2,n=64,k=128,w=e2m1,a=bfloat16,group=16,scale=float32,global=1",
                                     &s) == HUM_OK &&
                      hum_moe_spec_weights(&s, 11, &w13, &w2) == HUM_OK,
                  "%s", hum_last_error()))
        return;
    enum { M = 5, H = 128 };
    double x[M * H], exact[M * H], held[M * H], folded[M * H];
    int32_t ids[M * 2];
    float wt[M * 2];
    top2_batch(M, H, 3, x, ids, wt);
    const hum_tensor t = {.data = ids, .dtype = HUM_DTYPE_INT32, .rank = 2, .shape = {M, 2}, .memory = HUM_MEMORY_HOST};
    hum_moe_options o;
    hum_moe_options_init(&o);
    o.top_k = 2;
    const hum_dtype BF = HUM_DTYPE_BFLOAT16;
    const hum_moe_numerics n16 = {BF, BF, BF, 0, 0, 0, 0};
    hum_standard_weight *ws[2] = {&w13, &w2};
    int ok = RT_CHECK(hum_moe_reference(&w13, &w2, &o, x, &t, wt, NULL, NULL, exact) == HUM_OK &&
                          hum_moe_reference(&w13, &w2, &o, x, &t, wt, NULL, &n16, held) == HUM_OK,
                      "%s", hum_last_error());
    for (int i = 0; ok && i < 2; i++) {
        hum_standard_weight *w = ws[i];
        ok = RT_CHECK(w->scale.dtype == HUM_DTYPE_FLOAT32 && w->scale.rank == 3 && w->global_scale.data &&
                          w->global_scale.shape[0] == w->num_experts,
                      "scales %s of rank %d, global scale %s (expected float32 [E, N, G] and one per expert)",
                      hum_dtype_name(w->scale.dtype), w->scale.rank, w->global_scale.data ? "given" : "missing");
        const int64_t per = w->scale.shape[1] * w->scale.shape[2];
        float *sc = w->scale.data, *g = w->global_scale.data;
        for (int64_t e = 0; ok && e < w->num_experts; e++) {
            for (int64_t j = 0; j < per; j++) {
                const double f = (double)(float)((double)sc[e * per + j] * g[e]);
                uint16_t b;
                double r;
                hum_dtype_encode(BF, &f, 1, &b);
                hum_dtype_decode(BF, &b, 1, &r);
                sc[e * per + j] = (float)r;
            }
            g[e] = 1.0f;
        }
    }
    if (ok && RT_CHECK(hum_moe_reference(&w13, &w2, &o, x, &t, wt, NULL, &n16, folded) == HUM_OK, "%s",
                       hum_last_error()))
        RT_CHECK(!memcmp(held, folded, sizeof held) && rel_diff(held, exact, M * H) > 0,
                 "held weights with a global scale against the folded, rounded scales: %.2e (expected 0), "
                 "against exact weights %.2e (expected above 0)",
                 rel_diff(held, folded, M * H), rel_diff(held, exact, M * H));
    hum_standard_free(&w13);
    hum_standard_free(&w2);
}

int main(void)
{
    char dir[4096];
    rt_tmpdir("moe-activation", dir, sizeof dir);
    const hum_dtype E4 = HUM_DTYPE_FLOAT8_E4M3FN, I8 = HUM_DTYPE_INT8, BF = HUM_DTYPE_BFLOAT16;
    static const char *const fp8 = "e=8,topk=2,n=256,k=512,w=e4m3,a=e4m3";

    hum_runtime *rt = runtime_with(dir, NULL);
    if (rt) {
        expect(rt, fp8, "sm_90a", E4, "e4m3 per token (the checkpoint's; quantized by the layer)");
        expect(rt, fp8, "sm_80", BF, "fallback from e4m3 per token");
        expect(rt, "e=8,topk=2,n=256,k=512,w=uint8,a=int8", "sm_80", I8, "int8 per token");
        /* a static per-tensor scale is one per expert: the expert GEMMs quantize per token */
        expect(rt, "e=8,topk=2,n=256,k=512,w=e4m3,a=e4m3,ascale=tensor", "sm_90a", E4,
               "e4m3 per token (fallback from e4m3 per tensor");
        /* scales along K as the checkpoint's scheme: W4A8 with group-128 weight scales (A per
         * token) and FP8 block-wise (A per 1 x 128 group), applied where the e4m3 accumulators
         * are promoted (tests/gpu/moe_forward.c runs both) */
        expect(rt, "e=8,topk=2,n=512,k=512,w=uint4,a=e4m3,group=128", "sm_90a", E4,
               "e4m3 per token (the checkpoint's; quantized by the layer)");
        expect(rt, "e=8,topk=2,n=256,k=512,w=e4m3,a=e4m3,ascale=group128,group=128", "sm_90a", E4,
               "e4m3 per 1x128 group (the checkpoint's; quantized by the layer)");
        expect(rt, "e=8,topk=2,n=256,k=512,w=e4m3,a=e4m3,ascale=group128,group=128", "sm_80", BF,
               "fallback from e4m3 per 1x128 group, the checkpoint's: float8_e4m3fn activations need sm_89");
        compile(rt, "e=8,topk=2,n=256,k=512,w=e4m3,a=e4m3,ascale=group128,group=128", "sm_90a", E4, 128);
        compile(rt, "e=8,topk=2,n=256,k=512,w=e4m3,a=e4m3,ascale=group128,group=128", "sm_89", E4, 128);
        alone_and_in_layer(rt);
        compile(rt, fp8, "sm_90a", E4, 0);
        compile(rt, fp8, "sm_89", E4, 0);
        compile(rt, "e=8,topk=2,n=256,k=512,w=uint8,a=int8", "sm_80", I8, 0);
        /* W4A8 int: group-128 weights under int8 per token, the int32 sums promoted per group */
        expect(rt, "e=8,topk=2,n=512,k=512,w=uint4,a=int8,group=128", "sm_80", I8,
               "int8 per token (the checkpoint's; quantized by the layer)");
        compile(rt, "e=8,topk=2,n=512,k=512,w=uint4,a=int8,group=128", "sm_80", I8, 0);
        compile(rt, "e=8,topk=2,n=512,k=512,w=uint4,a=int8,group=128", "sm_90a", I8, 0);
        hum_runtime_destroy(rt);
    }

    /* the override: MoE layers only, the checkpoint's 16-bit scheme overridden */
    rt = runtime_with(dir, "overrides:\n  moe:\n    activation: e4m3\n");
    if (rt) {
        expect(rt, "e=8,topk=2,n=256,k=512,w=e4m3,a=bfloat16", "sm_90a", E4, "override moe.activation = e4m3");
        /* W4A8 with the weights' group-128 scales applied where the e4m3 accumulators are promoted */
        expect(rt, "e=8,topk=2,n=512,k=512,w=uint4,a=bfloat16,group=128", "sm_90a", E4,
               "e4m3 per token (override moe.activation = e4m3");
        compile(rt, "e=8,topk=2,n=512,k=512,w=uint4,a=bfloat16,group=128", "sm_90a", E4, 0);
        /* FP8 block-wise experts keep their 1 x 128 activation groups */
        expect(rt, "e=8,topk=2,n=256,k=512,w=e4m3,a=e4m3,ascale=group128,group=128", "sm_90a", E4,
               "e4m3 per 1x128 group (override moe.activation = e4m3; quantized by the layer)");
        hum_layer_spec dense;
        hum_layer_dispatch d;
        RT_CHECK(hum_layer_spec_parse("n=256,k=512,w=e4m3,a=bfloat16", &dense) == HUM_OK &&
                     hum_layer_describe_spec(rt, &dense, "sm_90a", &d) == HUM_OK && !strcmp(d.activation, "bfloat16"),
                 "a linear layer keeps its own: '%s' %s", d.activation, hum_last_error());
        hum_runtime_destroy(rt);
    }
    /* mxfp8: the layer rounds the hidden rows and the activation's output to mxfp8's values in
     * bfloat16 and both expert GEMMs run 16-bit A, wherever bfloat16 runs (no sm_89 needed); the
     * layer compiled with the activation rounding its output */
    rt = runtime_with(dir, "overrides:\n  moe:\n    activation: mxfp8\n");
    if (rt) {
        static const char *const w8 = "e=8,topk=2,n=256,k=512,w=e4m3,a=bfloat16";
        static const char *const w4 = "e=8,topk=2,n=512,k=512,w=uint4,a=bfloat16,group=128";
        static const char *const rounded = "mxfp8 (override moe.activation = mxfp8; rounded by the layer, computed "
                                           "in bfloat16: no block-scaled MMA before sm_100)";
        expect(rt, w8, "sm_90a", BF, rounded);
        expect(rt, w4, "sm_89", BF, rounded);
        expect(rt, w8, "sm_80", BF, rounded);
        compile_as(rt, w8, "sm_90a", BF, 0, HUM_A_ROUND_MXFP8);
        compile_as(rt, w4, "sm_90a", BF, 0, HUM_A_ROUND_MXFP8);
        compile_as(rt, w4, "sm_89", BF, 0, HUM_A_ROUND_MXFP8);
        compile_as(rt, w4, "sm_80", BF, 0, HUM_A_ROUND_MXFP8);
        hum_runtime_destroy(rt);
    }

    /* a reload re-reads the override: layers planned afterwards follow it */
    const char *yaml = rt_write(dir, "reload.yaml", "overrides:\n  moe:\n    activation: int8\n");
    hum_runtime_options o;
    hum_runtime_options_init(&o);
    o.config_path = yaml;
    rt = NULL;
    if (RT_CHECK(hum_runtime_create(&o, &rt) == HUM_OK, "%s", hum_last_error())) {
        expect(rt, "e=8,topk=2,n=256,k=512,w=uint8,a=bfloat16", "sm_90a", I8, "override moe.activation = int8");
        rt_write(dir, "reload.yaml", "overrides:\n  moe:\n    activation: bfloat16\n");
        rt_set_mtime(yaml, 2000000000);
        RT_CHECK(hum_runtime_reload_policies(rt) == HUM_OK && hum_runtime_override(rt, "moe.activation") &&
                     !strcmp(hum_runtime_override(rt, "moe.activation"), "bfloat16"),
                 "reload: %s", hum_last_error());
        expect(rt, fp8, "sm_90a", BF, "bfloat16 (override moe.activation = bfloat16)");
        hum_runtime_destroy(rt);
    }

    reference_numerics();
    reference_held_weights();

    /* a spec's static per-tensor scale is stacked, one per expert (the weights validate) */
    hum_moe_spec ts;
    hum_standard_weight w13, w2;
    if (RT_CHECK(hum_moe_spec_parse("e=4,topk=2,n=64,k=128,w=e4m3,a=e4m3,ascale=tensor", &ts) == HUM_OK &&
                     hum_moe_spec_weights(&ts, 3, &w13, &w2) == HUM_OK,
                 "%s", hum_last_error())) {
        RT_CHECK(w13.act_scale == HUM_ACT_SCALE_TENSOR && w13.input_scale.rank == 1 &&
                     w13.input_scale.shape[0] == 4 && ((const float *)w13.input_scale.data)[3] == 8.0f / 448.0f &&
                     hum_standard_validate(&w13) == HUM_OK && hum_standard_validate(&w2) == HUM_OK,
                 "stacked input_scale: %s", hum_last_error());
        hum_standard_free(&w13);
        hum_standard_free(&w2);
    }
    rt_rmtree(dir);
    return rt_test_result("test_moe_activation");
}
