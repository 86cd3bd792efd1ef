// Weight codes to float16/bfloat16 pairs, straight from the repacked words.
//
// A repacked word holds 32/CONT containers of CONT bits (CONT = the power of two >= the weight
// width). Container c (c < 16/CONT) and container c + 16/CONT form one "pair": the two values of
// a B-fragment register (consecutive k, same column n), sitting at bit s = c*CONT of the low and
// of the high 16-bit half. One mask therefore lifts both values of a register at once.
#pragma once
#include "numerics/codes.cuh"
#include "numerics/half2.cuh"

// (a & MASK) | c in one LOP3. Written out because the compiler, given both constants as
// immediates, emits an AND and an OR (a LOP3 takes one immediate): with c in a register (hoisted
// once per kernel) every pair of codes costs one logic instruction instead of two.
template <u32 MASK>
HUM_DEV u32 and_or(u32 a, u32 c)
{
    u32 d;
    asm("lop3.b32 %0, %1, %2, %3, 0xea;\n" : "=r"(d) : "r"(a), "n"(MASK), "r"(c));
    return d;
}

// Integer codes (offset binary). Returns (q - ZC) for both values, exactly.
// OR-ing q into the mantissa of 2^MAN (MAN = 10 for float16, 7 for bfloat16) gives 2^MAN + q
// without any conversion instruction; a code sitting o bits up reads as 2^MAN + q*2^o, which one
// fma with 2^-o brings back. Codes wider than the bfloat16 mantissa (8-bit) put their top bit on
// the lowest exponent bit instead, where it doubles 2^MAN, and a second fma adds the two parts.
// ZR: minus a run-time integer zero point z as well (both halves of zero2; ZC is then 0). Where
// the code fits the mantissa, z joins the fma's addend: 2^(MAN-O) + z < 2^(MAN-O+1) is exact,
// so the pair costs no subtraction of its own, and the addend, the same for every pair of a
// column and offset, is computed once per scale group (the compiler hoists it).
// WIN (bfloat16, codes of at most 8 bits): returns (q - ZC - z) * 2^-kWindowExp instead, for a
// caller that multiplies its float results by 2^kWindowExp anyway (gemm/dequant.cuh). A bfloat16
// half whose bits above bit 7 are clear reads linearly as b * 2^-133 for the 8-bit value b of
// its low byte: exponent field 0 is the subnormal m * 2^-133, field 1 the normal (128 + m) *
// 2^-133. So the codes of a byte are masked where they sit, with no shift under the 7-bit
// mantissa (which costs bfloat16 a shift for every pair but the first: 3 per word of 4-bit codes
// against float16's 1, bench/NOTES.md "Session 8 dense9"), and one fma by 2^(127-O) takes the
// code at bit O of its byte to q * 2^-6 exactly (2^133 is past bfloat16's range). Per word of
// 4-bit codes: one shift (by a byte), 4 masks, 4 fma, as float16.
constexpr int kWindowExp = 6;
template <bool BF16, int BITS, int CONT, int ZC, int C, bool ZR = false, bool WIN = false>
HUM_DEV u32 int_pair(u32 word, u32 zero2 = 0)
{
    static_assert(!ZR || ZC == 0, "a run-time zero point replaces the constant one");
    static_assert(!WIN || (BF16 && BITS <= 8 && 8 % CONT == 0), "the linear window holds bfloat16 codes of a byte");
    constexpr int MAN = BF16 ? 7 : 10;
    constexpr u32 MAGIC = dup16(bits16(1, MAN, BF16));
    constexpr int S = C * CONT;
    if constexpr (WIN) {
        constexpr int SH = S / 8 * 8;  // whole bytes
        constexpr int O = S - SH;
        constexpr u32 MASK = ((1u << BITS) - 1u) << O;
        const u32 x = (word >> SH) & (MASK | MASK << 16);
        constexpr u32 MUL = dup16(bits16(1, 127 - O, true));
        if constexpr (ZR)  // -z * 2^-kWindowExp, once per scale group (hoisted)
            return fma2<true>(x, MUL, mul2<true>(zero2, dup16(bits16(-1, -kWindowExp, true))));
        return fma2<true>(x, MUL, dup16(bits16(-ZC, -kWindowExp, true)));
    } else if constexpr (BITS <= MAN) {
        // Shift as little as possible (and by whole bytes where it can) so that the code ends
        // below bit MAN; the remaining offset O is undone by the fma.
        constexpr int NEED = S + BITS - MAN > 0 ? S + BITS - MAN : 0;
        constexpr int UP8 = (NEED + 7) & ~7;
        constexpr int SH = UP8 < S ? UP8 : S;
        constexpr int O = S - SH;
        constexpr u32 MASK = ((1u << BITS) - 1u) << O;
        const u32 x = and_or<MASK | MASK << 16>(word >> SH, MAGIC);
        // x * 2^-O - (2^(MAN-O) + ZC) = q - ZC, every term exact.
        constexpr u32 INV = dup16(bits16(1, -O, BF16));
        constexpr u32 BIAS = dup16(bits16(-((1ll << (MAN - O)) + ZC), 0, BF16));
        if constexpr (ZR)
            return fma2<BF16>(x, INV, sub2<BF16>(BIAS, zero2));
        return fma2<BF16>(x, INV, BIAS);
    } else {
        static_assert(BITS == MAN + 1, "integer weights wider than the mantissa plus one bit");
        const u32 v = word >> S;
        constexpr u32 LO = (1u << MAN) - 1u;
        const u32 lo = and_or<LO | LO << 16>(v, MAGIC);                         // 2^MAN + low bits
        const u32 hi = and_or<(1u << MAN) | (1u << (MAN + 16))>(v, MAGIC);     // 2^MAN or 2^(MAN+1)
        constexpr u32 ONE = dup16(bits16(1, 0, BF16));
        const u32 t = fma2<BF16>(hi, ONE, dup16(bits16(-((2ll << MAN) + ZC), 0, BF16)));
        // 2^(MAN+1) + z needs MAN + 2 bits: z is subtracted from the exact q instead
        if constexpr (ZR)
            return sub2<BF16>(fma2<BF16>(lo, ONE, t), zero2);
        return fma2<BF16>(lo, ONE, t);
    }
}

// Floating-point codes with EXP exponent bits (1 sign bit, BITS-1-EXP mantissa bits), read as
// finite numbers. The code's sign is moved onto bit 15 (and 31) and its exponent and mantissa
// fields are slid under it so that the mantissa is left-aligned with the target's; the target's
// exponent field then holds the code's exponent unchanged, which is the code's value times
// 2^(bias_target - bias_code) for normal and subnormal codes alike. The caller's scale carries
// the 2^(bias_code - bias_target) that undoes it.
template <bool BF16, int BITS, int EXP, int CONT, int C>
HUM_DEV u32 float_pair(u32 word)
{
    constexpr int TARGET_EXP = BF16 ? 8 : 5;
    static_assert(EXP <= TARGET_EXP && BITS - 1 - EXP <= (BF16 ? 7 : 10),
                  "weight format wider than the activation type");
    constexpr int LEFT = 15 - (BITS - 1) - C * CONT;
    u32 t;
    if constexpr (LEFT >= 0)
        t = word << LEFT;
    else
        t = word >> -LEFT;
    constexpr u32 em = ((1u << (BITS - 1)) - 1u) << (16 - BITS);
    return ((t & (em | em << 16)) >> (TARGET_EXP - EXP)) | (t & 0x80008000u);
}

// Rebuilds the CONT virtual words of an odd width from its BITS stored words
// (kernels/numerics/codes.cuh); words below BITS are used as they are, since the pair masks only
// read their low BITS bits.
template <int BITS, int CONT>
HUM_DEV void expand_words(const u32 *w, u32 *o)
{
    using P = OddPlanes<BITS>;
#pragma unroll
    for (int e = 0; e < BITS; ++e)
        o[e] = w[e];
#pragma unroll
    for (int e = BITS; e < CONT; ++e) {
        u32 v = 0;
#pragma unroll
        for (int p = 0; p < BITS; ++p)
            v |= (w[P::word(e, p)] >> (P::bit(e, p) - p)) & (P::LSB << p);
        o[e] = v;
    }
}
