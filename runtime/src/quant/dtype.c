/* hum_dtype codes: construction, names, parsing, widths (see hum/hum_tools.h, HUM-SECTION dtype). */
#include "dtype_codec.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hum_dtype code(hum_dtype_kind kind, int32_t bits, int32_t e, int32_t m, hum_dtype_special s)
{
    return ((hum_dtype)s << 28) | ((hum_dtype)kind << 24) | ((hum_dtype)m << 16) | ((hum_dtype)e << 8) |
           (hum_dtype)bits;
}

hum_dtype hum_dtype_make(hum_dtype_kind kind, int32_t bits, int32_t exp_bits, int32_t man_bits,
                         hum_dtype_special special)
{
    switch (kind) {
    case HUM_KIND_UINT:
    case HUM_KIND_INT:
        if (exp_bits != 0 || man_bits != 0 || special != HUM_SPECIAL_IEEE)
            return HUM_DTYPE_INVALID;
        if ((bits >= 1 && bits <= 8) || bits == 16 || bits == 32 || bits == 64)
            return code(kind, bits, 0, 0, special);
        return HUM_DTYPE_INVALID;
    case HUM_KIND_FLOAT:
        if (exp_bits < 1 || man_bits < 0 || bits != 1 + exp_bits + man_bits)
            return HUM_DTYPE_INVALID;
        if (special == HUM_SPECIAL_FINITE && bits <= 8)
            return code(kind, bits, exp_bits, man_bits, special);
        if (special == HUM_SPECIAL_IEEE &&
            ((exp_bits == 5 && man_bits == 10) || (exp_bits == 8 && man_bits == 7) ||
             (exp_bits == 8 && man_bits == 23) || (exp_bits == 11 && man_bits == 52) ||
             (exp_bits == 5 && man_bits == 2)))
            return code(kind, bits, exp_bits, man_bits, special);
        if (special == HUM_SPECIAL_FN && exp_bits == 4 && man_bits == 3)
            return code(kind, bits, exp_bits, man_bits, special);
        return HUM_DTYPE_INVALID;
    case HUM_KIND_UFLOAT:
        if (bits == 8 && exp_bits == 8 && man_bits == 0 && special == HUM_SPECIAL_E8M0)
            return code(kind, bits, exp_bits, man_bits, special);
        return HUM_DTYPE_INVALID;
    default: return HUM_DTYPE_INVALID;
    }
}

static int valid(hum_dtype t)
{
    return t != HUM_DTYPE_INVALID &&
           hum_dtype_make((hum_dtype_kind)((t >> 24) & 0xF), (int32_t)(t & 0xFF), (int32_t)((t >> 8) & 0xFF),
                          (int32_t)((t >> 16) & 0xFF), (hum_dtype_special)(t >> 28)) == t;
}

int32_t hum_dtype_bits(hum_dtype t) { return valid(t) ? (int32_t)(t & 0xFF) : 0; }

int32_t hum_dtype_code_size(hum_dtype t)
{
    int32_t bits = hum_dtype_bits(t);
    return bits == 0 ? 0 : bits <= 8 ? 1 : bits / 8;
}

/* Canonical names of the finite generic floats, indexed [exp_bits][man_bits]. The two 8-bit
 * layouts whose plain names belong to the standard e4m3fn / e5m2 get a "_finite" suffix. */
static const char *const finite_names[8][8] = {
    [1] = {"float2_e1m0", "float3_e1m1", "float4_e1m2", "float5_e1m3", "float6_e1m4", "float7_e1m5", "float8_e1m6",
           NULL},
    [2] = {"float3_e2m0", "float4_e2m1", "float5_e2m2", "float6_e2m3", "float7_e2m4", "float8_e2m5", NULL, NULL},
    [3] = {"float4_e3m0", "float5_e3m1", "float6_e3m2", "float7_e3m3", "float8_e3m4", NULL, NULL, NULL},
    [4] = {"float5_e4m0", "float6_e4m1", "float7_e4m2", "float8_e4m3_finite", NULL, NULL, NULL, NULL},
    [5] = {"float6_e5m0", "float7_e5m1", "float8_e5m2_finite", NULL, NULL, NULL, NULL, NULL},
    [6] = {"float7_e6m0", "float8_e6m1", NULL, NULL, NULL, NULL, NULL, NULL},
    [7] = {"float8_e7m0", NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};

static const char *const int_names[2][9] = {
    {NULL, "uint1", "uint2", "uint3", "uint4", "uint5", "uint6", "uint7", "uint8"},
    {NULL, "int1", "int2", "int3", "int4", "int5", "int6", "int7", "int8"},
};

static const struct alias {
    const char *name;
    hum_dtype dtype;
} aliases[] = {
    {"uint16", HUM_DTYPE_UINT16},   {"uint32", HUM_DTYPE_UINT32},     {"uint64", HUM_DTYPE_UINT64},
    {"int16", HUM_DTYPE_INT16},     {"int32", HUM_DTYPE_INT32},       {"int64", HUM_DTYPE_INT64},
    {"float16", HUM_DTYPE_FLOAT16}, {"half", HUM_DTYPE_FLOAT16},      {"fp16", HUM_DTYPE_FLOAT16},
    {"bfloat16", HUM_DTYPE_BFLOAT16}, {"bf16", HUM_DTYPE_BFLOAT16},
    {"float32", HUM_DTYPE_FLOAT32}, {"float", HUM_DTYPE_FLOAT32},     {"fp32", HUM_DTYPE_FLOAT32},
    {"float64", HUM_DTYPE_FLOAT64}, {"double", HUM_DTYPE_FLOAT64},    {"fp64", HUM_DTYPE_FLOAT64},
    {"float8_e4m3fn", HUM_DTYPE_FLOAT8_E4M3FN}, {"float8_e5m2", HUM_DTYPE_FLOAT8_E5M2},
    {"float8_e8m0", HUM_DTYPE_FLOAT8_E8M0}, {"float8_e8m0fnu", HUM_DTYPE_FLOAT8_E8M0},
    {"e8m0", HUM_DTYPE_FLOAT8_E8M0}, {"e8m0fnu", HUM_DTYPE_FLOAT8_E8M0}, {"ue8m0", HUM_DTYPE_FLOAT8_E8M0},
    {"float8_e4m3_finite", (hum_dtype)HUM_DTYPE_FLOAT8_E4M3FN + ((hum_dtype)1 << 28)},
    {"float8_e5m2_finite", (hum_dtype)HUM_DTYPE_FLOAT8_E5M2 + ((hum_dtype)2 << 28)},
};

const char *hum_dtype_name(hum_dtype t)
{
    if (!valid(t))
        return "invalid";
    const int bits = (int)(t & 0xFF), e = (int)((t >> 8) & 0xFF), m = (int)((t >> 16) & 0xFF);
    switch ((hum_dtype_kind)((t >> 24) & 0xF)) {
    case HUM_KIND_UINT:
    case HUM_KIND_INT:
        if (bits <= 8)
            return int_names[((t >> 24) & 0xF) == HUM_KIND_INT][bits];
        break;
    case HUM_KIND_FLOAT:
        if ((hum_dtype_special)(t >> 28) == HUM_SPECIAL_FINITE)
            return finite_names[e][m];
        break;
    default: break;
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (aliases[i].dtype == t)
            return aliases[i].name;
    return "invalid";
}

/* Reads a decimal number of 1-2 digits at *s; returns -1 if there is none. */
static int read_number(const char **s)
{
    const char *p = *s;
    int v = 0, n = 0;
    while (*p >= '0' && *p <= '9' && n < 2) {
        v = v * 10 + (*p - '0');
        p++;
        n++;
    }
    if (n == 0 || (*p >= '0' && *p <= '9'))
        return -1;
    *s = p;
    return v;
}

/* [float<B>[_]]e<X>m<Y>[fn]: the standard type of that layout if there is one, else the
 * finite generic type. */
static hum_dtype parse_float(const char *s)
{
    int total = -1;
    if (strncmp(s, "float", 5) == 0) {
        s += 5;
        total = read_number(&s);
        if (total < 0)
            return HUM_DTYPE_INVALID;
        if (*s == '_')
            s++;
    }
    if (*s++ != 'e')
        return HUM_DTYPE_INVALID;
    const int e = read_number(&s);
    if (e < 0 || *s++ != 'm')
        return HUM_DTYPE_INVALID;
    const int m = read_number(&s);
    if (m < 0)
        return HUM_DTYPE_INVALID;
    const int fn = strcmp(s, "fn") == 0;
    if (!fn && *s != '\0')
        return HUM_DTYPE_INVALID;
    if (total >= 0 && total != 1 + e + m)
        return HUM_DTYPE_INVALID;
    if (e == 4 && m == 3)
        return HUM_DTYPE_FLOAT8_E4M3FN;
    if (e == 5 && m == 2)
        return fn ? HUM_DTYPE_INVALID : (hum_dtype)HUM_DTYPE_FLOAT8_E5M2;
    return hum_dtype_make(HUM_KIND_FLOAT, 1 + e + m, e, m, HUM_SPECIAL_FINITE);
}

hum_status hum_dtype_parse(const char *name, hum_dtype *out)
{
    if (name == NULL || out == NULL)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_dtype_parse: NULL %s", name == NULL ? "name" : "out");
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].name) == 0) {
            *out = aliases[i].dtype;
            return HUM_OK;
        }
    for (int is_int = 0; is_int < 2; is_int++)
        for (int bits = 1; bits <= 8; bits++)
            if (strcmp(name, int_names[is_int][bits]) == 0) {
                *out = code(is_int ? HUM_KIND_INT : HUM_KIND_UINT, bits, 0, 0, HUM_SPECIAL_IEEE);
                return HUM_OK;
            }
    hum_dtype t = parse_float(name);
    if (t == HUM_DTYPE_INVALID)
        return hum_fail(HUM_ERR_UNSUPPORTED,
                        "unknown dtype '%s' (expected uint1..uint8, int1..int8, float16, bfloat16, float32, "
                        "float8_e4m3fn, float8_e5m2, float8_e8m0, float4_e2m1, float6_e3m2, float6_e2m3 or eXmY "
                        "with 1+X+Y <= 8)",
                        name);
    *out = t;
    return HUM_OK;
}

int32_t hum_dtype_is_weight(hum_dtype t)
{
    const int kind = (int)((t >> 24) & 0xF), bits = hum_dtype_bits(t);
    return bits >= 1 && bits <= 8 && (kind == HUM_KIND_UINT || kind == HUM_KIND_FLOAT);
}

int32_t hum_dtype_is_scale(hum_dtype t)
{
    return t == HUM_DTYPE_FLOAT16 || t == HUM_DTYPE_BFLOAT16 || t == HUM_DTYPE_FLOAT32 ||
           t == HUM_DTYPE_FLOAT8_E4M3FN || t == HUM_DTYPE_FLOAT8_E5M2 || t == HUM_DTYPE_FLOAT8_E8M0;
}

int32_t hum_dtype_is_activation(hum_dtype t) { return t == HUM_DTYPE_FLOAT16 || t == HUM_DTYPE_BFLOAT16; }
