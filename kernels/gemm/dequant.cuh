// The dequantization of one B register pair, shared by the mma.sync and wgmma main loops: the
// two codes of pair C of a (virtual) repacked word, decoded (kernels/numerics/decode.cuh), minus
// the zero point, times the scale (both already broadcast to the pair's two halves). SCALED
// false: without the scale, which the caller applies to its float accumulators instead
// (gemm_mma.cu, kScaleAcc; gemm_wgmma.cu, kChannelScaleAcc), together with kUnscaledFactor.
#pragma once
#include "gemm/config.cuh"
#include "numerics/decode.cuh"

namespace gemm {

// Unscaled bfloat16 integer codes come from the linear window (numerics/decode.cuh, int_pair's
// WIN: 2 instructions fewer per word of 4-bit codes) times 2^-kWindowExp, which the caller's
// float scale undoes (kUnscaledFactor); float zero points, subtracted after the decode, keep
// the mantissa decode.
constexpr bool kUnscaledWindow = kBF16 && !kWeightFloat && kWeightBits <= 8 && !(kZeroPoint && !kZeroInt);
constexpr float kUnscaledFactor = kUnscaledWindow ? float(1 << kWindowExp) : 1.f;

template <int C, bool SCALED = true>
HUM_DEV u32 dequant_pair(u32 word, u32 zero2, u32 scale2)
{
    u32 v;
    if constexpr (kWeightFloat)
        v = float_pair<kBF16, kWeightBits, kWeightExp, kCont, C>(word);
    else
        v = int_pair<kBF16, kWeightBits, kCont, kZeroConst, C, kZeroInt, !SCALED && kUnscaledWindow>(word, zero2);
    if constexpr (kZeroPoint && !kZeroInt)
        v = sub2<kBF16>(v, zero2);
    if constexpr (kHasScale) {
        if constexpr (SCALED)
            v = mul2<kBF16>(v, scale2);
    } else if constexpr (kConstScaleExp != 0) {
        v = mul2<kBF16>(v, dup16(bits16(1, kConstScaleExp, kBF16)));
    }
    return v;
}

}  // namespace gemm

namespace gemm {

// Two float16 pairs -> four e4m3 codes (bytes a.x, a.y, b.x, b.y), saturating, nearest even; the
// two conversions fill one register's halves in one asm, so that no zero-extension of a 16-bit
// result (a LOP3 each) sits between them and what reads the register.
HUM_DEV u32 e4m3x2x2(u32 a, u32 b)
{
#if __CUDA_ARCH__ >= 890
    u32 d;
    asm("{\n .reg .b16 l, h;\n cvt.rn.satfinite.e4m3x2.f16x2 l, %1;\n cvt.rn.satfinite.e4m3x2.f16x2 h, %2;\n"
        " mov.b32 %0, {l, h};\n}\n"
        : "=r"(d)
        : "r"(a), "r"(b));
    return d;
#else
    static_assert(!kAFp8, "e4m3 activations need sm_89 or newer");
    return a;
#endif
}

// Which byte tables fp4_tables builds (below). Where the layer's weights put every group in the
// window (kFoldWindow: the host read their scales, runtime/src/layer/layer_upload.c,
// hum_layer_fold_window) every kernel takes the IMADs alone; else the wgmma kernels choose once
// per stage and warpgroup (gemm_wgmma.cu, compute_stage), the mma.sync kernel per call.
enum class Fp4Path {
    kEither,    // the IMADs where both columns' groups lie in the window, else the products: a test and branch per call
    kWindow,    // the IMADs: the caller knows the groups lie in the window (fp4_window)
    kProducts,  // the products, for any scale: no test
};
template <Fp4Path P>
struct fp4_path_c {
    static constexpr Fp4Path value = P;
};
// The path that needs nothing known at run time: the IMADs where the layer's groups all lie in
// the window, else the test per call.
constexpr Fp4Path kFp4Path = kFoldWindow ? Fp4Path::kWindow : Fp4Path::kEither;

// Whether both staged float16 2^r of m lie in the window (d >= 1: the exponent field e = d + 9 >=
// 10; the mantissas are 0). m may be the halfwise minimum of several words' (unsigned order is
// the order of nonnegative float16 values).
HUM_DEV bool fp4_window(u32 m)
{
    return (m & 0xFFFFu) >= 0x2800u && m >= 0x28000000u;
}

// MXFP4 (e2m1) codes to e4m3 by byte table, for e4m3 A. An e2m1 magnitude p (3 bits: exponent,
// mantissa) read as e4m3 bits p << 2 is the e2m1 value times 2^-6, the subnormal 0.5 included; a
// column's group value times 2^r then adds d = r + 6 to the e4m3 exponent of every nonzero
// magnitude while the result stays normal (d >= 1, r >= -5; d <= 12 since the prepared relative
// exponents are at most 6). The eight bytes indexed by p are then two words linear in d, one IMAD
// each with 0 kept 0, and one prmt looks a register's four magnitudes up; the signs are ORed in.
// A group whose scale is 2^12 or more below its column's largest (d <= 0: subnormal results)
// takes its tables from the float16 products, converted as the float16 path did (exact down to
// r = -8, nearest even below; inside the window the same bytes as the IMADs). sc: the float16 2^r
// of the lane's two columns (low half J = 0), as staged.
template <Fp4Path P = kFp4Path>
HUM_DEV void fp4_tables(u32 sc, u32 (&t)[4])
{
    static_assert(!kFp4Table || kWeightExp == 2, "the byte table decodes e2m1");
    constexpr u32 LO = 0x08080800u, HI = 0x08080808u;  // d adds to bytes 1..3 (p 1..3), to all of p 4..7
    constexpr u32 LO0 = 0x0C080000u - 9u * LO, HI0 = 0x1C181410u - 9u * HI;  // the float16 exponent e is d + 9
    const u32 e0 = (sc >> 10) & 31u, e1 = sc >> 26;
    if constexpr (P != Fp4Path::kProducts) {
        t[0] = e0 * LO + LO0;
        t[1] = e0 * HI + HI0;
        t[2] = e1 * LO + LO0;
        t[3] = e1 * HI + HI0;
    }
    if (P == Fp4Path::kProducts || (P == Fp4Path::kEither && !fp4_window(sc))) {
        static_for<0, 2>([&](auto jc) {
            constexpr int J = decltype(jc)::value;
            const u32 s = broadcast16<J != 0>(sc);
            t[2 * J] = e4m3x2x2(mul2<false>(dup16(0) | u32{bits16(1, -1, false)} << 16, s),
                                mul2<false>(u32{bits16(1, 0, false)} | u32{bits16(3, -1, false)} << 16, s));
            t[2 * J + 1] = e4m3x2x2(mul2<false>(u32{bits16(2, 0, false)} | u32{bits16(3, 0, false)} << 16, s),
                                    mul2<false>(u32{bits16(4, 0, false)} | u32{bits16(6, 0, false)} << 16, s));
        });
    }
}

// The e4m3 registers of the lane's two columns (r0: J = 0) from one repacked word in table order
// (kernels/prep/repack.cu): column J's code j (k 4t + j) has its magnitude at bits 16J + 4j and
// its sign at bit 8j + 7 - 4J.
HUM_DEV void fp4_regs(const u32 (&t)[4], u32 w, u32 &r0, u32 &r1)
{
    const u32 m = w & 0x77777777u;  // prmt's selector nibbles, their sign-mode bit clear
    u32 p0, p1;
    asm("prmt.b32 %0, %1, %2, %3;\n" : "=r"(p0) : "r"(t[0]), "r"(t[1]), "r"(m));
    asm("prmt.b32 %0, %1, %2, %3;\n" : "=r"(p1) : "r"(t[2]), "r"(t[3]), "r"(m >> 16));
    r0 = p0 | (w & 0x80808080u);
    r1 = p1 | ((w << 4) & 0x80808080u);
}

// The B register of 8-bit A for fragment J from a lane's words of one k16 row in the 8-bit-A K
// order (kernels/prep/repack.cu): the four codes of its column at k 4t..4t+3, one per byte.
// 8-bit codes: e4m3 multiply as they are, uint8 become int8 around their midpoint 128 (the
// top bit flipped). uint4 (around 8): word J / 2 holds fragment J's four codes in its containers
// 2(J % 2), 2(J % 2) + 1 and the same + 4; they become int8 q - 8, or e4m3 of q - 8 through
// float16 pairs (exact for these small integers). 4-bit floats take fp4_regs.
template <int J>
HUM_DEV u32 b8_reg(const u32 *words)
{
    static_assert(!kA8 || kWeightBits == 8 || (kWeightBits == 4 && !kWeightFloat),
                  "8-bit A takes 8-bit codes or uint4 here (e2m1: fp4_regs)");
    if constexpr (kWeightBits == 8) {
        if constexpr (kAInt8)
            return words[J] ^ 0x80808080u;
        else
            return words[J];
    } else {
        const u32 x = words[J / 2];
        if constexpr (kAInt8) {
            const u32 q = J % 2 == 0 ? (x & 0x000F000Fu) | ((x << 4) & 0x0F000F00u)
                                     : ((x >> 8) & 0x000F000Fu) | ((x >> 4) & 0x0F000F00u);
            return (q + 0x78787878u) ^ 0x80808080u;  // q + 0x78 <= 0x87: no carry between bytes
        } else {
            constexpr int C = 2 * (J % 2);
            const u32 d = e4m3x2x2(int_pair<false, 4, 4, 8, C>(x), int_pair<false, 4, 4, 8, C + 1>(x));
            return __byte_perm(d, 0, 0x3120);  // (lo.x, hi.x, lo.y, hi.y): k 4t..4t+3
        }
    }
}

}  // namespace gemm
