/* `hum bench --moe-gemm`: the GEMM-only timing of one expert GEMM (docs/moe.md), the indexed
 * type over random routing as a MoE layer's gate/up (A = the tokens) or down projection (A = the
 * routed rows, top_k 1), for the side-by-side with Humming's indexed GEMMs
 * (shared/tools/bench-humming.py --only moe, which counts M the same way). */
#ifndef HUM_BENCH_MOE_GEMM_H
#define HUM_BENCH_MOE_GEMM_H

#include "hum/hum_tools.h"

typedef struct bench_moe_gemm_options {
    const char *config;
    const char *spec;  /* the projection's layer SPEC (uint weights, group scales) */
    int64_t experts;
    int32_t top_k;
    int32_t down;      /* 1: the down projection */
    const int64_t *ms; /* tokens M */
    int32_t m_count;
    int32_t warmup, reps;
} bench_moe_gemm_options;

/* Prints one row per M (tokens, routed rows, rows per expert, block_m, microseconds, GB/s of the
 * experts' weights read); the exit code. */
int bench_moe_gemm(const bench_moe_gemm_options *o);

#endif
