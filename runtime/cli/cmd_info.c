/* `hum info`: what this installation and machine give hum: version, driver and device (or the
 * words "no CUDA driver" / "no GPU"), NVRTC, cache dir, config, overrides and the policy files
 * in force. With --arch, also the policy that wins on that arch's nominal device; with --layer
 * SPEC, the dispatch table that layer gets on the GPU (or on the --arch nominal device), each
 * range with the policy line that chose it. Exits 0 without a GPU; 1 when the runtime cannot
 * be created (bad config or policy file) or the layer cannot be planned; 2 on usage errors. */
#include "cli.h"
#include "cli_args.h"
#include "cli_dispatch.h"
#include "cli_runtime.h"
#include "runtime.h"

#include <stdio.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: hum info [--config FILE] [--arch ARCH] [--layer SPEC]\n\n"
               "Prints the hum version, the CUDA driver and device, the NVRTC version, the kernel cache\n"
               "directory, the deployment config and its overrides, and the policy files in force.\n\n"
               "  --arch ARCH    also the policy that wins on the nominal device of ARCH (sm_75, sm_80,\n"
               "                 sm_86, sm_89, sm_90a), and plan --layer for it instead of the GPU\n"
               "  --layer SPEC   the dispatch table of this layer: per M range the kernel, tiles, stages,\n"
               "                 CTAs per SM, stream-K and the policy file:line that chose it; SPEC as in\n"
               "                 hum bench, e.g. n=4096,k=4096,w=uint4,a=float16,group=128\n"
               "  --config FILE  deployment config\n");
}

/* "policy ..." line: the winner for the runtime's GPU (arch NULL) or an arch's nominal device. */
static void print_winner(hum_runtime *rt, const char *arch)
{
    char name[128], origin[1024], label[32];
    snprintf(label, sizeof label, "policy%s%s", arch ? " " : "", arch ? arch : "");
    if (hum_policies_winner(rt, arch, name, sizeof name, origin, sizeof origin) != HUM_OK)
        printf("%-12s cannot be chosen: %s\n", label, hum_last_error());
    else if (!*name)
        printf("%-12s none applies to %s\n", label, arch ? "its nominal device" : "this device");
    else
        printf("%-12s %s (%s)\n", label, name, origin);
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
    print_winner(rt, NULL);
}

/* The dispatch table of the SPEC's layer on the GPU (arch NULL) or the arch's nominal device. */
static int print_layer(hum_runtime *rt, const char *text, const hum_layer_spec *spec, const char *arch)
{
    hum_standard_weight w = {0};
    hum_layer_dispatch d;
    /* Planning reads the weight's shapes and types, not its values: any seed. */
    hum_status st = hum_layer_spec_weight(spec, 1, &w);
    if (st == HUM_OK)
        st = hum_layer_describe_plan(rt, &w, &(hum_layer_options){.activation_dtype = spec->activation_dtype}, arch,
                                     &d);
    hum_standard_free(&w);
    if (st == HUM_OK) {
        printf("layer        %s\n", text);
        cli_print_dispatch(stdout, &d, 2);
        return 0;
    }
    if (st == HUM_ERR_NO_DEVICE)
        fprintf(stderr, "hum info: --layer without --arch plans for this machine's GPU, and there is none (%s); "
                        "give --arch ARCH to plan for an arch's nominal device\n",
                hum_last_error());
    else
        fprintf(stderr, "hum info: layer %s: %s\n", text, hum_last_error());
    return 1;
}

int hum_cmd_info(const char *config, int argc, char **argv)
{
    const char *arch = NULL, *layer = NULL;
    const cli_option options[] = {CLI_VALUE("--config", &config), CLI_VALUE("--arch", &arch),
                                  CLI_VALUE("--layer", &layer), CLI_END};
    const cli_args args = {.command = "hum info", .usage = usage, .options = options};
    int parsed = cli_args_parse(&args, argc, argv);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    /* Bad values are usage errors, found before the runtime exists so no config can mask them. */
    hum_layer_spec spec = {0};
    if ((arch && hum_arch_check(arch) != HUM_OK) || (layer && hum_layer_spec_parse(layer, &spec) != HUM_OK))
        return cli_usage_error(&args, "%s", hum_last_error());
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
    printf("hot reload   %s\n", rt->config.hot_reload ? "on" : "off");
    printf("log level    %s\n", hum_log_level_name(rt->config.log_level));
    printf("overrides    %s", rt->config.override_count ? "" : "none");
    for (int32_t i = 0; i < rt->config.override_count; i++)
        printf("%s%s=%s", i ? ", " : "", rt->config.overrides[i].key, rt->config.overrides[i].value);
    printf("\npolicies     %d file%s, later ones win where they apply\n", hum_runtime_policy_count(rt),
           hum_runtime_policy_count(rt) == 1 ? "" : "s");
    for (int32_t i = 0; i < hum_runtime_policy_count(rt); i++)
        printf("  %s\n", hum_runtime_policy_origin(rt, i));
    if (arch)
        print_winner(rt, arch);
    int rc = layer ? print_layer(rt, layer, &spec, arch) : 0;
    hum_runtime_destroy(rt);
    return rc;
}
