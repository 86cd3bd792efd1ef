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
 * routed row, down_group 0, with a float32 scale per row; or float8_e4m3fn per group of
 * down_group columns, scales of down_scale: float8_e8m0 (MXFP8) or float32). */
typedef struct hum_moe_shape {
    int32_t activation, interleaved, bf16;
    int32_t gemm_type; /* the layer's (hum_moe_options): how the activation finds its rows */
    int64_t hidden, intermediate, experts; /* experts: the local ones */
    hum_dtype down_a;
    int32_t down_group;
    hum_dtype down_scale;
    int32_t down_round; /* hum_a_round: the down GEMM rounds its 16-bit A through mxfp8 */
} hum_moe_shape;

/* The requests of both kernels for `arch`; `constants` (HUM_MOE_CONSTANTS_CAP bytes) receives
 * their generated hum_constants.h, then the activation kernel's name, and must outlive the
 * compile. */
void hum_moe_kernel_requests(const hum_moe_shape *s, const char *arch, char *constants,
                             hum_jit_request reqs[HUM_MOE_LAYER_KERNELS]);

/* out[r] = act(in[r]) for the rows the layer's layout places (kernels/moe/act.cu): indexed,
 * layout the sorted ids (int32) up to *post_padded, the sentinel `rows`, `positions` (the
 * capacity) bounding *post_padded; grouped contiguous, layout the expert offsets (int64
 * [experts + 1]) into `rows` rows; grouped masked, layout the expert counts (int32 [experts])
 * of `rows` rows each. positions sizes the grid: the capacity, the rows, or experts x rows.
 * quantizes: k is a hum_moe_act_quant (an 8-bit down_a, or the down GEMM's mxfp8 rounding). An
 * 8-bit down_a: out holds the codes and scale[r * scale_ld ..] row r's scales, one per row
 * (scale_ld 1) or per group (scale_ld: the groups of a row) (16-bit, rounded or not: scale is
 * NULL). */
hum_status hum_moe_act_launch(const hum_kernel *k, struct CUstream_st *stream, int32_t sm_count, const void *in,
                              void *out, int32_t quantizes, void *scale, int64_t scale_ld, const void *layout,
                              const int32_t *post_padded, int64_t positions, int64_t intermediate, int32_t rows,
                              const hum_moe_options *o);

/* The scales of the down GEMM's A the activation writes for `rows` rows: the groups of a row
 * (1 per token, ceil(I / group) with groups; 0 for 16-bit A), and their bytes, each a float32
 * or an e8m0 byte (hum_gemm_a_scale_dtype). */
int64_t hum_moe_act_scale_ld(const hum_layer_config *down);
int64_t hum_moe_act_scale_bytes(const hum_layer_config *down, int64_t rows);

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
