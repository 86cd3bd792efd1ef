/* CUDA-event timing with L2 flush and graph replay (see bench_timer.h). */
#define _POSIX_C_SOURCE 200809L

#include "bench_timer.h"

#include <cudaTypedefs.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BENCH_FLUSH_MIN_BYTES = 256 << 20 };

/* The driver entry points the timer uses, from the driver libhum loaded (hum_cuda_entry):
 * X(name, ABI version of its PFN type in <cudaTypedefs.h>). Macro names of <cuda.h>
 * (cuStreamDestroy -> cuStreamDestroy_v2) expand alike in the field and at every use. */
#define BENCH_CUDA_ENTRIES(X)                                                                      \
    X(cuStreamCreate, 2000)                                                                        \
    X(cuStreamDestroy, 4000)                                                                       \
    X(cuStreamSynchronize, 2000)                                                                   \
    X(cuStreamBeginCapture, 10010)                                                                 \
    X(cuStreamEndCapture, 10000)                                                                   \
    X(cuEventCreate, 2000)                                                                         \
    X(cuEventDestroy, 4000)                                                                        \
    X(cuEventRecord, 2000)                                                                         \
    X(cuEventSynchronize, 2000)                                                                    \
    X(cuEventElapsedTime, 2000)                                                                    \
    X(cuGraphInstantiateWithFlags, 11040)                                                          \
    X(cuGraphUpload, 11010)                                                                        \
    X(cuGraphLaunch, 10000)                                                                        \
    X(cuGraphExecDestroy, 10000)                                                                   \
    X(cuGraphDestroy, 10000)                                                                       \
    X(cuMemsetD8Async, 3020)

#define BENCH_CUDA_FIELD(name, version) PFN_##name##_v##version name;
typedef struct bench_cuda_api {
    BENCH_CUDA_ENTRIES(BENCH_CUDA_FIELD)
} bench_cuda_api;
#undef BENCH_CUDA_FIELD

static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;
static bench_cuda_api api;
static hum_status resolve_status;
static char resolve_message[512];

static void resolve(void)
{
    void *fn;
#define BENCH_CUDA_RESOLVE(name, version)                                                          \
    if ((resolve_status = hum_cuda_entry(#name, version, &fn)) != HUM_OK) {                        \
        snprintf(resolve_message, sizeof resolve_message, "%s", hum_last_error());                 \
        return;                                                                                    \
    }                                                                                              \
    api.name = (PFN_##name##_v##version)fn;
    BENCH_CUDA_ENTRIES(BENCH_CUDA_RESOLVE)
#undef BENCH_CUDA_RESOLVE
}

/* The table, or NULL with hum_last_error() saying why (no driver, or an entry it lacks). */
static const bench_cuda_api *bench_cuda(void)
{
    pthread_once(&resolve_once, resolve);
    if (resolve_status != HUM_OK) {
        hum_fail(resolve_status, "%s", resolve_message);
        return NULL;
    }
    return &api;
}

hum_status bench_timer_create(int32_t ordinal, int64_t l2_bytes, bench_timer *t)
{
    memset(t, 0, sizeof *t);
    const bench_cuda_api *cu = bench_cuda();
    if (cu == NULL)
        return resolve_status;
    size_t bytes = BENCH_FLUSH_MIN_BYTES;
    if (l2_bytes > 0 && (size_t)l2_bytes * 4 > bytes)
        bytes = (size_t)l2_bytes * 4;
    hum_status st = hum_device_alloc(ordinal, bytes, &t->flush);
    if (st != HUM_OK)
        return hum_fail_context(st, "the L2 flush buffer (%zu MiB)", bytes >> 20);
    t->flush_bytes = bytes;
    /* hum_device_alloc made the device's primary context current on this thread. */
    if ((st = hum_cuda_result(cu->cuStreamCreate(&t->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate")) != HUM_OK ||
        (st = hum_cuda_result(cu->cuEventCreate(&t->start, CU_EVENT_DEFAULT), "cuEventCreate")) != HUM_OK ||
        (st = hum_cuda_result(cu->cuEventCreate(&t->stop, CU_EVENT_DEFAULT), "cuEventCreate")) != HUM_OK) {
        bench_timer_destroy(t);
        return st;
    }
    return HUM_OK;
}

void bench_timer_destroy(bench_timer *t)
{
    const bench_cuda_api *cu = bench_cuda();
    if (cu != NULL) {
        if (t->stop)
            cu->cuEventDestroy(t->stop);
        if (t->start)
            cu->cuEventDestroy(t->start);
        if (t->stream)
            cu->cuStreamDestroy(t->stream);
    }
    hum_device_free(t->flush);
    memset(t, 0, sizeof *t);
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *values, int32_t count)
{
    if (count <= 0)
        return NAN;
    qsort(values, (size_t)count, sizeof *values, compare_double);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* Records fn into a graph. HUM_OK with *exec set, or HUM_OK with *exec NULL when the stream
 * could not be captured (fn used an operation a capture refuses); other failures are errors. */
static hum_status capture(const bench_cuda_api *cu, bench_timer *t, bench_enqueue_fn fn, void *ctx,
                          CUgraphExec *exec)
{
    *exec = NULL;
    hum_status st = hum_cuda_result(cu->cuStreamBeginCapture(t->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                                   "cuStreamBeginCapture");
    if (st != HUM_OK)
        return st;
    hum_status fn_status = fn(ctx, t->stream);
    CUgraph graph = NULL;
    CUresult end = cu->cuStreamEndCapture(t->stream, &graph);
    if (fn_status != HUM_OK || end != CUDA_SUCCESS || graph == NULL) {
        if (graph != NULL)
            cu->cuGraphDestroy(graph);
        return HUM_OK;
    }
    st = hum_cuda_result(cu->cuGraphInstantiateWithFlags(exec, graph, 0), "cuGraphInstantiateWithFlags");
    cu->cuGraphDestroy(graph);
    if (st == HUM_OK && (st = hum_cuda_result(cu->cuGraphUpload(*exec, t->stream), "cuGraphUpload")) != HUM_OK) {
        cu->cuGraphExecDestroy(*exec);
        *exec = NULL;
    }
    return st;
}

static hum_status run_once(const bench_cuda_api *cu, bench_timer *t, CUgraphExec exec, bench_enqueue_fn fn,
                           void *ctx)
{
    if (exec != NULL)
        return hum_cuda_result(cu->cuGraphLaunch(exec, t->stream), "cuGraphLaunch");
    return fn(ctx, t->stream);
}

hum_status bench_time(bench_timer *t, bench_enqueue_fn fn, void *ctx, int32_t warmup, int32_t reps,
                      bench_timing *out)
{
    memset(out, 0, sizeof *out);
    const bench_cuda_api *cu = bench_cuda();
    if (cu == NULL)
        return resolve_status;
    if (reps < 1 || warmup < 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "bench_time: %d timed and %d warm-up calls (need >= 1 and >= 0)",
                        reps, warmup);
    double *samples = malloc((size_t)reps * sizeof *samples);
    if (samples == NULL)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "bench_time: %d samples", reps);
    /* One direct call first: libraries load kernels and pick algorithms on their first call,
     * work that a stream capture may refuse. */
    CUgraphExec exec = NULL;
    hum_status st = fn(ctx, t->stream);
    if (st == HUM_OK)
        st = hum_cuda_result(cu->cuStreamSynchronize(t->stream), "cuStreamSynchronize (first call)");
    if (st == HUM_OK)
        st = capture(cu, t, fn, ctx, &exec);
    for (int32_t i = 0; st == HUM_OK && i < warmup; i++)
        st = run_once(cu, t, exec, fn, ctx);
    if (st == HUM_OK)
        st = hum_cuda_result(cu->cuStreamSynchronize(t->stream), "cuStreamSynchronize (warm-up)");
    for (int32_t i = 0; st == HUM_OK && i < reps; i++) {
        float ms = 0.0f;
        if ((st = hum_cuda_result(cu->cuMemsetD8Async((CUdeviceptr)t->flush, (unsigned char)i, t->flush_bytes,
                                                     t->stream), "cuMemsetD8Async (L2 flush)")) != HUM_OK ||
            (st = hum_cuda_result(cu->cuEventRecord(t->start, t->stream), "cuEventRecord")) != HUM_OK ||
            (st = run_once(cu, t, exec, fn, ctx)) != HUM_OK ||
            (st = hum_cuda_result(cu->cuEventRecord(t->stop, t->stream), "cuEventRecord")) != HUM_OK ||
            (st = hum_cuda_result(cu->cuEventSynchronize(t->stop), "cuEventSynchronize")) != HUM_OK ||
            (st = hum_cuda_result(cu->cuEventElapsedTime(&ms, t->start, t->stop), "cuEventElapsedTime")) != HUM_OK)
            break;
        samples[i] = 1000.0 * ms;
    }
    if (st == HUM_OK) {
        out->samples = reps;
        out->graph = exec != NULL;
        out->median_us = bench_median(samples, reps);
        out->min_us = samples[0];
        out->max_us = samples[reps - 1];
    } else {
        cu->cuStreamSynchronize(t->stream);
    }
    if (exec != NULL)
        cu->cuGraphExecDestroy(exec);
    free(samples);
    return st;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e6 * (double)ts.tv_sec + 1e-3 * (double)ts.tv_nsec;
}

hum_status bench_host_overhead(bench_timer *t, bench_enqueue_fn fn, void *ctx, int32_t batches, int32_t calls,
                               double *us_per_call)
{
    *us_per_call = NAN;
    const bench_cuda_api *cu = bench_cuda();
    if (cu == NULL)
        return resolve_status;
    if (batches < 1 || calls < 1)
        return hum_fail(HUM_ERR_INVALID_ARG, "bench_host_overhead: %d batches of %d calls (need >= 1 each)",
                        batches, calls);
    double *per_call = malloc((size_t)batches * sizeof *per_call);
    if (per_call == NULL)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "bench_host_overhead: %d batches", batches);
    hum_status st = HUM_OK;
    for (int32_t b = 0; st == HUM_OK && b < batches; b++) {
        double t0 = now_us();
        for (int32_t i = 0; st == HUM_OK && i < calls; i++)
            st = fn(ctx, t->stream);
        per_call[b] = (now_us() - t0) / calls;
        hum_status sync = hum_cuda_result(cu->cuStreamSynchronize(t->stream), "cuStreamSynchronize");
        if (st == HUM_OK)
            st = sync;
    }
    if (st == HUM_OK)
        *us_per_call = bench_median(per_call, batches);
    free(per_call);
    return st;
}
