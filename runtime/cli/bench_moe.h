/* `hum bench --moe SPEC` (bench_moe.c). */
#ifndef HUM_BENCH_MOE_H
#define HUM_BENCH_MOE_H

#include <stdint.h>

/* Times the MoE layer of a SPEC (hum_moe_spec_parse) at each M, whole and step by step; returns
 * the exit code (2: a bad SPEC). */
int bench_moe(const char *config, const char *spec, const int64_t *ms, int32_t m_count, int32_t warmup, int32_t reps,
              int balanced);

#endif
