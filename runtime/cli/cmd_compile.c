/* `hum compile`: compiles kernels through the kernel cache without running them, and says for
 * each whether the cache had it. Targets are chosen by options; each target kind is one option
 * and one branch in hum_cmd_compile. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static hum_status compile_selfcheck(const char *cache_dir, const char *arch, hum_jit_result *out)
{
    return hum_selfcheck_compile(cache_dir, arch, HUM_SELFCHECK_SEED, out);
}

/* Built-in kernels `--kernel NAME` accepts. */
static const struct {
    const char *name;
    const char *what;
    hum_status (*compile)(const char *cache_dir, const char *arch, hum_jit_result *out);
} builtin_kernels[] = {
    {"selfcheck", "the self-check kernel, kernels/selfcheck.cu", compile_selfcheck},
};

typedef struct compile_options {
    const char *config;
    const char *arch;   /* NULL: the runtime's GPU */
    const char *kernel; /* a builtin_kernels name */
} compile_options;

static void usage(FILE *f)
{
    fprintf(f, "usage: hum compile [--config FILE] [--arch ARCH] --kernel NAME\n\n"
               "Compiles through the kernel cache and prints, per kernel, \"cache hit\" or \"cache miss\" and\n"
               "the time taken.\n\n"
               "  --arch ARCH    sm_75, sm_80, sm_86, sm_89, sm_90a, ... (default: the GPU's)\n"
               "  --kernel NAME  a built-in kernel:\n");
    for (size_t i = 0; i < sizeof builtin_kernels / sizeof builtin_kernels[0]; i++)
        fprintf(f, "                   %-10s %s\n", builtin_kernels[i].name, builtin_kernels[i].what);
    fprintf(f, "  --config FILE  deployment config (its cache_dir and device are used)\n");
}

/* 0 parsed, 1 --help printed, 2 usage error (reported). */
static int parse(int argc, char **argv, compile_options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        }
        const char **slot = !strcmp(a, "--config") ? &o->config
                             : !strcmp(a, "--arch") ? &o->arch
                             : !strcmp(a, "--kernel") ? &o->kernel
                                                      : NULL;
        if (!slot || i + 1 >= argc) {
            fprintf(stderr, slot ? "hum compile: %s needs a value\n" : "hum compile: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
        *slot = argv[++i];
    }
    if (!o->kernel) {
        fprintf(stderr, "hum compile: say what to compile (--kernel NAME)\n");
        usage(stderr);
        return 2;
    }
    return 0;
}

static void print_result(const char *label, const char *arch, const hum_jit_result *r)
{
    printf("%s %s: %s, %.1f ms (%zu-byte cubin, key %s)\n", label, arch,
           r->cache_hit == HUM_JIT_MISS ? "cache miss" : "cache hit", r->milliseconds, r->cubin_size, r->key);
}

int hum_cmd_compile(const char *config, int argc, char **argv)
{
    compile_options o = {.config = config};
    int parsed = parse(argc, argv, &o);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    size_t k = 0, n = sizeof builtin_kernels / sizeof builtin_kernels[0];
    while (k < n && strcmp(builtin_kernels[k].name, o.kernel) != 0)
        k++;
    if (k == n) {
        fprintf(stderr, "hum compile: no built-in kernel '%s' (see hum compile --help)\n", o.kernel);
        return 1;
    }
    if (o.arch && hum_arch_check(o.arch) != HUM_OK) {
        fprintf(stderr, "hum compile: %s\n", hum_last_error());
        return 1;
    }
    hum_runtime_options opts;
    hum_runtime_options_init(&opts);
    opts.config_path = o.config;
    hum_runtime *rt;
    if (hum_runtime_create(&opts, &rt) != HUM_OK) {
        fprintf(stderr, "hum compile: %s\n", hum_last_error());
        return 1;
    }
    char device_arch[16];
    hum_device_info d;
    if (!o.arch) {
        if (hum_runtime_device(rt, &d) != HUM_OK) {
            fprintf(stderr, "hum compile: no --arch given and no GPU to take it from (%s)\n", hum_last_error());
            hum_runtime_destroy(rt);
            return 1;
        }
        hum_arch_for_device(&d, device_arch, sizeof device_arch);
        o.arch = device_arch;
    }
    hum_jit_result r;
    int rc = 0;
    if (builtin_kernels[k].compile(hum_runtime_cache_dir(rt), o.arch, &r) != HUM_OK) {
        fprintf(stderr, "hum compile: %s\n", hum_last_error());
        rc = 1;
    } else {
        print_result(builtin_kernels[k].name, o.arch, &r);
        hum_jit_result_free(&r);
    }
    hum_runtime_destroy(rt);
    return rc;
}
