/* `hum inspect PATH`: the quantized layers of a checkpoint (a .safetensors file or a checkpoint
 * directory), one line each, or the tensors of a .safetensors file that is no checkpoint; as text
 * or one JSON object (--json); a layer that cannot be converted is listed with the reason and
 * fails the command only when asked for by --layer; with --layer NAME the standard form of that layer; with --dequant
 * OUT.safetensors its dequantized weight, float32 [N, K] ([E, N, K] for experts) under the tensor
 * name "weight", in checkpoint column order (act-order undone). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_args.h"
#include "cli_dispatch.h"
#include "cli_output.h"
#include "cli_text.h"
#include "cli_runtime.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: hum inspect PATH [--layer NAME [--arch ARCH] [--dequant OUT.safetensors [--force]]] [--tensors]\n"
               "                        [--json] [--config FILE]\n\n"
               "PATH is a .safetensors file or a checkpoint directory. Prints one line per quantized layer:\n"
               "name, format, weight dtype, bits, group size, scale type, sym/asym, act-order, N, K, experts.\n"
               "Per-expert modules (...experts.<i>.<proj>) are listed as one layer ...experts.*.<proj>.\n"
               "A layer that cannot be converted is listed with the reason (\"cannot be converted: ...\");\n"
               "it fails the command (exit 1) only when asked for with --layer. The listing checks each\n"
               "layer's config, tensors, dtypes, shapes and scalar scales; the values in its weight, scale\n"
               "and zero-point tensors only converting it reads: --layer NAME checks them too.\n"
               "A .safetensors file that is no checkpoint hum reads (no quantization config) has its\n"
               "tensors listed, with the reason.\n"
               "--tensors          also list every tensor: name, dtype, shape\n"
               "--json             the same as one JSON object (docs/cli.md)\n"
               "--layer NAME       print only that layer, and the standard form it converts to\n"
               "--arch ARCH        with --layer: also plan it for the nominal device of ARCH (sm_75, sm_80,\n"
               "                   sm_86, sm_89, sm_90a), no GPU needed: what its A runs as (the checkpoint's\n"
               "                   scheme, the config's override, or the fallback and why) and its dispatch\n"
               "                   table, as hum info --layer shows them for a SPEC; dense layers\n"
               "--dequant OUT      write its dequantized weight (float32 [N, K], experts [E, N, K], tensor\n"
               "                   \"weight\", checkpoint column order) to OUT.safetensors: a new file outside\n"
               "                   the checkpoint\n"
               "--force            let --dequant replace an existing file (never one of the checkpoint)\n");
}

static void print_header(void)
{
    printf("%-48s %-36s %-14s %4s %6s %-14s %-4s %-9s %7s %7s %7s  %s\n", "layer", "format", "weight", "bits", "group",
           "scale", "zero", "act-order", "N", "K", "experts", "activations");
}

static void print_layer(const hum_layer_summary *l)
{
    char name[1024];
    if (l->error[0]) {
        char why[1024];
        printf("%-48s cannot be converted: %s\n", cli_escape(l->name, name, sizeof name),
               cli_escape_message(l->error, why, sizeof why));
        return;
    }
    /* activations: the checkpoint's scheme; what runs depends on the GPU (hum info --layer) */
    printf("%-48s %-36s %-14s %4d %6lld %-14s %-4s %-9s %7lld %7lld %7lld  %s\n",
           cli_escape(l->name, name, sizeof name), l->format, hum_dtype_name(l->weight_dtype), l->bits,
           (long long)l->group_size, l->scale, l->symmetric ? "sym" : "asym", l->act_order ? "yes" : "no",
           (long long)l->n, (long long)l->k, (long long)l->num_experts, l->activations[0] ? l->activations : "16-bit");
}

static const char *scale_type_name(hum_scale_type t)
{
    switch (t) {
    case HUM_SCALE_CHANNEL: return "CHANNEL";
    case HUM_SCALE_GROUP: return "GROUP";
    case HUM_SCALE_BLOCK: return "BLOCK";
    case HUM_SCALE_TENSOR: return "TENSOR";
    case HUM_SCALE_GROUP_TENSOR: return "GROUP_TENSOR";
    }
    return "?";
}

static void print_tensor(const char *field, const hum_tensor *t)
{
    if (!t->data)
        return;
    printf("  %-13s %s [", field, hum_dtype_name(t->dtype));
    for (int d = 0; d < t->rank; d++)
        printf(d ? ", %lld" : "%lld", (long long)t->shape[d]);
    printf("]\n");
}

static void print_standard(const hum_standard_weight *w)
{
    printf("standard form:\n  weight_dtype  %s\n  param_dtype   %s\n  scale         %s, %s",
           hum_dtype_name(w->weight_dtype), hum_dtype_name(w->param_dtype), scale_type_name(w->scale_type),
           hum_dtype_name(w->scale_dtype));
    if (w->group_size)
        printf(", group_size %lld", (long long)w->group_size);
    if (w->group_size_n)
        printf(", group_size_n %lld", (long long)w->group_size_n);
    printf("\n  zero point    %s\n", !w->has_zero_point       ? "none (midpoint for ints)"
                                     : w->zero_point_is_float ? "float"
                                                              : "int");
    print_tensor("weight", &w->weight);
    print_tensor("scale", &w->scale);
    print_tensor("zero_point", &w->zero_point);
    print_tensor("global_scale", &w->global_scale);
    if (w->global_scale.data)
        printf("  global        %.9g%s\n", ((const float *)w->global_scale.data)[0],
               w->global_scale.shape[0] > 1 ? " (first expert)" : "");
    print_tensor("bias", &w->bias);
    print_tensor("k_perm", &w->k_perm);
    static const char *const modes[] = {"token", "tensor", "group"};
    if (w->act_dtype)
        printf("  activations   %s per %s%s (the checkpoint's scheme; --arch ARCH says what runs)\n",
               hum_dtype_name(w->act_dtype), modes[w->act_scale >= 0 && w->act_scale <= 2 ? w->act_scale : 0],
               w->act_scale == HUM_ACT_SCALE_GROUP ? (w->act_group == 128  ? " of 128"
                                                      : w->act_group == 32 ? " of 32"
                                                                           : " of 16")
                                                   : "");
    else
        printf("  activations   16-bit (weight-only)\n");
    print_tensor("input_scale", &w->input_scale);
    if (w->input_scale.data)
        printf("  input scale   %.9g%s\n", ((const float *)w->input_scale.data)[0],
               w->input_scale.shape[0] > 1 ? " (first expert)" : "");
}

/* Dequantizes every expert of `w` to float32 and writes it as tensor "weight". */
static hum_status write_dequant(const hum_standard_weight *w, const char *out_path)
{
    int64_t experts = w->num_experts > 0 ? w->num_experts : 1, nk = w->n * w->k;
    double *row = malloc(sizeof *row * (size_t)nk);
    float *all = malloc(sizeof *all * (size_t)(experts * nk));
    hum_status s = row && all ? HUM_OK : HUM_ERR_OUT_OF_MEMORY;
    if (s != HUM_OK)
        hum_fail(s, "dequantizing: out of memory for %lld x %lld x %lld floats", (long long)experts,
                 (long long)w->n, (long long)w->k);
    for (int64_t e = 0; e < experts && s == HUM_OK; e++) {
        s = hum_reference_dequant(w, e, row);
        for (int64_t i = 0; i < nk && s == HUM_OK; i++)
            all[e * nk + i] = (float)row[i];
    }
    if (s == HUM_OK) {
        hum_safetensors_tensor t = {.name = "weight", .dtype = HUM_DTYPE_FLOAT32, .data = all};
        if (w->num_experts > 0)
            t.shape[t.rank++] = w->num_experts;
        t.shape[t.rank++] = w->n;
        t.shape[t.rank++] = w->k;
        const char *meta[] = {"format", "pt", NULL};
        s = hum_safetensors_write(out_path, &t, 1, meta);
    }
    free(row);
    free(all);
    return s;
}

/* The tensors of the checkpoint: name, dtype, shape. */
static void print_tensors(const hum_checkpoint *ck)
{
    printf("%-64s %-8s %s\n", "tensor", "dtype", "shape");
    for (int64_t i = 0; i < hum_checkpoint_tensor_count(ck); i++) {
        hum_safetensors_tensor t;
        char name[1024];
        if (hum_checkpoint_tensor(ck, i, &t) != HUM_OK)
            continue;
        printf("%-64s %-8s [", cli_escape(t.name, name, sizeof name), t.dtype_name);
        for (int d = 0; d < t.rank; d++)
            printf(d ? ", %lld" : "%lld", (long long)t.shape[d]);
        printf("]\n");
    }
}

static cJSON *json_shape(const int64_t *shape, int rank)
{
    cJSON *a = cJSON_CreateArray();
    for (int d = 0; d < rank; d++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)shape[d]));
    return a;
}

static cJSON *json_tensors(const hum_checkpoint *ck)
{
    cJSON *list = cJSON_CreateArray();
    for (int64_t i = 0; i < hum_checkpoint_tensor_count(ck); i++) {
        hum_safetensors_tensor t;
        if (hum_checkpoint_tensor(ck, i, &t) != HUM_OK)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", t.name);
        cJSON_AddStringToObject(o, "dtype", t.dtype_name);
        cJSON_AddItemToObject(o, "shape", json_shape(t.shape, t.rank));
        cJSON_AddStringToObject(o, "file", t.file);
        cJSON_AddItemToArray(list, o);
    }
    return list;
}

/* `converted`: the layer was converted (--layer), so the values of its tensors were checked too,
 * not only what the listing checks. */
static cJSON *json_layer(const hum_layer_summary *l, int converted)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", l->name);
    if (l->error[0]) {
        cJSON_AddStringToObject(o, "error", l->error);
        return o;
    }
    cJSON_AddBoolToObject(o, "values_checked", converted);
    cJSON_AddStringToObject(o, "format", l->format);
    cJSON_AddStringToObject(o, "weight_dtype", hum_dtype_name(l->weight_dtype));
    cJSON_AddNumberToObject(o, "bits", l->bits);
    cJSON_AddNumberToObject(o, "group_size", (double)l->group_size);
    cJSON_AddStringToObject(o, "scale", l->scale);
    cJSON_AddBoolToObject(o, "symmetric", l->symmetric);
    cJSON_AddBoolToObject(o, "act_order", l->act_order);
    cJSON_AddNumberToObject(o, "n", (double)l->n);
    cJSON_AddNumberToObject(o, "k", (double)l->k);
    cJSON_AddNumberToObject(o, "experts", (double)l->num_experts);
    /* as the text listing says it: a weight-only layer's "16-bit" */
    cJSON_AddStringToObject(o, "activations", l->activations[0] ? l->activations : "16-bit");
    return o;
}

static void json_tensor_field(cJSON *o, const char *field, const hum_tensor *t)
{
    if (!t->data)
        return;
    cJSON *f = cJSON_AddObjectToObject(o, field);
    cJSON_AddStringToObject(f, "dtype", hum_dtype_name(t->dtype));
    cJSON_AddItemToObject(f, "shape", json_shape(t->shape, t->rank));
}

static cJSON *json_standard(const hum_standard_weight *w)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "weight_dtype", hum_dtype_name(w->weight_dtype));
    cJSON_AddStringToObject(o, "param_dtype", hum_dtype_name(w->param_dtype));
    cJSON_AddStringToObject(o, "scale_type", scale_type_name(w->scale_type));
    cJSON_AddStringToObject(o, "scale_dtype", hum_dtype_name(w->scale_dtype));
    cJSON_AddNumberToObject(o, "group_size", (double)w->group_size);
    cJSON_AddNumberToObject(o, "group_size_n", (double)w->group_size_n);
    cJSON_AddStringToObject(o, "zero_point", !w->has_zero_point ? "none" : w->zero_point_is_float ? "float" : "int");
    json_tensor_field(o, "weight", &w->weight);
    json_tensor_field(o, "scale", &w->scale);
    json_tensor_field(o, "zero_point", &w->zero_point);
    json_tensor_field(o, "global_scale", &w->global_scale);
    json_tensor_field(o, "bias", &w->bias);
    json_tensor_field(o, "k_perm", &w->k_perm);
    static const char *const modes[] = {"token", "tensor", "group"};
    cJSON_AddStringToObject(o, "act_dtype", w->act_dtype ? hum_dtype_name(w->act_dtype) : "none");
    cJSON_AddStringToObject(o, "act_scale", modes[w->act_scale >= 0 && w->act_scale <= 2 ? w->act_scale : 0]);
    cJSON_AddNumberToObject(o, "act_group", w->act_group);
    json_tensor_field(o, "input_scale", &w->input_scale);
    return o;
}

typedef struct inspect_options {
    const char *path, *layer, *dequant, *arch;
    int force, tensors, json;
} inspect_options;

/* The layer's plan for the nominal device of o->arch (--arch): 0, or 1 after saying why it
 * cannot be planned. */
static int print_plan(hum_runtime *rt, const hum_standard_weight *w, const inspect_options *o, cJSON *root)
{
    hum_layer_dispatch d;
    if (hum_layer_describe_plan(rt, w, NULL, o->arch, &d) != HUM_OK) {
        fprintf(stderr, "hum inspect: planning %s for %s: %s%s\n", o->layer, o->arch, hum_last_error(),
                w->num_experts ? " (hum info --moe SPEC plans an experts layer)" : "");
        return 1;
    }
    if (!root) {
        printf("plan for %s:\n", o->arch);
        cli_print_dispatch(stdout, &d, 2);
        return 0;
    }
    cJSON *plan = cli_dispatch_json(&d);
    if (!plan) {
        fprintf(stderr, "hum inspect: out of memory\n");
        return 1;
    }
    cJSON_AddItemToObject(root, "plan", plan);
    return 0;
}

/* A .safetensors file, not a directory: with no format to read it as, its tensors are still
 * worth listing (an unquantized file, or weights copied away from their config). */
static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int inspect(hum_runtime *rt, const inspect_options *o, cJSON *root)
{
    hum_checkpoint *ck = NULL;
    hum_layer_list list = {0};
    hum_status s = hum_checkpoint_open(o->path, &ck);
    if (s != HUM_OK) {
        fprintf(stderr, "hum inspect: %s\n", hum_last_error());
        return 1;
    }
    char why[4096] = "";
    s = hum_checkpoint_list_layers(rt, ck, &list);
    const int bare = s == HUM_ERR_FORMAT && !o->layer && is_file(o->path);
    if (s != HUM_OK && !bare) {
        fprintf(stderr, "hum inspect: %s\n", hum_last_error());
        hum_checkpoint_close(ck);
        return 1;
    }
    if (bare)
        snprintf(why, sizeof why, "%s", hum_last_error());
    /* The named layer is loaded before anything is printed, so that a name the checkpoint lacks
     * fails with its error alone, not after a listing. A layer not in the listing may still be
     * loadable: one expert of a stacked set. */
    hum_standard_weight w = {0};
    if (o->layer && hum_checkpoint_load_layer(rt, ck, o->layer, &w) != HUM_OK) {
        fprintf(stderr, "hum inspect: %s\n", hum_last_error());
        hum_standard_free(&w);
        hum_layer_list_free(&list);
        hum_checkpoint_close(ck);
        return 1;
    }
    int rc = 0;
    const long long tensors = (long long)hum_checkpoint_tensor_count(ck);
    if (root) {
        cJSON_AddStringToObject(root, "path", o->path);
        cJSON_AddNumberToObject(root, "tensor_count", (double)tensors);
        if (bare)
            cJSON_AddStringToObject(root, "not_a_checkpoint", why);
        cJSON *layers = cJSON_AddArrayToObject(root, "layers");
        for (int64_t i = 0; i < list.count; i++)
            if (!o->layer || strcmp(o->layer, list.items[i].name) == 0)
                cJSON_AddItemToArray(layers, json_layer(&list.items[i], o->layer != NULL));
    } else if (bare) {
        printf("%s: %lld tensors, not read as a quantized checkpoint: %s\n", o->path, tensors, why);
    } else {
        long long broken = 0;
        for (int64_t i = 0; i < list.count; i++)
            broken += list.items[i].error[0] != 0;
        printf("%s: %lld tensors, %lld quantized layer%s", o->path, tensors, (long long)list.count,
               list.count == 1 ? "" : "s");
        if (broken)
            printf(", %lld of which cannot be converted", broken);
        printf("\n");
        print_header();
        for (int64_t i = 0; i < list.count; i++)
            if (!o->layer || strcmp(o->layer, list.items[i].name) == 0)
                print_layer(&list.items[i]);
        /* a layer listed above may still fail on its values: say so where it could mislead */
        if (!o->layer && broken < list.count)
            printf("note: a layer's codes, scales and zero points are checked when it is converted (--layer "
                   "NAME), not here\n");
    }
    if (o->tensors || bare) {
        if (root)
            cJSON_AddItemToObject(root, "tensors", json_tensors(ck));
        else
            print_tensors(ck);
    }
    if (o->layer) {
        if (root)
            cJSON_AddItemToObject(root, "standard", json_standard(&w));
        else
            print_standard(&w);
        if (o->arch)
            rc |= print_plan(rt, &w, o, root);
        if (o->dequant) {
            if (write_dequant(&w, o->dequant) != HUM_OK) {
                fprintf(stderr, "hum inspect: %s\n", hum_last_error());
                rc = 1;
            } else if (root) {
                cJSON_AddStringToObject(root, "wrote", o->dequant);
            } else {
                printf("wrote %s: tensor \"weight\" float32 [%s%lld, %lld]\n", o->dequant, w.num_experts ? "E, " : "",
                       (long long)w.n, (long long)w.k);
            }
        }
    }
    hum_standard_free(&w);
    hum_layer_list_free(&list);
    hum_checkpoint_close(ck);
    return rc;
}

int hum_cmd_inspect(const char *config, int argc, char **argv)
{
    inspect_options o = {0};
    const cli_option options[] = {
        CLI_VALUE("--config", &config),   CLI_VALUE("--layer", &o.layer), CLI_VALUE("--dequant", &o.dequant),
        CLI_VALUE("--arch", &o.arch),
        CLI_FLAG("--force", &o.force),    CLI_FLAG("--tensors", &o.tensors), CLI_FLAG("--json", &o.json),
        CLI_END,
    };
    const cli_args args = {.command = "hum inspect", .usage = usage, .options = options, .positional = &o.path,
                           .positional_what = "PATH"};
    int parsed = cli_args_parse(&args, argc, argv);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    if (!o.path || ((o.dequant || o.arch) && !o.layer))
        return cli_usage_error(&args, "%s", !o.path ? "PATH is required"
                                            : o.dequant ? "--dequant needs --layer NAME"
                                                        : "--arch needs --layer NAME");
    int arch_rc = cli_arch_check(&args, o.arch);
    if (arch_rc)
        return arch_rc;
    if (o.dequant && cli_output_allowed("hum inspect", "--dequant", o.dequant, o.force, o.path, NULL) != 0)
        return 1;
    hum_runtime *rt;
    if (cli_runtime_open("inspect", config, NULL, &rt) != 0)
        return 1;
    cJSON *root = o.json ? cJSON_CreateObject() : NULL;
    int rc = inspect(rt, &o, root);
    hum_runtime_destroy(rt);
    if (root) {
        char *text = rc == 0 ? cJSON_Print(root) : NULL;
        if (text)
            printf("%s\n", text);
        else if (rc == 0)
            rc = 1, fprintf(stderr, "hum inspect: out of memory\n");
        cJSON_free(text);
        cJSON_Delete(root);
    }
    return rc;
}
