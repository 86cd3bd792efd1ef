/* A small fork-join pool: runs fn(ctx, i) for i in [0, count) on up to `threads` threads, the
 * calling thread among them, and returns when all are done. Work is handed out one index at a
 * time, so long and short items balance. */
#ifndef HUM_THREADPOOL_H
#define HUM_THREADPOOL_H

#include <stdint.h>

/* threads <= 0: min(count, the CPUs the process may run on, its cgroup's CPU quota: cpu_quota.h).
 * If the system refuses new threads, the ones already running (at least the caller) finish the
 * work. Called from inside another call's fn with threads <= 0, it takes only the CPUs that the
 * running pools leave idle (none: every item on the calling thread). */
void hum_parallel_for(int32_t count, int32_t threads, void (*fn)(void *ctx, int32_t index), void *ctx);

/* The thread count hum_parallel_for uses for `count` items and a `threads` request. */
int32_t hum_parallel_threads(int32_t count, int32_t threads);

#endif
