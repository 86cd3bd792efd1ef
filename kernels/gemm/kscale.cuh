// K-group scales (gemm/config.cuh, kKScales): the float32 factors of one promotion period of
// kPromoteK columns of K, which both main loops (gemm_mma.cu, gemm_wgmma.cu) read at the
// period's first MMA step and multiply into the accumulators when they promote them:
//   A's scale of the row and group (a_scale [row * a_scale_ld + k / kAGroup]: float32, or with
//   groups of 32 e8m0 bytes, 2^(code - 127)), 1 without A groups (the epilogue applies A's
//   per-token scale then);
//   the weight's scale of the column and K group (b_scale: float32 rows [kGroupRows][kN] per
//   expert, runtime/src/layer/layer_upload.c), 1 without weight K groups (the epilogue applies
//   the channel factor then).
// A k-block's factors travel in its pipeline stage with its codes (copy_kscales, by the threads
// that copy), so that a promotion reads shared memory instead of waiting on global loads in the
// math loop. Each kernel names the thread's rows and columns through row_of / col_of.
#pragma once
#include "gemm/load_b.cuh"
#include "gemm/schedule.cuh"

namespace gemm {

// A's K group, columns; kAGroup is 0 in kernels without A group scales, which never use this:
// 1 there keeps the constant divisions below defined.
constexpr int kAGroupCols = kAGroupScales ? kAGroup : 1;
// A's scale words per row and stage; likewise 0 without A group scales, and 1 there keeps the
// divisions of copy_kscales' branch that never runs defined (NVRTC warns of them otherwise).
constexpr int kAScaleDiv = kAScaleWords > 0 ? kAScaleWords : 1;

// Byte offset in a_scale of A's scale of row `row` (>= 0) and of the group of column k.
HUM_DEV i64 a_scale_offset(const hum_gemm_args &args, i64 row, int k)
{
    return (row * args.a_scale_ld + k / kAGroupCols) * (kAScaleE8m0 ? 1 : 4);
}

// The e8m0 code's power of two; code 0: 2^-127, a float32 subnormal.
HUM_DEV float e8m0_value(u32 code)
{
    return __uint_as_float(code ? code << 23 : 0x00400000u);
}

// A's e8m0 group scale of row `row` (>= 0) of A, row r of the block, at column k, from the
// stage's K-scale region ks (whose first column is k - k % kBK): the byte sits in the row's
// window as far in as the window's start is before the k-block's first scale. 0 past K, whose
// codes are zero and whose groups A's scale rows do not have (selected, not branched around:
// kscale_factors).
HUM_DEV float a_e8m0_scale(const hum_gemm_args &args, i64 row, int r, int k, u32 ks)
{
    const unsigned long long first = reinterpret_cast<unsigned long long>(
        reinterpret_cast<const u8 *>(args.a_scale) + a_scale_offset(args, row, k - k % kBK));
    const int byte = static_cast<int>(first & 3) + k % kBK / kAGroupCols;
    const float f = e8m0_value(lds32(ks + (r * kAScaleWords + byte / 4) * 4) >> (8 * (byte % 4)) & 0xffu);
    return kKReal != kK && k >= kKReal ? 0.f : f;
}

// The weight's factor of tile column col (0 .. kBN - 1) and scale row bg of the stage whose K-scale
// region is ks; 1 without weight K groups.
HUM_DEV float kscale_b(u32 ks, int bg, int col)
{
    return kBlockScales ? __uint_as_float(lds32(ks + kKSBOffset + (bg * kBN + col) * 4)) : 1.f;
}

// The weight's factors fb[j] of the thread's tile columns col_of(j) from scale row bg of the region
// ks. Where those columns lie in one run of SPAN columns aligned in the weight's columns, and a
// weight block spans a multiple of SPAN (kGroupN, BLOCK scales' N extent; SPAN 0: no such run
// known), they share one factor, read once: the promotion's products fa x fb then repeat across
// the thread's columns and ptxas computes each token's once (FP8 block-wise 128 x 128, 128-row
// tile: half the FMULs, its loop 730 -> 598 instructions a run of four stages). Columns past N, in
// the last block's run, take that block's factor: their codes are zero and C skips them.
template <int SPAN, int C, typename ColOf>
HUM_DEV void kscale_b_cols(u32 ks, int bg, ColOf col_of, float (&fb)[C])
{
    constexpr bool kOne = kBlockScales && SPAN > 0 && kGroupN > 0 && kGroupN % SPAN == 0;
#pragma unroll
    for (int j = 0; j < C; ++j)
        fb[j] = kOne && j > 0 ? fb[0] : kscale_b(ks, bg, col_of(j));
}

// A's float32 factors of rows r and r + 1 (r even) of a stage whose k-block lies in one A group
// (a row's scales one word, kAScaleWords 1: adjacent rows, one LDS.64) from its K-scale region ks;
// 1 without A groups.
HUM_DEV void kscale_a_pair(u32 ks, int r, float &f0, float &f1)
{
    u32 a = __float_as_uint(1.f), b = a;
    if constexpr (kAGroupScales)
        lds64(ks + r * 4, a, b);
    f0 = __uint_as_float(a);
    f1 = __uint_as_float(b);
}

// The factors of the period starting at column k0 of K for the thread's rows row_of(i) (0 ..
// kBM - 1 of block blk, whose rows of A `table` holds: gemm/rows.cuh) and tile columns col_of(j)
// (0 .. kBN - 1, in SPAN-aligned runs: kscale_b_cols), from the stage's K-scale region ks: fa[i] of
// A, fb[j] of the weight. A row the block does not have gets 0 (float32 scales: the zeros its words
// were filled with).
template <int SPAN, int R, int C, typename RowOf, typename ColOf>
HUM_DEV void kscale_factors(const hum_gemm_args &args, const Block &blk, const int *table, int k0, u32 ks,
                            RowOf row_of, ColOf col_of, float (&fa)[R], float (&fb)[C])
{
    // the period's group among the stage's
    const int ag = kAStageGroups > 1 ? k0 % kBK / kAGroupCols : 0;
    const int bg = kScaleRows > 1 ? k0 % kBK / kGroup : 0;
#pragma unroll
    for (int i = 0; i < R; ++i) {
        if constexpr (!kAGroupScales) {
            fa[i] = 1.f;
        } else if constexpr (!kAScaleE8m0) {
            fa[i] = __uint_as_float(lds32(ks + (row_of(i) * kAScaleWords + ag) * 4));
        } else {
            // a row the block lacks reads a stand-in row's byte, selected away: no branch, which
            // would make ptxas serialize wgmma groups in flight across it (ping-pong sets)
            const i64 row = table_row(args, blk, table, row_of(i));
            const float f = a_e8m0_scale(args, row < 0 ? 0 : row, row_of(i), k0, ks);
            fa[i] = row >= 0 ? f : 0.f;
        }
    }
    kscale_b_cols<SPAN>(ks, bg, col_of, fb);
}

// The K-group scales of k-block kb of block blk's rows and the weight's columns n0.. into a
// stage's region `dst` (layout: gemm/config.cuh, kKSBytes), by the copying
// thread `tid` (gemm/config.cuh, kCopyThreads). A row's words are the 4-byte-aligned window of
// a_scale holding its scales of the k-block (aligning down stays inside the allocation of A's
// scales, which starts aligned), zero-filled past the row's last group and for a row the block
// does not have; one row at a time (the producer keeps few registers).
HUM_DEV void copy_kscales(const hum_gemm_args &args, const Block &blk, u32 dst, int n0, int kb, int tid)
{
    if constexpr (kAGroupScales) {
        constexpr i64 ROW_BYTES = (kKReal + kAGroupCols - 1) / kAGroupCols * (kAScaleE8m0 ? 1 : 4);
        const u8 *scales = reinterpret_cast<const u8 *>(args.a_scale);
        // an aligned address to name where nothing is read (the copy's source must be aligned)
        const u8 *none = reinterpret_cast<const u8 *>(reinterpret_cast<unsigned long long>(scales) & ~3ull);
        for_chunks<kBM * kAScaleWords, 1>(tid, [&](int, int ch) {
            const i64 row = a_row(args, blk, ch / kAScaleDiv);
            const u8 *src = none;
            int bytes = 0;
            if (row >= 0) {
                const unsigned long long at =
                    reinterpret_cast<unsigned long long>(scales + a_scale_offset(args, row, kb * kBK));
                src = reinterpret_cast<const u8 *>((at & ~3ull) + 4 * (ch % kAScaleDiv));
                const i64 left = scales + a_scale_offset(args, row, 0) + ROW_BYTES - src;
                bytes = left <= 0 ? 0 : left >= 4 ? 4 : static_cast<int>(left);
                src = bytes ? src : none;
            }
            cp_async4(dst + ch * 4, src, bytes);
        });
    }
    if constexpr (kBlockScales) {
        constexpr int CPR = kBN / 4;  // 16-byte chunks per row
        const float *s = static_cast<const float *>(args.b_scale) + blk.expert * kParamStride +
                         static_cast<i64>(kb * kBK / kGroup) * kN + n0;
        for_chunks<kScaleRows * CPR>(tid, [&](int, int ch) {
            cp_async16(dst + kKSBOffset + ch * 16, s + static_cast<i64>(ch / CPR) * kN + ch % CPR * 4, true);
        });
    }
}

// The block of the tile being computed, for the mma.sync kernel whose loads run ahead of its
// math (the wgmma kernel computes one tile per segment), and with 8-bit A its rows of A in the
// math threads' table (gemm/rows.cuh), which MXFP8's factors and the per-token row factors read.
// Every thread of the CTA calls set() at the same point of the walk, after a barrier that ends
// the previous tile's reads.
struct KTile {
    int tile = -1;
    Block blk;

    HUM_DEV void set(const hum_gemm_args &args, const Rows &rows, int t, int tid)
    {
        if (t == tile)
            return;
        tile = t;
        int mb, nb;
        tile_coords(t, rows.blocks, mb, nb);
        const BlockIds<kThreads> ah = rows.fetch<kThreads>(args, mb, tid);
        blk = rows.block(args, ah);
        if constexpr (kMathRows) {
            fill_rows(args, blk, ah, row_table(), tid);
            __syncthreads();
        }
    }
};

}  // namespace gemm
