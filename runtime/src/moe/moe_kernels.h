/* The per-layer kernels around the expert GEMMs: the activation (kernels/moe/act.cu) and the
 * combine (kernels/moe/combine.cu), compiled with the layer's constants. */
#ifndef HUM_MOE_KERNELS_H
#define HUM_MOE_KERNELS_H

#include "hum/hum.h"
#include "jit.h"
#include "launch.h"

enum { HUM_MOE_LAYER_KERNELS = 2, HUM_MOE_CONSTANTS_CAP = 512 };

/* What the kernels are compiled for; down_a: the down GEMM's A type, which the activation
 * writes (float16 / bfloat16: the layer's 16-bit type; float8_e4m3fn or int8: quantized per
 * token, with a float32 scale per routed row). */
typedef struct hum_moe_shape {
    int32_t activation, interleaved, bf16;
    int64_t hidden, intermediate;
    hum_dtype down_a;
} hum_moe_shape;

/* The requests of both kernels for `arch`; `constants` (HUM_MOE_CONSTANTS_CAP bytes) receives
 * their generated hum_constants.h and must outlive the compile. */
void hum_moe_kernel_requests(const hum_moe_shape *s, const char *arch, char *constants,
                             hum_jit_request reqs[HUM_MOE_LAYER_KERNELS]);

/* out[r] = act(in[r]) for the placed rows (sorted[0 .. *post_padded), sentinel `routed`);
 * `capacity` bounds *post_padded and sizes the grid. An 8-bit down_a: out holds the codes and
 * scale[r] row r's float32 scale (else scale is NULL). */
hum_status hum_moe_act_launch(const hum_kernel *k, struct CUstream_st *stream, int32_t sm_count, const void *in,
                              void *out, float *scale, const int32_t *sorted, const int32_t *post_padded,
                              int64_t capacity, int64_t intermediate, int32_t routed, const hum_moe_options *o);

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
