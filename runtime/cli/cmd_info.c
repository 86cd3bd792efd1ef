/* `hum info`: what this installation and machine give hum: version, driver and device (or the
 * words "no CUDA driver" / "no GPU"), NVRTC, cache dir, config, overrides and the policy files
 * in force. Exits 0 without a GPU; 1 only when the runtime cannot be created (bad config or
 * policy file). */
#include "cli.h"
#include "cli_args.h"
#include "cli_runtime.h"

#include <stdio.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: hum info [--config FILE]\n\n"
               "Prints the hum version, the CUDA driver and device, the NVRTC version, the kernel cache\n"
               "directory, the deployment config and its overrides, and the policy files in force.\n");
}

static void print_device(hum_runtime *rt)
{
    hum_device_info d;
    if (hum_runtime_device(rt, &d) != HUM_OK) {
        printf("device       %s\n", hum_last_error());
        return;
    }
    char arch[16] = "";
    hum_arch_for_device(&d, arch, sizeof arch);
    printf("driver       CUDA %d.%d\n", d.driver_version / 1000, d.driver_version % 1000 / 10);
    printf("device %-5d %s: sm_%d%d (compiles for %s), %d SMs, %.1f GiB, %lld KiB shared memory per block, "
           "%lld MiB L2\n",
           d.ordinal, d.name, d.sm_major, d.sm_minor, arch, d.sm_count, (double)d.total_memory_bytes / (1 << 30),
           (long long)(d.max_smem_per_block_optin / 1024), (long long)(d.l2_bytes >> 20));
    char name[128], origin[1024];
    if (hum_runtime_policy_winner(rt, name, sizeof name, origin, sizeof origin) != HUM_OK)
        printf("policy       cannot be chosen: %s\n", hum_last_error());
    else if (!*name)
        printf("policy       none applies to this device\n");
    else
        printf("policy       %s (%s)\n", name, origin);
}

int hum_cmd_info(const char *config, int argc, char **argv)
{
    const cli_option options[] = {CLI_VALUE("--config", &config), CLI_END};
    const cli_args args = {.command = "hum info", .usage = usage, .options = options};
    int parsed = cli_args_parse(&args, argc, argv);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    hum_runtime *rt;
    if (cli_runtime_open("info", config, NULL, &rt) != 0)
        return 1;
    printf("hum          %s\n", hum_version());
    print_device(rt);
    int32_t major = 0, minor = 0;
    if (hum_nvrtc_version(&major, &minor) == HUM_OK)
        printf("nvrtc        %d.%d\n", major, minor);
    else
        printf("nvrtc        unavailable: %s\n", hum_last_error());
    printf("cache dir    %s\n", hum_runtime_cache_dir(rt));
    printf("config       %s\n", hum_runtime_config_path(rt) ? hum_runtime_config_path(rt) : "none");
    printf("hot reload   %s\n", hum_runtime_hot_reload(rt) ? "on" : "off");
    printf("log level    %s\n", hum_runtime_log_level(rt));
    printf("overrides    %s", hum_runtime_override_count(rt) ? "" : "none");
    for (int32_t i = 0; i < hum_runtime_override_count(rt); i++)
        printf("%s%s=%s", i ? ", " : "", hum_runtime_override_key(rt, i),
               hum_runtime_override(rt, hum_runtime_override_key(rt, i)));
    printf("\npolicies     %d file%s, later ones win where they apply\n", hum_runtime_policy_count(rt),
           hum_runtime_policy_count(rt) == 1 ? "" : "s");
    for (int32_t i = 0; i < hum_runtime_policy_count(rt); i++)
        printf("  %s\n", hum_runtime_policy_origin(rt, i));
    hum_runtime_destroy(rt);
    return 0;
}
