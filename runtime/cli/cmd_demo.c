/* `hum demo`: the runtime's main path on built-in defaults. For now the self-check: device
 * info, the self-check kernel compiled through the kernel cache, and with a GPU launched and
 * every output element verified. Without a GPU it says so and compiles for sm_90a only. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* The arch compiled for when there is no GPU to ask: the H100/H200 class hum targets first. */
static const char NO_GPU_ARCH[] = "sm_90a";

static const char *origin_name(int32_t hit)
{
    return hit == HUM_JIT_MISS ? "cache miss" : hit == HUM_JIT_HIT_DISK ? "cache hit (disk)" : "cache hit (memory)";
}

static void usage(FILE *f)
{
    fprintf(f, "usage: hum demo [--config FILE]\n\n"
               "Self-check of this installation: shows the device, compiles the self-check kernel through\n"
               "the kernel cache and, with a GPU, runs it and verifies every output element.\n");
}

int hum_cmd_demo(const char *config, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(argv[i], "--config") && i + 1 < argc) {
            config = argv[++i];
            continue;
        }
        fprintf(stderr, "hum demo: unknown argument '%s'\n", argv[i]);
        usage(stderr);
        return 2;
    }
    hum_runtime_options opts;
    hum_runtime_options_init(&opts);
    opts.config_path = config;
    hum_runtime *rt;
    if (hum_runtime_create(&opts, &rt) != HUM_OK) {
        fprintf(stderr, "hum demo: %s\n", hum_last_error());
        return 1;
    }
    printf("hum %s demo: runtime self-check\n", hum_version());
    printf("cache dir: %s\n", hum_runtime_cache_dir(rt));
    int rc = 0;
    hum_device_info d;
    if (hum_runtime_device(rt, &d) == HUM_OK) {
        printf("device %d: %s, sm_%d%d, %d SMs\n", d.ordinal, d.name, d.sm_major, d.sm_minor, d.sm_count);
        hum_selfcheck_report r;
        if (hum_selfcheck_run(d.ordinal, hum_runtime_cache_dir(rt), HUM_SELFCHECK_SEED, &r) != HUM_OK) {
            fprintf(stderr, "hum demo: self-check failed: %s\n", hum_last_error());
            rc = 1;
        } else {
            printf("compile: kernels/selfcheck.cu for %s: %s, %.1f ms\n", r.arch, origin_name(r.cache_hit),
                   r.compile_ms);
            printf("launch: %lld output elements verified on the GPU\nself-check passed\n", (long long)r.elements);
        }
    } else {
        printf("device: %s\n", hum_last_error());
        hum_jit_result res;
        if (hum_selfcheck_compile(hum_runtime_cache_dir(rt), NO_GPU_ARCH, HUM_SELFCHECK_SEED, &res) != HUM_OK) {
            fprintf(stderr, "hum demo: compiling the self-check kernel failed: %s\n", hum_last_error());
            rc = 1;
        } else {
            printf("compile: kernels/selfcheck.cu for %s: %s, %.1f ms, %zu-byte cubin\n", NO_GPU_ARCH,
                   origin_name(res.cache_hit), res.milliseconds, res.cubin_size);
            printf("launch: skipped (no GPU)\nself-check passed (compile only)\n");
            hum_jit_result_free(&res);
        }
    }
    hum_runtime_destroy(rt);
    return rc;
}
