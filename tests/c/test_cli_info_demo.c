/* `hum info` and `hum demo` as a user runs them on a machine without a CUDA driver: info names
 * the missing driver, NVRTC, the cache dir and every policy file and exits 0; demo compiles
 * the self-check kernel (a cache miss, then a hit) and exits 0; a bad config exits 1 with the
 * file:line message; usage errors exit 2. */
#define _POSIX_C_SOURCE 200809L /* setenv, popen */
#include "cli_test.h"
#include "rt_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

int main(void)
{
    char dir[4096];
    rt_tmpdir("cli", dir, sizeof dir);
    char cache[4200];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    setenv("HUM_CACHE_DIR", cache, 1);
    setenv("HUM_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    unsetenv("HUM_CONFIG");
    unsetenv("HUM_POLICY_PATH");

    RT_CHECK(cli_hum("info") == 0, "info exits 0 without a driver:\n%s", cli_output);
    cli_has("info", "hum          ");
    cli_has("info", "device       no CUDA driver");
    cli_has("info", "nvrtc        ");
    cli_has("info", cache);
    cli_has("info", "policies     5 files");
    cli_has("info", "activations  linear: the checkpoint's scheme, else the 16-bit A the host passes; moe: the "
                    "checkpoint's scheme, else the 16-bit A the host passes; what a layer runs: --layer SPEC\n");
    cli_has("info", "  embedded:policies/sm90.lua\n");

    char args[8400];
    const char *site = rt_write(dir, "site.lua", "return { name = 'site', applies = function() return false end,\n"
                                                 "  tunings = function() end }\n");
    char site_path[4300];
    snprintf(site_path, sizeof site_path, "%s", site);
    const char *config =
        rt_write(dir, "deploy.yaml", "policy_paths: [site.lua]\noverrides:\n  moe: {activation: e4m3}\n");
    snprintf(args, sizeof args, "--config %s info", config);
    RT_CHECK(cli_hum(args) == 0, "info with a config:\n%s", cli_output);
    cli_has("info with a config", "policies     6 files");
    cli_has("info with a config", site_path);
    cli_has("info with a config", "overrides    moe.activation=e4m3");
    cli_has("info with a config", "activations  linear: the checkpoint's scheme, else the 16-bit A the host passes; "
                                   "moe: e4m3 (override moe.activation); what a layer runs, falling back");
    snprintf(args, sizeof args, "info --config %s", config);
    RT_CHECK(cli_hum(args) == 0 && strstr(cli_output, site_path), "--config after the subcommand:\n%s", cli_output);

    config = rt_write(dir, "bad.yaml", "hot_reload: true\nlog_levle: info\n");
    snprintf(args, sizeof args, "info --config %s", config);
    RT_CHECK(cli_hum(args) == 1, "bad config exits 1:\n%s", cli_output);
    cli_has("bad config", "bad.yaml:2: unknown key 'log_levle'");

    /* through a pipe, as `hum demo | tee log`: stdout was fully buffered, so nothing showed until
     * the end; long steps now say when they start and, past a second, that they still run */
    double first_line = 0, total = 0;
    RT_CHECK(cli_hum_timed("demo", &first_line, &total) == 0, "demo exits 0 without a GPU:\n%s", cli_output);
    RT_CHECK(first_line >= 0 && first_line < total - 1.0,
             "demo's first line came %.1f s after the start, the command ended at %.1f s", first_line, total);
    cli_has("demo", "checkpoint: quantizing random weights of 3 layers and writing them ...\n");
    cli_has("demo", "compile: q_proj for sm_90a ...\n");
    cli_has("demo", "  ... compile: q_proj for sm_90a: 1 s\n"); /* a cold cache: NVRTC runs for seconds */
    cli_has("demo", "reference: q_proj at M = 4 on the CPU ...\n");
    cli_has("demo", "device: no CUDA driver");
    cli_has("demo", "sm_90a: cache miss");
    cli_has("demo", "launch: skipped (no GPU)");
    /* The second run keeps its checkpoint (same kernels, so served by the disk cache), which a
     * user then inspects like any other. */
    snprintf(args, sizeof args, "demo --keep %s/kept", dir);
    RT_CHECK(cli_hum(args) == 0, "second demo:\n%s", cli_output);
    cli_has("second demo", "sm_90a: cache hit (disk)");
    cli_has("second demo", "(kept)");
    snprintf(args, sizeof args, "inspect %s/kept", dir);
    RT_CHECK(cli_hum(args) == 0, "inspect the kept checkpoint:\n%s", cli_output);
    cli_has("kept checkpoint", "model.layers.0.mlp.down_proj");
    cli_has("kept checkpoint", "gptq");
    RT_CHECK(cli_hum("demo --format awq --act-order") == 2, "AWQ has no act-order:\n%s", cli_output);
    cli_has("demo --format awq --act-order", "GPTQ option");
    cli_has("demo --format awq --act-order", "usage: hum demo"); /* a usage error like the others */
    RT_CHECK(cli_hum("demo --format exl2") == 2, "unknown format:\n%s", cli_output);
    cli_has("demo --format exl2", "--format gptq or --format awq");

    /* what runs for a layer on an arch with no GPU present, and which file:line chose it */
    RT_CHECK(cli_hum("info --arch sm_80 --layer n=4096,k=4096,w=uint4,a=float16,group=128") == 0,
             "info --arch --layer:\n%s", cli_output);
    cli_has("info --arch", "policy sm_80 sm80 (embedded:policies/sm80.lua)\n");
    cli_has("info --arch --layer", "policy sm80 (embedded:policies/sm80.lua) on nominal sm_80 (A100 SXM), kernels for "
                                   "sm_80");
    cli_has("info --arch --layer", "M 1..16 ");
    cli_has("info --arch --layer", "from embedded:policies/sm80.lua:");
    RT_CHECK(cli_hum("info --layer n=4096,k=4096") == 1, "info --layer without a GPU:\n%s", cli_output);
    cli_has("info --layer without a GPU", "give --arch ARCH");
    RT_CHECK(cli_hum("info --arch sm_70") == 2, "an arch hum does not take:\n%s", cli_output);
    RT_CHECK(cli_hum("info --arch sm_80 --layer n=0,k=64") == 2, "a bad SPEC:\n%s", cli_output);
    cli_has("a bad SPEC", "n=0");

    RT_CHECK(cli_hum("info --bogus") == 2, "usage error exits 2:\n%s", cli_output);
    cli_has("usage error", "usage: hum info");
    RT_CHECK(cli_hum("demo --help") == 0, "demo --help:\n%s", cli_output);
    cli_has("demo --help", "usage: hum demo");
    /* `hum --config` with no FILE named the option as unknown; a config and no command printed
     * the usage text alone, without saying what was missing */
    RT_CHECK(cli_hum("--config") == 2, "--config without a FILE exits 2:\n%s", cli_output);
    cli_has("--config without a FILE", "hum: --config needs a FILE");
    snprintf(args, sizeof args, "--config %s", config);
    RT_CHECK(cli_hum(args) == 2, "a config and no command exits 2:\n%s", cli_output);
    cli_has("no command", "hum: a command is required");
    /* `hum compile --help` sends the reader to `hum bench --help` for the SPEC keys: they must be there */
    RT_CHECK(cli_hum("bench --help") == 0, "bench --help:\n%s", cli_output);
    cli_has("bench --help", "keys n, k (required)");
    cli_has("bench --help", "actorder (0 | 1)");
    rt_rmtree(dir);
    return rt_test_result("test_cli_info_demo");
}
