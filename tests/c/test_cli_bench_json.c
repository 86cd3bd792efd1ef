/* `hum bench` result files: a report written by bench_json_write parses back with cJSON into
 * the same values (numbers, nulls for what was not measured, derived TFLOP/s, GB/s and ratio
 * recomputed here from their definitions), the default path is built from the slugs, and an
 * unwritable path fails with HUM_ERR_IO naming it; the stamp takes the commit from HUM_COMMIT and
 * dates in ISO 8601 UTC. Also the median used by the timer. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "bench_json.h"
#include "bench_timer.h"
#include "rt_test.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *parse_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char text[1 << 16];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    return cJSON_Parse(text);
}

static double num(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int is_null(const cJSON *o, const char *key)
{
    return cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, key));
}

static int close_to(double got, double want)
{
    return fabs(got - want) <= 1e-12 * fabs(want);
}

static void check_round_trip(const char *dir)
{
    const bench_row rows[] = {
        {.m = 1, .hum_us = 21.5, .cublas_us = 48.25, .cublaslt_us = NAN, .graph = 1},
        {.m = 128, .hum_us = 40.0, .cublas_us = NAN, .cublaslt_us = 30.5, .graph = 0},
        {.m = 8192, .hum_us = NAN, .cublas_us = 1700.0, .cublaslt_us = NAN, .graph = 1},
    };
    bench_report r = {
        .date = "2026-11-29T12:34:56Z",
        .commit = "",
        .hum_version = "0.1.0",
        .device = {.name = "NVIDIA H200", .sm_major = 9, .sm_minor = 0, .sm_count = 132,
                   .l2_bytes = 62914560, .total_memory_bytes = 150754820096LL, .driver_version = 13000},
        .nvrtc_major = 13,
        .nvrtc_minor = 0,
        .spec = "n=8192,k=8192,w=uint4,a=float16,group=128",
        .n = 8192,
        .k = 8192,
        .activation = HUM_DTYPE_FLOAT16,
        .weight_bytes = 8192LL * 8192 / 2 + 8192LL * 64 * 2,
        .prepare_cold_ms = 1834.5,
        .prepare_warm_ms = NAN,
        .cold_phases = {.plan = 12.5, .context = 250.0, .compile = 1080.5, .upload = 700.25, .load = 9.75},
        .host_overhead_us = 3.25,
        .launch_floor_us = 3.125,
        .warmup = 10,
        .reps = 50,
        .l2_flush_bytes = 268435456,
        .cublas_library = "libcublas.so.13",
        .cublas_note = "",
        .rows = rows,
        .row_count = 3,
    };
    char path[4200];
    snprintf(path, sizeof path, "%s/deep/er/result.json", dir);
    hum_status st = bench_json_write(&r, path, 0);
    RT_CHECK(st == HUM_OK, "bench_json_write: %s", hum_last_error());
    /* an existing file stays unless the caller replaces it (hum bench --force) */
    const double reps = r.reps;
    r.reps = 7;
    RT_EXPECT_ERROR(bench_json_write(&r, path, 0), HUM_ERR_IO, "an existing result without replace", "result.json");
    cJSON *kept = parse_file(path);
    RT_CHECK(kept && num(cJSON_GetObjectItemCaseSensitive(kept, "timing"), "reps") == reps,
             "the existing result was changed");
    cJSON_Delete(kept);
    RT_CHECK(bench_json_write(&r, path, 1) == HUM_OK, "bench_json_write, replacing: %s", hum_last_error());
    kept = parse_file(path);
    RT_CHECK(kept && num(cJSON_GetObjectItemCaseSensitive(kept, "timing"), "reps") == 7,
             "the result was not replaced");
    cJSON_Delete(kept);
    r.reps = (int32_t)reps;
    RT_CHECK(bench_json_write(&r, path, 1) == HUM_OK, "bench_json_write, back: %s", hum_last_error());
    cJSON *root = parse_file(path);
    if (!RT_CHECK(root != NULL, "%s does not parse back", path))
        return;
    RT_CHECK(!strcmp(str(root, "schema"), "hum-bench/1"), "schema %s", str(root, "schema"));
    RT_CHECK(!strcmp(str(root, "date"), r.date), "date %s", str(root, "date"));
    RT_CHECK(is_null(root, "commit"), "an unknown commit is null");
    RT_CHECK(!strcmp(str(root, "nvrtc"), "13.0"), "nvrtc %s", str(root, "nvrtc"));
    const cJSON *dev = cJSON_GetObjectItemCaseSensitive(root, "device");
    RT_CHECK(!strcmp(str(dev, "name"), "NVIDIA H200"), "device name %s", str(dev, "name"));
    RT_CHECK(!strcmp(str(dev, "compute_capability"), "9.0"), "cc %s", str(dev, "compute_capability"));
    RT_CHECK(num(dev, "sm_count") == 132 && num(dev, "driver_version") == 13000 &&
                 num(dev, "memory_bytes") == 150754820096.0,
             "device numbers");
    const cJSON *layer = cJSON_GetObjectItemCaseSensitive(root, "layer");
    RT_CHECK(!strcmp(str(layer, "spec"), r.spec), "spec %s", str(layer, "spec"));
    RT_CHECK(!strcmp(str(layer, "activation"), "float16") && !strcmp(str(layer, "compute_activation"), "float16"),
             "activation %s, computed as %s", str(layer, "activation"), str(layer, "compute_activation"));
    RT_CHECK(num(layer, "n") == 8192 && num(layer, "k") == 8192 && num(layer, "weight_bytes") == (double)r.weight_bytes,
             "layer numbers");
    const cJSON *prep = cJSON_GetObjectItemCaseSensitive(root, "prepare_ms");
    RT_CHECK(num(prep, "cold") == 1834.5 && is_null(prep, "warm"), "prepare_ms cold %g, warm not measured",
             num(prep, "cold"));
    const cJSON *phases = cJSON_GetObjectItemCaseSensitive(root, "prepare_phases_ms");
    const cJSON *cold = cJSON_GetObjectItemCaseSensitive(phases, "cold");
    RT_CHECK(num(cold, "plan") == 12.5 && num(cold, "context") == 250.0 && num(cold, "compile") == 1080.5 &&
                 num(cold, "upload") == 700.25 && num(cold, "load") == 9.75 && is_null(phases, "warm"),
             "prepare phases: cold plan %g context %g compile %g upload %g load %g, warm not measured",
             num(cold, "plan"), num(cold, "context"), num(cold, "compile"), num(cold, "upload"), num(cold, "load"));
    RT_CHECK(num(root, "host_overhead_us") == 3.25 && num(root, "launch_floor_us") == 3.125,
             "host overhead %g, launch floor %g", num(root, "host_overhead_us"), num(root, "launch_floor_us"));
    const cJSON *timing = cJSON_GetObjectItemCaseSensitive(root, "timing");
    RT_CHECK(num(timing, "reps") == 50 && num(timing, "warmup") == 10 && num(timing, "l2_flush_bytes") == 268435456.0 &&
                 !strcmp(str(timing, "statistic"), "median"),
             "timing block");
    const cJSON *cublas = cJSON_GetObjectItemCaseSensitive(root, "cublas");
    RT_CHECK(!strcmp(str(cublas, "library"), "libcublas.so.13") && is_null(cublas, "note"), "cublas block");

    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    RT_CHECK(cJSON_GetArraySize(results) == 3, "%d results", cJSON_GetArraySize(results));
    const cJSON *r0 = cJSON_GetArrayItem(results, 0), *r1 = cJSON_GetArrayItem(results, 1),
                *r2 = cJSON_GetArrayItem(results, 2);
    /* M = 1: 2*1*8192*8192 flop in 21.5 us; bytes 2*(8192 + 8192) + weight_bytes. */
    double flops = 2.0 * 8192 * 8192, bytes = 2.0 * (8192 + 8192) + (double)r.weight_bytes;
    RT_CHECK(num(r0, "m") == 1 && num(r0, "hum_us") == 21.5 && num(r0, "cublas_us") == 48.25, "row 0 times");
    RT_CHECK(close_to(num(r0, "ratio"), 48.25 / 21.5), "ratio %g", num(r0, "ratio"));
    RT_CHECK(close_to(num(r0, "tflops"), flops / 21.5e-6 / 1e12), "tflops %g", num(r0, "tflops"));
    RT_CHECK(close_to(num(r0, "gbps"), bytes / 21.5e-6 / 1e9), "gbps %g", num(r0, "gbps"));
    RT_CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r0, "graph")), "row 0 graph");
    RT_CHECK(num(r1, "m") == 128 && is_null(r1, "cublas_us") && is_null(r1, "ratio") &&
                 cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(r1, "graph")),
             "row 1: no cuBLAS time, no ratio, direct launches");
    RT_CHECK(is_null(r0, "cublaslt_fp8_us") && num(r1, "cublaslt_fp8_us") == 30.5, "cuBLASLt fp8 times");
    const cJSON *lt = cJSON_GetObjectItemCaseSensitive(root, "cublaslt_fp8");
    RT_CHECK(is_null(lt, "library") && is_null(lt, "note"), "cuBLASLt block of a 16-bit layer");
    RT_CHECK(is_null(r2, "hum_us") && is_null(r2, "tflops") && is_null(r2, "gbps") && num(r2, "cublas_us") == 1700.0,
             "row 2: no hum time");
    cJSON_Delete(root);

    char def[512];
    RT_CHECK(bench_default_path(&r, def, sizeof def) == HUM_OK, "default path: %s", hum_last_error());
    RT_CHECK(!strcmp(def, "bench/results/n-8192-k-8192-w-uint4-a-float16-group-128-nvidia-h200-20261129-123456.json"),
             "default path %s", def);
    RT_CHECK(bench_default_path(&r, def, 20) == HUM_ERR_INVALID_ARG, "a short buffer is refused");

    /* A file where a directory should be: HUM_ERR_IO naming the path. */
    char blocked[4200];
    snprintf(blocked, sizeof blocked, "%s/deep/er/result.json/x.json", dir);
    RT_EXPECT_ERROR(bench_json_write(&r, blocked, 0), HUM_ERR_IO, "unwritable path", "x.json");
}

static void check_median(void)
{
    double odd[] = {5, 1, 4, 2, 3};
    double even[] = {10, 1, 7, 4};
    RT_CHECK(bench_median(odd, 5) == 3.0, "median of 5 values");
    RT_CHECK(bench_median(even, 4) == 5.5, "median of 4 values");
    RT_CHECK(isnan(bench_median(odd, 0)), "median of none is NaN");
}

static void check_slug(void)
{
    char out[64];
    bench_slug("  NVIDIA H200 (SXM) ", out, sizeof out);
    RT_CHECK(!strcmp(out, "nvidia-h200-sxm"), "slug %s", out);
    bench_slug("n=1,k=2", out, 4);
    RT_CHECK(!strcmp(out, "n-1"), "truncated slug %s", out);
}

static void check_stamp(void)
{
    bench_report r = {0};
    setenv("HUM_COMMIT", "0123abcd", 1);
    bench_report_stamp(&r);
    RT_CHECK(!strcmp(r.commit, "0123abcd"), "commit from HUM_COMMIT: %s", r.commit);
    int year, mon, day, hh, mm, ss;
    char z = 0;
    RT_CHECK(strlen(r.date) == 20 &&
                 sscanf(r.date, "%4d-%2d-%2dT%2d:%2d:%2d%c", &year, &mon, &day, &hh, &mm, &ss, &z) == 7 && z == 'Z' &&
                 year >= 2024 && mon >= 1 && mon <= 12,
             "date %s", r.date);
    RT_CHECK(!strcmp(r.hum_version, hum_version()) && r.nvrtc_major >= 11, "version %s, nvrtc %d", r.hum_version,
             r.nvrtc_major);
    unsetenv("HUM_COMMIT");
}

int main(void)
{
    check_stamp();
    char dir[4096];
    rt_tmpdir("bench-json", dir, sizeof dir);
    check_round_trip(dir);
    check_median();
    check_slug();
    rt_rmtree(dir);
    return rt_test_result("test_cli_bench_json");
}
