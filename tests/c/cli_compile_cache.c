/* The `hum compile` and `hum cache` commands as a user runs them: the second compile of the
 * self-check kernel is a cache hit, ls shows it, clear removes it, a layer SPEC compiles its
 * dispatch table (a hit the second time) and says what A runs as, bad input exits 1 or 2. */
#define _GNU_SOURCE
#include "jit_support.h"

#include <string.h>
#include <sys/wait.h>

static char output[16384];

/* Runs `hum <args>` (stdout and stderr together) and returns its exit code. */
static int hum(const char *args)
{
    char command[4096];
    snprintf(command, sizeof command, "%s/runtime/hum %s 2>&1", HUM_BINARY_DIR, args);
    FILE *p = popen(command, "r");
    JT_CHECK(p != NULL, "cannot run %s", command);
    size_t n = fread(output, 1, sizeof output - 1, p);
    output[n] = '\0';
    int status = pclose(p);
    JT_CHECK(WIFEXITED(status), "hum %s did not exit normally", args);
    return WEXITSTATUS(status);
}

static int lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

int main(void)
{
    char *cache = jt_make_temp_dir("cli-cache");
    setenv("HUM_CACHE_DIR", cache, 1);
    unsetenv("HUM_CONFIG");

    JT_CHECK(hum("compile --arch sm_90a --kernel selfcheck") == 0, "first compile failed:\n%s", output);
    JT_CHECK(strstr(output, "cache miss") && strstr(output, " ms"), "first compile:\n%s", output);
    JT_CHECK(hum("compile --arch sm_90a --kernel selfcheck") == 0, "second compile failed:\n%s", output);
    JT_CHECK(strstr(output, "cache hit") && !strstr(output, "miss"), "second compile:\n%s", output);
    char key[33];
    const char *k = strstr(output, "key ");
    JT_CHECK(k && sscanf(k, "key %32[0-9a-f]", key) == 1, "no key in:\n%s", output);

    JT_CHECK(hum("cache ls") == 0, "cache ls failed:\n%s", output);
    JT_CHECK(strncmp(output, key, 32) == 0 && strstr(output, "hum_selfcheck<256>") && strstr(output, "sm_90a") &&
                 strstr(output, "1 cached kernel,"),
             "cache ls:\n%s", output);
    JT_CHECK(lines(output) == 2, "cache ls printed %d lines (one entry and the summary):\n%s", lines(output), output);
    JT_CHECK(hum("cache clear") == 0 && strstr(output, "removed 1 cached kernel"), "cache clear:\n%s", output);
    JT_CHECK(hum("cache ls") == 0 && strstr(output, "0 cached kernels"), "cache ls after clear:\n%s", output);
    JT_CHECK(hum("compile --arch sm_90a --kernel selfcheck") == 0 && strstr(output, "cache miss"),
             "compile after clear:\n%s", output);

    /* --layer SPEC: every kernel of the policy's table for that layer, CPU only. */
    const char *layer = "compile --arch sm_80 --layer n=200,k=320,w=uint4,a=bfloat16,group=64";
    JT_CHECK(hum(layer) == 0 && strstr(output, "cache miss") && strstr(output, "policy sm80") &&
                 strstr(output, "M 1.."),
             "first layer compile:\n%s", output);
    JT_CHECK(hum(layer) == 0 && strstr(output, "cache hit") && strstr(output, "(0 compiled") &&
                 strstr(output, "  activations: bfloat16\n"),
             "second layer compile:\n%s", output);
    /* what A runs as where the arch falls back: e4m3 before sm_89 compiles 16-bit kernels */
    JT_CHECK(hum("compile --arch sm_80 --layer n=200,k=320,w=e4m3,a=e4m3") == 0 &&
                 strstr(output, "activations: bfloat16 (fallback from e4m3 per token") &&
                 strstr(output, "need sm_89"),
             "a fallback's compile:\n%s", output);
    /* a SPEC that does not parse is a usage error, exit 2 as in `hum bench --layer` */
    JT_CHECK(hum("compile --arch sm_80 --layer n=200,k=320,w=uint9") == 2 && strstr(output, "uint9"),
             "a bad SPEC must exit 2 naming the bad value:\n%s", output);
    JT_CHECK(hum("compile --arch sm_80 --layer n=0,k=320") == 2 && strstr(output, "n=0"),
             "n=0 must exit 2 naming it:\n%s", output);
    JT_CHECK(hum("compile --arch sm_80 --kernel selfcheck --layer n=64,k=64") == 2,
             "--kernel and --layer together must be a usage error:\n%s", output);

    JT_CHECK(hum("compile --arch sm_90 --kernel selfcheck") == 2 && strstr(output, "'sm_90'") &&
                 strstr(output, "sm_90a"),
             "a bad arch is a usage error (exit 2) naming it and the accepted ones:\n%s", output);
    JT_CHECK(hum("compile --arch sm_80 --kernel nonesuch") == 2 && strstr(output, "nonesuch"), "unknown kernel:\n%s",
             output);
    JT_CHECK(hum("compile --arch sm_80") == 2, "no target must be a usage error:\n%s", output);
    JT_CHECK(hum("compile --frobnicate") == 2, "unknown option:\n%s", output);
    JT_CHECK(hum("cache list") == 2, "unknown cache action:\n%s", output);
    /* no action: say so, not the usage text alone */
    JT_CHECK(hum("cache") == 2 && strstr(output, "hum cache: an action is required") &&
                 strstr(output, "usage: hum cache"),
             "cache without an action must name what is missing:\n%s", output);
    JT_CHECK(hum("compile --help") == 0 && strstr(output, "--kernel") && strstr(output, "--layer") &&
                 strstr(output, "--config"),
             "compile --help");
    JT_CHECK(hum("cache --help") == 0 && strstr(output, "clear") && strstr(output, "--config"), "cache --help");

    /* The config's cache_dir wins over HUM_CACHE_DIR. */
    char config[4096], yaml[4200];
    snprintf(config, sizeof config, "%s/deploy.yaml", cache);
    snprintf(yaml, sizeof yaml, "cache_dir: %s/from-config\n", cache);
    jt_write_file(cache, "deploy.yaml", yaml);
    char args[8192];
    snprintf(args, sizeof args, "compile --config %s --arch sm_80 --kernel selfcheck", config);
    JT_CHECK(hum(args) == 0 && strstr(output, "cache miss"), "compile with --config:\n%s", output);
    snprintf(args, sizeof args, "--config %s cache ls", config);
    JT_CHECK(hum(args) == 0 && strstr(output, "sm_80") && strstr(output, "from-config"), "ls with --config:\n%s",
             output);
    snprintf(args, sizeof args, "cache ls --config %s/missing.yaml", cache);
    JT_CHECK(hum(args) == 1 && strstr(output, "missing.yaml"), "a missing config must exit 1 naming it:\n%s", output);

    /* An activation override reaches layer planning: e4m3 on sm_80 (no fp8 instructions) falls
     * back to the 16-bit type, compiles, and hum info says why (lua/hum/activation.lua). */
    jt_write_file(cache, "e4m3.yaml", "overrides:\n  linear: {activation: e4m3}\n");
    snprintf(args, sizeof args, "compile --config %s/e4m3.yaml --arch sm_80 --layer n=64,k=128,w=uint4,a=float16",
             cache);
    JT_CHECK(hum(args) == 0, "an e4m3 override on sm_80 falls back and compiles:\n%s", output);
    snprintf(args, sizeof args, "info --config %s/e4m3.yaml --arch sm_80 --layer n=64,k=128,w=uint4,a=float16", cache);
    JT_CHECK(hum(args) == 0 && strstr(output, "activations: float16 (fallback from e4m3 per token, override "
                                              "linear.activation = e4m3"),
             "hum info names the override and the fallback:\n%s", output);
    jt_write_file(cache, "f16.yaml", "overrides:\n  linear: {activation: float16}\n");
    snprintf(args, sizeof args, "compile --config %s/f16.yaml --arch sm_80 --layer n=64,k=128,w=uint4,a=float16",
             cache);
    JT_CHECK(hum(args) == 0, "a float16 override on a float16 layer compiles:\n%s", output);

    jt_remove_tree(cache);
    free(cache);
    printf("cli_compile_cache: ok\n");
    return 0;
}
