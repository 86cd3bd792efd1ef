// The start every GEMM kernel shares, and the zeroing of its accumulators. A kernel may be
// launched overlapping the previous kernel of its stream (ptx/griddep.cuh): an act-order A comes
// from prep/permute_a.cu, which may still be writing it, so the wait comes before any read.
#pragma once
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
    grid_dependency_wait();
    const int tid = threadIdx.x;
    const Rows rows(args, block_table(), tid);
    return Entry{rows, Schedule(rows.blocks, !kSumInWorkspace || args.partials != nullptr), tid, tid & 31, tid >> 5};
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

// total += acc * f, then acc = 0 (K-group scales: f is the period's, gemm/kscale.cuh).
HUM_DEV void promote(float &acc, float &total, float f)
{
    total = fmaf(acc, f, total);
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
