// Dense quantized-weight GEMM on the mma.sync path: C[M, N] = A[M, K] * dequant(W)[N, K]^T.
//
// A is float16 or bfloat16 (row-major, row stride lda); W comes repacked by kernels/prep/repack.cu
// so that each lane's B fragments of one k16 step are one contiguous run of words; the dequantized
// B is scaled by its group (or channel) scale and zero point before the product ("B side"; integer
// codes on warps of one row fragment, m16 or 8 rows, scale their float accumulators once per group
// instead, kScaleAcc), the float accumulators are multiplied by `out_factor` (global scale and
// exponent bookkeeping) and the bias is added in the epilogue. 8-bit A (e4m3, int8) multiplies the
// 8-bit codes as they are (m16n8k32), and the epilogue multiplies in A's row scale and the weight's
// channel scale too; scales that change along K (FP8 block-wise, MXFP8, W4A8 groups: gemm/kscale.cuh) multiply
// the float32 accumulators each time they are promoted instead. A multi-stage cp.async pipeline
// streams A, B, scales and zero points; persistent CTAs follow gemm/schedule.cuh. Warps of 8 rows
// (kSwapAB) run each product transposed, C^T = W A^T: the weights are the MMA's m16 operand and A's
// 8 rows its n8 one, so a warp at M <= 8 issues half the MMAs and holds half the accumulators and A
// registers of an m16 warp for the same weights. The mma_direct family (kDirectB, below) runs such
// warps without the pipeline: each reads its own operands straight into a ring of registers.
//
// The argument: kernels/contract/gemm_args.h (a_map unused).
#include "gemm/dequant.cuh"
#include "gemm/entry.cuh"
#include "gemm/epilogue.cuh"
#include "gemm/kscale.cuh"
#include "gemm/load_a.cuh"
#include "gemm/load_b.cuh"
#include "mma/mma_sync.cuh"
#include "ptx/smem.cuh"

namespace gemm {

// kSwapAB: the lane's B fragments of two adjacent n8 column fragments are, reordered, the m16 A
// fragment of those 16 columns (mma/mma_sync.cuh's ownership tables: the same rows g, g + 8 and
// K), so the weights' repacked words and decode serve both orientations.
constexpr bool kSwapAB = kWM == 8;
constexpr int kMI = kSwapAB ? 1 : kWM / 16;  // fragments of A's rows per warp (m16, or one n8)
constexpr int kNJ = kWN / 8;                 // n8 fragments of the weights' B registers per warp
constexpr int kAccJ = kSwapAB ? kNJ / 2 : kNJ;  // accumulator fragments per row fragment
constexpr int kAccE = kMI * kAccJ * 4;          // accumulators per thread
// Repacked words one lane reads per k16 step: whole 64-column units (b words each), or the
// lane's share of one unit when the warp covers less than 64 columns.
constexpr int kUnitsW = kWN >= 64 ? kWN / 64 : 1;
constexpr int kRawPerUnit = kWN >= 64 ? kWeightBits : kWeightBits * kWN / 64;
// Words of one shared-memory load: the lane's words of a unit, at most one plane of them.
constexpr int kLdsWords = kRawPerUnit < kPlaneWords ? kRawPerUnit : kPlaneWords;
constexpr int kVirtPerUnit = kWN >= 64 ? kCont : kRawPerUnit;
static_assert(kWM == 8 || kWM % 16 == 0, "warp M must be 8 or a multiple of 16 (m16 fragments)");
static_assert(!kSwapAB || kNJ % 2 == 0, "8-row warps take the weights 16 columns per MMA (warp N a multiple of 16)");
static_assert(kWN * kCont >= 64, "a warp must cover whole repacked words (warp N * container bits >= 64)");
static_assert(!kOddWidth || kWN % 64 == 0, "odd weight widths need warp N to be a multiple of 64");

// A stage: A, the weight's codes, scales, zero points, K-group scales (gemm/kscale.cuh).
constexpr int kKSOffset = kABytes + kBBytes + kSBytes + kZBytes;

// 16-bit A and integer codes on warps of one row fragment (kMI == 1: m16, or 8 rows) whose weight
// scale is one per column over each warp's K of a stage (groups of a multiple of warp K, or per
// channel): the products of the codes minus their zero points accumulate per group, and the group's
// scales multiply them into float totals when it ends (the end of every kScaleStages-th k-block,
// and of each segment) instead of multiplying every dequantized pair (one HMUL2 per B register: 64
// of the ~385 instructions per warp and stage of M <= 16's 16 x 128 x 256 tile, against 16 FFMA and
// 8 conversions per group). The codes times A are exact in float32, so the sums round no more than
// before. Taller warps share each dequantized pair between kMI MMAs and have no registers for a
// second accumulator set; float codes and the expert GEMMs (MoE types) keep the B-side scale until
// they are run with it.
constexpr bool kScaleAcc = !kA8 && !kWeightFloat && kHasScale && kMI == 1 && kGroup % kWK == 0 &&
                           kGemmType == GemmType::kDense;
constexpr int kScaleStages = kGroup >= kK ? kKB : kGroup > kBK ? kGroup / kBK : 1;
// e4m3 A where mma.sync runs it as float16 products (kE4m3AsF16, mma/mma_sync.cuh): those
// accumulate in float32 like 16-bit A's, so only K-group scales need the accumulators promoted.
constexpr bool kF16Products = kAFp8 && kE4m3AsF16;
constexpr bool kPromoteHere = kPromote && (kKScales || !kF16Products);
// The accumulators are added into float totals (kPromoteHere: e4m3 promotion periods; kScaleAcc).
constexpr bool kTotals = kPromoteHere || kScaleAcc;

// Accumulator e (0..3) of fragment (mi, j) sits at the warp's row slot row_slot and column slot
// col_slot; the slots' rows and columns (of the warp's tile) are slot_row and slot_col. m16 warps:
// c0, c1 = (row g, columns 2t, 2t + 1), c2, c3 = row g + 8; kSwapAB: the transposed C fragment,
// c0, c1 = (column g, rows 2t, 2t + 1), c2, c3 = column g + 8.
HUM_DEV constexpr int row_slot(int mi, int e)
{
    return 2 * mi + (kSwapAB ? e % 2 : e / 2);
}
HUM_DEV constexpr int col_slot(int j, int e)
{
    return 2 * j + (kSwapAB ? e / 2 : e % 2);
}
// The accumulator e of a fragment at row slot i and column slot j: row_slot's and col_slot's inverse.
HUM_DEV constexpr int slot_e(int i, int j)
{
    return kSwapAB ? 2 * (j % 2) + i % 2 : 2 * (i % 2) + j % 2;
}
HUM_DEV int slot_row(int i, int lane)
{
    return kSwapAB ? 2 * (lane & 3) + i % 2 : i / 2 * 16 + (lane >> 2) + 8 * (i % 2);
}
HUM_DEV int slot_col(int j, int lane)
{
    return kSwapAB ? j / 2 * 16 + (lane >> 2) + 8 * (j % 2) : j / 2 * 8 + 2 * (lane & 3) + j % 2;
}

// The stage copies of the work item being loaded: A (vectorised) and B, codes and parameters.
// Tile base addresses change with the tile (set_tile, the only place with divisions by M).
struct Loader {
    int tile = -1;
    int n0 = 0;
    Block blk;
    AVec<false> a;
    const u32 *b_tile;

    HUM_DEV void set_tile(const hum_gemm_args &args, const Rows &rows, Work w, int tid)
    {
        if (w.tile == tile)
            return;
        tile = w.tile;
        int mb, nb;
        tile_coords(w.tile, rows.blocks, mb, nb);
        n0 = nb * kBN;
        blk = rows.block(args, mb);
        a.set_tile(args, blk, tid);
        b_tile = codes_tile(args, blk.expert, n0);
    }

    HUM_DEV void load(const hum_gemm_args &args, u32 stage, int kb, int tid) const
    {
        a.load(stage, kb, tid);
        copy_codes(stage + kABytes, b_tile, kb, tid);
        copy_params(args, stage + kABytes + kBBytes, stage + kABytes + kBBytes + kSBytes, blk.expert, n0, kb, tid);
        copy_kscales(args, blk, stage + kKSOffset, n0, kb, tid);
    }
};

// Words of a staged scale or zero-point row per 64-column unit of the warp: those of its columns
// g + 8i (kernels/prep/repack.cu: column g + 8i of each 64-column block sits at 8g + i).
constexpr int kColWords = kWN >= 64 ? 4 : kWN / 16;
// The first of them in the row, in values from the unit's start.
HUM_DEV int col_value(int u, int wn, int lane)
{
    return (wn * kWN / 64 + u) * 64 + (lane >> 2) * 8 + (kWN >= 64 ? 0 : (wn * kWN % 64) / 8);
}

// Scale or zero-point values of the warp's kNJ column fragments from the words of col_value, each
// broadcast to both halves of a pair (both values of a B register share the column); with
// PAIRED, fragment 2q's entry the word of fragments 2q (low half) and 2q + 1 as it sits.
template <bool PAIRED = false>
HUM_DEV void col_params(const u32 (&w)[kUnitsW * kColWords], u32 (&out)[kNJ])
{
    static_for<0, kNJ>([&](auto jc) {
        constexpr int j = decltype(jc)::value;
        out[j] = PAIRED ? w[j / 2] : broadcast16<(j & 1) != 0>(w[j / 2]);
    });
}

// The words of col_value from a staged row.
HUM_DEV void lds_col_words(u32 row_addr, int wn, int lane, u32 (&w)[kUnitsW * kColWords])
{
#pragma unroll
    for (int u = 0; u < kUnitsW; ++u)
        lds_words<kColWords, kColWords>(row_addr + col_value(u, wn, lane) * 2, w + u * kColWords);
}

template <bool PAIRED = false>
HUM_DEV void load_col_params(u32 row_addr, int wn, int lane, u32 (&out)[kNJ])
{
    u32 w[kUnitsW * kColWords];
    lds_col_words(row_addr, wn, lane, w);
    col_params<PAIRED>(w, out);
}

// kScaleAcc: the scales of the warp's accumulator columns from a staged scale row, fb[j] that of
// column wn kWN + slot_col(j). The row holds column g + 8i of each 64-column block at position
// 8g + i (kernels/prep/repack.cu), so the scales of one block's columns that differ by 8 are
// adjacent: for each e those of columns 2t + e of an m16 warp, all of column g's of an 8-row one:
// for those (swap_acc_scales) the words of col_value, slot q of unit u column g + 8q.
HUM_DEV void swap_acc_scales(const u32 (&w)[kUnitsW * kColWords], float (&fb)[2 * kAccJ])
{
    static_assert(!kSwapAB || kAccJ == kUnitsW * kColWords, "8-row warps: two scales a word of col_value");
#pragma unroll
    for (int i = 0; i < 2 * kAccJ; ++i)
        fb[i] = to_float<kBF16>(static_cast<u16>(i % 2 ? w[i / 2] >> 16 : w[i / 2]));
}

HUM_DEV void load_acc_scales(u32 row_addr, int wn, int lane, float (&fb)[2 * kAccJ])
{
    if constexpr (kSwapAB) {
        u32 w[kUnitsW * kColWords];
        lds_col_words(row_addr, wn, lane, w);
        swap_acc_scales(w, fb);
    } else {
        constexpr int PER = kNJ < 8 ? kNJ : 8;  // n8 fragments per 64-column block
        const int t = lane & 3;
        const int i0 = kWN >= 64 ? 0 : (wn * kWN % 64) / 8;
#pragma unroll
        for (int u = 0; u < kUnitsW; ++u) {
            const int unit = wn * kWN / 64 + u;
            u32 w[PER / 2];
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                lds_words<PER / 2, PER / 2>(row_addr + (unit * 64 + 8 * (2 * t + e) + i0) * 2, w);
#pragma unroll
                for (int q = 0; q < PER; ++q)
                    fb[2 * (u * PER + q) + e] = to_float<kBF16>(static_cast<u16>(q % 2 ? w[q / 2] >> 16 : w[q / 2]));
            }
        }
    }
}

// ldmatrix of the warp's A fragments (16 rows of 32 bytes: k16 of 16-bit A, k32 of 8-bit A; 8
// rows for kSwapAB, whose two registers a[0][0..1] are then an n8 B fragment) and the lane's
// repacked B words of the kKRows k16 rows of MMA step kk.
HUM_DEV void load_frags(u32 stage, int kk, int wm, int wn, int wk, int lane, u32 (&a)[kMI][4],
                        u32 (&raw)[kKRows][kUnitsW * kRawPerUnit])
{
    const int chunk0 = (wk * kWK + kk * kKStep) / kAChunk;
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi) {
        if constexpr (kSwapAB)
            ldmatrix_x2(a[mi][0], a[mi][1], stage + a_offset(wm * kWM + (lane & 7), chunk0 + (lane >> 3 & 1)));
        else
            ldmatrix_x4(a[mi], stage + a_offset(wm * kWM + mi * 16 + (lane & 15), chunk0 + (lane >> 4)));
    }
    const int sub = kWN >= 64 ? 0 : (wn * kWN % 64) / kWN * kRawPerUnit;
#pragma unroll
    for (int r = 0; r < kKRows; ++r) {
        const int kr = (wk * kWK + kk * kKStep) / 16 + r;
#pragma unroll
        for (int u = 0; u < kUnitsW; ++u) {
            const int unit = wn * kWN / 64 + u;
#pragma unroll
            for (int p = 0; p < kRawPerUnit; p += kLdsWords)
                lds_words<kLdsWords, kLdsWords>(stage + kABytes + code_offset(kr, unit, lane, sub + p),
                                                raw[r] + u * kRawPerUnit + p);
        }
    }
}

// Dequantizes the lane's B fragments: (code - zero) * scale for each register.
HUM_DEV void dequant(const u32 (&raw)[kUnitsW * kRawPerUnit], const u32 (&s2)[kNJ], const u32 (&z2)[kNJ],
                     u32 (&bf)[kNJ][2])
{
    u32 virt[kUnitsW * kVirtPerUnit];
    if constexpr (kOddWidth) {
#pragma unroll
        for (int u = 0; u < kUnitsW; ++u)
            expand_words<kWeightBits, kCont>(raw + u * kWeightBits, virt + u * kCont);
    } else {
#pragma unroll
        for (int i = 0; i < kUnitsW * kRawPerUnit; ++i)
            virt[i] = raw[i];
    }
    static_for<0, kNJ * 2>([&](auto lc) {
        constexpr int lp = decltype(lc)::value;  // pair index: fragment j = lp / 2, register h = lp % 2
        constexpr int PAIRS = 16 / kCont;       // pairs per word
        bf[lp / 2][lp % 2] = dequant_pair<lp % PAIRS, !kScaleAcc>(virt[lp / PAIRS], z2[lp / 2], s2[lp / 2]);
    });
}

// The B registers of 8-bit A from the lane's words of the step's two k16 rows (s2: the folded
// group scales of the fragments' columns).
HUM_DEV void b8_regs(const u32 (&raw)[kKRows][kUnitsW * kRawPerUnit], const u32 (&s2)[kNJ], u32 (&bf)[kNJ][2])
{
    if constexpr (kFp4Table) {
        static_for<0, kNJ / 2>([&](auto qc) {  // fragments 2q and 2q + 1 share a word and a scale word
            constexpr int q = decltype(qc)::value;
            u32 t[4];
            fp4_tables(kScalesStaged ? s2[2 * q] : dup16(bits16(1, 0, false)), t);
            fp4_regs(t, raw[0][q], bf[2 * q][0], bf[2 * q + 1][0]);
            fp4_regs(t, raw[kKRows - 1][q], bf[2 * q][1], bf[2 * q + 1][1]);
        });
    } else {
        static_for<0, kNJ>([&](auto jc) {
            constexpr int j = decltype(jc)::value;
            bf[j][0] = b8_reg<j>(raw[0]);
            bf[j][1] = b8_reg<j>(raw[kKRows - 1]);
        });
    }
}

// The K-group scales of the warp's row slots (fa) and column slots (fb) times the accumulators,
// added to the totals (gemm/kscale.cuh).
HUM_DEV void promote_scaled(float (&acc)[kMI][kAccJ][4], float (&total)[kMI][kAccJ][4], const float (&fa)[2 * kMI],
                            const float (&fb)[2 * kAccJ])
{
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
        for (int j = 0; j < kAccJ; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e)
                promote(acc[mi][j][e], total[mi][j][e], fa[row_slot(mi, e)] * fb[col_slot(j, e)]);
}

// The MMAs of one step: the warp's A fragments times its dequantized B registers.
HUM_DEV void mma_step(float (&acc)[kMI][kAccJ][4], const u32 (&a)[kMI][4], const u32 (&bf)[kNJ][2])
{
    if constexpr (kSwapAB) {
        static_for<0, kAccJ>([&](auto jc) {
            constexpr int j = decltype(jc)::value;
            // columns 16j .. 16j + 15 as the m16 operand; A's 8 rows are the n8 one
            const u32 w[4] = {bf[2 * j][0], bf[2 * j + 1][0], bf[2 * j][1], bf[2 * j + 1][1]};
            const u32 a0 = a[0][0], a1 = a[0][1];
            if constexpr (kF16Products) {
                u32 w16[2][4];
                e4m3_a_f16(w, w16);
                mma_16832_f16(acc[0][j], w16, a0, a1);
            } else if constexpr (kA8) {
                mma_16832<kAFp8>(acc[0][j], w, a0, a1);
            } else {
                mma_16816<kBF16>(acc[0][j], w, a0, a1);
            }
        });
    } else {
#pragma unroll
        for (int mi = 0; mi < kMI; ++mi) {
            u32 a16[2][4];  // kF16Products: A converted once for the warp's kNJ fragments
            if constexpr (kF16Products)
                e4m3_a_f16(a[mi], a16);
#pragma unroll
            for (int nj = 0; nj < kNJ; ++nj) {
                if constexpr (kF16Products)
                    mma_16832_f16(acc[mi][nj], a16, bf[nj][0], bf[nj][1]);
                else if constexpr (kA8)
                    mma_16832<kAFp8>(acc[mi][nj], a[mi], bf[nj][0], bf[nj][1]);
                else
                    mma_16816<kBF16>(acc[mi][nj], a[mi], bf[nj][0], bf[nj][1]);
            }
        }
    }
}

// kScaleAcc: the group's sums times its column scales fb, added to the totals; 16-bit A has no
// row factors but the decode's (gemm/dequant.cuh).
HUM_DEV void promote_group(float (&acc)[kMI][kAccJ][4], float (&total)[kMI][kAccJ][4], const float (&fb)[2 * kAccJ])
{
    float rows[2 * kMI];
#pragma unroll
    for (int i = 0; i < 2 * kMI; ++i)
        rows[i] = kUnscaledFactor;
    promote_scaled(acc, total, rows, fb);
}

// The MMA steps of one stage; ct: the tile computed, k0 the warp's first column of K in it; the
// accumulators are promoted at the stage's end when `promote_end` (period_end).
HUM_DEV void compute_stage(const hum_gemm_args &args, const KTile &ct, int k0, u32 stage, int wm, int wn, int wk,
                           int lane, float (&acc)[kMI][kAccJ][4], float (&total)[kMI][kAccJ][4], bool promote_end)
{
    u32 a[2][kMI][4];
    u32 raw[2][kKRows][kUnitsW * kRawPerUnit];
    u32 s2[kNJ], z2[kNJ];
    float fa[2 * kMI], fb[2 * kAccJ];  // kKScales: the period's factors
    load_frags(stage, 0, wm, wn, wk, lane, a[0], raw[0]);
    static_for<0, kKK>([&](auto kc) {
        constexpr int kk = decltype(kc)::value;
        constexpr int buf = kk & 1;
        if constexpr (kk + 1 < kKK)
            load_frags(stage, kk + 1, wm, wn, wk, lane, a[buf ^ 1], raw[buf ^ 1]);
        if constexpr (kk == 0 || (kGroup < kBK && (kk * kKStep) % kGroup == 0)) {
            const int row = kGroup >= kBK ? 0 : (wk * kWK + kk * kKStep) / kGroup;
            if constexpr (kScalesStaged && !kScaleAcc)
                load_col_params<kFp4Table>(stage + kABytes + kBBytes + row * kBN * 2, wn, lane, s2);
            if constexpr (kZeroPoint)
                load_col_params(stage + kABytes + kBBytes + kSBytes + row * kBN * 2, wn, lane, z2);
        }
        if constexpr (kKScales && kk % kPromoteSteps == 0) {
            // no column run given: the mma.sync kernels' promotions were not timed with one
            kscale_factors<0>(
                args, ct.blk, row_table(), k0 + kk * kKStep, stage + kKSOffset,
                [&](int i) { return wm * kWM + slot_row(i, lane); },
                [&](int j) { return wn * kWN + slot_col(j, lane); }, fa, fb);
        }
        u32 bf[kNJ][2];
        if constexpr (kA8)
            b8_regs(raw[buf], s2, bf);
        else
            dequant(raw[buf][0], s2, z2, bf);
        mma_step(acc, a[buf], bf);
        if constexpr (kPromoteHere && promote_after<kk>) {
            if (kk + 1 < kKK || promote_end) {
                if constexpr (kKScales)
                    promote_scaled(acc, total, fa, fb);
                else
                    promote(acc, total);
            }
        }
    });
    if constexpr (kScaleAcc) {
        if (promote_end) {
            float fb[2 * kAccJ];
            const int row = kGroup >= kBK ? 0 : wk * kWK / kGroup;  // the warp's group in the stage
            load_acc_scales(stage + kABytes + kBBytes + row * kBN * 2, wn, lane, fb);
            promote_group(acc, total, fb);
        }
    }
}

// Whether the stage of k-block kb ends the accumulators' period: an e4m3 promotion period
// (promote_at) or a scale group (kScaleAcc), and the last k-block of a segment (`last`).
HUM_DEV bool period_end(int kb, bool last)
{
    if constexpr (kScaleAcc)
        return last || (kb + 1) % kScaleStages == 0;
    else
        return promote_at(kb, last);
}

// kDirectB (the mma_direct family): 8-row warps (kSwapAB) that read everything they multiply
// straight from global memory into registers: the lane's code words of each k16 step (16 bytes
// at 4 bits and warp N 64), its two words of A (row g, already in L1 or L2 for the other warps),
// the scale and zero-point words of the warp's group. Each warp keeps a ring of kStages work
// items (its share of one k-block) in registers, the loads of item j + kStages issued as soon as
// item j is multiplied: no stage in shared memory and no CTA barrier in the main loop, where at
// M <= 8 the staged kernel's warps met every stage at a barrier after the slowest one's copies
// (bench/NOTES.md, "Session 49 (lead)": that barrier the hottest stall of a latency-bound loop).
// The warps along K meet once per tile, in the epilogue. Integer codes with their scales on the
// accumulators (kScaleAcc) and 16-bit A in whole 16-byte rows only.
static_assert(!kDirectB || (kSwapAB && kScaleAcc && kAVec && kKRows == 1 && kGemmType == GemmType::kDense),
              "mma_direct: 8-row warps, 16-bit A, integer codes scaled on the accumulators, dense");

struct DirectItem {
    u32 raw[kKK][kUnitsW * kRawPerUnit];  // the code words of each k16 step
    u32 a[kKK][2];                        // the n8 fragment of A of each step
    u32 s[kUnitsW * kColWords];           // the group's scales (col_value)
    u32 z[kUnitsW * kColWords];           // and zero points (kZeroPoint)
};

// The warp's sources in the tile whose items it loads.
struct DirectLoader {
    int tile = -1;
    const u32 *b;     // the tile's codes (codes_tile)
    i64 param;        // the tile's first column in the scale and zero-point rows
    const u16 *a;     // the lane's row of A (row g of the warp's), nullptr past M

    HUM_DEV void set_tile(const hum_gemm_args &args, const Rows &rows, Work w, int wm, int lane)
    {
        if (w.tile == tile)
            return;
        tile = w.tile;
        int mb, nb;
        tile_coords(w.tile, rows.blocks, mb, nb);
        const Block blk = rows.block(args, mb);
        b = codes_tile(args, blk.expert, nb * kBN);
        param = blk.expert * kParamStride + nb * kBN;
        const i64 row = a_row(args, blk, wm * kWM + (lane >> 2));
        a = row >= 0 ? static_cast<const u16 *>(args.a) + row * args.lda : nullptr;
    }

    // Item kb of warp (wn, wk): its kKK k16 steps of the warp's columns, and its group's parameters.
    HUM_DEV void load(const hum_gemm_args &args, int kb, int wn, int wk, int lane, DirectItem &it) const
    {
        const int k0 = kb * kBK + wk * kWK;
        const int sub = kWN >= 64 ? 0 : (wn * kWN % 64) / kWN * kRawPerUnit;
#pragma unroll
        for (int kk = 0; kk < kKK; ++kk) {
            const u32 *row = b + static_cast<i64>(k0 / 16 + kk) * kCodeRowWords;
#pragma unroll
            for (int u = 0; u < kUnitsW; ++u) {
                const u32 *unit = row + (wn * kWN / 64 + u) * 32 * kWeightBits;
#pragma unroll
                for (int p = 0; p < kRawPerUnit; p += kLdsWords)
                    ldg_stream_words<kLdsWords, kLdsWords>(unit + unit_word(kWeightBits, false, lane, sub + p),
                                                           it.raw[kk] + u * kRawPerUnit + p);
            }
            // A's columns 2t, 2t + 1 and 2t + 8, 2t + 9 of the step (kKReal is a multiple of 8)
            const int k = k0 + kk * 16 + 2 * (lane & 3);
            it.a[kk][0] = a && k < kKReal ? __ldg(reinterpret_cast<const unsigned *>(a + k)) : 0u;
            it.a[kk][1] = a && k + 8 < kKReal ? __ldg(reinterpret_cast<const unsigned *>(a + k + 8)) : 0u;
        }
        const i64 off = param + static_cast<i64>(k0 / kGroup) * kN;
#pragma unroll
        for (int u = 0; u < kUnitsW; ++u) {
            const int c = col_value(u, wn, lane);
            ldg_stream_words<kColWords, kColWords>(
                reinterpret_cast<const u32 *>(static_cast<const u16 *>(args.b_scale) + off + c), it.s + u * kColWords);
            if constexpr (kZeroPoint)
                ldg_stream_words<kColWords, kColWords>(
                    reinterpret_cast<const u32 *>(static_cast<const u16 *>(args.zero) + off + c), it.z + u * kColWords);
        }
    }
};

// The MMA steps of one item, then its group's scales when the group ends (`promote_end`).
HUM_DEV void compute_direct(const DirectItem &it, float (&acc)[kMI][kAccJ][4], float (&total)[kMI][kAccJ][4],
                            bool promote_end)
{
    u32 s2[kNJ] = {}, z2[kNJ] = {};  // s2: the scales apply to the accumulators (kScaleAcc)
    if constexpr (kZeroPoint)
        col_params(it.z, z2);
    static_for<0, kKK>([&](auto kc) {
        constexpr int kk = decltype(kc)::value;
        u32 bf[kNJ][2];
        dequant(it.raw[kk], s2, z2, bf);
        const u32 a[kMI][4] = {{it.a[kk][0], it.a[kk][1], 0u, 0u}};
        mma_step(acc, a, bf);
    });
    if (promote_end) {
        float fb[2 * kAccJ];
        swap_acc_scales(it.s, fb);
        promote_group(acc, total, fb);
    }
}

// Output value of accumulator `a` at column col of a row whose factor is f: the column's scale,
// and the bias on the first slice of the tile.
HUM_DEV float c_value(const hum_gemm_args &args, int expert, int col, float a, float f, bool first)
{
    float v = a * f * col_scale(args, expert, col);
    if (kBias && first)
        v += bias_of(args, expert, col, first);
    return v;
}

// Writes (first slice) or adds (later stream-K slices) the warp's accumulators to the rows of C
// of block blk (gemm/rows.cuh): m16 warps two adjacent columns of a row at once; 8-row warps
// (kSwapAB), whose accumulators hold no two adjacent columns of one row, each value alone.
HUM_DEV void write_c(const hum_gemm_args &args, const Block &blk, int n0, int wm, int wn, int lane, bool first,
                     const float (&acc)[kMI][kAccJ][4])
{
#pragma unroll
    for (int i = 0; i < 2 * kMI; ++i) {
        const int r = wm * kWM + slot_row(i, lane);
        const i64 row = c_row(args, blk, r);
        if (row < 0)
            continue;
        const float f = block_row_factor(args, blk, row_table(), r);
#pragma unroll
        for (int j = 0; j < 2 * kAccJ; j += kSwapAB ? 1 : 2) {
            const int col = n0 + wn * kWN + slot_col(j, lane);
            if (col >= kNReal)
                continue;
            u16 *dst = static_cast<u16 *>(args.c) + row * args.ldc + col;
            float v0 = c_value(args, blk.expert, col, acc[i / 2][j / 2][slot_e(i, j)], f, first);
            if constexpr (kSwapAB) {
                if (!first)
                    v0 += to_float<kBF16>(ld_l2_16(dst));
                dst[0] = pack1<kBF16>(v0);
                continue;
            }
            float v1 = c_value(args, blk.expert, col + 1, acc[i / 2][j / 2][slot_e(i, j + 1)], f, first);
            if constexpr (kNReal % 2 == 0) {
                if (!first) {
                    const u32 old = ld_l2_32(dst);
                    v0 += to_float<kBF16>(static_cast<u16>(old & 0xFFFFu));
                    v1 += to_float<kBF16>(static_cast<u16>(old >> 16));
                }
                *reinterpret_cast<u32 *>(dst) = pack2<kBF16>(v0, v1);
            } else {
                const bool two = col + 1 < kNReal;
                if (!first) {
                    v0 += to_float<kBF16>(ld_l2_16(dst));
                    if (two)
                        v1 += to_float<kBF16>(ld_l2_16(dst + 1));
                }
                dst[0] = pack1<kBF16>(v0);
                if (two)
                    dst[1] = pack1<kBF16>(v1);
            }
        }
    }
}

HUM_DEV void epilogue(const hum_gemm_args &args, const Rows &rows, const Schedule &sch, int tile, u8 *smem, int tid,
                      int wm, int wn, int wk, int wmn, int lane, float (&acc)[kMI][kAccJ][4])
{
    if constexpr (kAInt8 && !kTotals)  // promoted sums are floats already
        ints_to_floats<kAccE>(&acc[0][0][0]);
    if constexpr (kWarpsK > 1) {
        constexpr int E = kAccE;
        float *red = reinterpret_cast<float *>(smem + kRingBytes);
        float *flat = &acc[0][0][0];
        if (wk > 0) {
#pragma unroll
            for (int e = 0; e < E; ++e)
                red[((wk - 1) * kWarpsMN + wmn) * E * 32 + e * 32 + lane] = flat[e];
        }
        __syncthreads();
        if (wk == 0) {
#pragma unroll
            for (int w = 1; w < kWarpsK; ++w)
#pragma unroll
                for (int e = 0; e < E; ++e)
                    flat[e] += red[((w - 1) * kWarpsMN + wmn) * E * 32 + e * 32 + lane];
        }
        if constexpr (kDirectB)
            __syncthreads();  // no stage barrier keeps the next tile's sums out of red meanwhile
    }

    const Slice sl = sch.slice_of(tile);
    if constexpr (kSumInWorkspace) {
        // the warps of wk == 0 hold the tile's accumulators
        if (!streamk_fixup<kWarpsMN * 32>(args, sch, sl, tid, wk == 0 ? wmn * 32 + lane : -1,
                                          reinterpret_cast<float(&)[kAccE]>(acc)))
            return;
    } else {
        streamk_begin(args, sl, tid);
    }
    if (wk == 0) {
        int mb, nb;
        tile_coords(tile, rows.blocks, mb, nb);
        write_c(args, rows.block(args, mb), nb * kBN, wm, wn, lane, kSumInWorkspace || sl.slice == 0, acc);
    }
    if constexpr (!kSumInWorkspace)
        streamk_end(args, sl, tid);
}

// kDirectB's main loop: the ring of kStages items in registers (indices known at compile time:
// the loop runs kStages items a turn), item j + kStages loaded into the slot item j leaves.
HUM_DEV void direct_loop(const hum_gemm_args &args, const Rows &rows, const Schedule &sch, u8 *smem, int tid, int wm,
                         int wn, int wk, int wmn, int lane, float (&acc)[kMI][kAccJ][4], float (&total)[kMI][kAccJ][4])
{
    DirectItem ring[kStages];
    DirectLoader loader;
    Work lw{0, 0};  // work of the last item loaded
    static_for<0, kStages>([&](auto sc) {
        constexpr int s = decltype(sc)::value;
        if (s < sch.total) {
            lw = sch.step(lw, s);
            loader.set_tile(args, rows, lw, wm, lane);
            loader.load(args, lw.kb, wn, wk, lane, ring[s]);
        }
    });
    Work w{0, 0};  // work of the item being computed
    for (int j0 = 0; j0 < sch.total; j0 += kStages) {
        static_for<0, kStages>([&](auto sc) {
            constexpr int s = decltype(sc)::value;
            const int j = j0 + s;
            if (j < sch.total) {
                w = sch.step(w, j);
                const bool last = w.kb == kKB - 1 || j == sch.total - 1;  // of the segment
                compute_direct(ring[s], acc, total, period_end(w.kb, last));
                if (j + kStages < sch.total) {
                    lw = sch.step(lw, j + kStages);
                    loader.set_tile(args, rows, lw, wm, lane);
                    loader.load(args, lw.kb, wn, wk, lane, ring[s]);
                }
                if (last) {
                    epilogue(args, rows, sch, w.tile, smem, tid, wm, wn, wk, wmn, lane, total);
                    zero_acc(acc);
                    zero_acc(total);
                }
            }
        });
    }
}

}  // namespace gemm

HUM_GEMM_KERNEL(hum_gemm)
{
    using namespace gemm;
    extern __shared__ __align__(128) u8 smem[];
    const auto [rows, sch, tid, lane, warp] = kernel_entry(args);
    if (sch.total == 0)
        return;

    const int wk = warp / kWarpsMN, wmn = warp % kWarpsMN;
    const int wm = wmn / kWarpsN, wn = wmn % kWarpsN;
    const u32 base = smem_addr(smem);

    float acc[kMI][kAccJ][4], total[kMI][kAccJ][4];  // total: kTotals only
    zero_acc(acc);
    zero_acc(total);
    if constexpr (kDirectB) {
        direct_loop(args, rows, sch, smem, tid, wm, wn, wk, wmn, lane, acc, total);
        return;
    }

    AGather gather;
    Loader loader;
    KTile ct;  // kKScales, kMathRows: the tile being computed
    Work lw{0, 0};  // work of the next iteration to load
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
        if (s < sch.total) {
            lw = sch.step(lw, s);
            loader.set_tile(args, rows, lw, tid);
            loader.load(args, base + s * kStageBytes, lw.kb, tid);
            if constexpr (!kAVec) {
                gather.load(args, loader.blk, lw.kb, tid);
                gather.store(base + s * kStageBytes, tid);
            }
        }
        cp_async_commit();
    }

    Work w{0, 0};  // work of the iteration being computed
    for (int j = 0; j < sch.total; ++j) {
        cp_async_wait<kStages - 2>();
        __syncthreads();
        const int jn = j + kStages - 1;
        const u32 next = base + (jn % kStages) * kStageBytes;
        if (jn < sch.total) {
            lw = sch.step(lw, jn);
            loader.set_tile(args, rows, lw, tid);
            loader.load(args, next, lw.kb, tid);
            if constexpr (!kAVec)
                gather.load(args, loader.blk, lw.kb, tid);
        }
        cp_async_commit();

        w = sch.step(w, j);
        if constexpr (kKScales || kMathRows)
            ct.set(args, rows, w.tile, tid);
        const bool last = w.kb == kKB - 1 || j == sch.total - 1;  // of the segment
        compute_stage(args, ct, w.kb * kBK + wk * kWK, base + (j % kStages) * kStageBytes, wm, wn, wk, lane, acc,
                      total, period_end(w.kb, last));
        if constexpr (!kAVec) {
            if (jn < sch.total)
                gather.store(next, tid);
        }
        if (last) {
            epilogue(args, rows, sch, w.tile, smem, tid, wm, wn, wk, wmn, lane, kTotals ? total : acc);
            zero_acc(acc);
            zero_acc(total);
        }
    }
    cp_async_wait<0>();
}
