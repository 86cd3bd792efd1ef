/* `hum bench` result files (see bench_json.h and bench/README.md). */
#define _POSIX_C_SOURCE 200809L

#include "bench_json.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void bench_report_stamp(bench_report *r)
{
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(r->date, sizeof r->date, "%Y-%m-%dT%H:%M:%SZ", &utc);
    snprintf(r->hum_version, sizeof r->hum_version, "%s", hum_version());
    hum_nvrtc_version(&r->nvrtc_major, &r->nvrtc_minor);
    r->commit[0] = '\0';
    const char *env = getenv("HUM_COMMIT");
    if (env != NULL && env[0] != '\0') {
        snprintf(r->commit, sizeof r->commit, "%s", env);
        return;
    }
    FILE *git = popen("git rev-parse --short=12 HEAD 2>/dev/null", "r");
    if (git == NULL)
        return;
    if (fgets(r->commit, sizeof r->commit, git) == NULL)
        r->commit[0] = '\0';
    r->commit[strcspn(r->commit, "\r\n")] = '\0';
    if (pclose(git) != 0)
        r->commit[0] = '\0';
}

double bench_tflops(int64_t m, int64_t n, int64_t k, double us)
{
    return 2.0 * (double)m * (double)n * (double)k / (us * 1e6);
}

double bench_gbps(int64_t m, int64_t n, int64_t k, hum_dtype activation, int64_t weight_bytes, double us)
{
    double elem = hum_dtype_bits(activation) / 8.0;
    double bytes = elem * ((double)m * (double)k + (double)m * (double)n) + (double)weight_bytes;
    return bytes / (us * 1e3);
}

void bench_slug(const char *text, char *out, size_t cap)
{
    size_t len = 0;
    int dash = 0;
    for (const char *p = text; *p != '\0' && len + 1 < cap; p++) {
        unsigned char ch = (unsigned char)*p;
        if (isalnum(ch) || ch == '.') {
            if (dash && len > 0 && len + 2 < cap)
                out[len++] = '-';
            out[len++] = (char)tolower(ch);
            dash = 0;
        } else {
            dash = 1;
        }
    }
    if (cap > 0)
        out[len] = '\0';
}

hum_status bench_default_path(const bench_report *r, char *out, size_t cap)
{
    char spec[160], device[96], stamp[32] = "";
    bench_slug(r->spec, spec, sizeof spec);
    bench_slug(r->device.name, device, sizeof device);
    /* "2026-11-29T12:34:56Z" -> "20261129-123456" */
    size_t s = 0;
    for (const char *p = r->date; *p != '\0' && s + 1 < sizeof stamp; p++) {
        if (isdigit((unsigned char)*p))
            stamp[s++] = *p;
        else if (*p == 'T')
            stamp[s++] = '-';
    }
    stamp[s] = '\0';
    int len = snprintf(out, cap, "bench/results/%s-%s-%s.json", spec, device[0] ? device : "unknown-device", stamp);
    if (len < 0 || (size_t)len >= cap)
        return hum_fail(HUM_ERR_INVALID_ARG, "bench result path needs %d bytes, have %zu", len, cap);
    return HUM_OK;
}

/* mkdir -p of the directory part of `path`. */
static hum_status make_parents(const char *path)
{
    char dir[4096];
    int len = snprintf(dir, sizeof dir, "%s", path);
    if (len < 0 || (size_t)len >= sizeof dir)
        return hum_fail(HUM_ERR_IO, "%s: path too long", path);
    for (char *p = dir + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return hum_fail(HUM_ERR_IO, "%s: cannot create directory %s: %s", path, dir, strerror(errno));
        *p = '/';
    }
    return HUM_OK;
}

static cJSON *number_or_null(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *string_or_null(const char *s)
{
    return s[0] != '\0' ? cJSON_CreateString(s) : cJSON_CreateNull();
}

/* The phases of a prepare whose total was measured, else null. */
static cJSON *phases_or_null(const bench_phases *p, double total_ms)
{
    if (!isfinite(total_ms))
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "plan", p->plan);
    cJSON_AddNumberToObject(o, "context", p->context);
    cJSON_AddNumberToObject(o, "compile", p->compile);
    cJSON_AddNumberToObject(o, "upload", p->upload);
    cJSON_AddNumberToObject(o, "load", p->load);
    return o;
}

static cJSON *build(const bench_report *r)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "hum-bench/1");
    cJSON_AddStringToObject(root, "date", r->date);
    cJSON_AddItemToObject(root, "commit", string_or_null(r->commit));
    cJSON_AddStringToObject(root, "hum_version", r->hum_version);
    char text[64];
    snprintf(text, sizeof text, "%d.%d", r->nvrtc_major, r->nvrtc_minor);
    cJSON_AddStringToObject(root, "nvrtc", text);

    cJSON *dev = cJSON_AddObjectToObject(root, "device");
    cJSON_AddStringToObject(dev, "name", r->device.name);
    snprintf(text, sizeof text, "%d.%d", r->device.sm_major, r->device.sm_minor);
    cJSON_AddStringToObject(dev, "compute_capability", text);
    cJSON_AddNumberToObject(dev, "sm_count", r->device.sm_count);
    cJSON_AddNumberToObject(dev, "l2_bytes", (double)r->device.l2_bytes);
    cJSON_AddNumberToObject(dev, "memory_bytes", (double)r->device.total_memory_bytes);
    cJSON_AddNumberToObject(dev, "driver_version", r->device.driver_version);

    cJSON *layer = cJSON_AddObjectToObject(root, "layer");
    cJSON_AddStringToObject(layer, "spec", r->spec);
    cJSON_AddNumberToObject(layer, "n", (double)r->n);
    cJSON_AddNumberToObject(layer, "k", (double)r->k);
    cJSON_AddStringToObject(layer, "activation", hum_dtype_name(r->activation));
    cJSON_AddStringToObject(layer, "compute_activation", hum_dtype_name(r->compute ? r->compute : r->activation));
    cJSON_AddNumberToObject(layer, "weight_bytes", (double)r->weight_bytes);

    cJSON *prep = cJSON_AddObjectToObject(root, "prepare_ms");
    cJSON_AddItemToObject(prep, "cold", number_or_null(r->prepare_cold_ms));
    cJSON_AddItemToObject(prep, "warm", number_or_null(r->prepare_warm_ms));
    cJSON *phases = cJSON_AddObjectToObject(root, "prepare_phases_ms");
    cJSON_AddItemToObject(phases, "cold", phases_or_null(&r->cold_phases, r->prepare_cold_ms));
    cJSON_AddItemToObject(phases, "warm", phases_or_null(&r->warm_phases, r->prepare_warm_ms));
    cJSON_AddItemToObject(root, "host_overhead_us", number_or_null(r->host_overhead_us));
    cJSON_AddItemToObject(root, "launch_floor_us", number_or_null(r->launch_floor_us));

    cJSON *timing = cJSON_AddObjectToObject(root, "timing");
    cJSON_AddStringToObject(timing, "statistic", "median");
    cJSON_AddNumberToObject(timing, "warmup", r->warmup);
    cJSON_AddNumberToObject(timing, "reps", r->reps);
    cJSON_AddNumberToObject(timing, "l2_flush_bytes", (double)r->l2_flush_bytes);

    cJSON *cublas = cJSON_AddObjectToObject(root, "cublas");
    cJSON_AddItemToObject(cublas, "library", string_or_null(r->cublas_library));
    cJSON_AddItemToObject(cublas, "note", string_or_null(r->cublas_note));

    cJSON *lt = cJSON_AddObjectToObject(root, "cublaslt_fp8");
    cJSON_AddItemToObject(lt, "library", string_or_null(r->cublaslt_library));
    cJSON_AddItemToObject(lt, "note", string_or_null(r->cublaslt_note));

    cJSON *rows = cJSON_AddArrayToObject(root, "results");
    for (int32_t i = 0; i < r->row_count; i++) {
        const bench_row *row = &r->rows[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "m", (double)row->m);
        cJSON_AddItemToObject(o, "hum_us", number_or_null(row->hum_us));
        cJSON_AddItemToObject(o, "cublas_us", number_or_null(row->cublas_us));
        cJSON_AddItemToObject(o, "ratio", number_or_null(row->cublas_us / row->hum_us));
        cJSON_AddItemToObject(o, "cublaslt_fp8_us", number_or_null(row->cublaslt_us));
        cJSON_AddItemToObject(o, "tflops", number_or_null(bench_tflops(row->m, r->n, r->k, row->hum_us)));
        cJSON_AddItemToObject(
            o, "gbps", number_or_null(bench_gbps(row->m, r->n, r->k, r->activation, r->weight_bytes, row->hum_us)));
        cJSON_AddBoolToObject(o, "graph", row->graph != 0);
        cJSON_AddItemToArray(rows, o);
    }
    return root;
}

hum_status bench_json_write(const bench_report *r, const char *path, int replace)
{
    hum_status st = make_parents(path);
    if (st != HUM_OK)
        return st;
    cJSON *root = build(r);
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (text == NULL)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: building the JSON text", path);
    const size_t len = strlen(text);
    char *line = realloc(text, len + 2);
    if (line == NULL) {
        free(text);
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: building the JSON text", path);
    }
    line[len] = '\n';
    line[len + 1] = '\0';
    st = hum_file_write(path, line, len + 1, replace);
    free(line);
    return st == HUM_OK ? HUM_OK : hum_fail_context(st, "writing the bench results");
}
