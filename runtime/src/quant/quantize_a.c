/* The CPU twin of kernels/prep/quantize_a.cu and kernels/numerics/encode.cuh
 * (hum_quantize_activations, hum/hum_tools.h): the same float32 operations in the same order,
 * so a difference between the two is a bug in one of them. */
#include "dtype_codec.h"
#include "internal.h"

#include <math.h>
#include <string.h>

static const float e4m3_max = 448.0f, int8_max = 127.0f;

static uint32_t float_bits(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static float bits_float(uint32_t b)
{
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* enc::e4m3_soft */
static uint8_t e4m3_code(float x)
{
    const uint32_t b = float_bits(x);
    const uint32_t sign = b >> 24 & 0x80u;
    const uint32_t a = b & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return (uint8_t)(sign | 0x7Fu);
    if (a >= 0x43E00000u)
        return (uint8_t)(sign | 0x7Eu);
    if (a <= 0x3A800000u)
        return (uint8_t)sign;
    const uint32_t e = a >> 23;
    uint32_t mant, shift, code;
    if (e < 121) {
        mant = (a & 0x7FFFFFu) | 0x800000u;
        shift = 141 - e;
        code = mant >> shift;
    } else {
        mant = a & 0x7FFFFFu;
        shift = 20;
        code = (e - 120) << 3 | mant >> 20;
    }
    const uint32_t rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (code & 1u)))
        ++code;
    return (uint8_t)(sign | code);
}

/* enc::e4m3_round (rintf: nearest even in the default rounding mode) */
static float e4m3_round(float x)
{
    const float a = fabsf(x);
    float r;
    if (a < 0.015625f) {
        r = rintf(a * 512.0f) * 0.001953125f;
    } else {
        const uint32_t b = float_bits(a);
        r = fminf(bits_float((b + 0x7FFFFu + (b >> 20 & 1u)) & 0xFFF00000u), e4m3_max);
    }
    return copysignf(r, x);
}

/* enc::mx_scale */
static float mx_scale(float inv)
{
    const uint32_t b = float_bits(inv);
    if (b == 0)
        return 0.0f;
    const uint32_t code = b == 0x00400000u ? 254u : 254u - (b >> 23);
    return bits_float(code ? code << 23 : 0x00400000u);
}

/* enc::int8_code */
static uint8_t int8_code(float x)
{
    const float c = fminf(fmaxf(x, -int8_max), int8_max);
    return (uint8_t)(int8_t)hum_round_half_even((double)c);
}

/* enc::floor_log2 */
static int floor_log2(float x)
{
    const uint32_t b = float_bits(x);
    const int e = (int)(b >> 23);
    return e ? e - 127 : (31 - __builtin_clz(b)) - 149;
}

/* enc::e8m0_mx_code */
static uint32_t e8m0_mx_code(float amax)
{
    const int x = floor_log2(amax) - 8 + 127;
    return (uint32_t)(x < 0 ? 0 : x > 254 ? 254 : x);
}

/* enc::e8m0_inverse */
static float e8m0_inverse(uint32_t code)
{
    return code >= 254 ? bits_float(0x00400000u) : bits_float((254u - code) << 23);
}

/* enc::inverse_of */
static float inverse_of(float amax, float max)
{
    return amax > 0.0f ? fminf(max / amax, 3.40282347e38f) : 0.0f;
}

/* Element j of a row as float32 (exact: float16 and bfloat16 are subsets), 0 past k. */
static float load(const hum_codec *f16, const void *row, hum_dtype dtype, int64_t j, int64_t k)
{
    if (j >= k)
        return 0.0f;
    if (dtype == HUM_DTYPE_FLOAT32)
        return ((const float *)row)[j];
    if (dtype == HUM_DTYPE_BFLOAT16)
        return bits_float((uint32_t)((const uint16_t *)row)[j] << 16);
    return (float)hum_codec_decode(f16, ((const uint16_t *)row)[j]);
}

static int64_t row_stride(const hum_tensor *t)
{
    return t->strides[0] ? t->strides[0] : t->shape[1];
}

/* Whether every element of a host tensor [rows, cols] with strides (row, col) has a byte offset
 * int64 holds, the strides not negative: a row stride of INT64_MAX wrapped to an address before
 * the buffer. */
static int addressable(int64_t rows, int64_t cols, int64_t row, int64_t col, int64_t bytes)
{
    if (row < 0 || col < 0)
        return 0;
    if (rows == 0 || cols == 0)
        return 1;
    const int64_t limit = INT64_MAX / bytes;
    if (rows > 1 && row > limit / (rows - 1))
        return 0;
    const int64_t last_row = (rows - 1) * row;
    return cols == 1 || col <= (limit - last_row) / (cols - 1);
}

static hum_status check(const hum_tensor *a, const hum_act_quant *how, float input_scale, const hum_tensor *q,
                        const hum_tensor *scale, int64_t *groups)
{
    if (!a || !how || !q)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_activations: NULL %s", !a ? "a" : !how ? "how" : "q");
    if (a->memory != HUM_MEMORY_HOST || !a->data || a->rank != 2 ||
        (a->dtype != HUM_DTYPE_FLOAT16 && a->dtype != HUM_DTYPE_BFLOAT16 && a->dtype != HUM_DTYPE_FLOAT32) ||
        a->shape[0] < 0 || a->shape[1] < 1 || (a->strides[1] != 0 && a->strides[1] != 1) || row_stride(a) < a->shape[1])
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "hum_quantize_activations: a must be host float16, bfloat16 or float32 [M, K] "
                        "with contiguous rows (got %s, rank %d)",
                        hum_dtype_name(a->dtype), a->rank);
    if (how->dtype != HUM_DTYPE_FLOAT8_E4M3FN && how->dtype != HUM_DTYPE_INT8)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_activations: code dtype %s (expected float8_e4m3fn or int8)",
                        hum_dtype_name(how->dtype));
    /* q of a 16-bit type: MXFP8 as rounding, the codes' values times their scales */
    const int round = q->dtype == HUM_DTYPE_FLOAT16 || q->dtype == HUM_DTYPE_BFLOAT16;
    if (round && (how->dtype != HUM_DTYPE_FLOAT8_E4M3FN || how->scale != HUM_ACT_SCALE_GROUP || how->group != 32 ||
                  how->scale_dtype != HUM_DTYPE_FLOAT8_E8M0 || scale))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_activations: q of %s (rounding) takes mxfp8: float8_e4m3fn "
                        "codes, GROUP scales of 32 columns, float8_e8m0, and scale NULL", hum_dtype_name(q->dtype));
    /* the kernel rounds into A's own 16-bit type; float32 A (the MoE reference's activation
     * output) into either */
    if (round && a->dtype != HUM_DTYPE_FLOAT32 && q->dtype != a->dtype)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_activations: q of %s (rounding) with a of %s: expected a's "
                        "type (or a float32 a)", hum_dtype_name(q->dtype), hum_dtype_name(a->dtype));
    if (q->memory != HUM_MEMORY_HOST || !q->data || q->rank != 2 || (q->dtype != how->dtype && !round) ||
        q->shape[0] != a->shape[0] || q->shape[1] < a->shape[1] || (q->strides[1] != 0 && q->strides[1] != 1) ||
        row_stride(q) < q->shape[1])
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_activations: q must be host %s [M, Kq >= K] with M = %lld, "
                        "K = %lld and contiguous rows", hum_dtype_name(round ? q->dtype : how->dtype),
                        (long long)a->shape[0], (long long)a->shape[1]);
    const hum_act_scale mode = how->scale;
    if (mode != HUM_ACT_SCALE_TOKEN && mode != HUM_ACT_SCALE_TENSOR && mode != HUM_ACT_SCALE_GROUP)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_activations: unknown scale mode %d", (int)mode);
    const int grouped = mode == HUM_ACT_SCALE_GROUP;
    if (grouped ? how->group < 8 || how->group > 256 || (how->group & (how->group - 1)) : how->group != 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_activations: group %d (expected %s)", (int)how->group,
                        grouped ? "a power of two in 8..256" : "0 unless the scale mode is GROUP");
    const int e8m0 = how->scale_dtype == HUM_DTYPE_FLOAT8_E8M0;
    if ((how->scale_dtype != HUM_DTYPE_FLOAT32 && !e8m0) ||
        (e8m0 && (!grouped || how->dtype != HUM_DTYPE_FLOAT8_E4M3FN)))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_activations: scale dtype %s (expected float32, or "
                        "float8_e8m0 for GROUP scales of e4m3fn codes)", hum_dtype_name(how->scale_dtype));
    if (mode == HUM_ACT_SCALE_TENSOR) {
        if (!(input_scale >= 0.0f) || isinf(input_scale))
            return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_activations: input_scale %g (expected finite and >= 0)",
                            (double)input_scale);
        if (scale)
            return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_activations: scale must be NULL for TENSOR "
                            "(the scale is input_scale)");
        *groups = 0;
        return HUM_OK;
    }
    *groups = grouped ? (a->shape[1] + how->group - 1) / how->group : 1;
    if (round)
        return HUM_OK;
    if (!scale || scale->memory != HUM_MEMORY_HOST || !scale->data || scale->dtype != how->scale_dtype ||
        scale->rank < 1 || scale->rank > 2 || scale->shape[0] != a->shape[0] ||
        (scale->rank == 2 ? scale->shape[1] != *groups : *groups != 1))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_activations: scale must be host %s [M, %lld] with M = %lld",
                        hum_dtype_name(how->scale_dtype), (long long)*groups, (long long)a->shape[0]);
    return HUM_OK;
}

hum_status hum_quantize_activations(const hum_tensor *a, const hum_act_quant *how, float input_scale,
                                    const hum_tensor *q, const hum_tensor *scale)
{
    int64_t groups = 0;
    const hum_status st = check(a, how, input_scale, q, scale, &groups);
    if (st != HUM_OK)
        return st;
    const int64_t m = a->shape[0], k = a->shape[1], kq = q->shape[1], lda = row_stride(a), ldq = row_stride(q);
    const int int8 = how->dtype == HUM_DTYPE_INT8;
    const int64_t a_bytes = a->dtype == HUM_DTYPE_FLOAT32 ? 4 : 2;
    const int e8m0 = how->scale_dtype == HUM_DTYPE_FLOAT8_E8M0;
    const float max = int8 ? int8_max : e4m3_max;
    const int round = q->dtype == HUM_DTYPE_FLOAT16 || q->dtype == HUM_DTYPE_BFLOAT16;
    /* scale strides: [M] or [M, G], contiguous when the tensor gives none */
    int64_t s_row = 0, s_group = 0;
    if (scale) {
        s_row = scale->strides[0] ? scale->strides[0] : scale->rank == 2 ? scale->shape[1] : 1;
        s_group = scale->rank == 2 && scale->strides[1] ? scale->strides[1] : 1;
    }
    const char *far = !addressable(m, k, lda, 1, a_bytes)                             ? "a"
                      : !addressable(m, kq, ldq, 1, round ? 2 : 1)                      ? "q"
                      : scale && !addressable(m, groups, s_row, s_group, e8m0 ? 1 : 4) ? "scale"
                                                                                       : NULL;
    if (far)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_quantize_activations: %s's strides reach past INT64_MAX bytes or are "
                        "negative", far);
    /* the whole row is one group per token; the static scale has one inv for every element */
    const int64_t span = how->scale == HUM_ACT_SCALE_GROUP ? how->group : kq > k ? kq : k;
    const float tensor_inv =
        how->scale == HUM_ACT_SCALE_TENSOR && input_scale != 0.0f ? 1.0f / input_scale : 0.0f;
    hum_codec f16, q16;
    hum_codec_init(HUM_DTYPE_FLOAT16, &f16);
    if (round)
        hum_codec_init(q->dtype, &q16);
    for (int64_t r = 0; r < m; r++) {
        const char *row = (const char *)a->data + r * lda * a_bytes;
        uint8_t *out = (uint8_t *)q->data + r * ldq * (round ? 2 : 1);
        for (int64_t j0 = 0; j0 < kq; j0 += span) {
            float amax = 0.0f;
            for (int64_t j = j0; j < j0 + span && j < k; j++)
                amax = fmaxf(amax, fabsf(load(&f16, row, a->dtype, j, k)));
            float inv = tensor_inv;
            if (how->scale != HUM_ACT_SCALE_TENSOR && j0 < k) {
                const int64_t at = r * s_row + j0 / span * s_group;
                if (e8m0) {
                    /* an all-zero group has no exponent (floor_log2 is defined for x > 0 only) */
                    const uint32_t code = amax > 0.0f ? e8m0_mx_code(amax) : 0u;
                    inv = amax > 0.0f ? e8m0_inverse(code) : 0.0f;
                    if (!round)
                        ((uint8_t *)scale->data)[at] = (uint8_t)code;
                } else {
                    inv = inverse_of(amax, max);
                    ((float *)scale->data)[at] = amax / max;
                }
            }
            /* round: enc::mx_round2, the scale 1 / inv (a power of two) exact, as is its product
             * with the code's value; one rounding to q's type (the codec's nearest even) */
            const float scale_of = mx_scale(inv);
            for (int64_t j = j0; j < j0 + span && j < kq; j++) {
                const float x = load(&f16, row, a->dtype, j, k) * inv;
                if (round)
                    ((uint16_t *)out)[j] = (uint16_t)hum_codec_encode(&q16, (double)(e4m3_round(x) * scale_of));
                else
                    out[j] = int8 ? int8_code(x) : e4m3_code(x);
            }
        }
    }
    return HUM_OK;
}
