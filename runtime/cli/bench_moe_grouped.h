/* `hum bench --moe SPEC` of a grouped layer (gemm=grouped or masked, bench_moe_grouped.c): the
 * routed rows of random (or balanced) routings dispatched by expert as DeepEP lays them out,
 * timed through hum_moe_forward_grouped (gate/up, activation, down) at each M, each M first
 * checked against the float64 reference on sampled rows. */
#ifndef HUM_BENCH_MOE_GROUPED_H
#define HUM_BENCH_MOE_GROUPED_H

#include "moe_run.h"

/* The sweep over ms[m_count] of the prepared grouped layer `moe` of spec s (weights w13, w2,
 * options o, for the check). */
hum_status bench_moe_grouped(hum_runtime *rt, const hum_device_info *dev, hum_moe *moe, const hum_moe_spec *s,
                             const hum_standard_weight *w13, const hum_standard_weight *w2, const hum_moe_options *o,
                             const int64_t *ms, int32_t m_count, int32_t warmup, int32_t reps, int balanced);

#endif
