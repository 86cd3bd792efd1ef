/* CUDA-event timing with L2 flush and graph replay (see bench_timer.h). */
#define _POSIX_C_SOURCE 200809L

#include "bench_timer.h"

#include "cuda_driver.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BENCH_FLUSH_MIN_BYTES = 256 << 20 };

hum_status bench_timer_create(int32_t ordinal, int64_t l2_bytes, bench_timer *t)
{
    memset(t, 0, sizeof *t);
    const hum_cuda_api *cu = hum_cuda();
    if (cu == NULL)
        return HUM_ERR_NO_DEVICE;
    size_t bytes = BENCH_FLUSH_MIN_BYTES;
    if (l2_bytes > 0 && (size_t)l2_bytes * 4 > bytes)
        bytes = (size_t)l2_bytes * 4;
    hum_status st = hum_device_alloc(ordinal, bytes, &t->flush);
    if (st != HUM_OK)
        return hum_fail_context(st, "the L2 flush buffer (%zu MiB)", bytes >> 20);
    t->flush_bytes = bytes;
    /* hum_device_alloc made the device's primary context current on this thread. */
    if ((st = hum_cuda_check(cu->cuStreamCreate(&t->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate")) != HUM_OK ||
        (st = hum_cuda_check(cu->cuEventCreate(&t->start, CU_EVENT_DEFAULT), "cuEventCreate")) != HUM_OK ||
        (st = hum_cuda_check(cu->cuEventCreate(&t->stop, CU_EVENT_DEFAULT), "cuEventCreate")) != HUM_OK) {
        bench_timer_destroy(t);
        return st;
    }
    return HUM_OK;
}

void bench_timer_destroy(bench_timer *t)
{
    const hum_cuda_api *cu = hum_cuda();
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
static hum_status capture(const hum_cuda_api *cu, bench_timer *t, bench_enqueue_fn fn, void *ctx,
                          CUgraphExec *exec)
{
    *exec = NULL;
    hum_status st = hum_cuda_check(cu->cuStreamBeginCapture(t->stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
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
    st = hum_cuda_check(cu->cuGraphInstantiateWithFlags(exec, graph, 0), "cuGraphInstantiateWithFlags");
    cu->cuGraphDestroy(graph);
    if (st == HUM_OK && (st = hum_cuda_check(cu->cuGraphUpload(*exec, t->stream), "cuGraphUpload")) != HUM_OK) {
        cu->cuGraphExecDestroy(*exec);
        *exec = NULL;
    }
    return st;
}

static hum_status run_once(const hum_cuda_api *cu, bench_timer *t, CUgraphExec exec, bench_enqueue_fn fn,
                           void *ctx)
{
    if (exec != NULL)
        return hum_cuda_check(cu->cuGraphLaunch(exec, t->stream), "cuGraphLaunch");
    return fn(ctx, t->stream);
}

hum_status bench_time(bench_timer *t, bench_enqueue_fn fn, void *ctx, int32_t warmup, int32_t reps,
                      bench_timing *out)
{
    memset(out, 0, sizeof *out);
    const hum_cuda_api *cu = hum_cuda();
    if (cu == NULL)
        return HUM_ERR_NO_DEVICE;
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
        st = hum_cuda_check(cu->cuStreamSynchronize(t->stream), "cuStreamSynchronize (first call)");
    if (st == HUM_OK)
        st = capture(cu, t, fn, ctx, &exec);
    for (int32_t i = 0; st == HUM_OK && i < warmup; i++)
        st = run_once(cu, t, exec, fn, ctx);
    if (st == HUM_OK)
        st = hum_cuda_check(cu->cuStreamSynchronize(t->stream), "cuStreamSynchronize (warm-up)");
    for (int32_t i = 0; st == HUM_OK && i < reps; i++) {
        float ms = 0.0f;
        if ((st = hum_cuda_check(cu->cuMemsetD8Async((CUdeviceptr)t->flush, (unsigned char)i, t->flush_bytes,
                                                     t->stream), "cuMemsetD8Async (L2 flush)")) != HUM_OK ||
            (st = hum_cuda_check(cu->cuEventRecord(t->start, t->stream), "cuEventRecord")) != HUM_OK ||
            (st = run_once(cu, t, exec, fn, ctx)) != HUM_OK ||
            (st = hum_cuda_check(cu->cuEventRecord(t->stop, t->stream), "cuEventRecord")) != HUM_OK ||
            (st = hum_cuda_check(cu->cuEventSynchronize(t->stop), "cuEventSynchronize")) != HUM_OK ||
            (st = hum_cuda_check(cu->cuEventElapsedTime(&ms, t->start, t->stop), "cuEventElapsedTime")) != HUM_OK)
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
    const hum_cuda_api *cu = hum_cuda();
    if (cu == NULL)
        return HUM_ERR_NO_DEVICE;
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
        hum_status sync = hum_cuda_check(cu->cuStreamSynchronize(t->stream), "cuStreamSynchronize");
        if (st == HUM_OK)
            st = sync;
    }
    if (st == HUM_OK)
        *us_per_call = bench_median(per_call, batches);
    free(per_call);
    return st;
}
