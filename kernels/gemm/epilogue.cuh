// The epilogue's shared pieces: the stream-K handshake between the slices of one tile
// (gemm/schedule.cuh numbers them) and the output value of an accumulator. Each kernel writes C
// from its own accumulator layout between streamk_wait and streamk_pass: the first slice stores
// factor * acc + bias, later ones add factor * acc to what C holds (read from L2).
#pragma once
#include "gemm/schedule.cuh"
#include "ptx/global.cuh"

namespace gemm {

// Thread 0 waits until the tile's lock says it is this slice's turn; the caller's barrier
// then releases the CTA.
HUM_DEV void streamk_wait(const hum_gemm_args &args, const Slice &s, int tid)
{
    if (s.split && tid == 0)
        while (ld_acquire(args.locks + s.lock) != s.slice) {
        }
}

// After the caller's barrier (every write of the slice issued): hands the tile to the next
// slice, or resets the lock to 0 after the last one.
HUM_DEV void streamk_pass(const hum_gemm_args &args, const Slice &s, int tid)
{
    if (s.split && tid == 0) {
        __threadfence();
        st_release(args.locks + s.lock, s.last ? 0 : s.slice + 1);
    }
}

// The handshake around a write that needs no barrier of its own (the mma.sync kernel writes
// straight from registers): every thread waits for the slice's turn, then passes it on.
HUM_DEV void streamk_begin(const hum_gemm_args &args, const Slice &s, int tid)
{
    if (s.split) {
        streamk_wait(args, s, tid);
        __syncthreads();
    }
}

HUM_DEV void streamk_end(const hum_gemm_args &args, const Slice &s, int tid)
{
    if (s.split) {
        __syncthreads();
        streamk_pass(args, s, tid);
    }
}

// The float factor of the accumulators of row `row` (< M): out_factor, times A's scale of the
// row for 8-bit A (A's group scales were applied at the promotions: gemm/kscale.cuh).
HUM_DEV float row_factor(const hum_gemm_args &args, i64 row)
{
    if constexpr (kA8 && !kAGroupScales)
        return args.out_factor * __ldg(args.a_scale + row * args.a_scale_ld);
    else
        return args.out_factor;
}

// row_factor of row r of block b: of the row of A it reads (0 where there is none).
HUM_DEV float block_row_factor(const hum_gemm_args &args, const Block &b, int r)
{
    if constexpr (kA8 && !kAGroupScales) {
        const i64 row = a_row(args, b, r);
        return row >= 0 ? row_factor(args, row) : 0.f;
    } else {
        return args.out_factor;
    }
}

// The weight's factor of output column `col` (< padded N) where the epilogue applies it (8-bit
// A: col_scale; not the weight's K-group scales, applied at the promotions), else 1.
HUM_DEV float col_scale(const hum_gemm_args &args, int col)
{
    if constexpr (kEpilogueScale)
        return __ldg(args.col_scale + col);
    else
        return 1.f;
}

// int8 products accumulate in int32 in the float registers: their values as floats, before
// stream-K slices or warps along K add them up.
template <int COUNT>
HUM_DEV void ints_to_floats(float *acc)
{
#pragma unroll
    for (int i = 0; i < COUNT; ++i)
        acc[i] = static_cast<float>(__float_as_int(acc[i]));
}

// The bias of `expert`'s output column `col`, added by the first slice only (0 for the others).
HUM_DEV float bias_of(const hum_gemm_args &args, int expert, int col, bool first)
{
    return kBias && first ? __ldg(args.bias + static_cast<i64>(expert) * kN + col) : 0.f;
}

}  // namespace gemm
