// The epilogue's shared pieces: the stream-K meeting of the slices of one tile (gemm/schedule.cuh
// numbers them) and the output value of an accumulator. Slices summed through C: each kernel
// writes C from its own accumulator layout between streamk_wait and streamk_pass, the first
// slice storing factor * acc + bias, later ones adding factor * acc to what C holds (read from
// L2). Summed in the workspace (kSumInWorkspace): streamk_fixup gathers the tile's sums into the
// slice holding k-block 0, which alone writes C, with factor * sum + bias.
#pragma once
#include "gemm/schedule.cuh"
#include "ptx/global.cuh"

namespace gemm {

// The math threads' barrier: the CTA's, or with a producer warpgroup (kLoadWarps) named barrier
// 1 of the math threads alone, which the producer, running ahead on the stage ring, never joins.
HUM_DEV void math_sync()
{
    if constexpr (kLoadWarps > 0)
        asm volatile("bar.sync 1, %0;\n" ::"n"(kMathThreads) : "memory");
    else
        __syncthreads();
}

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

// The CTA's partial slot in the workspace (hum_gemm_args.partials): kBM x kBN accumulators of the
// kernel's 32-bit type T (float; int32 where int8 products are summed exactly).
template <typename T>
HUM_DEV T *partial_slot(const hum_gemm_args &args, int cta)
{
    return static_cast<T *>(args.partials) + static_cast<i64>(cta) * (kBM * kBN);
}

// The bits of a 32-bit accumulator and back (register moves, no address taken).
HUM_DEV u32 acc_bits(float v) { return __float_as_uint(v); }
HUM_DEV u32 acc_bits(int v) { return static_cast<u32>(v); }
HUM_DEV void acc_add_bits(float &acc, u32 bits) { acc += __uint_as_float(bits); }
HUM_DEV void acc_add_bits(int &acc, u32 bits) { acc += static_cast<int>(bits); }

// kSumInWorkspace: combines a segment's accumulators with the tile's other slices. HOLDERS
// threads hold the tile's accumulators, N each (h: the thread's index among them, -1 for a
// thread that holds none); every math thread of the CTA calls it (its barriers are math_sync).
// A slice that does not hold k-block 0 stores its sums in its CTA's slot, raises its CTA's flag
// and returns false (it writes nothing). The one that does waits for each later CTA's flag
// (s.slice of them), resets it to 0 (flags are zero between launches), adds that CTA's sums and
// returns true, as an unsplit segment does at once. A slot holds the sums in register order,
// four values of a thread per 16 bytes, so that a warp's accesses are contiguous.
template <int HOLDERS, typename T, int N>
HUM_DEV bool streamk_fixup(const hum_gemm_args &args, const Schedule &sch, const Slice &s, int tid, int h,
                           T (&acc)[N])
{
    static_assert(HOLDERS * N == kBM * kBN && N % 4 == 0, "the holders' accumulators make up the tile");
    if (!s.split)
        return true;
    if (!s.last) {
        if (h >= 0) {
            T *slot = partial_slot<T>(args, sch.own(sch.cta));
#pragma unroll
            for (int i = 0; i < N; i += 4) {
                const u32 v[4] = {acc_bits(acc[i]), acc_bits(acc[i + 1]), acc_bits(acc[i + 2]), acc_bits(acc[i + 3])};
                st_global_128(slot + (i * HOLDERS + 4 * h), v);
            }
        }
        // every math thread's slot written; also the barrier that keeps gemm_wgmma.cu's kLag
        // warpgroups to one lag arrival per segment
        math_sync();
        if (tid == 0) {
            __threadfence();
            st_release(args.locks + sch.own(sch.cta), 1);
        }
        return false;
    }
    if (tid == 0)
        for (int p = 1; p <= s.slice; ++p) {
            while (ld_acquire(args.locks + sch.own(sch.cta + p)) != 1) {
            }
            args.locks[sch.own(sch.cta + p)] = 0;
        }
    math_sync();
    // Up to 32 accumulators at a time over all peers: their loads issue together, and the
    // registers of the largest tiles have no room for more in flight.
    constexpr int PART = N < 32 ? N : 32;
    if (h >= 0) {
        const T *slot = partial_slot<T>(args, sch.own(sch.cta + 1)) + 4 * h;
#pragma unroll
        for (int i0 = 0; i0 < N; i0 += PART)
            for (int p = 0; p < s.slice; ++p) {
#pragma unroll
                for (int i = i0; i < i0 + PART; i += 4) {
                    u32 v[4];
                    ld_l2_128(slot + (static_cast<i64>(p) * kClusterN * (kBM * kBN) + i * HOLDERS), v);
#pragma unroll
                    for (int e = 0; e < 4; ++e)
                        acc_add_bits(acc[i + e], v[e]);
                }
            }
    }
    return true;
}

// The float factor of the accumulators of row `row` (< M): out_factor, times A's scale of the
// row for 8-bit A (A's group scales were applied at the promotions: gemm/kscale.cuh).
HUM_DEV float row_factor(const hum_gemm_args &args, i64 row)
{
    if constexpr (kA8 && !kAGroupScales) {
        // kQuantA's scales may come from this launch (gemm/quant_a.cuh): read from L2, where the
        // quantizing warps' writes are, not through the non-coherent path
        const float *s = args.a_scale + row * args.a_scale_ld;
        return args.out_factor * (kQuantA ? __ldcg(s) : __ldg(s));
    } else {
        return args.out_factor;
    }
}

// row_factor of row r of block b: of the row of A it reads (0 where there is none), which
// `table` holds (gemm/rows.cuh).
HUM_DEV float block_row_factor(const hum_gemm_args &args, const Block &b, const int *table, int r)
{
    if constexpr (kA8 && !kAGroupScales) {
        const i64 row = table_row(args, b, table, r);
        return row >= 0 ? row_factor(args, row) : 0.f;
    } else {
        return args.out_factor;
    }
}

// The weight's factor of `expert`'s output column `col` (< padded N) where the epilogue applies
// it (8-bit A: col_scale [experts][padded N]; not the weight's K-group scales, applied at the
// promotions), else 1.
HUM_DEV float col_scale(const hum_gemm_args &args, int expert, int col)
{
    if constexpr (kEpilogueScale)
        return __ldg(args.col_scale + static_cast<i64>(expert) * kN + col);
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

// The bias of `expert`'s output column `col`, added by the first slice only (0 for the others;
// every segment that writes C is first when the slices sum in the workspace).
HUM_DEV float bias_of(const hum_gemm_args &args, int expert, int col, bool first)
{
    return kBias && first ? __ldg(args.bias + static_cast<i64>(expert) * kN + col) : 0.f;
}

}  // namespace gemm
