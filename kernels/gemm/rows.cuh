// The rows of the GEMM type (kernels/contract/gemm_args.h, kernels/contract/moe_layout.h): how
// many blocks of kBM rows a launch covers, and for each block its expert and which rows of A
// and C its rows are. The schedule counts blocks, the A loaders gather rows, the B loaders
// offset by the expert, the epilogues scatter rows: all through here.
#pragma once
#include "contract/moe_layout.h"
#include "gemm/config.cuh"

namespace gemm {

constexpr bool kGrouped = kGemmType == GemmType::kGroupedContiguous || kGemmType == GemmType::kGroupedMasked;
// Grouped types: the first block of each expert, then the total, per CTA in shared memory.
constexpr int kBlockTable = kGrouped ? kExperts + 1 : 1;

// The grouped types' block table, in static shared memory (nullptr for the other types).
template <bool G = kGrouped>
HUM_DEV int *block_table()
{
    if constexpr (G) {
        __shared__ int table[kBlockTable];
        return table;
    } else {
        return nullptr;
    }
}

struct Block {
    int expert;      // the weight it multiplies (0 for dense and skipped blocks)
    int rows;        // dense, grouped: rows of the block that exist; indexed: kBM, or 0 when skipped
    i64 row0;        // dense, grouped: the block's first row of A and C
    const int *ids;  // indexed: the block's sorted routed rows
};

// Rows of block b's expert in a grouped type.
HUM_DEV int expert_rows(const hum_gemm_args &args, int e)
{
    if constexpr (kGemmType == GemmType::kGroupedContiguous) {
        const i64 n = args.expert_offsets[e + 1] - args.expert_offsets[e];
        return n > 0 ? static_cast<int>(n) : 0;
    } else {
        const int n = args.expert_counts[e];
        return n < 0 ? 0 : n < args.m ? n : args.m;
    }
}

struct Rows {
    int blocks;
    const int *table;

    // Every thread of the CTA, before any other use of shared memory: the grouped types build
    // the block table in `smem_table` (kBlockTable ints) and end with a barrier.
    HUM_DEV Rows(const hum_gemm_args &args, int *smem_table, int tid) : table(smem_table)
    {
        if constexpr (kGemmType == GemmType::kDense) {
            blocks = (args.m + kBM - 1) / kBM;
        } else if constexpr (kGemmType == GemmType::kIndexed) {
            blocks = __ldg(args.num_tokens_post_padded) / kBM;
        } else {
            for (int e = tid; e < kExperts; e += kThreads)
                smem_table[e + 1] = (expert_rows(args, e) + kBM - 1) / kBM;
            __syncthreads();
            if (tid < 32) {  // inclusive scan, 32 experts at a time
                int carry = 0;
                for (int e0 = 0; e0 < kExperts; e0 += 32) {
                    const int e = e0 + tid;
                    int v = e < kExperts ? smem_table[e + 1] : 0;
#pragma unroll
                    for (int d = 1; d < 32; d *= 2) {
                        const int u = __shfl_up_sync(0xffffffffu, v, d);
                        v += tid >= d ? u : 0;
                    }
                    if (e < kExperts)
                        smem_table[e + 1] = carry + v;
                    carry += __shfl_sync(0xffffffffu, v, 31);
                }
                if (tid == 0)
                    smem_table[0] = 0;
            }
            __syncthreads();
            blocks = smem_table[kExperts];
        }
    }

    HUM_DEV Block block(const hum_gemm_args &args, int mb) const
    {
        Block b{0, 0, 0, nullptr};
        if constexpr (kGemmType == GemmType::kDense) {
            b.row0 = static_cast<i64>(mb) * kBM;
            b.rows = args.m - b.row0 < kBM ? static_cast<int>(args.m - b.row0) : kBM;
        } else if constexpr (kGemmType == GemmType::kIndexed) {
            const int e = __ldg(args.expert_ids + mb);
            const bool run = e >= 0 && e < kExperts;  // HUM_MOE_SKIP_BLOCK (or no such expert): skipped
            b.expert = run ? e : 0;
            b.rows = run ? kBM : 0;
            b.ids = args.sorted_token_ids + static_cast<i64>(mb) * kBM;
        } else {
            int lo = 0, hi = kExperts - 1;  // the expert whose blocks hold mb
            while (lo < hi) {
                const int mid = (lo + hi) / 2;
                if (table[mid + 1] <= mb)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            const int first = (mb - table[lo]) * kBM;
            b.expert = lo;
            b.rows = expert_rows(args, lo) - first < kBM ? expert_rows(args, lo) - first : kBM;
            b.row0 = (kGemmType == GemmType::kGroupedContiguous ? args.expert_offsets[lo]
                                                                : static_cast<i64>(lo) * args.m) + first;
        }
        return b;
    }
};

// The row of A that row r (0 .. kBM-1) of block b reads, or -1 (zeros).
HUM_DEV i64 a_row(const hum_gemm_args &args, const Block &b, int r)
{
    if constexpr (kGemmType == GemmType::kIndexed) {
        if (b.rows == 0)
            return -1;
        const int id = __ldg(b.ids + r);  // the sentinel m * top_k and beyond: no row
        return static_cast<unsigned>(id) < static_cast<unsigned>(args.m * args.top_k) ? id / args.top_k : -1;
    } else {
        return r < b.rows ? b.row0 + r : -1;
    }
}

// Indexed types: a block's rows of A resolved once per tile (per segment) into a table in
// shared memory, for the loops that would otherwise look each row up again (a global load of
// its sorted id, then a division) wherever they need it: the K-group scales of 8-bit A at every
// promotion and its row factors in the epilogue (kMathRows: block_m ints, -1 no row), the
// warp-specialised producer's gathers at every stage (its own table, of each row's address in A:
// a stage's copies then only add their column; it runs ahead of the math warps). Each table's
// threads fill it between two barriers of theirs. The other types' rows are arithmetic and keep
// no table. runtime/src/layer/gemm_variant.c counts the tables' static shared memory.
constexpr bool kRowTable = kGemmType == GemmType::kIndexed;
constexpr bool kMathRows = kRowTable && kA8;

// The math threads' table of rows, in static shared memory (nullptr for the types without tables).
HUM_DEV int *row_table()
{
    if constexpr (kRowTable) {
        __shared__ int table[kBM];
        return table;
    } else {
        return nullptr;
    }
}

// The producer's table of the block's rows as addresses of their first byte in A (nullptr: no
// row), in static shared memory (nullptr for the types without tables).
HUM_DEV const u8 **source_table()
{
    if constexpr (kRowTable) {
        __shared__ const u8 *table[kBM];
        return table;
    } else {
        return nullptr;
    }
}

// Rows tid, tid + count, ... of block b into `table`.
HUM_DEV void fill_rows(const hum_gemm_args &args, const Block &b, int *table, int tid, int count)
{
    if constexpr (kRowTable) {
        for (int r = tid; r < kBM; r += count)
            table[r] = static_cast<int>(a_row(args, b, r));
    }
}

// Rows tid, tid + count, ... of block b into the source table `table`.
HUM_DEV void fill_sources(const hum_gemm_args &args, const Block &b, const u8 **table, int tid, int count)
{
    if constexpr (kRowTable) {
        for (int r = tid; r < kBM; r += count) {
            const i64 row = a_row(args, b, r);
            table[r] = row >= 0 ? static_cast<const u8 *>(args.a) + row * args.lda * kAElem : nullptr;
        }
    }
}

// a_row through block b's filled table.
HUM_DEV i64 table_row(const hum_gemm_args &args, const Block &b, const int *table, int r)
{
    if constexpr (kRowTable)
        return table[r];
    else
        return a_row(args, b, r);
}

// The row of C that row r of block b writes, or -1 (none).
HUM_DEV i64 c_row(const hum_gemm_args &args, const Block &b, int r)
{
    if constexpr (kGemmType == GemmType::kIndexed) {
        if (b.rows == 0)
            return -1;
        const int id = __ldg(b.ids + r);
        return static_cast<unsigned>(id) < static_cast<unsigned>(args.m * args.top_k) ? id : -1;
    } else {
        return r < b.rows ? b.row0 + r : -1;
    }
}

}  // namespace gemm
