/* One compiled variant of a GEMM kernel family (gemm_family.h): a planned layer config, its
 * compute config and one tuning; the derived launch figures, and the writer of the kernel's
 * constants header. */
#ifndef HUM_GEMM_VARIANT_H
#define HUM_GEMM_VARIANT_H

#include "hum/hum.h"

#include <stddef.h>

typedef struct hum_gemm_variant {
    const hum_layer_config *layer;   /* derived fields filled */
    const hum_compute_config *compute;
    const hum_tuning *tuning;
} hum_gemm_variant;

/* Threads per CTA of the variant. */
int32_t hum_gemm_threads(const hum_gemm_variant *v);
/* Dynamic shared memory a launch of the variant takes, bytes: the pipeline (the formula
 * kernels/gemm/config.cuh checks as kSmemBytes), plus the family's extra_smem. */
int64_t hum_gemm_smem_bytes(const hum_gemm_variant *v);
/* Checks the shape rules of kernels/gemm/config.cuh and the family's own; HUM_ERR_UNSUPPORTED
 * naming the rule. */
hum_status hum_gemm_variant_check(const hum_gemm_variant *v);
/* Writes the text of "hum_constants.h" for the variant: the constant of every config field that
 * has one (hum.h's field lists), then the figures derived from them. HUM_ERR_INVALID_ARG when
 * cap is short. */
hum_status hum_gemm_constants(const hum_gemm_variant *v, char *out, size_t cap);

#endif
