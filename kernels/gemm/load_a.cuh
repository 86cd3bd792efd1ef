// A loaders: each moves the activation tile of one k-block into a pipeline stage.
//   AVec     16-byte cp.async chunks into the XOR-swizzled layout ldmatrix reads (mma.sync), or
//            into wgmma's 128-byte swizzled layout (the wgmma kernel's gathered rows: MoE types)
//   AGather  element loads of rows that are not 16-byte multiples, or of the columns of an
//            act-order expert (k_perm), stored to the stage after the current stage's math
//            (mma.sync)
//   a_tma    one TMA box per 64 columns into the 128-byte swizzled layout wgmma reads (dense)
// Rows come from the GEMM type (gemm/rows.cuh): a block's rows of A, gathered or contiguous.
// (A dense act-order A is permuted into the weights' K order before the GEMM: prep/permute_a.cu.)
#pragma once
#include "gemm/schedule.cuh"
#include "ptx/cp_async.cuh"
#include "ptx/tma.cuh"

namespace gemm {

// Shared-memory address of row `row`, 16-byte chunk `chunk` of an A stage (AVec, AGather).
// Chunks are XOR-swizzled by row so that the 8 rows one ldmatrix phase reads fall in 8
// different bank groups.
HUM_DEV u32 a_offset(int row, int chunk)
{
    return static_cast<u32>(row * kBK * kAElem + ((chunk ^ (row & 7)) << 4));
}

// Shared-memory address of row `row`, 16-byte chunk `chunk` of an A stage in the layout wgmma
// reads (what a_tma's 128-byte swizzled boxes write): one atom column of kBM rows x 128 bytes
// per 64 columns, chunks XOR-swizzled by row within each 8-row, 1024-byte atom.
HUM_DEV u32 a_offset_sw128(int row, int chunk)
{
    return static_cast<u32>((chunk / 8) * kBM * 128 + row * 128 + (((chunk % 8) ^ (row & 7)) << 4));
}

// This thread's share of the 16-byte chunks of the tile: fixed for the whole kernel, so the rows
// are worked out once per tile (set_tile: the block's rows of A, gemm/rows.cuh) and only the
// k-block changes from stage to stage. SW128: the wgmma layout (a_offset_sw128), else a_offset.
// A copying thread short of registers (the warp-specialised producer) keeps no rows: it reads
// them at every stage (load_rows: an indexed block's addresses from its table, gemm/rows.cuh).
template <bool SW128>
struct AVec {
    static constexpr int CPR = kBK / kAChunk;  // chunks per row
    static constexpr int COUNT = kAVec ? kBM * CPR : 0;
    static constexpr int IT = (COUNT + kCopyThreads - 1) / kCopyThreads;

    const u8 *row[IT > 0 ? IT : 1];  // this chunk's row and column
    bool ok[IT > 0 ? IT : 1];        // the row exists

    // Chunk ch's source in k-block 0 (its row of A, row_of(its row of the block), and column of
    // chunks), and whether the row exists.
    template <typename RowOf>
    HUM_DEV static const u8 *source(const hum_gemm_args &args, RowOf row_of, int ch, bool &exists)
    {
        const i64 gm = row_of(ch / CPR);
        exists = gm >= 0;
        return static_cast<const u8 *>(args.a) + (exists ? gm * args.lda * kAElem : 0) + ch % CPR * 16;
    }

    // Chunk ch of k-block kb from `src` (source()); zeros past the row's end or for no row.
    HUM_DEV static void copy(u32 stage, const u8 *src, bool exists, int ch, int kb)
    {
        const int k0 = kb * kBK, cc = ch % CPR;
        const bool in = exists && (kKReal == kK || k0 + cc * kAChunk < kKReal);
        const u32 dst = SW128 ? a_offset_sw128(ch / CPR, cc) : a_offset(ch / CPR, cc);
        cp_async16(stage + dst, in ? src + k0 * kAElem : src, in);
    }

    HUM_DEV void set_tile(const hum_gemm_args &args, const Block &blk, int tid)
    {
        for_chunks<COUNT>(tid, [&](int i, int ch) {
            row[i] = source(args, [&](int r) { return a_row(args, blk, r); }, ch, ok[i]);
        });
    }

    HUM_DEV void load(u32 stage, int kb, int tid) const
    {
        for_chunks<COUNT>(tid, [&](int i, int ch) { copy(stage, row[i], ok[i], ch, kb); });
    }

    // set_tile and load in one, keeping no rows: an indexed block's rows of A read from the
    // producer's table of their addresses (gemm/rows.cuh, source_table), four chunks at a time
    // (whole, ptxas hoists every chunk's row and spills beside the producer's 40 registers); a
    // grouped block's rows worked out (a_row), one chunk at a time (unrolled, the compiler loads
    // every chunk's row first and holds them all)
    HUM_DEV static void load_rows(const hum_gemm_args &args, const Block &blk, const u8 *const *table, u32 stage,
                                  int kb, int tid)
    {
        if constexpr (kRowTable) {
            for_chunks<COUNT, 4>(tid, [&](int, int ch) {
                const u8 *row = table[ch / CPR];
                const bool exists = row != nullptr;
                copy(stage, (exists ? row : static_cast<const u8 *>(args.a)) + ch % CPR * 16, exists, ch, kb);
            });
        } else {
            for_chunks<COUNT, 1>(tid, [&](int, int ch) {
                bool exists;
                const u8 *src = source(args, [&](int r) { return a_row(args, blk, r); }, ch, exists);
                copy(stage, src, exists, ch, kb);
            });
        }
    }
};

struct AGather {
    u16 v[kAVec ? 1 : kAElems];

    HUM_DEV void load(const hum_gemm_args &args, const Block &blk, int kb, int tid)
    {
        const u16 *a = static_cast<const u16 *>(args.a);
        const int k0 = kb * kBK;
#pragma unroll
        for (int i = 0; i < kAElems; ++i) {
            const int e = tid + i * kCopyThreads;
            const i64 gm = a_row(args, blk, e / kBK);
            const int gk = k0 + e % kBK;
            u16 x = 0;
            if (gm >= 0 && gk < kKReal) {
                const int col = kGatherK ? __ldg(args.k_perm + static_cast<i64>(blk.expert) * kKReal + gk) : gk;
                if (col >= 0)
                    x = __ldg(a + gm * args.lda + col);
            }
            v[i] = x;
        }
    }

    HUM_DEV void store(u32 stage, int tid) const
    {
#pragma unroll
        for (int i = 0; i < kAElems; ++i) {
            const int e = tid + i * kCopyThreads;
            const int row = e / kBK, col = e % kBK;
            sts16(stage + a_offset(row, col / 8) + (col % 8) * 2, v[i]);
        }
    }
};

// Thread 0's copies of the tile rows m0.. and k-block kb: boxes of kBM rows x 128 bytes
// (kAtomK elements), one swizzle atom column of `atom_bytes` each, completing on barrier `bar`.
// With A multicast (kClusterN CTAs) the map's box holds kBM / kClusterN rows: each CTA copies its
// rank's share of every atom column into the same place of every CTA of the cluster, whose
// barriers at `bar` all expect the whole tile (the shares are whole 8-row swizzle atoms, so the
// layout is the one box's).
constexpr int kAtomK = 128 / kAElem;
HUM_DEV void a_tma(const hum_gemm_args &args, u32 dst, int atom_bytes, int m0, int kb, u32 bar)
{
    const int k0 = kb * kBK;
    mbar_arrive_expect_tx(bar, kABytes);
    if constexpr (kClusterN == 1) {
#pragma unroll
        for (int a = 0; a < kBK / kAtomK; ++a)
            tma_load_2d(dst + a * atom_bytes, args.a_map, k0 + kAtomK * a, m0, bar);
    } else {
        constexpr int kShareRows = kBM / kClusterN;
        const int r = static_cast<int>(cluster_ctarank());
#pragma unroll
        for (int a = 0; a < kBK / kAtomK; ++a)
            tma_load_2d_multicast(dst + a * atom_bytes + r * kShareRows * 128, args.a_map, k0 + kAtomK * a,
                                  m0 + r * kShareRows, bar, static_cast<u16>((1u << kClusterN) - 1));
    }
}

}  // namespace gemm
