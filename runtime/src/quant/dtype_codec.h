/* Scalar conversion between float64 and the codes of one hum_dtype, shared by the array
 * conversions (dtype_convert.c), the reference quantizers and the dequantizer. */
#ifndef HUM_DTYPE_CODEC_H
#define HUM_DTYPE_CODEC_H

#include "hum/hum.h"

#include <stdint.h>

typedef struct hum_codec {
    hum_dtype dtype;
    hum_dtype_kind kind;
    hum_dtype_special special;
    int32_t bits, exp_bits, man_bits;
    int32_t bias;       /* floats: exponent bias */
    int32_t emin;       /* floats: exponent of the smallest normal (E8M0: of code 0) */
    int32_t emax;       /* floats: exponent of the largest finite value */
    uint64_t max_mant;  /* floats: mantissa field of the largest finite value */
    uint64_t sign_mask; /* floats: the sign bit (0 for E8M0) */
    uint64_t code_mask; /* all `bits` bits */
    double max_finite;
    double min_value;   /* most negative value (ints, signed floats); E8M0: smallest, 2^-127 */
} hum_codec;

/* Fills `c` for dtype `t`; HUM_ERR_INVALID_ARG (with a message) for an invalid code. */
hum_status hum_codec_init(hum_dtype t, hum_codec *c);

/* Whether hum_codec_encode defines a code for x (see hum_dtype_encode: NaN into ints or
 * finite floats, and zero or negative values into e8m0, have none). */
int hum_codec_accepts(const hum_codec *c, double x);
/* Round-to-nearest-even encode; x must be accepted. */
uint64_t hum_codec_encode(const hum_codec *c, double x);
/* Exact decode of a code whose bits above the width are zero. */
double hum_codec_decode(const hum_codec *c, uint64_t code);

/* The dtype an FP weight is read as in the standard format: the same exponent and
 * mantissa widths with every code a number (FINITE). Ints map to themselves. */
hum_dtype hum_dtype_finite_reading(hum_dtype t);

/* Round to nearest, ties to even, independent of the floating-point environment. */
double hum_round_half_even(double x);

#endif
