/* Every MoE layer plans on every arch with one block_m per range of rows per expert on both of
 * its expert GEMMs (they share one routing layout), without a GPU: hum_moe_describe_spec over a
 * grid of shapes (hidden and intermediate sizes that are not multiples of 8, 16 or 64, so that
 * one GEMM takes wgmma or 8-bit A where the other does not; one to 128 experts), weights (2- to
 * 8-bit integers in groups of 16 to 128 or per channel, zero points, e2m1 with e8m0 groups, e4m3)
 * and activations (float16, bfloat16, the checkpoint's e4m3 and int8, the deployment overrides
 * moe.activation = e4m3 and mxfp8) on sm_75, sm_80, sm_86, sm_89 and sm_90a, under the built-in
 * policies; and the layer of issue 10 (gate/up K 96 on wgmma, down K 100 on mma.sync) compiled
 * for sm_90a. The table each GEMM plans is checked here too, range by range, not only through
 * the check in libhum. */
#include "hum/hum_tools.h"
#include "rt_test.h"

#include <stdio.h>
#include <string.h>

static const char *const ARCHS[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90a"};

/* experts, top-k, hidden size H (the gate/up GEMM's K), intermediate size I (the down GEMM's K) */
static const struct {
    int e, topk, h, i;
} SHAPES[] = {
    {33, 4, 96, 100},    /* issue 10: I not a multiple of 8 (no wgmma on the down GEMM) */
    {7, 2, 100, 96},     /* H not a multiple of 8 (no wgmma on the gate/up GEMM) */
    {3, 3, 128, 104},    /* I a multiple of 8, not of 16 (no 8-bit A on the down GEMM) */
    {1, 1, 104, 128},    /* one expert; H a multiple of 8, not of 16 */
    {5, 2, 200, 16},     /* I shorter than a scale group */
    {128, 8, 2048, 768}, /* Qwen3-30B-A3B */
    {32, 4, 2880, 2880}, /* gpt-oss-20b */
    {60, 4, 2048, 1408}, /* Qwen1.5-MoE-A2.7B */
    {9, 2, 72, 200},     /* both K short, H not a multiple of 16 */
};

static const char *const WEIGHTS[] = {
    "w=uint4,group=32", "w=uint4,group=128", "w=uint4,group=16", "w=uint4",         "w=uint4,group=64,zp=int",
    "w=uint8,group=128", "w=uint3,group=64", "w=uint2",          "w=e2m1,group=32,scale=e8m0", "w=e4m3",
};

/* The spec's activations per arch: sm_75 has no bfloat16 (a refusal, not a layer to plan). */
static const char *const ACTS[] = {"a=bfloat16", "a=float16", "a=e4m3", "a=int8"};

/* HUM_OK and the same block_m for every rows-per-expert count on both GEMMs, or a failure naming
 * the case. */
static int plans_one(hum_runtime *rt, const char *text, const char *arch, const char *config)
{
    hum_moe_spec s;
    hum_layer_dispatch d[2];
    if (!RT_CHECK(hum_moe_spec_parse(text, &s) == HUM_OK, "%s: %s", text, hum_last_error()))
        return 0;
    if (!RT_CHECK(hum_moe_describe_spec(rt, &s, arch, d) == HUM_OK, "%s on %s (%s): %s", text, arch, config,
                  hum_last_error()))
        return 0;
    int32_t i = 0, j = 0;
    while (i < d[0].row_count && j < d[1].row_count) {
        const hum_tuning *x = &d[0].rows[i].tuning, *y = &d[1].rows[j].tuning;
        if (!RT_CHECK(x->block_m == y->block_m, "%s on %s (%s): rows per expert %lld..%lld and %lld..%lld: gate/up "
                      "block_m %d, down %d", text, arch, config, (long long)x->m_min, (long long)x->m_max,
                      (long long)y->m_min, (long long)y->m_max, x->block_m, y->block_m))
            return 0;
        if (x->m_max <= y->m_max)
            i++;
        if (y->m_max <= x->m_max)
            j++;
    }
    return RT_CHECK(i == d[0].row_count && j == d[1].row_count, "%s on %s: the tables end at different M", text, arch);
}

/* Every shape, weight and activation of the grid on every arch; returns the layers planned. */
static int plans_all(hum_runtime *rt, const char *config)
{
    int planned = 0;
    for (size_t a = 0; a < sizeof ARCHS / sizeof ARCHS[0]; a++)
        for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++)
            for (size_t w = 0; w < sizeof WEIGHTS / sizeof WEIGHTS[0]; w++)
                for (size_t x = 0; x < sizeof ACTS / sizeof ACTS[0]; x++) {
                    if (!strcmp(ARCHS[a], "sm_75") && x != 1)
                        continue;
                    char text[256];
                    /* the gate/up projection of a gated activation has 2 I outputs */
                    snprintf(text, sizeof text, "e=%d,topk=%d,n=%d,k=%d,%s,%s", SHAPES[s].e, SHAPES[s].topk,
                             2 * SHAPES[s].i, SHAPES[s].h, WEIGHTS[w], ACTS[x]);
                    planned += plans_one(rt, text, ARCHS[a], config);
                }
    return planned;
}

int main(void)
{
    char dir[4096];
    rt_tmpdir("moe-plan", dir, sizeof dir);
    static const char *const CONFIGS[] = {
        NULL,
        "overrides:\n  moe:\n    activation: e4m3\n",
        RT_MOE_MXFP8_YAML,
    };
    for (size_t c = 0; c < sizeof CONFIGS / sizeof CONFIGS[0]; c++) {
        hum_runtime *rt = NULL;
        const hum_status st =
            CONFIGS[c] ? rt_runtime_with_config(dir, CONFIGS[c], &rt) : hum_runtime_create(NULL, &rt);
        if (!RT_CHECK(st == HUM_OK, "runtime (%s): %s", CONFIGS[c] ? CONFIGS[c] : "no config", hum_last_error()))
            continue;
        const char *name = c == 0 ? "the checkpoint's activations" : c == 1 ? "moe.activation = e4m3"
                                                                            : "moe.activation = mxfp8";
        printf("  %s: %d MoE layers planned with one block_m per range\n", name, plans_all(rt, name));
        hum_runtime_destroy(rt);
    }

    /* issue 10 as it was met: the layer compiled, every kernel through NVRTC */
    hum_runtime *rt = NULL;
    hum_moe_spec s;
    hum_moe_compile_info info;
    if (RT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "runtime: %s", hum_last_error()) &&
        RT_CHECK(hum_moe_spec_parse("e=33,topk=4,n=200,k=96,w=uint4,a=bfloat16,group=32", &s) == HUM_OK, "%s",
                 hum_last_error()) &&
        RT_CHECK(hum_moe_compile_spec(rt, &s, "sm_90a", &info) == HUM_OK, "issue 10's layer for sm_90a: %s",
                 hum_last_error()))
        printf("  issue 10's layer for sm_90a: %d + %d GEMM kernels\n", info.gate_up.entry_count,
               info.down.entry_count);
    hum_runtime_destroy(rt);
    rt_rmtree(dir);
    return rt_test_result("test_moe_plan");
}
