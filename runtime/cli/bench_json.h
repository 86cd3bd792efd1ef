/* The result file of `hum bench` (schema "hum-bench/1", described in bench/README.md). */
#ifndef HUM_BENCH_JSON_H
#define HUM_BENCH_JSON_H

#include "hum/hum_tools.h"

#include <stddef.h>

/* One M of the sweep. Times are medians in microseconds; NaN marks a value not measured
 * (written as null). */
typedef struct bench_row {
    int64_t m;
    double hum_us;
    double cublas_us;
    double cublaslt_us; /* cuBLASLt fp8 (e4m3 A and B), when the layer computes in e4m3 */
    int32_t graph;      /* 1 when hum was timed as a CUDA-graph replay */
} bench_row;

/* Where one hum_layer_prepare went, in milliseconds (hum_layer_info: compile + load run beside
 * context + upload, so the phases add up to more than the wall time). */
typedef struct bench_phases {
    double plan, context, compile, upload, load;
} bench_phases;

typedef struct bench_report {
    char date[32];           /* ISO 8601 UTC, "2026-11-29T12:34:56Z" */
    char commit[64];         /* hum's git commit, "" when unknown */
    char hum_version[32];
    hum_device_info device;
    int32_t nvrtc_major, nvrtc_minor;
    char spec[512];          /* the --layer SPEC as given */
    int64_t n, k;
    hum_dtype activation;    /* what the host passes: float16 or bfloat16 */
    hum_dtype compute;       /* what the layer multiplies: the activation, or e4m3 / int8 it quantizes to */
    int64_t weight_bytes;    /* every tensor the layer reads per call: packed weight, scales, zero points, bias */
    double prepare_cold_ms;  /* hum_layer_prepare with an empty kernel cache */
    double prepare_warm_ms;  /* the same layer prepared again in the same process */
    bench_phases cold_phases, warm_phases; /* of the two prepares (written only when measured) */
    double host_overhead_us; /* host time of one hum_layer_forward call */
    double launch_floor_us;  /* host time of one bare driver launch (bench_floor.h) */
    int32_t warmup, reps;    /* untimed and timed calls per measurement */
    int64_t l2_flush_bytes;
    char cublas_library[256]; /* "" when cuBLAS was not used */
    char cublas_note[512];    /* why it was not, when it was not */
    char cublaslt_library[256]; /* cuBLASLt of the fp8 column; "" when not timed */
    char cublaslt_note[512];    /* why not, when the layer is e4m3 and it was not (at all, or at
                                 * "M = X", the first M it refused; its cells then null) */
    const bench_row *rows;
    int32_t row_count;
} bench_report;

/* Fills date (now, UTC), commit ($HUM_COMMIT, else `git rev-parse --short=12 HEAD` in the
 * current directory, else ""), hum_version and the NVRTC version. */
void bench_report_stamp(bench_report *r);

/* 2 * M * N * K / t in TFLOP/s, and (A + C + weight bytes) / t in GB/s, for t in µs. */
double bench_tflops(int64_t m, int64_t n, int64_t k, double us);
double bench_gbps(int64_t m, int64_t n, int64_t k, hum_dtype activation, int64_t weight_bytes, double us);

/* Lower-case letters, digits and dots kept, every other run of characters one '-':
 * "n=8192,k=8192,w=uint4" -> "n-8192-k-8192-w-uint4". */
void bench_slug(const char *text, char *out, size_t cap);

/* bench/results/<spec slug>-<device slug>-<YYYYMMDD-HHMMSS of date>.json, relative to the
 * current directory. HUM_ERR_INVALID_ARG when cap is too small. */
hum_status bench_default_path(const bench_report *r, char *out, size_t cap);

/* Writes the report as JSON to `path` (creating missing parent directories) through hum_file_write:
 * over an existing file only when `replace` is nonzero (hum bench: --force, or its own default
 * path, stamped to the second). HUM_ERR_IO naming the path on failure. */
hum_status bench_json_write(const bench_report *r, const char *path, int replace);

#endif
