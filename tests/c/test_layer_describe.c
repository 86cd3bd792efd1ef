/* hum_layer_describe_plan and hum_layer_describe: the dispatch table a layer gets on an arch's
 * nominal device, each row naming the policy line that chose it (a constructor's line, a
 * helper's call site, the tunings function for a literal table), a site file that defers to
 * the files before it (policy.below) for other layers, and the errors. The tunings and lines
 * checked are the ones the site file below spells out. And what a policy sees of the 8-bit A rule
 * (layer.a8). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "rt_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char SITE[] =
    "local policy = require('hum.policy')\n"                                                          /* 1 */
    "local function deep(stages) local t = policy.mma_tuning(64, 128, 128, 64, 32, 64, stages); return t end\n" /* 2 */
    "return {\n"                                                                                      /* 3 */
    "  name = 'site-a100',\n"                                                                         /* 4 */
    "  applies = function(device) return device.sm == 80 end,\n"                                      /* 5 */
    "  tunings = function(device, layer)\n"                                                           /* 6 */
    "    if layer.n ~= 4096 then return policy.below(device, layer) end\n"                            /* 7 */
    "    return policy.ranges({\n"                                                                    /* 8 */
    "      { 16, policy.mma_tuning(16, 128, 128, 16, 32, 128, 3) },\n"                                /* 9 */
    "      { 64, deep(3) },\n"                                                                        /* 10 */
    "      { 128, policy.tuning({ block_m = 64, block_n = 128, block_k = 128, warp_m = 64, warp_n = 32,\n" /* 11 */
    "                             warp_k = 64, stages = 4, stream_k = false, ctas_per_sm = 1 }) },\n"  /* 12 */
    "      { math.huge, { block_m = 128, block_n = 256, block_k = 128, warp_m = 64, warp_n = 64, warp_k = 128,\n"
    "                     stages = 3, stream_k = true, ctas_per_sm = 1 } },\n"
    "    })\n"
    "  end,\n"
    "}\n";

/* A site file whose block N says what it saw of layer.a8 (128: 8-bit A, 64: not), the rule C
 * owns (hum_gemm_a8) that lua/hum/layer.lua hands the policies. */
static const char SITE_A8[] =
    "local policy = require('hum.policy')\n"
    "return {\n"
    "  name = 'site-a8',\n"
    "  applies = function(device) return true end,\n"
    "  tunings = function(device, layer)\n"
    "    assert(type(layer.a8) == 'boolean', 'layer.a8 is a ' .. type(layer.a8))\n"
    "    local t = policy.mma_tuning(16, layer.a8 and 128 or 64, 128, 16, 32, 128, 2)\n"
    "    t.stream_k = false\n"
    "    return policy.ranges({ { math.huge, t } })\n"
    "  end,\n"
    "}\n";

/* What the site file above saw of layer.a8 for the layer of `spec` on arch. */
static void policy_sees_a8(hum_runtime *rt, const char *spec, const char *arch, int a8)
{
    hum_layer_spec s;
    hum_layer_dispatch d;
    if (RT_CHECK(hum_layer_spec_parse(spec, &s) == HUM_OK && hum_layer_describe_spec(rt, &s, arch, &d) == HUM_OK,
                 "%s on %s: %s", spec, arch, hum_last_error()))
        RT_CHECK(!strcmp(d.policy_name, "site-a8") && d.row_count == 1 && d.rows[0].tuning.block_n == (a8 ? 128 : 64),
                 "%s on %s: policy %s, block N %d: layer.a8 should be %s", spec, arch, d.policy_name,
                 d.rows[0].tuning.block_n, a8 ? "true" : "false");
}

/* A site file of HUM_LAYER_MAX_ENTRIES ranges, neighbours apart in block N (none merge), each from
 * line 6 + its index. */
static const char SITE_MAX[] =
    "local policy = require('hum.policy')\n"                                                  /* 1 */
    "local function t(i) return policy.mma_tuning(16, i % 2 == 0 and 128 or 64, 128, 16, 32, 128, 2) end\n"
    "return { name = 'site-max', applies = function(device) return true end,\n"                /* 3 */
    "  tunings = function(device, layer)\n"                                                   /* 4 */
    "    return policy.ranges({\n"                                                             /* 5 */
    "      { 1, t(1) }, { 2, t(2) },\n"                                                        /* 6 */
    "      { 3, t(3) },\n      { 4, t(4) },\n      { 5, t(5) },\n      { 6, t(6) },\n      { 7, t(7) },\n"
    "      { 8, t(8) },\n      { 9, t(9) },\n      { 10, t(10) },\n      { 11, t(11) },\n"
    "      { 12, t(12) },\n      { 13, t(13) },\n      { 14, t(14) },\n      { 15, t(15) },\n"
    "      { math.huge, t(16) } })\n"
    "  end }\n";

static hum_status plan(hum_runtime *rt, int64_t n, const char *arch, hum_layer_dispatch *d)
{
    hum_layer_spec spec;
    char text[128];
    snprintf(text, sizeof text, "n=%lld,k=2048,w=uint4,a=float16,group=128", (long long)n);
    hum_standard_weight w = {0};
    hum_status st = hum_layer_spec_parse(text, &spec);
    if (st == HUM_OK)
        st = hum_layer_spec_weight(&spec, 7, &w);
    if (st == HUM_OK)
        st = hum_layer_describe_plan(rt, &w, NULL, arch, d);
    hum_standard_free(&w);
    return st;
}

static void expect_row(const hum_layer_dispatch *d, int32_t i, int64_t m_min, int64_t m_max, int32_t block_m,
                       int32_t stages, int32_t stream_k, const char *origin)
{
    const hum_dispatch_row *r = &d->rows[i];
    RT_CHECK(r->tuning.m_min == m_min && r->tuning.m_max == m_max, "row %d: M %lld..%lld, expected %lld..%lld", i,
             (long long)r->tuning.m_min, (long long)r->tuning.m_max, (long long)m_min, (long long)m_max);
    RT_CHECK(r->tuning.block_m == block_m && r->tuning.stages == stages && r->tuning.stream_k == stream_k,
             "row %d: block_m %d, %d stages, stream-K %d", i, r->tuning.block_m, r->tuning.stages, r->tuning.stream_k);
    const size_t len = strlen(r->origin), want = strlen(origin);
    RT_CHECK(len >= want && strcmp(r->origin + len - want, origin) == 0, "row %d: origin '%s', expected '...%s'", i,
             r->origin, origin);
    RT_CHECK(r->smem_bytes > 0 && r->threads >= 32, "row %d: %lld B smem, %d threads", i, (long long)r->smem_bytes,
             r->threads);
}

int main(void)
{
    char dir[4096];
    rt_tmpdir("describe", dir, sizeof dir);
    unsetenv("HUM_POLICY_PATH");
    setenv("HUM_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    rt_write(dir, "site.lua", SITE);
    char yaml[4200];
    snprintf(yaml, sizeof yaml, "policy_paths: [%s/site.lua]\n", dir);
    const char *config = rt_write(dir, "deploy.yaml", yaml);
    hum_runtime_options opts;
    hum_runtime_options_init(&opts);
    opts.config_path = config;
    hum_runtime *rt = NULL;
    if (!RT_CHECK(hum_runtime_create(&opts, &rt) == HUM_OK, "%s", hum_last_error()))
        return rt_test_result("test_layer_describe");

    hum_layer_dispatch d;
    RT_CHECK(plan(rt, 4096, "sm_80", &d) == HUM_OK, "%s", hum_last_error());
    RT_CHECK(!strcmp(d.policy_name, "site-a100") && strstr(d.policy_origin, "/site.lua") &&
                 !strcmp(d.device_name, "nominal sm_80 (A100 SXM)") && !strcmp(d.arch, "sm_80"),
             "policy '%s' (%s) on '%s' for %s", d.policy_name, d.policy_origin, d.device_name, d.arch);
    if (RT_CHECK(d.row_count == 4, "%d rows", d.row_count)) {
        expect_row(&d, 0, 1, 16, 16, 3, 1, "/site.lua:9");   /* a constructor's line */
        expect_row(&d, 1, 17, 64, 64, 3, 1, "/site.lua:10"); /* a helper's call site */
        expect_row(&d, 2, 65, 128, 64, 4, 0, "/site.lua:11"); /* policy.tuning */
        expect_row(&d, 3, 129, INT64_MAX, 128, 3, 1, "/site.lua:6"); /* a literal: the tunings function */
    }

    /* Another layer: the site file hands it to the files before it, the built-in sm80.lua. */
    RT_CHECK(plan(rt, 8192, "sm_80", &d) == HUM_OK, "%s", hum_last_error());
    RT_CHECK(!strcmp(d.policy_name, "site-a100"), "the site file still wins the device: %s", d.policy_name);
    for (int32_t i = 0; i < d.row_count; i++)
        RT_CHECK(!strncmp(d.rows[i].origin, "embedded:policies/sm80.lua:", 27), "row %d from %s", i, d.rows[i].origin);
    RT_CHECK(d.row_count >= 3, "%d rows from sm80.lua", d.row_count);

    /* Another arch: the site file does not apply. */
    RT_CHECK(plan(rt, 4096, "sm_90a", &d) == HUM_OK, "%s", hum_last_error());
    RT_CHECK(!strcmp(d.policy_name, "sm90") && !strcmp(d.policy_origin, "embedded:policies/sm90.lua"),
             "sm_90a: %s (%s)", d.policy_name, d.policy_origin);

    RT_EXPECT_ERROR(plan(rt, 4096, NULL, &d), HUM_ERR_NO_DEVICE, "no GPU", "hum_layer_describe_plan", "no CUDA driver");
    RT_CHECK(d.row_count == 0, "zeroed on failure");
    RT_EXPECT_ERROR(plan(rt, 4096, "sm_70", &d), HUM_ERR_INVALID_ARG, "bad arch", "sm_70");
    RT_EXPECT_ERROR(hum_layer_describe_plan(rt, NULL, NULL, "sm_80", &d), HUM_ERR_INVALID_ARG, "NULL weight",
                    "NULL weight");
    RT_EXPECT_ERROR(hum_layer_describe(NULL, &d), HUM_ERR_INVALID_ARG, "NULL layer", "NULL layer");

    hum_layer_spec spec;
    hum_standard_weight w = {0};
    hum_layer *layer = NULL;
    RT_CHECK(hum_layer_spec_parse("n=256,k=256", &spec) == HUM_OK && hum_layer_spec_weight(&spec, 1, &w) == HUM_OK &&
                 hum_layer_from_standard(rt, &w, NULL, &layer) == HUM_OK,
             "%s", hum_last_error());
    RT_EXPECT_ERROR(hum_layer_describe(layer, &d), HUM_ERR_INVALID_ARG, "unprepared layer", "not prepared");
    hum_layer_destroy(layer);
    hum_standard_free(&w);
    hum_runtime_destroy(rt);

    /* the built-in W4A8 MXFP4 table at n = 8192 on sm_90a's 132 SMs: eleven entries, each named by its
     * own line, and what A runs as past them (the public arrays hold HUM_LAYER_MAX_ENTRIES) */
    rt = NULL;
    RT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error());
    RT_CHECK(hum_layer_spec_parse("n=8192,k=8192,w=e2m1,a=e4m3,group=32,scale=e8m0", &spec) == HUM_OK &&
                 hum_layer_describe_spec(rt, &spec, "sm_90a", &d) == HUM_OK,
             "%s", hum_last_error());
    RT_CHECK(d.row_count == 11 && !strncmp(d.activation, "e4m3 per token", 14), "MXFP4 n = 8192: %d rows, A '%s'",
             d.row_count, d.activation);
    for (int32_t i = 0; i < d.row_count; i++)
        RT_CHECK(!strncmp(d.rows[i].origin, "embedded:policies/sm90.lua:", 27), "row %d from %s", i, d.rows[i].origin);
    hum_runtime_destroy(rt);

    /* a site file of HUM_LAYER_MAX_ENTRIES ranges, the most a table holds */
    rt_write(dir, "max.lua", SITE_MAX);
    snprintf(yaml, sizeof yaml, "policy_paths: [%s/max.lua]\n", dir);
    opts.config_path = rt_write(dir, "deploy-max.yaml", yaml);
    rt = NULL;
    if (RT_CHECK(hum_runtime_create(&opts, &rt) == HUM_OK, "%s", hum_last_error()) &&
        RT_CHECK(plan(rt, 4096, "sm_80", &d) == HUM_OK, "%s", hum_last_error()) &&
        RT_CHECK(d.row_count == HUM_LAYER_MAX_ENTRIES && !strncmp(d.activation, "float16", 7),
                 "%d rows (expected %d), A '%s'", d.row_count, HUM_LAYER_MAX_ENTRIES, d.activation)) {
        for (int32_t i = 0; i < d.row_count; i++) {
            char line[32];
            snprintf(line, sizeof line, "/max.lua:%d", i < 2 ? 6 : 5 + i);
            expect_row(&d, i, i + 1, i + 1 < d.row_count ? i + 1 : INT64_MAX, 16, 2, 1, line);
            RT_CHECK(d.rows[i].tuning.block_n == (i % 2 ? 128 : 64), "row %d: block N %d", i, d.rows[i].tuning.block_n);
        }
    }
    hum_runtime_destroy(rt);

    rt_write(dir, "a8.lua", SITE_A8);
    snprintf(yaml, sizeof yaml, "policy_paths: [%s/a8.lua]\n", dir);
    opts.config_path = rt_write(dir, "deploy-a8.yaml", yaml);
    rt = NULL;
    if (RT_CHECK(hum_runtime_create(&opts, &rt) == HUM_OK, "%s", hum_last_error())) {
        policy_sees_a8(rt, "n=256,k=256,w=e4m3,a=e4m3", "sm_90a", 1);
        policy_sees_a8(rt, "n=256,k=256,w=uint8,a=int8", "sm_80", 1);
        policy_sees_a8(rt, "n=256,k=256,w=uint4,a=float16,group=128", "sm_90a", 0);
        policy_sees_a8(rt, "n=256,k=256,w=e4m3,a=bfloat16", "sm_90a", 0);
    }
    hum_runtime_destroy(rt);
    rt_rmtree(dir);
    return rt_test_result("test_layer_describe");
}
