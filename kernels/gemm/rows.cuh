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

// N entries of T in static shared memory, a table of their own for each TAG; nullptr where the
// kernel keeps none (ON false).
template <typename T, int N, bool ON, int TAG>
HUM_DEV T *smem_table()
{
    if constexpr (ON) {
        __shared__ T table[N];
        return table;
    } else {
        return nullptr;
    }
}

// The grouped types' block table (nullptr for the other types).
HUM_DEV int *block_table()
{
    return smem_table<int, kBlockTable, kGrouped, 0>();
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

// What an indexed block's users read from global memory (expert_ids, sorted_token_ids), loaded
// by Rows::fetch into registers ahead of their use, so that the loads' latency hides behind other
// work: the block's expert id, and the sorted ids of its rows tid, tid + COUNT, ... of the
// COUNT threads that read them (the tables below are filled from them: the warp-specialised
// producer a segment ahead, the math threads before a main loop whose end, or start, uses them).
// Other types: the block's number only (their rows are worked out).
template <int COUNT>
struct BlockIds {
    static constexpr int kIds = kGemmType == GemmType::kIndexed ? (kBM + COUNT - 1) / COUNT : 0;
    int mb;
    int expert;
    int id[kIds > 0 ? kIds : 1];
};

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
        if constexpr (kGemmType == GemmType::kIndexed)
            return indexed(args, mb, __ldg(args.expert_ids + mb));
        else
            return computed(args, mb);
    }

    // Block ah.mb, from what ah read ahead (BlockIds).
    template <int COUNT>
    HUM_DEV Block block(const hum_gemm_args &args, const BlockIds<COUNT> &ah) const
    {
        if constexpr (kGemmType == GemmType::kIndexed)
            return indexed(args, ah.mb, ah.expert);
        else
            return computed(args, ah.mb);
    }

    // Block mb's global facts, read by thread `tid` of COUNT (BlockIds): its loads are issued
    // here and waited for where the values are first used.
    template <int COUNT>
    HUM_DEV BlockIds<COUNT> fetch(const hum_gemm_args &args, int mb, int tid) const
    {
        BlockIds<COUNT> ah;
        ah.mb = mb;
        if constexpr (kGemmType == GemmType::kIndexed) {
            ah.expert = __ldg(args.expert_ids + mb);
            const int *ids = args.sorted_token_ids + static_cast<i64>(mb) * kBM;
#pragma unroll
            for (int i = 0; i < BlockIds<COUNT>::kIds; ++i) {
                const int r = tid + i * COUNT;
                ah.id[i] = kBM % COUNT == 0 || r < kBM ? __ldg(ids + r) : -1;
            }
        }
        return ah;
    }

  private:
    // Indexed block mb of expert id e as expert_ids holds it.
    HUM_DEV static Block indexed(const hum_gemm_args &args, int mb, int e)
    {
        const bool run = e >= 0 && e < kExperts;  // HUM_MOE_SKIP_BLOCK (or no such expert): skipped
        return Block{run ? e : 0, run ? kBM : 0, 0, args.sorted_token_ids + static_cast<i64>(mb) * kBM};
    }

    // The other types' block mb, worked out.
    HUM_DEV Block computed(const hum_gemm_args &args, int mb) const
    {
        Block b{0, 0, 0, nullptr};
        if constexpr (kGemmType == GemmType::kDense) {
            b.row0 = static_cast<i64>(mb) * kBM;
            b.rows = args.m - b.row0 < kBM ? static_cast<int>(args.m - b.row0) : kBM;
        } else if constexpr (kGrouped) {
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

// Indexed: the row of C that sorted id `id` of block b names, or -1 (a skipped block, or the
// sentinel m * top_k and beyond: no row).
HUM_DEV int id_row(const hum_gemm_args &args, const Block &b, int id)
{
    return b.rows != 0 && static_cast<unsigned>(id) < static_cast<unsigned>(args.m * args.top_k) ? id : -1;
}

// The row of A that row r (0 .. kBM-1) of block b reads, or -1 (zeros).
HUM_DEV i64 a_row(const hum_gemm_args &args, const Block &b, int r)
{
    if constexpr (kGemmType == GemmType::kIndexed) {
        const int row = id_row(args, b, b.rows == 0 ? -1 : __ldg(b.ids + r));
        return row >= 0 ? row / args.top_k : -1;
    } else {
        return r < b.rows ? b.row0 + r : -1;
    }
}

// Indexed types: a block's rows resolved once per tile (per segment) into tables in shared
// memory, from the sorted ids the threads that fill them read ahead (BlockIds), for the loops
// that would otherwise look each row up again (a global load of its sorted id, then a division)
// wherever they need it: the K-group scales of 8-bit A at every promotion and its row factors in
// the epilogue (kMathRows: block_m ints, the rows of A, -1 no row), the epilogue's writes to C
// (c_table: block_m ints, the rows of C, -1 none), the warp-specialised producer's gathers at
// every stage (its own table, of each row's address in A: a stage's copies then only add their
// column; it runs ahead of the math warps). Each table's threads fill it between two barriers of
// theirs: one after the table's previous readers, one before its next. The other types' rows
// are arithmetic and keep no table. runtime/src/layer/gemm_variant.c counts the tables' static
// shared memory.
constexpr bool kRowTable = kGemmType == GemmType::kIndexed;
constexpr bool kMathRows = kRowTable && kA8;

// The math threads' table of rows of A (nullptr for the types without tables).
HUM_DEV int *row_table()
{
    return smem_table<int, kBM, kRowTable, 1>();
}

// The math threads' table of rows of C, the wgmma kernel's epilogue (nullptr for the types
// without tables).
HUM_DEV int *c_table()
{
    return smem_table<int, kBM, kRowTable, 2>();
}

// The producer's table of the block's rows as addresses of their first byte in A (nullptr: no
// row; nullptr for the types without tables).
HUM_DEV const u8 **source_table()
{
    return smem_table<const u8 *, kBM, kRowTable, 3>();
}

// Rows tid, tid + COUNT, ... of block b into a table, from the sorted ids thread tid of COUNT
// read ahead: v(row of C, or -1) gives the entry.
template <int COUNT, typename T, typename V>
HUM_DEV void fill_table(const hum_gemm_args &args, const Block &b, const BlockIds<COUNT> &ah, T *table, int tid, V v)
{
    if constexpr (kRowTable) {
#pragma unroll
        for (int i = 0; i < BlockIds<COUNT>::kIds; ++i) {
            const int r = tid + i * COUNT;
            if (kBM % COUNT == 0 || r < kBM)
                table[r] = v(id_row(args, b, ah.id[i]));
        }
    }
}

// The rows of A into the math threads' table (row_table).
template <int COUNT>
HUM_DEV void fill_rows(const hum_gemm_args &args, const Block &b, const BlockIds<COUNT> &ah, int *table, int tid)
{
    fill_table(args, b, ah, table, tid, [&](int row) { return row >= 0 ? row / args.top_k : -1; });
}

// The rows of C into the math threads' table (c_table).
template <int COUNT>
HUM_DEV void fill_c_rows(const hum_gemm_args &args, const Block &b, const BlockIds<COUNT> &ah, int *table, int tid)
{
    fill_table(args, b, ah, table, tid, [](int row) { return row; });
}

// The rows' addresses in A into the producer's table (source_table).
template <int COUNT>
HUM_DEV void fill_sources(const hum_gemm_args &args, const Block &b, const BlockIds<COUNT> &ah, const u8 **table,
                          int tid)
{
    fill_table(args, b, ah, table, tid, [&](int row) {
        return row >= 0 ? static_cast<const u8 *>(args.a) + static_cast<i64>(row / args.top_k) * args.lda * kAElem
                        : nullptr;
    });
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
    if constexpr (kGemmType == GemmType::kIndexed)
        return id_row(args, b, b.rows == 0 ? -1 : __ldg(b.ids + r));
    else
        return r < b.rows ? b.row0 + r : -1;
}

// c_row through block b's filled table (c_table).
HUM_DEV i64 table_c_row(const hum_gemm_args &args, const Block &b, const int *table, int r)
{
    if constexpr (kRowTable)
        return table[r];
    else
        return c_row(args, b, r);
}

}  // namespace gemm
