/* What a user expects of the command line: `hum --version`, `hum help [COMMAND]`, `--opt=VALUE`
 * forms; SPEC values checked by the parser (a usage error, exit 2, naming the key and value); a
 * bad --arch of `hum compile` and `hum info` (exit 2, or 1 for one without a nominal device);
 * `hum compile --layer` planned from shapes (a huge layer compiles in seconds, a cache hit at
 * once); names read from files escaped in messages. */
#define _POSIX_C_SOURCE 200809L /* setenv, clock_gettime */
#include "cli_test.h"
#include "rt_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* `hum compile --layer SPEC` is a usage error naming `named`. */
static void bad_spec(const char *spec, const char *named)
{
    char args[512];
    snprintf(args, sizeof args, "compile --arch sm_80 --layer '%s'", spec);
    RT_CHECK(cli_hum(args) == 2, "%s: exit 2 expected:\n%s", spec, cli_output);
    cli_has(spec, named);
    RT_CHECK(!strstr(cli_output, "hum_quantize_reference"), "%s: reported by the parser:\n%s", spec, cli_output);
}

/* A one-tensor safetensors file whose tensor name holds an escape sequence and a newline, and a
 * header entry without "dtype" (so that reading it fails naming the tensor). */
static void write_header(const char *path, const char *header)
{
    uint64_t len = strlen(header);
    FILE *f = fopen(path, "wb");
    RT_CHECK(f && fwrite(&len, 8, 1, f) == 1 && fwrite(header, 1, len, f) == len && fwrite("\0\0\0\0", 1, 4, f) == 4,
             "writing %s", path);
    if (f)
        fclose(f);
}

static void write_hostile(const char *path)
{
    const char header[] = "{\"\\u001b[31mred\\nforged line\":{\"shape\":[1],\"data_offsets\":[0,2]}}";
    uint64_t len = sizeof header - 1;
    FILE *f = fopen(path, "wb");
    RT_CHECK(f && fwrite(&len, 8, 1, f) == 1 && fwrite(header, 1, len, f) == len && fwrite("\0\0", 1, 2, f) == 2,
             "writing %s", path);
    if (f)
        fclose(f);
}

int main(void)
{
    char dir[4096], args[16384];
    rt_tmpdir("cli-usage", dir, sizeof dir);
    char cache[4200];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    setenv("HUM_CACHE_DIR", cache, 1);
    setenv("HUM_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    unsetenv("HUM_CONFIG");
    unsetenv("HUM_POLICY_PATH");

    RT_CHECK(cli_hum("--version") == 0, "--version:\n%s", cli_output);
    snprintf(args, sizeof args, "hum %s\n", hum_version());
    RT_CHECK(!strcmp(cli_output, args), "--version prints '%s', got:\n%s", args, cli_output);
    RT_CHECK(cli_hum("help") == 0, "help:\n%s", cli_output);
    cli_has("help", "usage: hum [--config FILE] <command>");
    cli_has("help", "  inspect ");
    RT_CHECK(cli_hum("help --help") == 0, "help --help:\n%s", cli_output);
    cli_has("help --help", "usage: hum [--config FILE] <command>");
    RT_CHECK(cli_hum("compile --kernel selfcheck --layer n=64,k=256,w=uint4,a=float16,group=128") == 2,
             "compile of two things:\n%s", cli_output);
    cli_has("compile of two things", "--kernel, --layer and --moe exclude each other");
    RT_CHECK(cli_hum("compile --arch sm_80 --kernel frobnicate") == 2, "compile of an unknown kernel:\n%s", cli_output);
    cli_has("compile of an unknown kernel", "no built-in kernel 'frobnicate'");
    RT_CHECK(cli_hum("help compile") == 0, "help compile:\n%s", cli_output);
    cli_has("help compile", "usage: hum compile");
    RT_CHECK(cli_hum("--help compile") == 0, "--help compile:\n%s", cli_output);
    cli_has("--help compile", "usage: hum compile");
    RT_CHECK(cli_hum("--version extra") == 2, "--version with an argument:\n%s", cli_output);
    cli_has("--version with an argument", "--version takes no arguments ('extra')");
    RT_CHECK(cli_hum("help frobnicate") == 2, "help of an unknown command:\n%s", cli_output);
    cli_has("help frobnicate", "unknown command 'frobnicate'");

    /* --name=VALUE, before and after the command */
    const char *config = rt_write(dir, "deploy.yaml", "log_level: error\n");
    snprintf(args, sizeof args, "--config=%s info", config);
    RT_CHECK(cli_hum(args) == 0, "--config=FILE before the command:\n%s", cli_output);
    cli_has("--config=FILE", config);
    snprintf(args, sizeof args, "info --config=%s", config);
    RT_CHECK(cli_hum(args) == 0, "--config=FILE after the command:\n%s", cli_output);
    cli_has("info --config=FILE", config);
    RT_CHECK(cli_hum("demo --act-order=yes") == 2, "a flag with a value:\n%s", cli_output);
    cli_has("a flag with a value", "--act-order takes no value");
    /* the expert GEMM's flags beside a dense --layer were ignored, as --balanced is not */
    RT_CHECK(cli_hum("bench --layer n=256,k=256 --experts 4") == 2, "--experts with --layer:\n%s", cli_output);
    cli_has("--experts with --layer", "--experts, --topk and --down are --moe-gemm options");
    RT_CHECK(cli_hum("bench --layer n=256,k=256 --down") == 2, "--down with --layer:\n%s", cli_output);

    /* SPEC values: strtoll took "+64" and " 64"; w=int4 failed later, in the quantizer, exit 1 */
    bad_spec("n=+64,k=64", "n=+64");
    bad_spec("n= 64,k=64", "n= 64");
    bad_spec("n=64,k=0x40", "k=0x40");
    bad_spec("n=64,k=64,w=int4", "w=int4");
    bad_spec("n=64,k=64,w=float16", "w=float16");
    bad_spec("n=64,k=64,scale=int8", "scale=int8");
    bad_spec("n=64,k=64,w=e4m3,zp=int", "zp=int");
    bad_spec("n=64,k=64,group=-1", "group=-1");
    bad_spec("n=4294967296,k=64", "n=4294967296");

    /* --arch: one NVRTC does not take is a usage error naming it and the archs it takes, found
     * before anything is planned (`compile --moe` exited 1 blaming the gate/up GEMM); one it takes
     * without a nominal device to plan on fails the planning (exit 1), named once for the layer */
    static const char *const uses[] = {
        "compile --kernel selfcheck",
        "compile --layer n=256,k=256,w=uint4,a=bfloat16,group=128",
        "compile --moe e=8,topk=2,n=256,k=256,w=uint4,a=bfloat16,group=128",
        "info --layer n=256,k=256,w=uint4,a=bfloat16,group=128",
        "info --moe e=8,topk=2,n=256,k=256,w=uint4,a=bfloat16,group=128",
    };
    for (size_t i = 0; i < sizeof uses / sizeof uses[0]; i++) {
        snprintf(args, sizeof args, "%s --arch sm_12", uses[i]);
        RT_CHECK(cli_hum(args) == 2, "%s: exit 2 expected:\n%s", args, cli_output);
        cli_has(args, "GPU architecture 'sm_12': expected one of sm_75, sm_80");
        cli_has(args, "usage: hum ");
        RT_CHECK(!strstr(cli_output, "(w13)"), "%s: a GEMM blamed:\n%s", args, cli_output);
        if (i == 0)
            continue; /* a kernel compiles for any arch NVRTC takes */
        snprintf(args, sizeof args, "%s --arch sm_87", uses[i]);
        RT_CHECK(cli_hum(args) == 1, "%s: exit 1 expected:\n%s", args, cli_output);
        cli_has(args, "no nominal device for arch 'sm_87' (expected sm_75, sm_80, sm_86, sm_89 or sm_90a)");
        RT_CHECK(!strstr(cli_output, "(w13)") && !strstr(cli_output, "usage: hum "), "%s: a GEMM blamed, or a "
                 "usage error:\n%s", args, cli_output);
    }

    /* From shapes: a random 65536 x 65536 weight took minutes before a kernel was compiled, and
     * 7 s on a cache hit */
    const char *huge = "compile --arch sm_80 --layer n=65536,k=65536,w=uint4,a=float16,group=128";
    double t0 = now_s();
    RT_CHECK(cli_hum(huge) == 0, "huge layer:\n%s", cli_output);
    double first = now_s() - t0;
    cli_has("huge layer", "layer n=65536,k=65536,w=uint4,a=float16,group=128 for sm_80, policy sm80:");
    RT_CHECK(first < 120, "huge layer compiled in %.1f s (no weight should be made)", first);
    t0 = now_s();
    RT_CHECK(cli_hum(huge) == 0, "huge layer again:\n%s", cli_output);
    double second = now_s() - t0;
    cli_has("huge layer again", "cache hit");
    RT_CHECK(second < 5, "a cache hit took %.1f s", second);

    /* the table `hum info --layer` shows, from shapes as well */
    t0 = now_s();
    RT_CHECK(cli_hum("info --arch sm_80 --layer n=65536,k=65536,w=uint4,a=float16,group=128") == 0,
             "info --layer of a huge layer:\n%s", cli_output);
    const double described = now_s() - t0;
    cli_has("info --layer of a huge layer", "M 1..");
    RT_CHECK(described < 10, "info --layer took %.1f s (no weight should be made)", described);

    /* a tensor name read from a file is escaped: no raw ESC, no forged line */
    char hostile[4300];
    snprintf(hostile, sizeof hostile, "%s/hostile.safetensors", dir);
    write_hostile(hostile);
    snprintf(args, sizeof args, "inspect %s", hostile);
    RT_CHECK(cli_hum(args) == 1, "hostile name:\n%s", cli_output);
    cli_has("hostile name", "\\x1b[31mred\\x0aforged line");
    RT_CHECK(!strchr(cli_output, 0x1b), "raw ESC printed:\n%s", cli_output);
    /* in a layer's error the name is escaped once, and the line stays one line (the missing
     * companion named beside the weight, formats/gptq.lua) */
    char layer_dir[4300], layer_file[4400];
    snprintf(layer_dir, sizeof layer_dir, "%s/hostile-layer", dir);
    snprintf(layer_file, sizeof layer_file, "%s/model.safetensors", layer_dir);
    rt_write(layer_dir, "config.json", "{\"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4, "
                                       "\"group_size\": 128}}\n");
    write_header(layer_file, "{\"\\u001b[31mevil\\n.qweight\":{\"dtype\":\"I32\",\"shape\":[1,1],"
                             "\"data_offsets\":[0,4]}}");
    snprintf(args, sizeof args, "inspect %s", layer_dir);
    RT_CHECK(cli_hum(args) == 0, "a layer with a hostile name:\n%s", cli_output);
    cli_has("a layer with a hostile name", "tensor \\x1b[31mevil\\x0a.qweight (I32 [1, 1]) has no "
                                           "\\x1b[31mevil\\x0a.scales beside it");
    RT_CHECK(!strchr(cli_output, 0x1b) && !strstr(cli_output, "\\\\x"), "raw or doubly escaped ESC:\n%s",
             cli_output);

    rt_rmtree(dir);
    return rt_test_result("test_cli_usage");
}
