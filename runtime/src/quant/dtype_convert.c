/* Array conversions between codes and float64 / float32 (see hum/hum_tools.h, HUM-SECTION dtype).
 * Widths <= 8 decode through a 256-entry table; float16 and bfloat16 have bit-level float32
 * paths because weights and activations of that type run to tens of millions of elements. */
#include "dtype_codec.h"
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static uint64_t load_code(const void *codes, int32_t size, int64_t i)
{
    switch (size) {
    case 1: return ((const uint8_t *)codes)[i];
    case 2: return ((const uint16_t *)codes)[i];
    case 4: return ((const uint32_t *)codes)[i];
    default: return ((const uint64_t *)codes)[i];
    }
}

static void store_code(void *codes, int32_t size, int64_t i, uint64_t v)
{
    switch (size) {
    case 1: ((uint8_t *)codes)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)codes)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)codes)[i] = (uint32_t)v; break;
    default: ((uint64_t *)codes)[i] = v; break;
    }
}

static hum_status check_args(const char *fn, hum_dtype t, const void *in, int64_t count, const void *out,
                             hum_codec *c)
{
    if (hum_codec_init(t, c) != HUM_OK)
        return hum_fail_context(HUM_ERR_INVALID_ARG, "%s", fn);
    if (count < 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: negative count %" PRId64, fn, count);
    if (count > 0 && (in == NULL || out == NULL))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: NULL %s with count %" PRId64, fn, in == NULL ? "input" : "output",
                        count);
    return HUM_OK;
}

/* Codes of widths <= 8 must have nothing above the width. */
static hum_status check_codes(const char *fn, const hum_codec *c, const void *codes, int64_t count)
{
    if (c->bits >= 8)
        return HUM_OK;
    const uint8_t *p = codes;
    uint8_t any = 0;
    for (int64_t i = 0; i < count; i++)
        any |= p[i];
    if ((any & ~c->code_mask) == 0)
        return HUM_OK;
    for (int64_t i = 0;; i++)
        if (p[i] & ~c->code_mask)
            return hum_fail(HUM_ERR_INVALID_ARG, "%s: code 0x%02x at index %" PRId64 " does not fit %s (%d bits)", fn,
                            p[i], i, hum_dtype_name(c->dtype), c->bits);
}

static hum_status reject(const char *fn, const hum_codec *c, double x, int64_t i)
{
    return hum_fail(HUM_ERR_INVALID_ARG, "%s: value %g at index %" PRId64 " has no %s code%s", fn, x, i,
                    hum_dtype_name(c->dtype),
                    c->kind == HUM_KIND_UFLOAT ? " (float8_e8m0 holds only positive powers of two and NaN)"
                                               : " (the format has no NaN)");
}

hum_status hum_dtype_decode(hum_dtype t, const void *codes, int64_t count, double *out)
{
    hum_codec c;
    hum_status st = check_args("hum_dtype_decode", t, codes, count, out, &c);
    if (st != HUM_OK || (st = check_codes("hum_dtype_decode", &c, codes, count)) != HUM_OK)
        return st;
    const int32_t size = hum_dtype_code_size(t);
    if (c.bits <= 8) {
        double table[256];
        for (uint64_t v = 0; v <= c.code_mask; v++)
            table[v] = hum_codec_decode(&c, v);
        const uint8_t *p = codes;
        for (int64_t i = 0; i < count; i++)
            out[i] = table[p[i]];
        return HUM_OK;
    }
    for (int64_t i = 0; i < count; i++)
        out[i] = hum_codec_decode(&c, load_code(codes, size, i));
    return HUM_OK;
}

hum_status hum_dtype_encode(hum_dtype t, const double *in, int64_t count, void *codes)
{
    hum_codec c;
    hum_status st = check_args("hum_dtype_encode", t, in, count, codes, &c);
    if (st != HUM_OK)
        return st;
    for (int64_t i = 0; i < count; i++)
        if (!hum_codec_accepts(&c, in[i]))
            return reject("hum_dtype_encode", &c, in[i], i);
    const int32_t size = hum_dtype_code_size(t);
    for (int64_t i = 0; i < count; i++)
        store_code(codes, size, i, hum_codec_encode(&c, in[i]));
    return HUM_OK;
}

static float float_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float half_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    const uint32_t e = (h >> 10) & 0x1F, m = h & 0x3FF;
    if (e == 0) {
        const float v = (float)m * 0x1p-24f; /* subnormal (or zero): exact */
        return sign ? -v : v;
    }
    if (e == 0x1F)
        return float_from_bits(sign | 0x7F800000u | (m << 13));
    return float_from_bits(sign | ((e + 112) << 23) | (m << 13));
}

static uint16_t half_from_float(float f)
{
    const uint32_t u = float_bits(f);
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
    const uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return sign | 0x7E00; /* NaN */
    if (a >= 0x477FF000u)
        return sign | 0x7C00; /* >= 65520 = 65504 + half an ulp: rounds to inf */
    if (a >= 0x38800000u) {
        /* Normal half: rebias the exponent (127 -> 15) and round the 13 dropped bits to
         * nearest even; a carry out of the mantissa correctly bumps the exponent. */
        const uint32_t r = a - 0x38000000u + 0xFFFu + ((a >> 13) & 1);
        return sign | (uint16_t)(r >> 13);
    }
    /* Subnormal half: count units of 2^-24 (exact scaling), then round to nearest even. */
    const float v = float_from_bits(a) * 0x1p24f;
    uint32_t q = (uint32_t)v;
    const float d = v - (float)q;
    if (d > 0.5f || (d == 0.5f && (q & 1)))
        q++;
    return sign | (uint16_t)q;
}

static uint16_t bf16_from_float(float f)
{
    const uint32_t u = float_bits(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u)
        return (uint16_t)((u >> 16) | 0x0040); /* quiet NaN, sign kept */
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1)) >> 16);
}

hum_status hum_dtype_to_float(hum_dtype t, const void *codes, int64_t count, float *out)
{
    hum_codec c;
    hum_status st = check_args("hum_dtype_to_float", t, codes, count, out, &c);
    if (st != HUM_OK || (st = check_codes("hum_dtype_to_float", &c, codes, count)) != HUM_OK)
        return st;
    if (t == HUM_DTYPE_FLOAT16) {
        const uint16_t *p = codes;
        for (int64_t i = 0; i < count; i++)
            out[i] = half_to_float(p[i]);
    } else if (t == HUM_DTYPE_BFLOAT16) {
        const uint16_t *p = codes;
        for (int64_t i = 0; i < count; i++)
            out[i] = float_from_bits((uint32_t)p[i] << 16);
    } else if (t == HUM_DTYPE_FLOAT32) {
        memcpy(out, codes, (size_t)count * sizeof(float));
    } else if (c.bits <= 8) {
        /* Every value of a <= 8-bit type (e8m0 down to 2^-127) is exact in float32. */
        float table[256];
        for (uint64_t v = 0; v <= c.code_mask; v++)
            table[v] = (float)hum_codec_decode(&c, v);
        const uint8_t *p = codes;
        for (int64_t i = 0; i < count; i++)
            out[i] = table[p[i]];
    } else if (c.kind == HUM_KIND_FLOAT) {
        const double *p = codes;
        for (int64_t i = 0; i < count; i++)
            out[i] = (float)p[i];
    } else {
        /* Wide ints convert straight to float (one rounding, not via double). */
        const int32_t size = hum_dtype_code_size(t);
        for (int64_t i = 0; i < count; i++) {
            const uint64_t v = load_code(codes, size, i);
            if (c.kind == HUM_KIND_UINT)
                out[i] = (float)v;
            else
                out[i] = (float)(c.bits == 64 ? (int64_t)v : (int64_t)hum_codec_decode(&c, v));
        }
    }
    return HUM_OK;
}

hum_status hum_dtype_from_float(hum_dtype t, const float *in, int64_t count, void *codes)
{
    hum_codec c;
    hum_status st = check_args("hum_dtype_from_float", t, in, count, codes, &c);
    if (st != HUM_OK)
        return st;
    for (int64_t i = 0; i < count; i++)
        if (!hum_codec_accepts(&c, (double)in[i]))
            return reject("hum_dtype_from_float", &c, (double)in[i], i);
    if (t == HUM_DTYPE_FLOAT16) {
        uint16_t *p = codes;
        for (int64_t i = 0; i < count; i++)
            p[i] = half_from_float(in[i]);
    } else if (t == HUM_DTYPE_BFLOAT16) {
        uint16_t *p = codes;
        for (int64_t i = 0; i < count; i++)
            p[i] = bf16_from_float(in[i]);
    } else if (t == HUM_DTYPE_FLOAT32) {
        memcpy(codes, in, (size_t)count * sizeof(float));
    } else {
        /* float32 -> float64 is exact, so this rounds once. */
        const int32_t size = hum_dtype_code_size(t);
        for (int64_t i = 0; i < count; i++)
            store_code(codes, size, i, hum_codec_encode(&c, (double)in[i]));
    }
    return HUM_OK;
}
