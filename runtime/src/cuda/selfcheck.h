#ifndef HUM_SELFCHECK_H
#define HUM_SELFCHECK_H

#include "hum/hum.h"

/* Compiles the self-check kernel for device `ordinal` (hum_selfcheck_compile), launches it on a
 * stream of its own and compares every output element with the host's own computation of it.
 * HUM_ERR_INTERNAL naming the first wrong element (and how many are wrong) on a mismatch. */
typedef struct hum_selfcheck_report {
    char arch[16];
    int32_t cache_hit;      /* a hum_jit_origin */
    double compile_ms;
    int64_t elements;       /* output elements checked */
} hum_selfcheck_report;
hum_status hum_selfcheck_run(int32_t ordinal, const char *cache_dir, uint32_t seed, hum_selfcheck_report *out);

#endif
