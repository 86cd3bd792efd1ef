/* The driver's share of `hum bench`'s host overhead: what one launch costs the host with hum
 * left out, so that the overhead figure can be read against it. */
#ifndef HUM_BENCH_FLOOR_H
#define HUM_BENCH_FLOOR_H

#include "bench_timer.h"

/* Host time of one cuLaunchKernel of the built-in self-check kernel (kernels/selfcheck.cu,
 * compiled for `arch` through the kernel cache in `cache_dir`: one block, n = 0, so it touches
 * no global memory), measured as bench_host_overhead measures a forward, in microseconds.
 * *us_per_call is NaN on failure. Errors: those of hum_selfcheck_compile and of the driver calls,
 * named. */
hum_status bench_launch_floor(bench_timer *t, const char *cache_dir, const char *arch, int32_t batches,
                              int32_t calls, double *us_per_call);

#endif
