// The start every GEMM kernel shares, and the zeroing of its accumulators. A kernel may be
// launched overlapping the previous kernel of its stream (ptx/griddep.cuh): an act-order A comes
// from prep/permute_a.cu and 8-bit A from prep/quantize_a.cu, which may still be writing it, so
// the wait comes before any read of what a kernel writes.
#pragma once
#include "gemm/load_b.cuh"
#include "gemm/schedule.cuh"
#include "ptx/griddep.cuh"

namespace gemm {

// The GEMM type's rows (gemm/rows.cuh), this CTA's work and the thread's place in it; the
// kernel returns at once when sch.total is 0.
struct Entry {
    Rows rows;
    Schedule sch;
    int tid, lane, warp;
};

HUM_DEV Entry kernel_entry(const hum_gemm_args &args)
{
    const int tid = threadIdx.x;
    if constexpr (kGemmType != GemmType::kDense)
        grid_dependency_wait();  // the expert GEMMs' rows come from the routing kernels
    const Rows rows(args, block_table(), tid);
    const Schedule sch(rows.blocks, !kSumInWorkspace || args.partials != nullptr);
    if constexpr (kGemmType == GemmType::kDense) {
        // A dense GEMM's rows and work follow from M alone, and its weights were written at
        // prepare time: the codes of its first kStages - 1 k-blocks head for L2 while the kernel
        // before it (8-bit A's quantization, act-order's permutation) finishes. One bulk
        // prefetch per k16 row of a stage. Neither more nor a copy straight into the stages:
        // on the H200 (n = k = 8192 uint4 g128, act-order M = 16, bench/NOTES.md session 11) the
        // next 8 / 16 k-blocks into L2 as well cost +1.9 / +2.6 us (their DRAM time comes before
        // the loads needed first), and the copy of these stages' codes and scales into shared
        // memory before the wait +0.7 us, with every 16-bit kernel that carried the path +0.86.
        constexpr int kRows = (kStages - 1) * (kBK / 16);
        if (args.overlaps && tid < kRows) {
            const int s = tid / (kBK / 16), row = tid % (kBK / 16);
            Work w{0, 0};
            for (int j = 0; j <= s && j < sch.total; ++j)
                w = sch.step(w, j);
            if (s < sch.total) {
                int mb, nb;
                tile_coords(w.tile, rows.blocks, mb, nb);
                prefetch_l2(codes_tile(args, 0, nb * kBN) + (static_cast<i64>(w.kb) * (kBK / 16) + row) * kCodeRowWords,
                            kBRowWords * 4);
            }
        }
        grid_dependency_wait();
    }
    return Entry{rows, sch, tid, tid & 31, tid >> 5};
}

// Accumulators of any shape of float array, unrolled to register moves.
HUM_DEV void zero_acc(float &x)
{
    x = 0.f;
}

HUM_DEV void zero_acc(int &x)
{
    x = 0;
}

template <typename T, int N>
HUM_DEV void zero_acc(T (&acc)[N])
{
#pragma unroll
    for (int i = 0; i < N; ++i)
        zero_acc(acc[i]);
}

// total += acc, then acc = 0 (kPromote: float32 totals of the tensor cores' e4m3 accumulators).
HUM_DEV void promote(float &acc, float &total)
{
    total += acc;
    acc = 0.f;
}

HUM_DEV void promote(int &acc, int &total)
{
    total += acc;
    acc = 0;
}

// total += acc * f, then acc = 0 (K-group scales: f is the period's, gemm/kscale.cuh); int8
// products' int32 sums sit in the float registers as their bits (mma/mma_sync.cuh).
HUM_DEV void promote(float &acc, float &total, float f)
{
    total = fmaf(kAInt8 ? static_cast<float>(__float_as_int(acc)) : acc, f, total);
    acc = 0.f;
}

template <typename T, int N>
HUM_DEV void promote(T (&acc)[N], T (&total)[N])
{
#pragma unroll
    for (int i = 0; i < N; ++i)
        promote(acc[i], total[i]);
}

}  // namespace gemm
