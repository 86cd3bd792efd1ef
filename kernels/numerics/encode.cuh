// Encoders of quantized activations: float32 to e4m3fn, int8 and the OCP MX e8m0 exponent. The
// CPU twins (runtime/src/quant/quantize_a.c) are written the same way, so the two agree bit for
// bit on every finite input.
#pragma once
#include "common.cuh"

namespace enc {

constexpr float kE4m3Max = 448.0f;
constexpr float kInt8Max = 127.0f;

// e4m3fn code of x: round to nearest even, saturating at +-448 (NaN gives 0x7F). Integer
// arithmetic on the float32 bits, for GPUs without the fp8 conversion (before sm_89).
HUM_DEV u32 e4m3_soft(float x)
{
    const u32 b = __float_as_uint(x);
    const u32 sign = b >> 24 & 0x80u;
    const u32 a = b & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return sign | 0x7Fu;
    if (a >= 0x43E00000u)  // 448 and above (inf included): the rounding never exceeds 448 below it
        return sign | 0x7Eu;
    if (a <= 0x3A800000u)  // at most 2^-10, half the smallest subnormal 2^-9: rounds to zero
        return sign;
    const u32 e = a >> 23;
    u32 mant, shift, code;
    if (e < 121) {  // below 2^-6: a subnormal e4m3fn, m * 2^-9, with the implicit bit in the shift
        mant = (a & 0x7FFFFFu) | 0x800000u;
        shift = 141 - e;
        code = mant >> shift;
    } else {
        mant = a & 0x7FFFFFu;
        shift = 20;
        code = (e - 120) << 3 | mant >> 20;
    }
    const u32 rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (code & 1u)))
        ++code;  // a carry out of the mantissa moves to the next binade, as the code order does
    return sign | code;
}

// Two e4m3fn codes (lo in bits 0..7, hi in 8..15), as e4m3_soft gives them.
HUM_DEV u32 e4m3x2(float lo, float hi)
{
#if __CUDA_ARCH__ >= 890
    u16 d;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\n" : "=h"(d) : "f"(hi), "f"(lo));
    return d;
#else
    return e4m3_soft(lo) | e4m3_soft(hi) << 8;
#endif
}

// The value of x's e4m3fn code (e4m3_soft's: nearest even, saturating at +-448) for a finite
// x, computed without the code (the pre-sm_89 encoder and a decoder after it spilled the
// quantizer's registers): below 2^-6 the subnormal step 2^-9 (x * 512 is exact, rintf rounds to
// nearest even), above it x's float32 bits rounded to 3 mantissa bits (a carry moves to the next
// binade), then 448 at most (480, the NaN code's value, is what values above 464 round to; 464
// ties to 448). A negative x that rounds to zero gives -0, as the code's sign bit does.
HUM_DEV float e4m3_round(float x)
{
    const float a = fabsf(x);
    float r;
    if (a < 0.015625f) {
        r = rintf(a * 512.0f) * 0.001953125f;
    } else {
        const u32 b = __float_as_uint(a);
        r = fminf(__uint_as_float((b + 0x7FFFFu + (b >> 20 & 1u)) & 0xFFF00000u), kE4m3Max);
    }
    return copysignf(r, x);
}

// bfloat16 of a finite x, nearest even, in integer arithmetic (cvt.rn.bf16.f32 needs sm_80; the
// kernels that call this also build for sm_75).
HUM_DEV u16 bf16_rn(float x)
{
    const u32 b = __float_as_uint(x);
    return static_cast<u16>((b + 0x7FFFu + (b >> 16 & 1u)) >> 16);
}

// The scale of an e8m0 group from its factor inv (group_scale's, 2^(127 - code)): 1 / inv =
// 2^(code - 127) from inv's bits (a division costs registers the quantizer has not got; inv is
// normal but for code 254, 2^-127, and the scale but for code 0); 0 for an all-zero group.
HUM_DEV float mx_scale(float inv)
{
    const u32 b = __float_as_uint(inv);
    if (b == 0)
        return 0.0f;
    const u32 code = b == 0x00400000u ? 254u : 254u - (b >> 23);
    return __uint_as_float(code ? code << 23 : 0x00400000u);
}

// MXFP8 as rounding: the value of x's e4m3fn code under the group factor inv (group_scale's,
// e8m0) times the group's scale 1 / inv (a power of two, so the product is exact), rounded to
// the 16-bit type (bf16: bfloat16, else float16), nearest even; x0's 16 bits in the low half.
HUM_DEV u32 mx_round2(float x0, float x1, float inv, float scale, bool bf16)
{
    const float v0 = e4m3_round(x0 * inv) * scale, v1 = e4m3_round(x1 * inv) * scale;
    if (bf16)
        return bf16_rn(v0) | static_cast<u32>(bf16_rn(v1)) << 16;
    u16 h0, h1;
    asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(h0) : "f"(v0));
    asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(h1) : "f"(v1));
    return h0 | static_cast<u32>(h1) << 16;
}

// int8 code of x: clamped to +-127 first (so NaN and huge values cannot wrap), then rounded to
// nearest even.
HUM_DEV u32 int8_code(float x)
{
    int q;
    asm("cvt.rni.s32.f32 %0, %1;\n" : "=r"(q) : "f"(fminf(fmaxf(x, -kInt8Max), kInt8Max)));
    return static_cast<u32>(q) & 0xFFu;
}

// The codes of x[0..7] * inv, x[i]'s in byte i % 4 of word i / 4: int8 (int8_code) or e4m3fn
// (e4m3x2). The per-token quantizers of A (prep/quantize_a.cu, and the GEMM's own,
// gemm/quant_a.cuh) encode through this one rule.
HUM_DEV void codes8(const float (&x)[8], float inv, bool int8, u32 (&w)[2])
{
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const float *v = x + 4 * i;
        if (int8)
            w[i] = int8_code(v[0] * inv) | int8_code(v[1] * inv) << 8 | int8_code(v[2] * inv) << 16 |
                   int8_code(v[3] * inv) << 24;
        else
            w[i] = e4m3x2(v[0] * inv, v[1] * inv) | e4m3x2(v[2] * inv, v[3] * inv) << 16;
    }
}

// floor(log2(x)) of a finite x > 0, float32 subnormals included.
HUM_DEV int floor_log2(float x)
{
    const u32 b = __float_as_uint(x);
    const int e = static_cast<int>(b >> 23);
    return e ? e - 127 : (31 - __clz(static_cast<int>(b))) - 149;
}

// The OCP MX shared exponent of a group whose largest magnitude is amax > 0, as a float8_e8m0
// code: 2^(floor(log2(amax)) - 8) (8: the exponent of e4m3fn's largest value), clamped to the
// codes 0 (2^-127) .. 254 (2^127).
HUM_DEV u32 e8m0_mx_code(float amax)
{
    const int x = floor_log2(amax) - 8 + 127;
    return static_cast<u32>(x < 0 ? 0 : x > 254 ? 254 : x);
}

// 2^(127 - code) as float32: the exact reciprocal of an e8m0 scale (subnormal for 254).
HUM_DEV float e8m0_inverse(u32 code)
{
    return code >= 254 ? __uint_as_float(0x00400000u) : __uint_as_float((254u - code) << 23);
}

// x = m 2^e for a finite x > 0 (float32 subnormals included): m in [1, 2), returned, and e.
HUM_DEV float split_pow2(float x, int &e)
{
    u32 b = __float_as_uint(x);
    int field = static_cast<int>(b >> 23);
    if (field == 0) {  // subnormal: the leading one moved up to bit 23
        const int s = __clz(static_cast<int>(b)) - 8;
        b <<= s;
        field = 1 - s;
    }
    e = field - 127;
    return __uint_as_float((b & 0x007FFFFFu) | 0x3F800000u);
}

// a / b rounded to nearest even, as IEEE float32 division gives it (subnormal results and
// overflow to infinity included; an infinite b gives 0 and an infinite a infinity, as there,
// though the quantizers' contract asks for finite A), for a, b > 0, without the division's slow path: that
// is a subroutine, and a call anywhere in a GEMM kernel that quantizes its own A
// (gemm/quant_a.cuh) made ptxas build the main loop's wgmma descriptors in vector registers
// (214 instructions a stage of W8A8's 192-row tile against 152, sm_90a). The mantissas' quotient
// q lies in (1/2, 2), where the approximate reciprocal and one correction leave it within an ulp
// of a / b; of it and its two neighbours the one whose remainder am - c bm (exact: FMA) is
// smallest is the rounded quotient (a quotient of floats is never a midpoint). Then the
// exponents: exact while the result is normal; below, the mantissa is rounded to the subnormal
// step, the remainder's sign deciding where q sits on a midpoint of that coarser step.
HUM_DEV float div_rn_finite(float a, float b);

HUM_DEV float div_rn(float a, float b)
{
    const float q = div_rn_finite(a, b);
    return isinf(b) ? 0.0f : isinf(a) ? a : q;
}

// div_rn for finite a and b.
HUM_DEV float div_rn_finite(float a, float b)
{
    int ea, eb;
    const float am = split_pow2(a, ea), bm = split_pow2(b, eb);
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(bm));
    float q = am * y;
    q = fmaf(fmaf(-q, bm, am), y, q);
    float r = fmaf(-q, bm, am);
#pragma unroll
    for (int d = -1; d <= 1; d += 2) {
        const float c = __uint_as_float(__float_as_uint(q) + d);
        const float rc = fmaf(-c, bm, am);
        if (fabsf(rc) < fabsf(r)) {
            q = c;
            r = rc;
        }
    }
    const u32 qb = __float_as_uint(q);
    const int e = static_cast<int>(qb >> 23) - 127 + ea - eb;  // the result's exponent
    if (e > 127)
        return __uint_as_float(0x7F800000u);
    if (e >= -126)
        return __uint_as_float((qb & 0x007FFFFFu) | static_cast<u32>(e + 127) << 23);
    const int shift = -126 - e;  // mantissa bits below the subnormal step
    if (shift > 24)
        return 0.0f;
    const u32 mant = (qb & 0x007FFFFFu) | 0x00800000u, rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    const u32 kept = mant >> shift;
    const bool up = rest > half || (rest == half && (r > 0.0f || (r == 0.0f && (kept & 1u))));
    return __uint_as_float(kept + (up ? 1u : 0u));
}

// The factor that maps a per-token (or per-group) amax to the largest code: max / amax, 0 for
// amax 0 (codes 0, never 0/0), at most FLT_MAX (a tiny bfloat16 amax would overflow it).
HUM_DEV float inverse_of(float amax, float max)
{
    return amax > 0.0f ? fminf(div_rn(max, amax), 3.40282347e38f) : 0.0f;
}

// The scale of a group (a token's row, or `group` columns of it) whose largest magnitude is
// amax, stored at scale[at] when `store` (the group's first lane), and the factor its values
// are multiplied by before they are encoded (the contract of kernels/contract/quantize_args.h):
// e8m0, the OCP MX exponent (code 0 for amax 0) and its exact reciprocal; float32, amax / max
// and inverse_of. Shared by the quantizers of A (prep/quantize_a.cu) and of the MoE
// activation (moe/act.cu), so that both write what the one CPU twin writes.
HUM_DEV float group_scale(float amax, float max, bool e8m0, void *scale, long long at, bool store)
{
    if (e8m0) {
        const u32 code = e8m0_mx_code(amax);
        const float inv = amax > 0.0f ? e8m0_inverse(code) : 0.0f;
        if (store)
            static_cast<u8 *>(scale)[at] = static_cast<u8>(amax > 0.0f ? code : 0u);
        return inv;
    }
    const float inv = inverse_of(amax, max);
    if (store)
        static_cast<float *>(scale)[at] = amax > 0.0f ? div_rn(amax, max) : 0.0f;
    return inv;
}

}  // namespace enc
