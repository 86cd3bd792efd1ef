// K-group scales (gemm/config.cuh, kKScales): the float32 factors of one promotion period of
// kPromoteK columns of K, which both main loops (gemm_mma.cu, gemm_wgmma.cu) load at the
// period's first MMA step and multiply into the accumulators when they promote them:
//   A's scale of the row and group (a_scale [row * a_scale_ld + k / kAGroup]: float32, or with
//   groups of 32 e8m0 bytes, 2^(code - 127)), 1 without A groups (the epilogue applies A's
//   per-token scale then);
//   the weight's scale of the column and K group (b_scale: float32 rows [kGroupRows][kN] per
//   expert, runtime/src/layer/layer_upload.c), 1 without weight K groups (the epilogue applies
//   the channel factor then).
// Each kernel names the thread's rows and columns through row_of / col_of.
#pragma once
#include "gemm/load_b.cuh"
#include "gemm/schedule.cuh"

namespace gemm {

// A's group scale of row `row` (>= 0) of A at column k; 0 past K, whose codes are zero and
// whose groups A's scale rows do not have.
HUM_DEV float a_group_scale(const hum_gemm_args &args, i64 row, int k)
{
    if (kKReal != kK && k >= kKReal)
        return 0.f;
    // kAGroup is 0 in kernels without A group scales, which never call this: keep the constant
    // division defined there.
    const i64 at = row * args.a_scale_ld + k / (kAGroupScales ? kAGroup : 1);
    if constexpr (kAScaleE8m0) {
        const u32 code = __ldg(reinterpret_cast<const u8 *>(args.a_scale) + at);
        return __uint_as_float(code ? code << 23 : 0x00400000u);  // code 0: 2^-127, a float32 subnormal
    } else {
        return __ldg(args.a_scale + at);
    }
}

// The factors of the period starting at column k0 of K for the thread's rows row_of(i) (0 ..
// kBM - 1 of block blk) and columns col_of(j) (of the padded N): fa[i] of A, fb[j] of the
// weight. A row the block does not have gets 0.
template <int R, int C, typename RowOf, typename ColOf>
HUM_DEV void kscale_factors(const hum_gemm_args &args, const Block &blk, int k0, RowOf row_of, ColOf col_of,
                            float (&fa)[R], float (&fb)[C])
{
#pragma unroll
    for (int i = 0; i < R; ++i) {
        if constexpr (kAGroupScales) {
            const i64 row = a_row(args, blk, row_of(i));
            fa[i] = row >= 0 ? a_group_scale(args, row, k0) : 0.f;
        } else {
            fa[i] = 1.f;
        }
    }
#pragma unroll
    for (int j = 0; j < C; ++j) {
        if constexpr (kBlockScales)
            fb[j] = __ldg(static_cast<const float *>(args.b_scale) + blk.expert * kParamStride +
                          static_cast<i64>(k0 / kGroup) * kN + col_of(j));
        else
            fb[j] = 1.f;
    }
}

// The block and first column of the tile being computed, for the mma.sync kernel whose loads
// run ahead of its math (the wgmma kernel computes one tile per segment and knows both).
struct KTile {
    int tile = -1;
    Block blk;
    int n0 = 0;

    HUM_DEV void set(const hum_gemm_args &args, const Rows &rows, int t)
    {
        if (t == tile)
            return;
        tile = t;
        int mb, nb;
        tile_coords(t, rows.blocks, mb, nb);
        blk = rows.block(args, mb);
        n0 = nb * kBN;
    }
};

}  // namespace gemm
