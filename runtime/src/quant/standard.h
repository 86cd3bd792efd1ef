/* A validated reading of a hum_standard_weight: the derived sizes and codecs that the
 * reference dequantizer, GEMM and quantizer share (private to libhum). */
#ifndef HUM_STANDARD_H
#define HUM_STANDARD_H

#include "dtype_codec.h"
#include "hum/hum.h"

typedef struct hum_standard_view {
    int64_t experts;      /* max(num_experts, 1) */
    int64_t n, k;         /* k: the stored columns K' (hum.h: k_perm's padding columns) */
    int64_t input_k;      /* the weight's K: A's columns, the reference's output width */
    int32_t bits;         /* weight width */
    int32_t is_int;       /* uint weight (else FP) */
    int64_t row_words;    /* int32 words per weight row: ceil(K * bits / 32) */
    int64_t scale_rows;   /* N (CHANNEL, GROUP(_TENSOR)), ceil(N / group_size_n) (BLOCK), 0 (TENSOR) */
    int64_t scale_cols;   /* G: 1 (CHANNEL, TENSOR), ceil(K / group_size) otherwise */
    int64_t col_group;    /* K extent of one scale column: group_size, or K */
    int64_t row_group;    /* N extent of one scale row: group_size_n (BLOCK), else 1 */
    int64_t zp_rows;      /* int zero point: ceil(N * bits / 32); float: N */
    hum_codec weight;     /* the FP weight read as all-finite codes (hum.h: standard format) */
    hum_codec scale;
    hum_codec param;
} hum_standard_view;

/* HUM_ERR_INVALID_ARG naming `what` unless p[0..k) is a permutation of 0..k-1. */
hum_status hum_check_permutation(const int32_t *p, int64_t k, const char *what);

/* The stored columns K' of `w` (hum.h: the length of k_perm's rows, else K); no validation. */
int64_t hum_standard_stored_k(const hum_standard_weight *w);

/* *out = *w without its tensors: every tensor of out zeroed, so that out owns nothing yet and
 * hum_standard_free(out) is safe whatever the caller fills in next. */
void hum_standard_header(const hum_standard_weight *w, hum_standard_weight *out);

/* *out = a copy of w, every tensor its own (free with hum_standard_free); on failure out owns
 * nothing. */
hum_status hum_standard_copy(const hum_standard_weight *w, hum_standard_weight *out);

/* The scale type of a weight of scale type t once its global scale is folded into its scales
 * (hum_standard_fold_global): TENSOR becomes CHANNEL, GROUP_TENSOR becomes GROUP, the others
 * stay. */
hum_scale_type hum_standard_folded_scale_type(hum_scale_type t);

/* *out = w with its global scale folded into its scales: float32 scales, each the decoded
 * scale (TENSOR: 1, one per row) times its expert's global scale, rounded once (to float32:
 * a relative error of at most 2^-24), the scale type as hum_standard_folded_scale_type says,
 * no global_scale. For what cannot carry a global scale per expert and part: one MoE GEMM over
 * experts of different global scales, gate and up rows of different ones in one w13. A weight
 * without a global scale is copied. On failure out owns nothing. */
hum_status hum_standard_fold_global(const hum_standard_weight *w, hum_standard_weight *out);

/* Checks every field of `w` against the rules in hum.h (HUM-SECTION standard) and fills `v`.
 * HUM_ERR_INVALID_ARG naming the field, the expected and the actual value. */
hum_status hum_standard_view_init(const hum_standard_weight *w, hum_standard_view *v);
/* hum_reference_gemm with float codes' weights as a MoE layer's 16-bit GEMM holds them: the
 * global scale folded into each scale in float32 (hum_standard_fold_global), the scale rounded to
 * `held` (float16 or bfloat16), decode(q) times it rounded to `held` (kernels/gemm/dequant.cuh
 * multiplies them in A's 16-bit type; no kernel takes float codes' scales on its float32 sums),
 * each at the type's significand (the layer's power-of-two shift keeps them in its range);
 * integer codes exact, as hum_reference_gemm. HUM_DTYPE_INVALID: exact. */
hum_status hum_reference_gemm_held(const hum_standard_weight *w, int64_t expert, hum_dtype held, const double *a,
                                   int64_t m, double *c);

#endif
