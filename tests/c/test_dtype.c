/* Data types: every code of every format of 8 bits or fewer (and all of float16 / bfloat16)
 * decodes to the value the format's definition gives, computed here independently; encode
 * inverts decode; midpoints round to the even code; out-of-range values saturate or overflow
 * as each format defines; names parse and print. */
#include "hum/hum_tools.h"
#include "quant_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct fmt {
    const char *what;
    hum_dtype dtype;
    int kind; /* 0 uint, 1 int, 2 float (sign/exp/man), 3 e8m0 */
    int e, m;
    enum { FINITE, IEEE, FN } special;
} fmt;

/* The value the format's definition gives to `code` (NAN for NaN codes). */
static double expected_value(const fmt *f, uint32_t code)
{
    const int bits = f->kind >= 2 ? (f->kind == 3 ? 8 : 1 + f->e + f->m) : (int)(f->dtype & 0xFF);
    if (f->kind == 0)
        return (double)code;
    if (f->kind == 1)
        return code >= (1u << (bits - 1)) ? (double)code - quant_pow2(bits) : (double)code;
    if (f->kind == 3)
        return code == 0xFF ? NAN : quant_pow2((int)code - 127);
    const uint32_t s = (code >> (f->e + f->m)) & 1;
    const uint32_t e = (code >> f->m) & ((1u << f->e) - 1);
    const uint32_t m = code & ((1u << f->m) - 1);
    const int bias = (1 << (f->e - 1)) - 1;
    const int e_ones = e == (1u << f->e) - 1, m_ones = m == (1u << f->m) - 1;
    if (f->special == IEEE && e_ones)
        return m == 0 ? (s ? -INFINITY : INFINITY) : NAN;
    if (f->special == FN && e_ones && m_ones)
        return NAN;
    double frac = (double)m / quant_pow2(f->m);
    double v = e == 0 ? frac * quant_pow2(1 - bias) : (1.0 + frac) * quant_pow2((int)e - bias);
    return s ? -v : v;
}

static int same_value(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return a == b && signbit(a) == signbit(b);
}

static uint32_t encode1(hum_dtype t, double x)
{
    uint64_t code = 0; /* large enough for any code */
    hum_status st = hum_dtype_encode(t, &x, 1, &code);
    QUANT_CHECK(st == HUM_OK, "%s: encode %g failed: %s", hum_dtype_name(t), x, hum_last_error());
    return (uint32_t)code;
}

static double decode1(hum_dtype t, uint32_t code)
{
    double v = 0;
    uint64_t c = code;
    hum_status st = hum_dtype_decode(t, &c, 1, &v);
    QUANT_CHECK(st == HUM_OK, "%s: decode 0x%x failed: %s", hum_dtype_name(t), code, hum_last_error());
    return v;
}

static void check_format(const fmt *f)
{
    const int bits = hum_dtype_bits(f->dtype);
    const uint32_t ncodes = 1u << bits;
    const int size = hum_dtype_code_size(f->dtype);
    uint16_t *codes = malloc(ncodes * sizeof *codes);
    double *values = malloc(ncodes * sizeof *values);
    float *fvalues = malloc(ncodes * sizeof *fvalues);
    for (uint32_t c = 0; c < ncodes; c++) {
        if (size == 1)
            ((uint8_t *)codes)[c] = (uint8_t)c;
        else
            codes[c] = (uint16_t)c;
    }
    QUANT_CHECK(hum_dtype_decode(f->dtype, codes, ncodes, values) == HUM_OK, "%s: %s", f->what, hum_last_error());
    QUANT_CHECK(hum_dtype_to_float(f->dtype, codes, ncodes, fvalues) == HUM_OK, "%s: %s", f->what, hum_last_error());

    for (uint32_t c = 0; c < ncodes; c++) {
        const double want = expected_value(f, c);
        QUANT_CHECK(same_value(values[c], want), "%s: code 0x%x decodes to %a, definition gives %a", f->what, c,
                    values[c], want);
        QUANT_CHECK(same_value((double)fvalues[c], want), "%s: code 0x%x to_float %a, want %a", f->what, c,
                    (double)fvalues[c], want);
        if (isnan(want))
            continue;
        QUANT_CHECK(encode1(f->dtype, want) == c, "%s: encode(decode(0x%x)) = 0x%x", f->what, c,
                    encode1(f->dtype, want));
        uint64_t back = 0;
        float fv = (float)want;
        QUANT_CHECK(hum_dtype_from_float(f->dtype, &fv, 1, &back) == HUM_OK && back == c,
                    "%s: from_float(decode(0x%x)) = 0x%llx", f->what, c, (unsigned long long)back);
    }

    /* Ties: between each pair of adjacent finite values of one sign, the midpoint goes to the
     * code with the even last bit (ints: the even integer); just off it, to the nearer one. */
    const uint32_t sign = f->kind == 2 ? 1u << (f->e + f->m) : 0;
    for (uint32_t c = 0; c + 1 < ncodes; c++) {
        if (f->kind == 2 && ((c + 1) & sign))
            break;
        const double lo = expected_value(f, c), hi = expected_value(f, c + 1);
        if (isnan(lo) || isnan(hi) || isinf(hi) || !(lo < hi))
            continue;
        const double mid = lo + (hi - lo) / 2;
        const uint32_t even = (c & 1) ? c + 1 : c;
        QUANT_CHECK(encode1(f->dtype, mid) == even, "%s: midpoint %a of 0x%x/0x%x gave 0x%x", f->what, mid, c, c + 1,
                    encode1(f->dtype, mid));
        uint64_t fast = 0;
        QUANT_CHECK(hum_dtype_from_float(f->dtype, &(float){(float)mid}, 1, &fast) == HUM_OK && fast == even,
                    "%s: from_float of midpoint %a gave 0x%llx", f->what, mid, (unsigned long long)fast);
        QUANT_CHECK(encode1(f->dtype, nextafter(mid, INFINITY)) == c + 1, "%s: above midpoint %a", f->what, mid);
        QUANT_CHECK(encode1(f->dtype, nextafter(mid, -INFINITY)) == c, "%s: below midpoint %a", f->what, mid);
        if (sign && lo >= 0) {
            QUANT_CHECK(encode1(f->dtype, -mid) == (even | sign), "%s: midpoint %a gave 0x%x", f->what, -mid,
                        encode1(f->dtype, -mid));
        }
        if (f->kind == 1 && c + 1 == (ncodes >> 1) - 1)
            break; /* int: stop at the largest positive; negatives follow in code order */
    }
    free(codes);
    free(values);
    free(fvalues);
}

static void check_saturation(void)
{
    /* e4m3fn: no inf; everything beyond 448 saturates, NaN goes to 0x7F / 0xFF. */
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E4M3FN, 464.0) == 0x7E, "e4m3fn tie 464 rounds to even 448");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E4M3FN, 470.0) == 0x7E, "e4m3fn 470 saturates");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E4M3FN, 1e30) == 0x7E, "e4m3fn 1e30 saturates");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E4M3FN, -INFINITY) == 0xFE, "e4m3fn -inf saturates to -448");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E4M3FN, NAN) == 0x7F, "e4m3fn NaN");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E4M3FN, -NAN) == 0xFF, "e4m3fn -NaN");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E4M3FN, 0x1p-10) == 0x00, "e4m3fn half the smallest subnormal ties to 0");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E4M3FN, -0x1p-11) == 0x80, "e4m3fn tiny negative keeps its sign");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E4M3FN, 0x1.8p-10) == 0x01, "e4m3fn 1.5*2^-10 rounds up to 2^-9");
    /* e5m2: IEEE overflow; max 57344, next power 65536: the midpoint 61440 ties to inf. */
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E5M2, 61440.0) == 0x7C, "e5m2 61440 overflows to inf");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E5M2, 61439.0) == 0x7B, "e5m2 61439 rounds to max");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E5M2, -INFINITY) == 0xFC, "e5m2 -inf");
    uint32_t nan = encode1(HUM_DTYPE_FLOAT8_E5M2, NAN);
    QUANT_CHECK((nan & 0x7C) == 0x7C && (nan & 3) != 0, "e5m2 NaN code 0x%x", nan);
    /* float16: 65520 = max + half an ulp goes to inf; bfloat16 likewise at its own max. */
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT16, 65520.0) == 0x7C00, "float16 65520 overflows");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT16, 65519.99) == 0x7BFF, "float16 65519.99 rounds to max");
    QUANT_CHECK(encode1(HUM_DTYPE_BFLOAT16, 1e39) == 0x7F80, "bfloat16 1e39 overflows");
    /* Finite formats saturate; NaN is refused. */
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT4_E2M1, 7.0) == 0x7, "e2m1 7 saturates to 6");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT4_E2M1, -1e9) == 0xF, "e2m1 -1e9 saturates to -6");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT4_E2M1, INFINITY) == 0x7, "e2m1 inf saturates");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT6_E3M2, 100.0) == 0x1F, "e3m2 saturates to 28");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT6_E2M3, -8.0) == 0x3F, "e2m3 saturates to -7.5");
    double in[3] = {1.0, 2.0, NAN};
    uint8_t out[3] = {0xAA, 0xAA, 0xAA};
    QUANT_CHECK(hum_dtype_encode(HUM_DTYPE_FLOAT4_E2M1, in, 3, out) == HUM_ERR_INVALID_ARG, "e2m1 NaN refused");
    QUANT_CHECK(strstr(hum_last_error(), "index 2") != NULL, "message names the index: %s", hum_last_error());
    QUANT_CHECK(out[0] == 0xAA && out[1] == 0xAA, "nothing written on error");
    /* Ints: RNE and saturation. */
    QUANT_CHECK(encode1(HUM_DTYPE_UINT4, 2.5) == 2 && encode1(HUM_DTYPE_UINT4, 3.5) == 4, "uint4 ties to even");
    QUANT_CHECK(encode1(HUM_DTYPE_UINT4, 99.0) == 15 && encode1(HUM_DTYPE_UINT4, -3.0) == 0, "uint4 saturates");
    QUANT_CHECK(encode1(HUM_DTYPE_INT4, -9.0) == 0x8 && encode1(HUM_DTYPE_INT4, 8.0) == 0x7, "int4 saturates");
    QUANT_CHECK(encode1(HUM_DTYPE_INT4, -0.5) == 0 && encode1(HUM_DTYPE_INT4, -1.5) == 0xE, "int4 ties to even");
    QUANT_CHECK(hum_dtype_encode(HUM_DTYPE_INT8, &(double){NAN}, 1, out) == HUM_ERR_INVALID_ARG, "int8 NaN refused");
    /* e8m0: no zero, no sign; NaN 0xFF; saturation at both ends. */
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E8M0, 1.0) == 127, "e8m0 1.0");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E8M0, 0.75) == 126, "e8m0 0.75 = 1.5*2^-1 ties to even code 126 (0.5)");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E8M0, 3.0) == 128, "e8m0 3 = 1.5*2 ties to even code 128 (2.0)");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E8M0, 0x1p-140) == 0, "e8m0 saturates low to 2^-127");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E8M0, 0x1p200) == 0xFE, "e8m0 saturates high to 2^127");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E8M0, INFINITY) == 0xFE, "e8m0 inf saturates");
    QUANT_CHECK(encode1(HUM_DTYPE_FLOAT8_E8M0, NAN) == 0xFF, "e8m0 NaN");
    QUANT_CHECK(hum_dtype_encode(HUM_DTYPE_FLOAT8_E8M0, &(double){0.0}, 1, out) == HUM_ERR_INVALID_ARG, "e8m0 zero");
    QUANT_CHECK(hum_dtype_encode(HUM_DTYPE_FLOAT8_E8M0, &(double){-2.0}, 1, out) == HUM_ERR_INVALID_ARG, "e8m0 neg");
    /* Codes with bits above the width are refused on decode. */
    uint8_t bad[2] = {3, 0x10};
    double dv[2];
    QUANT_CHECK(hum_dtype_decode(HUM_DTYPE_UINT4, bad, 2, dv) == HUM_ERR_INVALID_ARG, "uint4 code 0x10 refused");
    QUANT_CHECK(strstr(hum_last_error(), "index 1") != NULL, "message: %s", hum_last_error());
}

/* Facts from the format tables, as a cross-check of the definition above. */
static void check_known_values(void)
{
    QUANT_CHECK(decode1(HUM_DTYPE_FLOAT8_E4M3FN, 0x7E) == 448.0, "e4m3fn max");
    QUANT_CHECK(decode1(HUM_DTYPE_FLOAT8_E4M3FN, 0x01) == 0x1p-9, "e4m3fn min subnormal");
    QUANT_CHECK(decode1(HUM_DTYPE_FLOAT8_E4M3FN, 0x08) == 0x1p-6, "e4m3fn min normal");
    QUANT_CHECK(isnan(decode1(HUM_DTYPE_FLOAT8_E4M3FN, 0xFF)), "e4m3fn 0xFF NaN");
    QUANT_CHECK(decode1(HUM_DTYPE_FLOAT8_E4M3FN, 0x78) == 256.0, "e4m3fn 0x78 is a number");
    QUANT_CHECK(decode1(HUM_DTYPE_FLOAT8_E5M2, 0x7B) == 57344.0, "e5m2 max");
    QUANT_CHECK(decode1(HUM_DTYPE_FLOAT8_E5M2, 0x01) == 0x1p-16, "e5m2 min subnormal");
    QUANT_CHECK(isinf(decode1(HUM_DTYPE_FLOAT8_E5M2, 0xFC)) && decode1(HUM_DTYPE_FLOAT8_E5M2, 0xFC) < 0, "e5m2 -inf");
    static const double e2m1[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    for (uint32_t c = 0; c < 16; c++)
        QUANT_CHECK(same_value(decode1(HUM_DTYPE_FLOAT4_E2M1, c), c & 8 ? -e2m1[c & 7] : e2m1[c & 7]), "e2m1 0x%x", c);
    QUANT_CHECK(decode1(HUM_DTYPE_FLOAT6_E3M2, 0x1F) == 28.0 && decode1(HUM_DTYPE_FLOAT6_E3M2, 1) == 0.0625, "e3m2");
    QUANT_CHECK(decode1(HUM_DTYPE_FLOAT6_E2M3, 0x1F) == 7.5 && decode1(HUM_DTYPE_FLOAT6_E2M3, 1) == 0.125, "e2m3");
    QUANT_CHECK(decode1(HUM_DTYPE_FLOAT8_E8M0, 127) == 1.0 && decode1(HUM_DTYPE_FLOAT8_E8M0, 0) == 0x1p-127, "e8m0");
    QUANT_CHECK(decode1(HUM_DTYPE_FLOAT16, 0x3C00) == 1.0 && decode1(HUM_DTYPE_BFLOAT16, 0x3F80) == 1.0, "one");
    QUANT_CHECK(hum_dtype_max_finite(HUM_DTYPE_FLOAT8_E4M3FN) == 448.0, "max e4m3fn");
    QUANT_CHECK(hum_dtype_max_finite(HUM_DTYPE_FLOAT4_E2M1) == 6.0, "max e2m1");
    QUANT_CHECK(hum_dtype_max_finite(HUM_DTYPE_FLOAT8_E8M0) == 0x1p127, "max e8m0");
    QUANT_CHECK(hum_dtype_max_finite(HUM_DTYPE_INT4) == 7.0 && hum_dtype_max_finite(HUM_DTYPE_UINT3) == 7.0, "ints");
}

/* The float32 fast paths of float16 / bfloat16 against the float64 path on random floats of
 * every magnitude, including subnormals, infinities and NaN. */
static void check_fast_paths(quant_rng *rng)
{
    enum { COUNT = 200000 };
    float *in = malloc(COUNT * sizeof *in);
    double *in64 = malloc(COUNT * sizeof *in64);
    uint16_t *fast = malloc(COUNT * sizeof *fast), *slow = malloc(COUNT * sizeof *slow);
    for (int i = 0; i < COUNT; i++) {
        uint32_t u = (uint32_t)quant_rng_next(rng);
        if (i % 4 == 0) /* concentrate on the float16 range, subnormals included */
            u = (u & 0x80000000u) | (0x30000000u + (u & 0x17FFFFFFu));
        memcpy(&in[i], &u, sizeof u);
        if (isnan(in[i]))
            in[i] = 1.0f;
        in64[i] = in[i];
    }
    const hum_dtype types[2] = {HUM_DTYPE_FLOAT16, HUM_DTYPE_BFLOAT16};
    for (int t = 0; t < 2; t++) {
        QUANT_CHECK(hum_dtype_from_float(types[t], in, COUNT, fast) == HUM_OK, "%s", hum_last_error());
        QUANT_CHECK(hum_dtype_encode(types[t], in64, COUNT, slow) == HUM_OK, "%s", hum_last_error());
        int bad = 0;
        for (int i = 0; i < COUNT && bad < 5; i++)
            if (fast[i] != slow[i])
                bad += !QUANT_CHECK(0, "%s: %a: fast 0x%04x, float64 path 0x%04x", hum_dtype_name(types[t]),
                                    (double)in[i], fast[i], slow[i]);
    }
    free(in);
    free(in64);
    free(fast);
    free(slow);
}

static void check_names(void)
{
    static const struct {
        const char *name;
        hum_dtype want;
    } cases[] = {
        {"uint4", HUM_DTYPE_UINT4}, {"int4", HUM_DTYPE_INT4}, {"uint1", HUM_DTYPE_UINT1}, {"int8", HUM_DTYPE_INT8},
        {"e4m3", HUM_DTYPE_FLOAT8_E4M3FN}, {"float8_e4m3fn", HUM_DTYPE_FLOAT8_E4M3FN},
        {"float8e4m3", HUM_DTYPE_FLOAT8_E4M3FN}, {"e5m2", HUM_DTYPE_FLOAT8_E5M2},
        {"float8_e5m2", HUM_DTYPE_FLOAT8_E5M2}, {"e2m1", HUM_DTYPE_FLOAT4_E2M1},
        {"float4_e2m1", HUM_DTYPE_FLOAT4_E2M1}, {"float4_e2m1fn", HUM_DTYPE_FLOAT4_E2M1},
        {"e8m0", HUM_DTYPE_FLOAT8_E8M0}, {"float8_e8m0fnu", HUM_DTYPE_FLOAT8_E8M0}, {"ue8m0", HUM_DTYPE_FLOAT8_E8M0},
        {"e3m2", HUM_DTYPE_FLOAT6_E3M2}, {"float6_e2m3", HUM_DTYPE_FLOAT6_E2M3}, {"float16", HUM_DTYPE_FLOAT16},
        {"half", HUM_DTYPE_FLOAT16}, {"bfloat16", HUM_DTYPE_BFLOAT16}, {"float32", HUM_DTYPE_FLOAT32},
        {"e1m2", (2u << 28) | (3u << 24) | (2u << 16) | (1u << 8) | 4u},
        {"float3e1m1", (2u << 28) | (3u << 24) | (1u << 16) | (1u << 8) | 3u},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hum_dtype t = 0;
        hum_status st = hum_dtype_parse(cases[i].name, &t);
        QUANT_CHECK(st == HUM_OK && t == cases[i].want, "parse %s gave 0x%08x", cases[i].name, t);
    }
    static const char *const bad[] = {"", "uint9", "int0", "e9m9", "float5_e2m1", "e5m2fn", "e0m3", "floatx",
                                      "e4m3x", "bfloat", "e123m1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hum_dtype t = 0;
        QUANT_CHECK(hum_dtype_parse(bad[i], &t) == HUM_ERR_UNSUPPORTED, "'%s' must be refused", bad[i]);
        QUANT_CHECK(strstr(hum_last_error(), bad[i]) != NULL, "message names '%s': %s", bad[i], hum_last_error());
    }
    QUANT_CHECK(hum_dtype_parse(NULL, &(hum_dtype){0}) == HUM_ERR_INVALID_ARG, "NULL name");
    QUANT_CHECK(strcmp(hum_dtype_name(HUM_DTYPE_FLOAT4_E2M1), "float4_e2m1") == 0, "name e2m1");
    QUANT_CHECK(strcmp(hum_dtype_name(HUM_DTYPE_FLOAT8_E8M0), "float8_e8m0") == 0, "name e8m0");
    QUANT_CHECK(strcmp(hum_dtype_name(0x12345678u), "invalid") == 0, "name of an invalid code");
    /* Every valid code prints a name that parses back to it. */
    int valid = 0;
    for (int kind = 1; kind <= 4; kind++)
        for (int special = 0; special <= 3; special++)
            for (int e = 0; e <= 11; e++)
                for (int m = 0; m <= 52; m++)
                    for (int bits = 1; bits <= 64; bits++) {
                        hum_dtype t = hum_dtype_make((hum_dtype_kind)kind, bits, e, m, (hum_dtype_special)special);
                        if (t == HUM_DTYPE_INVALID)
                            continue;
                        valid++;
                        hum_dtype back = 0;
                        QUANT_CHECK(hum_dtype_parse(hum_dtype_name(t), &back) == HUM_OK && back == t,
                                    "%s does not parse back", hum_dtype_name(t));
                        QUANT_CHECK(hum_dtype_bits(t) == bits, "bits of %s", hum_dtype_name(t));
                    }
    /* 8 uint + 3 wide, 8 int + 3 wide, 28 finite eXmY, 5 IEEE, e4m3fn, e8m0 */
    QUANT_CHECK(valid == 57, "%d valid codes", valid);
    QUANT_CHECK(hum_dtype_make(HUM_KIND_FLOAT, 8, 4, 3, HUM_SPECIAL_IEEE) == HUM_DTYPE_INVALID, "IEEE e4m3");
    QUANT_CHECK(hum_dtype_make(HUM_KIND_UINT, 9, 0, 0, HUM_SPECIAL_IEEE) == HUM_DTYPE_INVALID, "uint9");
    QUANT_CHECK(hum_dtype_bits(0x12345678u) == 0, "bits of an invalid code");
}

int main(void)
{
    quant_rng rng = quant_rng_fresh("test_dtype");
    static fmt formats[64];
    int n = 0;
    for (int b = 1; b <= 8; b++) {
        formats[n++] = (fmt){"uint", hum_dtype_make(HUM_KIND_UINT, b, 0, 0, 0), 0, 0, 0, FINITE};
        formats[n++] = (fmt){"int", hum_dtype_make(HUM_KIND_INT, b, 0, 0, 0), 1, 0, 0, FINITE};
    }
    for (int e = 1; e <= 7; e++)
        for (int m = 0; 1 + e + m <= 8; m++)
            formats[n++] = (fmt){"finite eXmY", hum_dtype_make(HUM_KIND_FLOAT, 1 + e + m, e, m, HUM_SPECIAL_FINITE),
                                 2, e, m, FINITE};
    formats[n++] = (fmt){"float8_e4m3fn", HUM_DTYPE_FLOAT8_E4M3FN, 2, 4, 3, FN};
    formats[n++] = (fmt){"float8_e5m2", HUM_DTYPE_FLOAT8_E5M2, 2, 5, 2, IEEE};
    formats[n++] = (fmt){"float8_e8m0", HUM_DTYPE_FLOAT8_E8M0, 3, 8, 0, FINITE};
    formats[n++] = (fmt){"float16", HUM_DTYPE_FLOAT16, 2, 5, 10, IEEE};
    formats[n++] = (fmt){"bfloat16", HUM_DTYPE_BFLOAT16, 2, 8, 7, IEEE};
    for (int i = 0; i < n; i++) {
        QUANT_CHECK(formats[i].dtype != HUM_DTYPE_INVALID, "format %d (%s) builds", i, formats[i].what);
        check_format(&formats[i]);
    }
    check_known_values();
    check_saturation();
    check_fast_paths(&rng);
    check_names();
    return quant_test_result("test_dtype");
}
