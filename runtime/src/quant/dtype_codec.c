/* Scalar float64 <-> code conversion for every hum_dtype, parameterised by the format's
 * exponent / mantissa widths and special-value rule (see hum/hum_tools.h, HUM-SECTION dtype). */
#include "dtype_codec.h"

#include "internal.h"

#include <math.h>
#include <string.h>

static hum_dtype_kind kind_of(hum_dtype t) { return (hum_dtype_kind)((t >> 24) & 0xF); }
static hum_dtype_special special_of(hum_dtype t) { return (hum_dtype_special)((t >> 28) & 0xF); }

hum_status hum_codec_init(hum_dtype t, hum_codec *c)
{
    memset(c, 0, sizeof *c);
    if (t == HUM_DTYPE_INVALID ||
        hum_dtype_make(kind_of(t), (int32_t)(t & 0xFF), (int32_t)((t >> 8) & 0xFF),
                       (int32_t)((t >> 16) & 0xFF), special_of(t)) != t)
        return hum_fail(HUM_ERR_INVALID_ARG, "invalid dtype code 0x%08x", (unsigned)t);
    c->dtype = t;
    c->kind = kind_of(t);
    c->special = special_of(t);
    c->bits = (int32_t)(t & 0xFF);
    c->exp_bits = (int32_t)((t >> 8) & 0xFF);
    c->man_bits = (int32_t)((t >> 16) & 0xFF);
    c->code_mask = c->bits == 64 ? UINT64_MAX : (UINT64_C(1) << c->bits) - 1;
    switch (c->kind) {
    case HUM_KIND_UINT:
        c->max_finite = ldexp(1.0, c->bits) - 1.0;
        c->min_value = 0.0;
        return HUM_OK;
    case HUM_KIND_INT:
        c->max_finite = ldexp(1.0, c->bits - 1) - 1.0;
        c->min_value = -ldexp(1.0, c->bits - 1);
        return HUM_OK;
    default: break;
    }
    const int32_t all_ones = (1 << c->exp_bits) - 1;
    const uint64_t mant_ones = (UINT64_C(1) << c->man_bits) - 1;
    c->bias = (1 << (c->exp_bits - 1)) - 1;
    c->emin = 1 - c->bias;
    c->sign_mask = UINT64_C(1) << (c->exp_bits + c->man_bits);
    switch (c->special) {
    case HUM_SPECIAL_IEEE: c->emax = all_ones - 1 - c->bias; c->max_mant = mant_ones; break;
    case HUM_SPECIAL_FN: c->emax = all_ones - c->bias; c->max_mant = mant_ones - 1; break;
    case HUM_SPECIAL_FINITE: c->emax = all_ones - c->bias; c->max_mant = mant_ones; break;
    case HUM_SPECIAL_E8M0:
        /* No sign, no subnormals: code 0 is 2^-127, code 0xFE is 2^127. */
        c->emin = -c->bias;
        c->emax = all_ones - 1 - c->bias;
        c->max_mant = 0;
        c->sign_mask = 0;
        break;
    }
    c->max_finite = ldexp((double)((UINT64_C(1) << c->man_bits) + c->max_mant), c->emax - c->man_bits);
    c->min_value = c->special == HUM_SPECIAL_E8M0 ? ldexp(1.0, c->emin) : -c->max_finite;
    return HUM_OK;
}

double hum_dtype_max_finite(hum_dtype t)
{
    hum_codec c;
    if (hum_dtype_bits(t) == 0 || hum_codec_init(t, &c) != HUM_OK)
        return 0.0;
    return c.max_finite;
}

double hum_round_half_even(double x)
{
    double r = floor(x);
    double d = x - r;
    if (d > 0.5 || (d == 0.5 && floor(r * 0.5) != r * 0.5))
        r += 1.0;
    return r;
}

int hum_codec_accepts(const hum_codec *c, double x)
{
    if (c->kind == HUM_KIND_UFLOAT)
        return isnan(x) || x > 0.0;
    if (isnan(x))
        return c->kind == HUM_KIND_FLOAT && c->special != HUM_SPECIAL_FINITE;
    return 1;
}

static uint64_t encode_int(const hum_codec *c, double x)
{
    double r = hum_round_half_even(x);
    if (c->kind == HUM_KIND_UINT) {
        if (r <= 0.0)
            return 0;
        /* 2^64 is the first double above UINT64_MAX; compare before converting. */
        if (r >= ldexp(1.0, c->bits))
            return c->code_mask;
        return (uint64_t)r;
    }
    if (r < c->min_value)
        r = c->min_value;
    if (r >= ldexp(1.0, c->bits - 1))
        return (c->code_mask >> 1);
    return (uint64_t)(int64_t)r & c->code_mask;
}

static uint64_t nan_code(const hum_codec *c, uint64_t sign)
{
    const uint64_t exp_ones = (UINT64_C(1) << c->exp_bits) - 1;
    if (c->special == HUM_SPECIAL_FN || c->special == HUM_SPECIAL_E8M0)
        return sign | c->code_mask >> (c->sign_mask ? 1 : 0);
    /* IEEE: a quiet NaN (top mantissa bit set). */
    return sign | (exp_ones << c->man_bits) | (UINT64_C(1) << (c->man_bits - 1));
}

static uint64_t max_code(const hum_codec *c, uint64_t sign)
{
    return sign | ((uint64_t)(c->emax + c->bias) << c->man_bits) | c->max_mant;
}

/* IEEE formats overflow to inf; the others saturate to their largest finite value. */
static uint64_t overflow_code(const hum_codec *c, uint64_t sign)
{
    if (c->special == HUM_SPECIAL_IEEE)
        return sign | (((UINT64_C(1) << c->exp_bits) - 1) << c->man_bits);
    return max_code(c, sign);
}

static uint64_t encode_float(const hum_codec *c, double x)
{
    const uint64_t sign = signbit(x) ? c->sign_mask : 0;
    if (isnan(x))
        return nan_code(c, sign);
    const double a = fabs(x);
    if (isinf(a))
        return overflow_code(c, sign);
    if (a == 0.0)
        return sign;
    int p;
    frexp(a, &p);
    const int ex = p - 1 < c->emin ? c->emin : p - 1;
    /* Scale to units of the last mantissa place of a's binade (exact: only the exponent
     * changes), truncate to a code, then round on the code itself: ties go to the even code,
     * and code + 1 is the next larger magnitude even across a binade boundary. That is IEEE
     * roundTiesToEven, and for formats without mantissa bits (e8m0, eXm0) it picks the even
     * exponent field. */
    const double n = ldexp(a, c->man_bits - ex);
    const double fl = floor(n);
    const double frac = n - fl;
    const uint64_t one = UINT64_C(1) << c->man_bits;
    uint64_t mag;
    if (fl < (double)one && c->special == HUM_SPECIAL_E8M0)
        return 0; /* below 2^-127, and e8m0 has no subnormals or zero: saturate */
    if (fl < (double)one)
        mag = (uint64_t)fl; /* subnormal: exponent field 0 */
    else if (ex > c->emax)
        return overflow_code(c, sign);
    else
        mag = ((uint64_t)(ex + c->bias) << c->man_bits) | ((uint64_t)fl - one);
    if (frac > 0.5 || (frac == 0.5 && (mag & 1)))
        mag++;
    if (mag > max_code(c, 0))
        return overflow_code(c, sign);
    return sign | mag;
}

uint64_t hum_codec_encode(const hum_codec *c, double x)
{
    if (c->kind == HUM_KIND_UINT || c->kind == HUM_KIND_INT)
        return encode_int(c, x);
    if (c->bits == 64) {
        uint64_t u;
        memcpy(&u, &x, sizeof u);
        return u;
    }
    return encode_float(c, x);
}

double hum_codec_decode(const hum_codec *c, uint64_t code)
{
    switch (c->kind) {
    case HUM_KIND_UINT: return (double)code;
    case HUM_KIND_INT:
        if (c->bits < 64 && (code >> (c->bits - 1)) & 1)
            return (double)code - ldexp(1.0, c->bits);
        return c->bits == 64 ? (double)(int64_t)code : (double)code;
    default: break;
    }
    if (c->bits == 64) {
        double d;
        memcpy(&d, &code, sizeof d);
        return d;
    }
    if (c->special == HUM_SPECIAL_E8M0)
        return code == 0xFF ? NAN : ldexp(1.0, (int)code - c->bias);
    const uint64_t mant_ones = (UINT64_C(1) << c->man_bits) - 1;
    const uint64_t exp_ones = (UINT64_C(1) << c->exp_bits) - 1;
    const int negative = (code & c->sign_mask) != 0;
    const uint64_t e = (code >> c->man_bits) & exp_ones;
    const uint64_t m = code & mant_ones;
    double v;
    if (c->special == HUM_SPECIAL_IEEE && e == exp_ones)
        v = m == 0 ? INFINITY : NAN;
    else if (c->special == HUM_SPECIAL_FN && e == exp_ones && m == mant_ones)
        v = NAN;
    else if (e == 0)
        v = ldexp((double)m, c->emin - c->man_bits);
    else
        v = ldexp((double)(m | (mant_ones + 1)), (int)e - c->bias - c->man_bits);
    return negative ? -v : v;
}

hum_dtype hum_dtype_finite_reading(hum_dtype t)
{
    if (kind_of(t) != HUM_KIND_FLOAT || (t & 0xFF) > 8)
        return t;
    return (t & 0x0FFFFFFFu) | ((hum_dtype)HUM_SPECIAL_FINITE << 28);
}
