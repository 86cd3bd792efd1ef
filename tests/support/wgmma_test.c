/* See wgmma_test.h. */
#include "wgmma_test.h"

#include "rt_test.h"

#include <stdio.h>

const char *const WGMMA_TEST_POLICY =
    "local kernel, c_tile = '%s', '%s'\n"
    "local function t(bm, bn, wn, bk, stages, sum)\n"
    "  return { kernel = kernel, block_m = bm, block_n = bn, block_k = bk, warp_m = bm, warp_n = wn,\n"
    "           warp_k = bk, stages = stages, stream_k = true, ctas_per_sm = 1, c_tile = c_tile,\n"
    "           stream_k_sum = c_tile == 'stage' and sum or 'output' }\n"
    "end\n"
    "return {\n"
    "  name = 'wgmma-test',\n"
    "  applies = function(device) return true end,\n"
    "  tunings = function(device, layer)\n"
    "    return require('hum.policy').ranges({ { 8, t(16, 256, 32, 128, 6, 'output') },\n"
    "                                          { 32, t(32, 128, 16, 256, 5, 'workspace') },\n"
    "                                          { 64, t(64, 128, 16, 128, 5, 'workspace') },\n"
    "                                          { 100, t(128, 128, 16, 128, 4, 'output') },\n"
    "                                          { 128, t(128, 256, 32, 64, 4, 'workspace') },\n"
    "                                          { math.huge, t(256, 128, 16, 64, 4, 'output') } })\n"
    "  end,\n"
    "}\n";

const char *const WGMMA_ODD_BLOCK_POLICY =
    "local policy = require('hum.policy')\n"
    "local function t(bm, bn, wn, bk, stages)\n"
    "  return { kernel = 'wgmma', block_m = bm, block_n = bn, block_k = bk, warp_m = bm, warp_n = wn,\n"
    "           warp_k = bk, stages = stages, stream_k = true, ctas_per_sm = 1 }\n"
    "end\n"
    "return {\n"
    "  name = 'wgmma-odd-block-test',\n"
    "  applies = function(device) return device.sm >= 90 end,\n"
    "  tunings = function(device, layer)\n"
    "    if not layer.kernels.wgmma then\n"
    "      return policy.ranges({ { math.huge, policy.mma_tuning(16, 128, 128, 16, 32, 64, 4) } })\n"
    "    end\n"
    "    return policy.ranges({ { 1, t(8, 128, 32, 128, 4) }, { 4, t(48, 128, 16, 128, 4) },\n"
    "                           { 16, t(80, 128, 16, 128, 4) },\n"
    "                           { 64, t(96, 256, 32, 64, 4) }, { 100, t(112, 128, 16, 64, 4) },\n"
    "                           { 150, t(160, 128, 16, 64, 4) }, { math.huge, t(176, 128, 16, 64, 4) } })\n"
    "  end,\n"
    "}\n";

hum_runtime *wgmma_test_runtime(const char *kernel, const char *c_tile, char *dir, size_t cap)
{
    char policy[2048];
    snprintf(policy, sizeof policy, WGMMA_TEST_POLICY, kernel, c_tile);
    return wgmma_test_runtime_policy(policy, dir, cap);
}

hum_runtime *wgmma_test_runtime_policy(const char *policy, char *dir, size_t cap)
{
    rt_tmpdir("wgmma", dir, cap);
    rt_write(dir, "wgmma_test.lua", policy);
    const char *config = rt_write(dir, "hum.yaml", "policy_paths: [wgmma_test.lua]\n");
    hum_runtime_options opts;
    hum_runtime_options_init(&opts);
    opts.config_path = config;
    hum_runtime *rt = NULL;
    if (hum_runtime_create(&opts, &rt) != HUM_OK) {
        fprintf(stderr, "wgmma_test_runtime: %s\n", hum_last_error());
        return NULL;
    }
    return rt;
}
