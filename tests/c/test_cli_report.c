/* What hum reports about itself and a user's files: `hum info` lists every search path in force
 * (a missing HUM_*_PATH directory is a warning under one rule, never a failure) and what the
 * build supports; `--json` of info, inspect and cache ls is one JSON object holding the same
 * facts; `hum inspect` of a bare .safetensors file lists its tensors. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "cli_test.h"
#include "rt_test.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char LAYER[] = "model.layers.0.mlp.down_proj";

/* cli_output parsed as one JSON object (NULL, and a failed check, if it is not one). */
static cJSON *parsed(const char *what)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(cli_output, &end, 1);
    RT_CHECK(root && cJSON_IsObject(root), "%s: not one JSON object:\n%s", what, cli_output);
    return root;
}

static const cJSON *at(const cJSON *o, const char *key) { return cJSON_GetObjectItemCaseSensitive(o, key); }

/* A JSON array of strings holds `want`. */
static int has_string(const cJSON *array, const char *want)
{
    for (const cJSON *e = array ? array->child : NULL; e; e = e->next)
        if (cJSON_IsString(e) && !strcmp(e->valuestring, want))
            return 1;
    return 0;
}

static void check_info(const char *dir)
{
    char missing[4300], present[4300], env[9000];
    snprintf(missing, sizeof missing, "%s/no-such-dir", dir);
    snprintf(present, sizeof present, "%s", dir);
    /* a missing HUM_POLICY_PATH failed every command; HUM_KERNEL_PATH and friends were silent */
    snprintf(env, sizeof env, "%s:%s", missing, present);
    setenv("HUM_POLICY_PATH", env, 1);
    setenv("HUM_KERNEL_PATH", missing, 1);
    setenv("HUM_LUA_PATH", missing, 1);
    setenv("HUM_FORMAT_PATH", missing, 1);
    RT_CHECK(cli_hum("info") == 0, "info with missing search directories:\n%s", cli_output);
    static const char *const vars[] = {"HUM_POLICY_PATH", "HUM_KERNEL_PATH", "HUM_LUA_PATH", "HUM_FORMAT_PATH"};
    char line[9000];
    for (size_t i = 0; i < 4; i++) {
        snprintf(line, sizeof line, "hum: warn: %s: %s: No such file or directory: skipped", vars[i], missing);
        cli_has("a warning per missing directory", line);
    }
    cli_has("info", "search paths ");
    snprintf(line, sizeof line, "  policies/  HUM_POLICY_PATH: %s (missing: skipped), %s; embedded", missing, present);
    cli_has("info lists HUM_POLICY_PATH", line);
    snprintf(line, sizeof line, "  kernels/   HUM_KERNEL_PATH: %s (missing: skipped); embedded", missing);
    cli_has("info lists HUM_KERNEL_PATH", line);
    RT_CHECK(cli_hum("compile --arch sm_80 --kernel selfcheck") == 0, "compile with missing directories:\n%s",
             cli_output);
    /* a file named where a directory belongs is said as such */
    char file[4300];
    snprintf(file, sizeof file, "%s/a-file", dir);
    FILE *f = fopen(file, "w");
    RT_CHECK(f && fclose(f) == 0, "%s", file);
    setenv("HUM_FORMAT_PATH", file, 1);
    RT_CHECK(cli_hum("info") == 0, "info with a file in HUM_FORMAT_PATH:\n%s", cli_output);
    snprintf(line, sizeof line, "  formats/   HUM_FORMAT_PATH: %s (not a directory: skipped); embedded", file);
    cli_has("info lists a file in HUM_FORMAT_PATH", line);
    RT_CHECK(cli_hum("info --json") == 0, "info --json with a file in HUM_FORMAT_PATH:\n%s", cli_output);
    cli_has("info --json says why a search path is skipped", "\"skipped\":\t\"not a directory\"");
    unsetenv("HUM_KERNEL_PATH");
    unsetenv("HUM_LUA_PATH");
    unsetenv("HUM_FORMAT_PATH");
    unsetenv("HUM_POLICY_PATH");

    /* a site policy sorted before the built-in one of its devices never wins: a warning says so */
    char policies[4300];
    snprintf(policies, sizeof policies, "%s/policies", dir);
    const char *hopper = "return { name = 'site-hopper', applies = function(d) return d.sm >= 90 end,\n"
                         "  tunings = function() return {} end }\n";
    const char *early = rt_write(policies, "a_hopper.lua", hopper);
    setenv("HUM_POLICY_PATH", policies, 1);
    RT_CHECK(cli_hum("info") == 0, "info with a shadowed policy:\n%s", cli_output);
    snprintf(line, sizeof line, "hum: warn: policy 'site-hopper' (%s) never wins: where it applies, a file later in "
             "the order wins (sm_90a: 'sm90' (embedded:policies/sm90.lua))", early);
    cli_has("shadowed policy", line);
    remove(early);
    rt_write(policies, "zz_hopper.lua", hopper);
    RT_CHECK(cli_hum("info") == 0 && !strstr(cli_output, "never wins"), "a policy sorted last wins:\n%s", cli_output);
    unsetenv("HUM_POLICY_PATH");

    RT_CHECK(cli_hum("info") == 0, "info:\n%s", cli_output);
    cli_has("info without overrides", "  lua/       HUM_LUA_PATH unset; embedded");
    cli_has("supports", "  formats      awq, bitnet, compressed-tensors, fp8, gptq, modelopt, mxfp4\n");
    cli_has("supports", "  activations  float16, bfloat16, float8_e4m3fn, int8\n");
    cli_has("supports", "uint1, uint2, ");
    cli_has("supports", "float4_e2m1");
    cli_has("supports", "sm_75, sm_80, sm_86");

    RT_CHECK(cli_hum("info --json") == 0, "info --json:\n%s", cli_output);
    cJSON *root = parsed("info --json");
    if (root) {
        RT_CHECK(cJSON_IsString(at(root, "version")) && !strcmp(at(root, "version")->valuestring, hum_version()),
                 "info --json version");
        RT_CHECK(cJSON_IsString(at(at(root, "device"), "error")) &&
                     strstr(at(at(root, "device"), "error")->valuestring, "no CUDA driver"),
                 "info --json device error");
        RT_CHECK(cJSON_GetArraySize(at(root, "policies")) == 5 && has_string(at(root, "policies"),
                                                                             "embedded:policies/sm90.lua"),
                 "info --json policies");
        RT_CHECK(cJSON_GetArraySize(at(root, "search_paths")) == 4, "info --json search paths");
        const cJSON *s = at(root, "supports");
        RT_CHECK(has_string(at(s, "formats"), "gptq") && has_string(at(s, "weight_dtypes"), "uint4") &&
                     has_string(at(s, "weight_dtypes"), "float8_e4m3fn") &&
                     !has_string(at(s, "weight_dtypes"), "int4") &&
                     has_string(at(s, "activation_dtypes"), "bfloat16") &&
                     !has_string(at(s, "activation_dtypes"), "float32") && has_string(at(s, "archs"), "sm_90a"),
                 "info --json supports:\n%s", cli_output);
        cJSON_Delete(root);
    }
}

static void check_inspect(const char *dir)
{
    char ckpt[4300], args[9000];
    snprintf(ckpt, sizeof ckpt, "%s/ckpt", dir);
    cli_write_checkpoint(ckpt, LAYER);
    snprintf(args, sizeof args, "inspect %s --json", ckpt);
    RT_CHECK(cli_hum(args) == 0, "inspect --json:\n%s", cli_output);
    cJSON *root = parsed("inspect --json");
    if (root) {
        const cJSON *layers = at(root, "layers"), *l = layers ? layers->child : NULL;
        RT_CHECK(cJSON_GetArraySize(layers) == 1 && l && !strcmp(at(l, "name")->valuestring, LAYER) &&
                     at(l, "n")->valuedouble == 64 && at(l, "k")->valuedouble == 256 &&
                     at(l, "group_size")->valuedouble == 128 && !strcmp(at(l, "weight_dtype")->valuestring, "uint4") &&
                     !strcmp(at(l, "activations")->valuestring, "16-bit"),
                 "inspect --json layer:\n%s", cli_output);
        RT_CHECK(!at(root, "tensors"), "tensors only with --tensors");
        cJSON_Delete(root);
    }
    /* --arch: what the layer runs on an arch's nominal device, planned without a GPU */
    snprintf(args, sizeof args, "inspect %s --layer %s --arch sm_80", ckpt, LAYER);
    RT_CHECK(cli_hum(args) == 0, "inspect --arch:\n%s", cli_output);
    cli_has("inspect --arch", "plan for sm_80:\n  policy sm80 (embedded:policies/sm80.lua) on nominal sm_80");
    cli_has("inspect --arch", "  activations: float16\n");
    cli_has("inspect --arch", "    M 1..");
    snprintf(args, sizeof args, "inspect %s --layer %s --arch sm_90a --json", ckpt, LAYER);
    RT_CHECK(cli_hum(args) == 0, "inspect --arch --json:\n%s", cli_output);
    root = parsed("inspect --arch --json");
    if (root) {
        const cJSON *plan = at(root, "plan");
        RT_CHECK(plan && !strcmp(at(plan, "arch")->valuestring, "sm_90a") && cJSON_GetArraySize(at(plan, "ranges")) > 1,
                 "inspect --arch --json plan:\n%s", cli_output);
        cJSON_Delete(root);
    }
    snprintf(args, sizeof args, "inspect %s --arch sm_80", ckpt);
    RT_CHECK(cli_hum(args) == 2, "--arch without --layer:\n%s", cli_output);
    cli_has("--arch without --layer", "--arch needs --layer NAME");

    snprintf(args, sizeof args, "inspect %s --tensors", ckpt);
    RT_CHECK(cli_hum(args) == 0, "inspect --tensors:\n%s", cli_output);
    cli_has("inspect --tensors", LAYER);
    snprintf(args, sizeof args, "%s.qweight", LAYER);
    cli_has("inspect --tensors", args);
    cli_has("inspect --tensors", "I32      [32, 64]");

    /* a safetensors file with no checkpoint around it: its tensors, and why it is no checkpoint */
    float values[6] = {1, 2, 3, 4, 5, 6};
    hum_safetensors_tensor t = {.name = "embed.weight", .dtype = HUM_DTYPE_FLOAT32, .rank = 2, .shape = {2, 3},
                                .data = values};
    char bare[4300];
    snprintf(bare, sizeof bare, "%s/bare.safetensors", dir);
    RT_CHECK(hum_safetensors_write(bare, &t, 1, NULL) == HUM_OK, "write %s: %s", bare, hum_last_error());
    snprintf(args, sizeof args, "inspect %s", bare);
    RT_CHECK(cli_hum(args) == 0, "inspect of a bare file:\n%s", cli_output);
    cli_has("bare file", "1 tensors, not read as a quantized checkpoint: ");
    cli_has("bare file", "embed.weight");
    cli_has("bare file", "F32      [2, 3]");
    snprintf(args, sizeof args, "inspect %s --json", bare);
    RT_CHECK(cli_hum(args) == 0, "inspect --json of a bare file:\n%s", cli_output);
    root = parsed("bare --json");
    if (root) {
        const cJSON *tensors = at(root, "tensors");
        RT_CHECK(cJSON_GetArraySize(tensors) == 1 && !strcmp(at(tensors->child, "name")->valuestring, "embed.weight") &&
                     cJSON_GetArraySize(at(tensors->child, "shape")) == 2 &&
                     cJSON_IsString(at(root, "not_a_checkpoint")),
                 "bare --json:\n%s", cli_output);
        cJSON_Delete(root);
    }
    snprintf(args, sizeof args, "inspect %s --layer embed", bare);
    RT_CHECK(cli_hum(args) == 1, "a layer of a bare file is an error:\n%s", cli_output);
}

static void check_cache(void)
{
    RT_CHECK(cli_hum("compile --arch sm_80 --kernel selfcheck") == 0, "compile:\n%s", cli_output);
    RT_CHECK(cli_hum("cache ls --json") == 0, "cache ls --json:\n%s", cli_output);
    cJSON *root = parsed("cache ls --json");
    if (root) {
        const cJSON *e = at(root, "entries");
        RT_CHECK(at(root, "count")->valuedouble >= 1 && cJSON_GetArraySize(e) == (int)at(root, "count")->valuedouble &&
                     cJSON_IsTrue(at(e->child, "valid")) && cJSON_IsString(at(e->child, "kernel")) &&
                     strlen(at(e->child, "key")->valuestring) == 32 && at(root, "bytes")->valuedouble > 0,
                 "cache ls --json:\n%s", cli_output);
        cJSON_Delete(root);
    }
    RT_CHECK(cli_hum("cache clear --json") == 2, "--json with clear:\n%s", cli_output);
}

int main(void)
{
    char dir[4096];
    rt_tmpdir("cli-report", dir, sizeof dir);
    char cache[4200];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    setenv("HUM_CACHE_DIR", cache, 1);
    setenv("HUM_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
    unsetenv("HUM_CONFIG");
    check_info(dir);
    check_inspect(dir);
    check_cache();
    rt_rmtree(dir);
    return rt_test_result("test_cli_report");
}
