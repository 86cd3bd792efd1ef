/* `hum info`: what this installation and machine give hum: version, driver and device (or the
 * words "no CUDA driver" / "no GPU"), NVRTC, cache dir, config, overrides, the policy files in
 * force, the search paths of the embedded sources, and what this build supports (formats,
 * weight and activation dtypes, GPU archs); as text or, with --json, one JSON object. With
 * --arch, also the policy that wins on that arch's nominal device; with --layer SPEC, the
 * dispatch table that layer gets on the GPU (or on the --arch nominal device), each range with
 * the policy line that chose it. Exits 0 without a GPU; 1 when the runtime cannot be created
 * (bad config or policy file) or the --layer cannot be planned; 2 on usage errors. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_args.h"
#include "cli_dispatch.h"
#include "cli_runtime.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: hum info [--config FILE] [--json] [--arch ARCH] [--layer SPEC] [--moe SPEC]\n\n"
               "Prints the hum version, the CUDA driver and device, the NVRTC version, the kernel cache\n"
               "directory, the deployment config and its overrides, the policy files in force, the\n"
               "directories searched for kernels/, lua/, formats/ and policies/, and what this build\n"
               "supports: checkpoint formats, weight and activation dtypes, GPU architectures.\n\n"
               "  --json         the same as one JSON object (docs/cli.md)\n"
               "  --arch ARCH    also the policy that wins on the nominal device of ARCH (sm_75, sm_80,\n"
               "                 sm_86, sm_89, sm_90a), and plan --layer for it instead of the GPU\n"
               "  --layer SPEC   the dispatch table of this layer: per M range the kernel, tiles, stages,\n"
               "                 CTAs per SM, stream-K and the policy file:line that chose it; SPEC as in\n"
               "                 hum bench, e.g. n=4096,k=4096,w=uint4,a=float16,group=128\n"
               "  --moe SPEC     the same for both expert GEMMs of this MoE layer (gate_up, down), each\n"
               "                 with what its activations run as (the moe.activation override, the\n"
               "                 SPEC's a=, the fallback); SPEC as in hum bench --moe\n"
               "  --config FILE  deployment config\n");
}

/* Every weight dtype hum runs: the unsigned integers and floats of 1 to 8 bits that
 * hum_dtype_make builds and hum_dtype_is_weight accepts, in order of width. */
static cJSON *weight_dtypes(void)
{
    cJSON *list = cJSON_CreateArray();
    for (int bits = 1; bits <= 8; bits++) {
        hum_dtype candidates[16];
        int n = 0;
        candidates[n++] = hum_dtype_make(HUM_KIND_UINT, bits, 0, 0, HUM_SPECIAL_IEEE);
        for (int e = 1; e < bits; e++)
            candidates[n++] = hum_dtype_make(HUM_KIND_FLOAT, bits, e, bits - 1 - e, HUM_SPECIAL_FINITE);
        if (bits == 8) {
            candidates[n++] = HUM_DTYPE_FLOAT8_E4M3FN;
            candidates[n++] = HUM_DTYPE_FLOAT8_E5M2;
        }
        for (int i = 0; i < n; i++)
            if (candidates[i] != HUM_DTYPE_INVALID && hum_dtype_is_weight(candidates[i]))
                cJSON_AddItemToArray(list, cJSON_CreateString(hum_dtype_name(candidates[i])));
    }
    return list;
}

/* The 16-bit types a host passes, then the 8-bit types layers quantize them to (or take from a
 * host that quantizes itself), where the GPU has them (hum info --layer says what runs); dtype
 * names alone (mxfp8, the scheme SPECs and overrides also name, is e4m3 with e8m0 scales). */
static cJSON *activation_dtypes(void)
{
    static const hum_dtype candidates[] = {HUM_DTYPE_FLOAT16, HUM_DTYPE_BFLOAT16, HUM_DTYPE_FLOAT32};
    cJSON *list = cJSON_CreateArray();
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (hum_dtype_is_activation(candidates[i]))
            cJSON_AddItemToArray(list, cJSON_CreateString(hum_dtype_name(candidates[i])));
    cJSON_AddItemToArray(list, cJSON_CreateString(hum_dtype_name(HUM_DTYPE_FLOAT8_E4M3FN)));
    cJSON_AddItemToArray(list, cJSON_CreateString(hum_dtype_name(HUM_DTYPE_INT8)));
    return list;
}

/* "a, b, c" -> ["a", "b", "c"]. */
static cJSON *split_list(const char *text)
{
    cJSON *list = cJSON_CreateArray();
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, ",");
        char item[256];
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        cJSON_AddItemToArray(list, cJSON_CreateString(item));
        p += len;
        p += strspn(p, ", ");
    }
    return list;
}

/* One search path: its tree, variable and each directory with whether it is there. */
static cJSON *search_path(const hum_search_path *p)
{
    cJSON *o = cJSON_CreateObject(), *dirs = cJSON_CreateArray();
    cJSON_AddStringToObject(o, "tree", p->tree);
    cJSON_AddStringToObject(o, "variable", p->variable);
    for (const char *d = p->dirs; d && *d;) {
        size_t len = strcspn(d, ":");
        if (len) {
            char dir[4096];
            snprintf(dir, sizeof dir, "%.*s", (int)len, d);
            struct stat sb;
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "path", dir);
            const int found = stat(dir, &sb) == 0;
            cJSON_AddBoolToObject(e, "present", found && S_ISDIR(sb.st_mode));
            /* why a search path is skipped: what the text listing says */
            if (!found || !S_ISDIR(sb.st_mode))
                cJSON_AddStringToObject(e, "skipped", found ? "not a directory" : "missing");
            cJSON_AddItemToArray(dirs, e);
        }
        d += len + (d[len] == ':');
    }
    cJSON_AddItemToObject(o, "directories", dirs);
    cJSON_AddBoolToObject(o, "embedded", 1);
    return o;
}

/* {name, origin} of the policy that wins for the runtime's GPU (arch NULL) or the nominal
 * device of `arch`, {} when none applies, {error} when it cannot be chosen. */
static cJSON *winner(hum_runtime *rt, const char *arch)
{
    char name[128], origin[1024];
    cJSON *policy = cJSON_CreateObject();
    if (hum_runtime_policy_winner(rt, arch, name, sizeof name, origin, sizeof origin) != HUM_OK) {
        cJSON_AddStringToObject(policy, "error", hum_last_error());
    } else if (*name) {
        cJSON_AddStringToObject(policy, "name", name);
        cJSON_AddStringToObject(policy, "origin", origin);
    }
    return policy;
}

/* "policy ..." line of a winner() object. */
static void print_winner(const char *label, const cJSON *p, const char *none)
{
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(p, "error");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
    if (cJSON_IsString(error))
        printf("%-12s cannot be chosen: %s\n", label, error->valuestring);
    else if (!cJSON_IsString(name))
        printf("%-12s none applies to %s\n", label, none);
    else
        printf("%-12s %s (%s)\n", label, name->valuestring,
               cJSON_GetObjectItemCaseSensitive(p, "origin")->valuestring);
}

/* The dispatch table of the SPEC's layer on the GPU (arch NULL) or the arch's nominal device,
 * or NULL after saying on stderr why it cannot be planned. */
static cJSON *plan_layer(hum_runtime *rt, const char *text, const hum_layer_spec *spec, const char *arch)
{
    hum_layer_dispatch d;
    hum_status st = hum_layer_describe_spec(rt, spec, arch, &d);
    if (st == HUM_OK) {
        cJSON *o = cli_dispatch_json(&d);
        cJSON_AddStringToObject(o, "spec", text);
        return o;
    }
    if (st == HUM_ERR_NO_DEVICE)
        fprintf(stderr, "hum info: --layer without --arch plans for this machine's GPU, and there is none (%s); "
                        "give --arch ARCH to plan for an arch's nominal device\n",
                hum_last_error());
    else
        fprintf(stderr, "hum info: layer %s: %s\n", text, hum_last_error());
    return NULL;
}

/* The dispatch tables of the MoE SPEC's two expert GEMMs ({"spec", "gate_up", "down"}), or
 * NULL after saying on stderr why they cannot be planned. */
static cJSON *plan_moe(hum_runtime *rt, const char *text, const hum_moe_spec *spec, const char *arch)
{
    hum_layer_dispatch d[2];
    const hum_status st = hum_moe_describe_spec(rt, spec, arch, d);
    if (st != HUM_OK) {
        fprintf(stderr, "hum info: MoE layer %s: %s%s\n", text, hum_last_error(),
                st == HUM_ERR_NO_DEVICE ? " (give --arch ARCH to plan for an arch's nominal device)" : "");
        return NULL;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "spec", text);
    cJSON_AddItemToObject(o, "gate_up", cli_dispatch_json(&d[0]));
    cJSON_AddItemToObject(o, "down", cli_dispatch_json(&d[1]));
    return o;
}

/* Everything `hum info` reports, as the JSON object --json prints; the text form is printed
 * from it, so both always say the same. */
static cJSON *collect(hum_runtime *rt)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "version", hum_version());
    hum_device_info d;
    cJSON *device = cJSON_AddObjectToObject(root, "device");
    if (hum_runtime_device(rt, &d) != HUM_OK) {
        cJSON_AddStringToObject(device, "error", hum_last_error());
    } else {
        char arch[16] = "";
        hum_arch_for_device(&d, arch, sizeof arch);
        cJSON_AddNumberToObject(device, "ordinal", d.ordinal);
        cJSON_AddStringToObject(device, "name", d.name);
        cJSON_AddNumberToObject(device, "driver_version", d.driver_version);
        cJSON_AddNumberToObject(device, "sm", d.sm_major * 10 + d.sm_minor);
        cJSON_AddStringToObject(device, "arch", arch);
        cJSON_AddNumberToObject(device, "sm_count", d.sm_count);
        cJSON_AddNumberToObject(device, "memory_bytes", (double)d.total_memory_bytes);
        cJSON_AddNumberToObject(device, "smem_per_block_bytes", (double)d.max_smem_per_block_optin);
        cJSON_AddNumberToObject(device, "l2_bytes", (double)d.l2_bytes);
        cJSON_AddItemToObject(device, "policy", winner(rt, NULL));
    }
    int32_t major = 0, minor = 0;
    char text[4096];
    if (hum_nvrtc_version(&major, &minor) == HUM_OK) {
        snprintf(text, sizeof text, "%d.%d", major, minor);
        cJSON_AddStringToObject(root, "nvrtc", text);
    } else {
        cJSON_AddStringToObject(cJSON_AddObjectToObject(root, "nvrtc"), "error", hum_last_error());
    }
    cJSON_AddStringToObject(root, "cache_dir", hum_runtime_cache_dir(rt));
    if (hum_runtime_config_path(rt))
        cJSON_AddStringToObject(root, "config", hum_runtime_config_path(rt));
    else
        cJSON_AddNullToObject(root, "config");
    cJSON_AddBoolToObject(root, "hot_reload", hum_runtime_hot_reload(rt));
    cJSON_AddStringToObject(root, "log_level", hum_runtime_log_level(rt));
    cJSON *overrides = cJSON_AddObjectToObject(root, "overrides");
    for (int32_t i = 0; i < hum_runtime_override_count(rt); i++)
        cJSON_AddStringToObject(overrides, hum_runtime_override_key(rt, i),
                                hum_runtime_override(rt, hum_runtime_override_key(rt, i)));
    /* the activation type each kind of layer asks for, and where that comes from
     * (lua/hum/activation.lua: the override, else the checkpoint's scheme, else 16-bit) */
    cJSON *acts = cJSON_AddObjectToObject(root, "activations");
    static const char *const kinds[][2] = {{"linear", "linear.activation"}, {"moe", "moe.activation"}};
    for (int i = 0; i < 2; i++) {
        const char *value = hum_runtime_override(rt, kinds[i][1]);
        cJSON *a = cJSON_AddObjectToObject(acts, kinds[i][0]);
        if (value) {
            cJSON_AddStringToObject(a, "type", value);
            snprintf(text, sizeof text, "override %s", kinds[i][1]);
        } else {
            cJSON_AddNullToObject(a, "type");
            snprintf(text, sizeof text, "the checkpoint's scheme, else the 16-bit A the host passes");
        }
        cJSON_AddStringToObject(a, "from", text);
    }
    cJSON *policies = cJSON_AddArrayToObject(root, "policies");
    for (int32_t i = 0; i < hum_runtime_policy_count(rt); i++)
        cJSON_AddItemToArray(policies, cJSON_CreateString(hum_runtime_policy_origin(rt, i)));
    cJSON *paths = cJSON_AddArrayToObject(root, "search_paths");
    for (int32_t i = 0; i < hum_search_path_count(); i++) {
        hum_search_path p;
        if (hum_search_path_get(i, &p) == HUM_OK)
            cJSON_AddItemToArray(paths, search_path(&p));
    }
    cJSON *supports = cJSON_AddObjectToObject(root, "supports");
    if (hum_runtime_formats(rt, text, sizeof text) == HUM_OK)
        cJSON_AddItemToObject(supports, "formats", split_list(text));
    else
        cJSON_AddStringToObject(cJSON_AddObjectToObject(supports, "formats"), "error", hum_last_error());
    cJSON_AddItemToObject(supports, "weight_dtypes", weight_dtypes());
    cJSON_AddItemToObject(supports, "activation_dtypes", activation_dtypes());
    if (hum_arch_list(text, sizeof text) == HUM_OK)
        cJSON_AddItemToObject(supports, "archs", split_list(text));
    else
        cJSON_AddStringToObject(cJSON_AddObjectToObject(supports, "archs"), "error", hum_last_error());
    return root;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* "label      a, b, c" for an array of strings, or the error object's message. */
static void print_list(const char *label, const cJSON *v)
{
    printf("  %-12s", label);
    if (!cJSON_IsArray(v)) {
        printf(" unavailable: %s\n", str(v, "error"));
        return;
    }
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next)
        printf("%s%s", i++ ? ", " : " ", e->valuestring);
    printf("\n");
}

static void print_text(const cJSON *root)
{
    printf("hum          %s\n", str(root, "version"));
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "device");
    if (str(d, "error")) {
        printf("device       %s\n", str(d, "error"));
    } else {
        const int driver = (int)num(d, "driver_version");
        printf("driver       CUDA %d.%d\n", driver / 1000, driver % 1000 / 10);
        printf("device %-5d %s: sm_%d (compiles for %s), %d SMs, %.1f GiB, %lld KiB shared memory per block, "
               "%lld MiB L2\n",
               (int)num(d, "ordinal"), str(d, "name"), (int)num(d, "sm"), str(d, "arch"), (int)num(d, "sm_count"),
               num(d, "memory_bytes") / (1 << 30), (long long)num(d, "smem_per_block_bytes") / 1024,
               (long long)num(d, "l2_bytes") >> 20);
        print_winner("policy", cJSON_GetObjectItemCaseSensitive(d, "policy"), "this device");
    }
    const cJSON *nvrtc = cJSON_GetObjectItemCaseSensitive(root, "nvrtc");
    if (cJSON_IsString(nvrtc))
        printf("nvrtc        %s\n", nvrtc->valuestring);
    else
        printf("nvrtc        unavailable: %s\n", str(nvrtc, "error"));
    printf("cache dir    %s\n", str(root, "cache_dir"));
    printf("config       %s\n", str(root, "config") ? str(root, "config") : "none");
    printf("hot reload   %s\n", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "hot_reload")) ? "on" : "off");
    printf("log level    %s\n", str(root, "log_level"));
    const cJSON *overrides = cJSON_GetObjectItemCaseSensitive(root, "overrides");
    printf("overrides    %s", overrides->child ? "" : "none");
    for (const cJSON *o = overrides->child; o; o = o->next)
        printf("%s%s=%s", o == overrides->child ? "" : ", ", o->string, o->valuestring);
    const cJSON *acts = cJSON_GetObjectItemCaseSensitive(root, "activations");
    printf("\nactivations ");
    int overridden = 0;
    for (const cJSON *a = acts->child; a; a = a->next) {
        overridden |= str(a, "type") != NULL;
        if (str(a, "type"))
            printf(" %s: %s (%s);", a->string, str(a, "type"), str(a, "from"));
        else
            printf(" %s: %s;", a->string, str(a, "from"));
    }
    printf(" %s", overridden ? "what a layer runs, falling back where the GPU or weights lack the type: --layer SPEC"
                             : "what a layer runs: --layer SPEC");
    const cJSON *policies = cJSON_GetObjectItemCaseSensitive(root, "policies");
    const int count = cJSON_GetArraySize(policies);
    printf("\npolicies     %d file%s, later ones win where they apply\n", count, count == 1 ? "" : "s");
    for (const cJSON *p = policies->child; p; p = p->next)
        printf("  %s\n", p->valuestring);
    printf("search paths the first directory that has the file wins, then the embedded copy\n");
    for (const cJSON *p = cJSON_GetObjectItemCaseSensitive(root, "search_paths")->child; p; p = p->next) {
        const cJSON *dirs = cJSON_GetObjectItemCaseSensitive(p, "directories");
        printf("  %-10s %s", str(p, "tree"), str(p, "variable"));
        if (!dirs->child)
            printf(" unset");
        for (const cJSON *e = dirs->child; e; e = e->next) {
            const cJSON *skipped = cJSON_GetObjectItemCaseSensitive(e, "skipped");
            printf("%s%s", e == dirs->child ? ": " : ", ", str(e, "path"));
            if (cJSON_IsString(skipped))
                printf(" (%s: skipped)", skipped->valuestring);
        }
        printf("; embedded\n");
    }
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "supports");
    printf("supports\n");
    print_list("formats", cJSON_GetObjectItemCaseSensitive(s, "formats"));
    print_list("weights", cJSON_GetObjectItemCaseSensitive(s, "weight_dtypes"));
    print_list("activations", cJSON_GetObjectItemCaseSensitive(s, "activation_dtypes"));
    print_list("archs", cJSON_GetObjectItemCaseSensitive(s, "archs"));
    const cJSON *arch = cJSON_GetObjectItemCaseSensitive(root, "arch");
    if (arch) {
        char label[32];
        snprintf(label, sizeof label, "policy %s", str(arch, "arch"));
        print_winner(label, cJSON_GetObjectItemCaseSensitive(arch, "policy"), "its nominal device");
    }
    const cJSON *layer = cJSON_GetObjectItemCaseSensitive(root, "layer");
    if (layer) {
        printf("layer        %s\n", str(layer, "spec"));
        cli_print_dispatch_json(stdout, layer, 2);
    }
    const cJSON *moe = cJSON_GetObjectItemCaseSensitive(root, "moe");
    if (moe) {
        printf("moe          %s\n", str(moe, "spec"));
        printf("  gate_up GEMM (rows per expert):\n");
        cli_print_dispatch_json(stdout, cJSON_GetObjectItemCaseSensitive(moe, "gate_up"), 4);
        printf("  down GEMM (rows per expert):\n");
        cli_print_dispatch_json(stdout, cJSON_GetObjectItemCaseSensitive(moe, "down"), 4);
    }
}

int hum_cmd_info(const char *config, int argc, char **argv)
{
    int json = 0;
    const char *arch = NULL, *layer = NULL, *moe = NULL;
    const cli_option options[] = {CLI_VALUE("--config", &config), CLI_FLAG("--json", &json),
                                  CLI_VALUE("--arch", &arch),     CLI_VALUE("--layer", &layer),
                                  CLI_VALUE("--moe", &moe),       CLI_END};
    const cli_args args = {.command = "hum info", .usage = usage, .options = options};
    int parsed = cli_args_parse(&args, argc, argv);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    /* Bad values are usage errors, found before the runtime exists so no config can mask them (an
     * NVRTC without a usable list of architectures fails the command instead: cli_arch_check). */
    hum_layer_spec spec = {0};
    hum_moe_spec moe_spec;
    int arch_rc = cli_arch_check(&args, arch);
    if (arch_rc)
        return arch_rc;
    if ((layer && hum_layer_spec_parse(layer, &spec) != HUM_OK) || (moe && hum_moe_spec_parse(moe, &moe_spec) != HUM_OK))
        return cli_usage_error(&args, "%s", hum_last_error());
    hum_runtime *rt;
    if (cli_runtime_open("info", config, NULL, &rt) != 0)
        return 1;
    cJSON *root = collect(rt);
    cJSON *table = layer ? plan_layer(rt, layer, &spec, arch) : NULL;
    cJSON *moe_tables = moe ? plan_moe(rt, moe, &moe_spec, arch) : NULL;
    if (root && arch) {
        cJSON *a = cJSON_AddObjectToObject(root, "arch");
        cJSON_AddStringToObject(a, "arch", arch);
        cJSON_AddItemToObject(a, "policy", winner(rt, arch));
    }
    if (root && table)
        cJSON_AddItemToObject(root, "layer", table);
    else
        cJSON_Delete(table);
    if (root && moe_tables)
        cJSON_AddItemToObject(root, "moe", moe_tables);
    else
        cJSON_Delete(moe_tables);
    hum_runtime_destroy(rt);
    char *text = root && json ? cJSON_Print(root) : NULL;
    if (root && !json)
        print_text(root);
    else if (text)
        printf("%s\n", text);
    cJSON_free(text);
    cJSON_Delete(root);
    if (!root || (json && !text)) {
        fprintf(stderr, "hum info: out of memory\n");
        return 1;
    }
    return (layer && !table) || (moe && !moe_tables) ? 1 : 0;
}
