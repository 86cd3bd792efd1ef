// Pairs of float16 or bfloat16 values held in one 32-bit register (low half = first element),
// with the arithmetic done through PTX so the same code serves both types. Every operation is a
// fused multiply-add: fma.rn exists for f16x2 on sm_53+ and for bf16x2 on sm_80+, while separate
// bf16x2 mul/sub only exist on sm_90, and a*b + (-0) or a*(-1) + b round exactly like mul and sub.
#pragma once
#include "common.cuh"

// Bits of the exact value m * 2^e as float16 (BF16 false) or bfloat16. The value must be a normal
// number whose significant bits fit the mantissa; the kernels only ask for powers of two and
// small integers, and every call is evaluated at compile time.
__host__ __device__ constexpr u16 bits16(long long m, int e, bool bf16)
{
    u32 sign = m < 0 ? 0x8000u : 0u;
    if (m < 0)
        m = -m;
    if (m == 0)
        return static_cast<u16>(sign);
    while ((m & 1) == 0) {
        m >>= 1;
        ++e;
    }
    int msb = 0;
    while ((m >> (msb + 1)) != 0)
        ++msb;
    const int man_bits = bf16 ? 7 : 10;
    const int bias = bf16 ? 127 : 15;
    const u32 frac = static_cast<u32>(m - (1ll << msb)) << (man_bits - msb);
    return static_cast<u16>(sign | static_cast<u32>(msb + e + bias) << man_bits | frac);
}

__host__ __device__ constexpr u32 dup16(u16 x)
{
    return static_cast<u32>(x) | static_cast<u32>(x) << 16;
}

template <bool BF16>
HUM_DEV u32 fma2(u32 a, u32 b, u32 c)
{
    u32 d;
    if constexpr (BF16)
        asm("fma.rn.bf16x2 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    else
        asm("fma.rn.f16x2 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

// a * b, rounded once.
template <bool BF16>
HUM_DEV u32 mul2(u32 a, u32 b)
{
    return fma2<BF16>(a, b, dup16(0x8000));
}

// a - b, rounded once.
template <bool BF16>
HUM_DEV u32 sub2(u32 a, u32 b)
{
    return fma2<BF16>(b, dup16(bits16(-1, 0, BF16)), a);
}

// Both halves set to the low (HIGH false) or high half of x.
template <bool HIGH>
HUM_DEV u32 broadcast16(u32 x)
{
    u32 d;
    asm("prmt.b32 %0, %1, 0, %2;\n" : "=r"(d) : "r"(x), "n"(HIGH ? 0x3232 : 0x1010));
    return d;
}

// Round-to-nearest-even conversion of two floats into one pair.
template <bool BF16>
HUM_DEV u32 pack2(float lo, float hi)
{
    u32 d;
#if __CUDA_ARCH__ >= 800
    if constexpr (BF16)
        asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(d) : "f"(hi), "f"(lo));
    else
        asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(d) : "f"(hi), "f"(lo));
#else
    static_assert(!BF16, "bfloat16 needs sm_80 or newer");
    u16 l, h;
    asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(l) : "f"(lo));
    asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(h) : "f"(hi));
    asm("mov.b32 %0, {%1, %2};\n" : "=r"(d) : "h"(l), "h"(h));
#endif
    return d;
}

template <bool BF16>
HUM_DEV float to_float(u16 x)
{
    if constexpr (BF16) {
        return __uint_as_float(static_cast<u32>(x) << 16);
    } else {
        float f;
        asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(x));
        return f;
    }
}

// One element of the output type, rounded to nearest even.
template <bool BF16>
HUM_DEV u16 pack1(float v)
{
    u16 d;
#if __CUDA_ARCH__ >= 800
    if constexpr (BF16)
        asm("cvt.rn.bf16.f32 %0, %1;\n" : "=h"(d) : "f"(v));
    else
#endif
        asm("cvt.rn.f16.f32 %0, %1;\n" : "=h"(d) : "f"(v));
    return d;
}
