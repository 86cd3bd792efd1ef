// The dequantization of one B register pair, shared by the mma.sync and wgmma main loops: the
// two codes of pair C of a (virtual) repacked word, decoded (kernels/numerics/decode.cuh), minus
// the zero point, times the scale (both already broadcast to the pair's two halves).
#pragma once
#include "gemm/config.cuh"
#include "numerics/decode.cuh"

namespace gemm {

template <int C>
HUM_DEV u32 dequant_pair(u32 word, u32 zero2, u32 scale2)
{
    u32 v;
    if constexpr (kWeightFloat)
        v = float_pair<kBF16, kWeightBits, kWeightExp, kCont, C>(word);
    else
        v = int_pair<kBF16, kWeightBits, kCont, kZeroConst, C, kZeroInt>(word, zero2);
    if constexpr (kZeroPoint && !kZeroInt)
        v = sub2<kBF16>(v, zero2);
    if constexpr (kHasScale)
        v = mul2<kBF16>(v, scale2);
    else if constexpr (kConstScaleExp != 0)
        v = mul2<kBF16>(v, dup16(bits16(1, kConstScaleExp, kBF16)));
    return v;
}

}  // namespace gemm

namespace gemm {

// Two float16 pairs -> four e4m3 codes, the pairs interleaved (bytes lo.x, hi.x, lo.y, hi.y),
// saturating, nearest even; exact for the small integers 4-bit codes decode to. The two
// conversions fill one register's halves in one asm, so that no zero-extension of a 16-bit
// result (a LOP3 each) sits between them and the byte permute.
HUM_DEV u32 e4m3x4_of_half2x2(u32 lo, u32 hi)
{
#if __CUDA_ARCH__ >= 890
    u32 d;
    asm("{\n .reg .b16 l, h;\n cvt.rn.satfinite.e4m3x2.f16x2 l, %1;\n cvt.rn.satfinite.e4m3x2.f16x2 h, %2;\n"
        " mov.b32 %0, {l, h};\n}\n"
        : "=r"(d)
        : "r"(lo), "r"(hi));
    return __byte_perm(d, 0, 0x3120);
#else
    static_assert(!kAFp8, "e4m3 activations need sm_89 or newer");
    return lo;
#endif
}

// The B register of 8-bit A for fragment J from a lane's words of one k16 row in the 8-bit-A K
// order (kernels/prep/repack.cu): the four codes of its column at k 4t..4t+3, one per byte.
// 8-bit codes: e4m3 multiply as they are, uint8 become int8 around their midpoint 128 (the
// top bit flipped). 4-bit codes: word J / 2 holds fragment J's four codes in its containers
// 2(J % 2), 2(J % 2) + 1 and the same + 4. uint4 (around 8) become int8 q - 8, or e4m3 of q - 8
// through float16 pairs; float codes (e2m1) are decoded to float16 (2^exp_compensation too
// small: the constant gives it back), times the folded group scale scale2 when staged, then
// e4m3 (exact for MXFP4's power-of-two scales in the range the prepared rows keep).
template <int J>
HUM_DEV u32 b8_reg(const u32 *words, u32 scale2)
{
    static_assert(!kA8 || kWeightBits == 8 || (kWeightBits == 4 && (kAFp8 || !kWeightFloat)),
                  "8-bit A takes 8-bit codes, uint4, or 4-bit floats with e4m3");
    if constexpr (kWeightBits == 8) {
        if constexpr (kAInt8)
            return words[J] ^ 0x80808080u;
        else
            return words[J];
    } else if constexpr (kAInt8) {
        const u32 x = words[J / 2];
        const u32 q = J % 2 == 0 ? (x & 0x000F000Fu) | ((x << 4) & 0x0F000F00u)
                                 : ((x >> 8) & 0x000F000Fu) | ((x >> 4) & 0x0F000F00u);
        return (q + 0x78787878u) ^ 0x80808080u;  // q + 0x78 <= 0x87: no carry between bytes
    } else {
        u32 h[2];
        static_for<0, 2>([&](auto ic) {
            constexpr int C = 2 * (J % 2) + decltype(ic)::value;
            if constexpr (kWeightFloat) {
                constexpr int COMP = 15 - (kWeightExp > 0 ? (1 << (kWeightExp - 1)) - 1 : 0);  // float16's bias minus the code's
                u32 v = mul2<false>(float_pair<false, 4, kWeightExp, 4, C>(words[J / 2]), dup16(bits16(1, COMP, false)));
                if constexpr (kScalesStaged)
                    v = mul2<false>(v, scale2);
                h[decltype(ic)::value] = v;
            } else {
                h[decltype(ic)::value] = int_pair<false, 4, 4, 8, C>(words[J / 2]);
            }
        });
        return e4m3x4_of_half2x2(h[0], h[1]);
    }
}

}  // namespace gemm
