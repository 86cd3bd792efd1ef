/* GPU timing for `hum bench` and `hum demo`: CUDA events through the run-time-loaded driver
 * table, L2 flushed before each timed call, the timed work replayed from a CUDA graph so that
 * host overhead is left out, median of the timed calls (the protocol of
 * shared/reference/h200-anchors.md). */
#ifndef HUM_BENCH_TIMER_H
#define HUM_BENCH_TIMER_H

#include "hum/hum_tools.h"

#include <cuda.h>

/* Queues the work to time on `stream`; must not synchronise (it is also captured into a graph). */
typedef hum_status (*bench_enqueue_fn)(void *ctx, CUstream stream);

typedef struct bench_timer {
    CUstream stream;
    CUevent start, stop;
    void *flush;        /* device buffer rewritten before each timed call to evict L2 */
    size_t flush_bytes;
} bench_timer;

typedef struct bench_timing {
    double median_us, min_us, max_us;
    int32_t samples;
    int32_t graph; /* 1: timed as a CUDA-graph replay; 0: the work could not be captured and
                    * was timed as direct launches (host overhead then included) */
} bench_timing;

/* Flush buffer: at least 256 MiB and at least 4x the device's L2. Allocates on device `ordinal`
 * (which makes its primary context current), then a stream and two events. */
hum_status bench_timer_create(int32_t ordinal, int64_t l2_bytes, bench_timer *t);
/* Releases everything; safe on a zeroed or partly created timer. */
void bench_timer_destroy(bench_timer *t);

/* Captures fn into a CUDA graph (falling back to direct calls when the stream cannot be
 * captured), runs `warmup` untimed calls, then `reps` timed calls each preceded by the L2
 * flush on the same stream, and reports the median of the per-call event times. */
hum_status bench_time(bench_timer *t, bench_enqueue_fn fn, void *ctx, int32_t warmup, int32_t reps,
                      bench_timing *out);

/* Host-side cost of one call of fn: `batches` batches of `calls` back-to-back calls without a
 * synchronisation inside a batch (the stream drains between batches so the launch queue never
 * blocks the host), timed with the monotonic clock; the median over batches of the mean per
 * call, in microseconds. */
hum_status bench_host_overhead(bench_timer *t, bench_enqueue_fn fn, void *ctx, int32_t batches, int32_t calls,
                               double *us_per_call);

/* Median of values[0..count) (sorts the array in place); NaN for count 0. */
double bench_median(double *values, int32_t count);

#endif
