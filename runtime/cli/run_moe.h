/* `hum run` on an experts module (run_moe.c). */
#ifndef HUM_RUN_MOE_H
#define HUM_RUN_MOE_H

#include "hum/hum_tools.h"

typedef struct run_moe_options {
    const char *checkpoint, *name;
    const int64_t *ms;
    int32_t m_count;
    hum_dtype dtype;
    hum_moe_options moe; /* top_k (0: min(8, E)), activation, gate_up */
    int check, balanced;
} run_moe_options;

/* Loads the experts module o->name of the checkpoint, prepares it and runs it at each M on
 * random routings; with check, compares sampled tokens with the float64 reference. Returns the
 * exit code; *not_moe set (and nothing printed) when the checkpoint has no such module. */
int run_moe(hum_runtime *rt, const run_moe_options *o, int *not_moe);

#endif
