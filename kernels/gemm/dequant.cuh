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
        v = int_pair<kBF16, kWeightBits, kCont, kZeroConst, C>(word);
    if constexpr (kZeroPoint)
        v = sub2<kBF16>(v, zero2);
    if constexpr (kHasScale)
        v = mul2<kBF16>(v, scale2);
    else if constexpr (kConstScaleExp != 0)
        v = mul2<kBF16>(v, dup16(bits16(1, kConstScaleExp, kBF16)));
    return v;
}

}  // namespace gemm

namespace gemm {

// The B register of 8-bit A for fragment J from a lane's words of one k16 row in the 8-bit-A K
// order (kernels/prep/repack.cu): the four codes of its column at k 4t..4t+3, one per byte.
// e4m3 codes multiply as they are; uint8 codes become int8 around their midpoint 128 (the top
// bit flipped).
template <int J>
HUM_DEV u32 b8_reg(const u32 *words)
{
    static_assert(!kA8 || kWeightBits == 8, "8-bit A takes 8-bit weight codes");
    if constexpr (kAInt8)
        return words[J] ^ 0x80808080u;
    else
        return words[J];
}

}  // namespace gemm
