/* `hum inspect PATH`: the quantized layers of a checkpoint (a .safetensors file or a checkpoint
 * directory), one line each; with --layer NAME the standard form of that layer; with --dequant
 * OUT.safetensors its dequantized weight, float32 [N, K] ([E, N, K] for experts) under the tensor
 * name "weight", in checkpoint column order (act-order undone). */
#include "cli.h"
#include "cli_args.h"
#include "cli_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: hum inspect PATH [--layer NAME [--dequant OUT.safetensors]] [--config FILE]\n\n"
               "PATH is a .safetensors file or a checkpoint directory. Prints one line per quantized layer:\n"
               "name, format, weight dtype, bits, group size, scale type, sym/asym, act-order, N, K, experts.\n"
               "Per-expert modules (...experts.<i>.<proj>) are listed as one layer ...experts.*.<proj>.\n"
               "--layer NAME       print only that layer, and the standard form it converts to\n"
               "--dequant OUT      write its dequantized weight (float32 [N, K], experts [E, N, K], tensor\n"
               "                   \"weight\", checkpoint column order) to OUT.safetensors\n");
}

static void print_header(void)
{
    printf("%-48s %-36s %-14s %4s %6s %-14s %-4s %-9s %7s %7s %7s\n", "layer", "format", "weight", "bits", "group",
           "scale", "zero", "act-order", "N", "K", "experts");
}

static void print_layer(const hum_layer_summary *l)
{
    printf("%-48s %-36s %-14s %4d %6lld %-14s %-4s %-9s %7lld %7lld %7lld\n", l->name, l->format,
           hum_dtype_name(l->weight_dtype), l->bits, (long long)l->group_size, l->scale, l->symmetric ? "sym" : "asym",
           l->act_order ? "yes" : "no", (long long)l->n, (long long)l->k, (long long)l->num_experts);
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
    printf("standard form:\n  weight_dtype  %s\n  param_dtype   %s\n  scale         %s, %s", hum_dtype_name(w->weight_dtype),
           hum_dtype_name(w->param_dtype), scale_type_name(w->scale_type), hum_dtype_name(w->scale_dtype));
    if (w->group_size)
        printf(", group_size %lld", (long long)w->group_size);
    if (w->group_size_n)
        printf(", group_size_n %lld", (long long)w->group_size_n);
    printf("\n  zero point    %s\n", !w->has_zero_point ? "none (midpoint for ints)" : w->zero_point_is_float ? "float" : "int");
    print_tensor("weight", &w->weight);
    print_tensor("scale", &w->scale);
    print_tensor("zero_point", &w->zero_point);
    print_tensor("global_scale", &w->global_scale);
    if (w->global_scale.data)
        printf("  global        %.9g%s\n", ((const float *)w->global_scale.data)[0],
               w->global_scale.shape[0] > 1 ? " (first expert)" : "");
    print_tensor("bias", &w->bias);
    print_tensor("k_perm", &w->k_perm);
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

static int inspect(hum_runtime *rt, const char *path, const char *layer, const char *dequant)
{
    hum_checkpoint *ck = NULL;
    hum_layer_list list = {0};
    hum_status s = hum_checkpoint_open(path, &ck);
    if (s == HUM_OK)
        s = hum_checkpoint_list_layers(rt, ck, &list);
    if (s != HUM_OK) {
        fprintf(stderr, "hum inspect: %s\n", hum_last_error());
        hum_checkpoint_close(ck);
        return 1;
    }
    int rc = 0;
    printf("%s: %lld tensors, %lld quantized layer%s\n", path, (long long)hum_checkpoint_tensor_count(ck),
           (long long)list.count, list.count == 1 ? "" : "s");
    print_header();
    for (int64_t i = 0; i < list.count; i++)
        if (!layer || strcmp(layer, list.items[i].name) == 0)
            print_layer(&list.items[i]);
    /* A layer not in the listing may still be loadable: one expert of a stacked set. */
    if (layer) {
        hum_standard_weight w = {0};
        s = hum_checkpoint_load_layer(rt, ck, layer, &w);
        if (s == HUM_OK) {
            print_standard(&w);
            if (dequant && (s = write_dequant(&w, dequant)) == HUM_OK)
                printf("wrote %s: tensor \"weight\" float32 [%s%lld, %lld]\n", dequant,
                       w.num_experts ? "E, " : "", (long long)w.n, (long long)w.k);
        }
        if (s != HUM_OK) {
            fprintf(stderr, "hum inspect: %s\n", hum_last_error());
            rc = 1;
        }
        hum_standard_free(&w);
    }
    hum_layer_list_free(&list);
    hum_checkpoint_close(ck);
    return rc;
}

int hum_cmd_inspect(const char *config, int argc, char **argv)
{
    const char *path = NULL, *layer = NULL, *dequant = NULL;
    const cli_option options[] = {
        CLI_VALUE("--config", &config), CLI_VALUE("--layer", &layer), CLI_VALUE("--dequant", &dequant), CLI_END,
    };
    const cli_args args = {.command = "hum inspect", .usage = usage, .options = options, .positional = &path,
                           .positional_what = "PATH"};
    int parsed = cli_args_parse(&args, argc, argv);
    if (parsed)
        return parsed == 1 ? 0 : 2;
    if (!path || (dequant && !layer))
        return cli_usage_error(&args, "%s", !path ? "PATH is required" : "--dequant needs --layer NAME");
    hum_runtime *rt;
    if (cli_runtime_open("inspect", config, NULL, &rt) != 0)
        return 1;
    int rc = inspect(rt, path, layer, dequant);
    hum_runtime_destroy(rt);
    return rc;
}
