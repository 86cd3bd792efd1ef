/* `hum compile`: compiles kernels through the kernel cache without running them, and says for
 * each whether the cache had it. Targets are chosen by options; each target kind is one option
 * and one branch in hum_cmd_compile: a built-in kernel (--kernel), every kernel of a layer's
 * dispatch table (--layer SPEC) or of a MoE layer (--moe SPEC: both expert GEMMs' tables and
 * the kernels around them), planned for the arch's nominal device; no GPU needed. */
#include "cli.h"
#include "cli_args.h"
#include "cli_dispatch.h"
#include "cli_progress.h"
#include "cli_runtime.h"

#include <stdint.h>
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
    const char *layer;  /* a layer SPEC (hum_layer_spec_parse) */
    const char *moe;    /* a MoE layer SPEC (hum_moe_spec_parse) */
} compile_options;

static void usage(FILE *f)
{
    fprintf(f, "usage: hum compile [--config FILE] [--arch ARCH] (--kernel NAME | --layer SPEC | --moe SPEC)\n\n"
               "Compiles through the kernel cache and prints, per kernel, \"cache hit\" or \"cache miss\" and\n"
               "the time taken.\n\n"
               "  --arch ARCH    sm_75, sm_80, sm_86, sm_89, sm_90a, ... (default: the GPU's)\n"
               "  --layer SPEC   every kernel of the dispatch table the policy gives this layer, e.g.\n"
               "                 n=8192,k=8192,w=uint4,a=float16,group=128 (keys: see hum bench --help)\n"
               "  --moe SPEC     every kernel of a MoE layer: both expert GEMMs' tables, the routing layout,\n"
               "                 the activation and the combine, e.g.\n"
               "                 e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128 (n, k of the gate/up\n"
               "                 projection; keys: see hum bench --help; gemm=grouped or masked: a layer of\n"
               "                 rows a dispatcher grouped by expert, docs/moe.md)\n"
               "  --kernel NAME  a built-in kernel:\n");
    for (size_t i = 0; i < sizeof builtin_kernels / sizeof builtin_kernels[0]; i++)
        fprintf(f, "                   %-10s %s\n", builtin_kernels[i].name, builtin_kernels[i].what);
    fprintf(f, "  --config FILE  deployment config (its cache_dir and device are used)\n");
}

/* 0 parsed, -1 --help printed, else the exit code (reported): 2 for a usage error, an --arch NVRTC
 * does not take too, 1 for an NVRTC that takes none (cli_arch_check), found here, once, before
 * anything is planned or compiled for it. */
static int parse(int argc, char **argv, compile_options *o)
{
    const cli_option options[] = {
        CLI_VALUE("--config", &o->config), CLI_VALUE("--arch", &o->arch), CLI_VALUE("--kernel", &o->kernel),
        CLI_VALUE("--layer", &o->layer),   CLI_VALUE("--moe", &o->moe),       CLI_END,
    };
    const cli_args args = {.command = "hum compile", .usage = usage, .options = options};
    int rc = cli_args_parse(&args, argc, argv);
    if (rc == 1)
        return -1;
    const int given = !!o->kernel + !!o->layer + !!o->moe;
    if (rc == 0 && given == 0)
        rc = cli_usage_error(&args, "say what to compile: --kernel NAME, --layer SPEC or --moe SPEC");
    else if (rc == 0 && given > 1)
        rc = cli_usage_error(&args, "--kernel, --layer and --moe exclude each other: give one of them");
    if (rc == 0)
        rc = cli_arch_check(&args, o->arch);
    return rc;
}

static void print_result(const char *label, const char *arch, const hum_jit_result *r)
{
    printf("%s %s: %s, %.1f ms (%zu-byte cubin, key %s)\n", label, arch,
           r->cache_hit == HUM_JIT_MISS ? "cache miss" : "cache hit", r->milliseconds, r->cubin_size, r->key);
}

/* A dispatch table, a line per range: "<what> <first>..<last>: <kernel and tuning>". */
static void print_table(const char *what, const hum_layer_info *info)
{
    for (int32_t i = 0; i < info->entry_count; i++) {
        const hum_tuning *t = &info->entries[i];
        char m_max[24];
        if (t->m_max == INT64_MAX)
            snprintf(m_max, sizeof m_max, "inf");
        else
            snprintf(m_max, sizeof m_max, "%lld", (long long)t->m_max);
        char tuning[320];
        cli_tuning_text(t, tuning, sizeof tuning);
        printf("  %s %lld..%s: %s\n", what, (long long)t->m_min, m_max, tuning);
    }
}

/* The progress line of compiling `kind` (a layer, a MoE layer) of a SPEC for arch. */
static cli_step *begin(const char *kind, const char *spec_text, const char *arch)
{
    char what[512];
    snprintf(what, sizeof what, "compiling %s %s for %s", kind, spec_text, arch);
    return cli_step_begin(what);
}

/* Ends the progress line of a compile that returned st: 0, or 1 after saying why it failed. */
static int finish(cli_step *step, hum_status st)
{
    cli_step_end(step);
    if (st == HUM_OK)
        return 0;
    fprintf(stderr, "hum compile: %s\n", hum_last_error());
    return 1;
}

/* Compiles every kernel of the layer's dispatch table; 0 on success. */
static int compile_layer(hum_runtime *rt, const char *spec_text, const hum_layer_spec *spec, const char *arch)
{
    hum_layer_info info;
    cli_step *step = begin("layer", spec_text, arch);
    if (finish(step, hum_layer_compile_spec(rt, spec, arch, &info)))
        return 1;
    printf("layer %s for %s, policy %s: %d kernel(s), %s, %.1f ms (%d compiled, %d from the cache)\n", spec_text,
           arch, info.policy_name, info.entry_count, info.kernels_compiled ? "cache miss" : "cache hit",
           info.compile_ms, info.kernels_compiled, info.kernels_cached);
    /* what A runs as, a fallback included (a=e4m3 before sm_89 compiles 16-bit kernels): the
     * same plan, described */
    hum_layer_dispatch d;
    if (hum_layer_describe_spec(rt, spec, arch, &d) == HUM_OK)
        printf("  activations: %s\n", d.activation);
    else
        fprintf(stderr, "hum compile: describing the plan: %s\n", hum_last_error());
    print_table("M", &info);
    return 0;
}

/* Compiles every kernel of a MoE layer; 0 on success. */
static int compile_moe(hum_runtime *rt, const char *spec_text, const hum_moe_spec *spec, const char *arch)
{
    hum_moe_compile_info info;
    cli_step *step = begin("MoE layer", spec_text, arch);
    if (finish(step, hum_moe_compile_spec(rt, spec, arch, &info)))
        return 1;
    printf("MoE layer %s for %s, policy %s: %d + %d GEMM kernel(s) and 6 around them, %s, %.1f ms (%d compiled, %d "
           "from the cache)\n",
           spec_text, arch, info.gate_up.policy_name, info.gate_up.entry_count, info.down.entry_count,
           info.kernels_compiled ? "cache miss" : "cache hit", info.compile_ms, info.kernels_compiled,
           info.kernels_cached);
    printf("  gate_up activations: %s\n  down    activations: %s\n", info.gate_up_activation, info.down_activation);
    print_table("gate_up rows/expert", &info.gate_up);
    print_table("down    rows/expert", &info.down);
    return 0;
}

int hum_cmd_compile(const char *config, int argc, char **argv)
{
    compile_options o = {.config = config};
    int parsed = parse(argc, argv, &o);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    size_t k = 0, n = sizeof builtin_kernels / sizeof builtin_kernels[0];
    while (o.kernel && k < n && strcmp(builtin_kernels[k].name, o.kernel) != 0)
        k++;
    if (o.kernel && k == n) { /* a bad value of the command line, like a SPEC that does not parse */
        fprintf(stderr, "hum compile: no built-in kernel '%s' (see hum compile --help)\n", o.kernel);
        return 2;
    }
    /* A SPEC that does not parse is a usage error (exit 2), as in `hum bench --layer`, which takes
     * the same SPEC; checked before the runtime exists so no config or policy can mask it. */
    hum_layer_spec spec = {0};
    hum_moe_spec moe = {0};
    if ((o.layer && hum_layer_spec_parse(o.layer, &spec) != HUM_OK) ||
        (o.moe && hum_moe_spec_parse(o.moe, &moe) != HUM_OK)) {
        fprintf(stderr, "hum compile: %s\n", hum_last_error());
        return 2;
    }
    hum_runtime *rt;
    if (cli_runtime_open("compile", o.config, NULL, &rt) != 0)
        return 1;
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
    if (o.layer)
        rc = compile_layer(rt, o.layer, &spec, o.arch);
    else if (o.moe)
        rc = compile_moe(rt, o.moe, &moe, o.arch);
    else if (builtin_kernels[k].compile(hum_runtime_cache_dir(rt), o.arch, &r) != HUM_OK) {
        fprintf(stderr, "hum compile: %s\n", hum_last_error());
        rc = 1;
    } else {
        print_result(builtin_kernels[k].name, o.arch, &r);
        hum_jit_result_free(&r);
    }
    hum_runtime_destroy(rt);
    return rc;
}
