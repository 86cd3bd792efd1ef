/* The per-layer kernels around the expert GEMMs: the activation (kernels/moe/act.cu) and the
 * combine (kernels/moe/combine.cu), compiled with the layer's constants. */
#ifndef HUM_MOE_KERNELS_H
#define HUM_MOE_KERNELS_H

#include "hum/hum.h"
#include "jit.h"
#include "launch.h"

enum { HUM_MOE_LAYER_KERNELS = 2, HUM_MOE_CONSTANTS_CAP = 512 };

/* What the kernels are compiled for. */
typedef struct hum_moe_shape {
    int32_t activation, interleaved, bf16;
    int32_t gemm_type; /* the layer's (hum_moe_options): how the activation finds its rows */
    int64_t hidden, intermediate, experts; /* experts: the local ones */
} hum_moe_shape;

/* The requests of both kernels for `arch`; `constants` (HUM_MOE_CONSTANTS_CAP bytes) receives
 * their generated hum_constants.h and must outlive the compile. */
void hum_moe_kernel_requests(const hum_moe_shape *s, const char *arch, char *constants,
                             hum_jit_request reqs[HUM_MOE_LAYER_KERNELS]);

/* out[r] = act(in[r]) for the rows the layer's layout places (kernels/moe/act.cu): indexed,
 * layout the sorted ids (int32) up to *post_padded, the sentinel `rows`, `positions` (the
 * capacity) bounding *post_padded; grouped contiguous, layout the expert offsets (int64
 * [experts + 1]) into `rows` rows; grouped masked, layout the expert counts (int32 [experts])
 * of `rows` rows each. positions sizes the grid: the capacity, the rows, or experts x rows. */
hum_status hum_moe_act_launch(const hum_kernel *k, struct CUstream_st *stream, int32_t sm_count, const void *in,
                              void *out, const void *layout, const int32_t *post_padded, int64_t positions,
                              int64_t intermediate, int32_t rows, const hum_moe_options *o);

/* The combine of m tokens: see kernels/moe/combine.cu. */
typedef struct hum_moe_combine_args {
    const void *y, *ids;
    int32_t ids64;
    const int32_t *map;
    int32_t e_global, e_local;
    const float *weights;
    int32_t top_k, m;
    void *out;
    int64_t ldo;
    int32_t accumulate;
} hum_moe_combine_args;
hum_status hum_moe_combine_launch(const hum_kernel *k, struct CUstream_st *stream, int32_t sm_count, int64_t hidden,
                                  const hum_moe_combine_args *a);

#endif
