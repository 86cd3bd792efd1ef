/* Launching kernels/prep/quantize_a.cu: the arguments and grid for one quantization of M rows
 * of 16-bit A (the rules: kernels/contract/quantize_args.h; the CPU twin:
 * hum_quantize_activations). Used by the forward of layers with 8-bit activations and by the
 * GPU tests. */
#ifndef HUM_ACT_QUANT_H
#define HUM_ACT_QUANT_H

#include "contract/quantize_args.h"
#include "hum/hum_tools.h"
#include "launch.h"

/* Where the codes and scales go: q [m][ldq] (kq >= k columns written), scale with element
 * strides (row, group); input_scale: one device float32 for HUM_ACT_SCALE_TENSOR. round: MXFP8
 * as rounding (how: e4m3fn codes, e8m0 scales per group of 32): q gets the codes' values times
 * their scales in A's 16-bit type, ldq in its elements, and scale is NULL. */
typedef struct hum_act_quant_out {
    void *q;
    int64_t ldq, kq;
    void *scale;
    int64_t scale_row, scale_group;
    const float *input_scale;
    int round;
} hum_act_quant_out;

/* How a layer's forward passes the host's 16-bit A through the quantizer (hum_gemm_quantizes_a):
 * 8-bit A's codes and scales as config c says (a_dtype, a_scale, a_group), *round 0; or, for a
 * layer that rounds A (a_round), mxfp8's (e4m3fn, e8m0 per 32 columns), *round 1. */
void hum_act_quant_of(const hum_layer_config *c, hum_act_quant *how, int *round);

/* The entry of kernels/prep/quantize_a.cu that a layer of config c launches:
 * "hum_quantize_a_round" where it rounds A (a_round), else "hum_quantize_a". */
const char *hum_act_quant_kernel(const hum_layer_config *c);

/* Fills the kernel's argument for A [m][lda] of `a_dtype` (float16 or bfloat16) with k columns.
 * HUM_ERR_INVALID_ARG naming what does not fit (the rules of hum_quantize_activations). */
hum_status hum_act_quant_args(const hum_act_quant *how, const void *a, hum_dtype a_dtype, int64_t lda, int64_t m,
                              int64_t k, const hum_act_quant_out *out, hum_quantize_args *args);

/* Launches the quantize kernel (hum_quantize_a, loaded from quantize_a.cu) for args on stream,
 * asynchronously, shaped for a GPU of sm_count SMs; overlap: on sm_90, may start while the
 * previous kernel of the stream runs. */
hum_status hum_act_quant_launch(const hum_kernel *kernel, const hum_quantize_args *args, int32_t sm_count,
                                struct CUstream_st *stream, int overlap);

#endif
