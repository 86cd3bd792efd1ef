// B loaders: the repacked codes (kernels/prep/repack.cu) and the scale and zero-point rows of
// one k-block of a tile into a pipeline stage, as 16-byte cp.async chunks in the order they sit
// in global memory. A stage holds, per k16 row of the tile, kBN / 64 units of 32 lanes x
// kWeightBits words; scale and zero-point stages hold kScaleRows rows of kBN values.
#pragma once
#include "gemm/rows.cuh"
#include "ptx/cp_async.cuh"

namespace gemm {

constexpr i64 kCodeRowWords = static_cast<i64>(kN) / 64 * 32 * kWeightBits;  // one k16 row of B

// Expert strides of the stacked weights (kernels/contract/moe_layout.h): codes in words, scale
// and zero-point rows in values.
constexpr i64 kCodeStride = hum_moe_code_stride(kN, kK, kWeightBits);
constexpr i64 kParamStride = hum_moe_param_stride(kN, kGroupRows);

// The first code word of the tile of `expert` whose columns start at n0.
HUM_DEV const u32 *codes_tile(const hum_gemm_args &args, int expert, int n0)
{
    return static_cast<const u32 *>(args.b) + expert * kCodeStride + static_cast<i64>(n0 / 64) * 32 * kWeightBits;
}

HUM_DEV void copy_codes(u32 dst, const u32 *tile, int kb, int tid)
{
    constexpr int CPR = kBRowWords / 4;  // chunks per k16 row of the tile
    const u32 *b = tile + static_cast<i64>(kb) * (kBK / 16) * kCodeRowWords;
    for_chunks<kBK / 16 * CPR>(tid, [&](int, int ch) {
        cp_async16(dst + ch * 16, b + ch / CPR * kCodeRowWords + ch % CPR * 4, true);
    });
}

// The scale rows (to s_dst; SCALES: those the kernel reads from its stages) and zero-point
// rows (to z_dst) of `expert`'s columns n0.. for k-block kb.
template <bool SCALES = kScalesStaged>
HUM_DEV void copy_params(const hum_gemm_args &args, u32 s_dst, u32 z_dst, int expert, int n0, int kb, int tid)
{
    if constexpr (SCALES || kZeroPoint) {
        constexpr int CPR = kBN / 8;
        const i64 s = expert * kParamStride + n0 + static_cast<i64>(kb * kBK / kGroup) * kN;
        for_chunks<kScaleRows * CPR>(tid, [&](int, int ch) {
            const i64 off = s + static_cast<i64>(ch / CPR) * kN + ch % CPR * 8;
            if constexpr (SCALES)
                cp_async16(s_dst + ch * 16, static_cast<const u16 *>(args.b_scale) + off, true);
            if constexpr (kZeroPoint)
                cp_async16(z_dst + ch * 16, static_cast<const u16 *>(args.zero) + off, true);
        });
    }
}

}  // namespace gemm
