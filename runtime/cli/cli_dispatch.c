/* cli_dispatch.h: showing dispatch tables. */
#include "cli_dispatch.h"

#include <stdint.h>
#include <string.h>

void cli_m_range(const hum_tuning *t, char *out, size_t cap)
{
    if (t->m_max == INT64_MAX)
        snprintf(out, cap, "M %lld..inf", (long long)t->m_min);
    else
        snprintf(out, cap, "M %lld..%lld", (long long)t->m_min, (long long)t->m_max);
}

const char *cli_kernel_name(int32_t kernel)
{
    const char *name = hum_gemm_kernel_name(kernel);
    return name ? name : "unknown";
}

static int32_t kernel_of(const char *name)
{
    for (int32_t k = 0; hum_gemm_kernel_name(k); k++)
        if (strcmp(name, hum_gemm_kernel_name(k)) == 0)
            return k;
    return HUM_GEMM_KERNEL_MMA;
}

/* ", stream-K", ", stream-K summed in the workspace" (stream_k_sum), with " (tiles whole where
 * they fill N % of the waves)" where whole_fill is N, or "" (no stream-K), into out. */
static void stream_k_text(const hum_tuning *t, char *out, size_t cap)
{
    snprintf(out, cap, "%s", !t->stream_k ? "" : t->stream_k_sum ? ", stream-K summed in the workspace" : ", stream-K");
    if (t->stream_k && t->whole_fill) {
        const size_t len = strlen(out);
        snprintf(out + len, cap > len ? cap - len : 0, " (tiles whole where they fill %d %% of the waves)",
                 t->whole_fill);
    }
}

/* ", promote_k N" (e4m3 accumulators promoted every N of K; at or above K never), or "" (the
 * default, 128). */
static void promote_text(const hum_tuning *t, char *out, size_t cap)
{
    snprintf(out, cap, "%s", "");
    if (t->promote_k)
        snprintf(out, cap, ", promote_k %d", t->promote_k);
}

/* ", tiles in groups of G m-blocks" where group_m is G, or "" (the default, 8). */
static void group_text(const hum_tuning *t, char *out, size_t cap)
{
    snprintf(out, cap, "%s", "");
    if (t->group_m)
        snprintf(out, cap, ", tiles in groups of %d m-blocks", t->group_m);
}

void cli_tuning_text(const hum_tuning *t, char *out, size_t cap)
{
    char promote[48], group[48], stream_k[96];
    promote_text(t, promote, sizeof promote);
    group_text(t, group, sizeof group);
    stream_k_text(t, stream_k, sizeof stream_k);
    snprintf(out, cap, "%s block %dx%dx%d, warp %dx%dx%d, %d stages, %d CTA%s/SM%s%s%s%s%s%s%s",
             cli_kernel_name(t->kernel), t->block_m, t->block_n, t->block_k, t->warp_m, t->warp_n, t->warp_k,
             t->stages, t->ctas_per_sm, t->ctas_per_sm == 1 ? "" : "s", stream_k, promote, group,
             t->c_tile ? ", C staged in the last stage" : "", t->multicast_a ? ", A multicast to 2-CTA clusters" : "",
             t->weights_ss ? ", weights in shared memory by TMA" : "",
             t->quantize_a ? ", A quantized by the GEMM" : "");
}

static cJSON *triple(int32_t a, int32_t b, int32_t c)
{
    const int v[3] = {a, b, c};
    return cJSON_CreateIntArray(v, 3);
}

cJSON *cli_dispatch_json(const hum_layer_dispatch *d)
{
    cJSON *o = cJSON_CreateObject(), *ranges = cJSON_CreateArray();
    cJSON_AddStringToObject(o, "policy", d->policy_name);
    cJSON_AddStringToObject(o, "policy_origin", d->policy_origin);
    cJSON_AddStringToObject(o, "device", d->device_name);
    cJSON_AddStringToObject(o, "arch", d->arch);
    cJSON_AddStringToObject(o, "activation", d->activation);
    for (int32_t i = 0; i < d->row_count; i++) {
        const hum_dispatch_row *r = &d->rows[i];
        const hum_tuning *t = &r->tuning;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "m_min", (double)t->m_min);
        if (t->m_max == INT64_MAX)
            cJSON_AddNullToObject(e, "m_max");
        else
            cJSON_AddNumberToObject(e, "m_max", (double)t->m_max);
        cJSON_AddStringToObject(e, "kernel", cli_kernel_name(t->kernel));
        cJSON_AddItemToObject(e, "block", triple(t->block_m, t->block_n, t->block_k));
        cJSON_AddItemToObject(e, "warp", triple(t->warp_m, t->warp_n, t->warp_k));
        cJSON_AddNumberToObject(e, "stages", t->stages);
        cJSON_AddNumberToObject(e, "ctas_per_sm", t->ctas_per_sm);
        cJSON_AddBoolToObject(e, "stream_k", t->stream_k);
        cJSON_AddStringToObject(e, "stream_k_sum", t->stream_k_sum ? "workspace" : "output");
        cJSON_AddNumberToObject(e, "whole_fill", t->whole_fill);
        cJSON_AddNumberToObject(e, "promote_k", t->promote_k);
        cJSON_AddNumberToObject(e, "group_m", t->group_m);
        cJSON_AddStringToObject(e, "c_tile", t->c_tile ? "stage" : "own");
        cJSON_AddBoolToObject(e, "multicast_a", t->multicast_a);
        cJSON_AddBoolToObject(e, "weights_ss", t->weights_ss);
        cJSON_AddBoolToObject(e, "quantize_a", t->quantize_a);
        cJSON_AddNumberToObject(e, "smem_bytes", (double)r->smem_bytes);
        cJSON_AddNumberToObject(e, "threads", r->threads);
        cJSON_AddStringToObject(e, "origin", r->origin);
        cJSON_AddItemToArray(ranges, e);
    }
    cJSON_AddItemToObject(o, "ranges", ranges);
    return o;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int32_t num(const cJSON *o, const char *key, int index)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (index >= 0)
        v = cJSON_GetArrayItem(v, index);
    return cJSON_IsNumber(v) ? (int32_t)v->valuedouble : 0;
}

void cli_print_dispatch_json(FILE *f, const cJSON *d, int indent)
{
    const cJSON *ranges = cJSON_GetObjectItemCaseSensitive(d, "ranges");
    const int count = cJSON_GetArraySize(ranges);
    fprintf(f, "%*spolicy %s (%s) on %s, kernels for %s: %d M range%s\n", indent, "", str(d, "policy"),
            str(d, "policy_origin"), str(d, "device"), str(d, "arch"), count, count == 1 ? "" : "s");
    if (str(d, "activation")[0])
        fprintf(f, "%*sactivations: %s\n", indent, "", str(d, "activation"));
    for (const cJSON *e = ranges ? ranges->child : NULL; e; e = e->next) {
        const cJSON *m_max = cJSON_GetObjectItemCaseSensitive(e, "m_max");
        hum_tuning t = {
            .m_min = (int64_t)cJSON_GetObjectItemCaseSensitive(e, "m_min")->valuedouble,
            .m_max = cJSON_IsNumber(m_max) ? (int64_t)m_max->valuedouble : INT64_MAX,
            .block_m = num(e, "block", 0), .block_n = num(e, "block", 1), .block_k = num(e, "block", 2),
            .warp_m = num(e, "warp", 0), .warp_n = num(e, "warp", 1), .warp_k = num(e, "warp", 2),
            .stages = num(e, "stages", -1), .ctas_per_sm = num(e, "ctas_per_sm", -1),
            .stream_k = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "stream_k")),
            .kernel = kernel_of(str(e, "kernel")),
            .stream_k_sum = strcmp(str(e, "stream_k_sum"), "workspace") == 0,
            .whole_fill = num(e, "whole_fill", -1),
            .promote_k = num(e, "promote_k", -1),
            .group_m = num(e, "group_m", -1),
            .c_tile = strcmp(str(e, "c_tile"), "stage") == 0,
            .multicast_a = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "multicast_a")),
            .weights_ss = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "weights_ss")),
            .quantize_a = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "quantize_a")),
        };
        char range[48], tuning[320];
        cli_m_range(&t, range, sizeof range);
        cli_tuning_text(&t, tuning, sizeof tuning);
        fprintf(f, "%*s  %-13s %s; %d B smem, %d threads; from %s\n", indent, "", range, tuning,
                num(e, "smem_bytes", -1), num(e, "threads", -1), str(e, "origin"));
    }
}

void cli_print_dispatch(FILE *f, const hum_layer_dispatch *d, int indent)
{
    cJSON *j = cli_dispatch_json(d);
    if (j)
        cli_print_dispatch_json(f, j, indent);
    cJSON_Delete(j);
}
