// 8-bit A quantized by the GEMM itself (kQuantA; the launch passes the host's 16-bit rows in
// args.a16, kernels/contract/gemm_args.h): per token, the bits prep/quantize_a.cu writes, but
// inside the GEMM's schedule, so that the rows of later m-blocks are quantized while the first
// ones are multiplied (a quantizer kernel before the GEMM kept every SM on it until its last row:
// ~68 us of W8A8's ~1040 at n = k = 8192, M = 8192, bench/NOTES.md, session 40).
//
// Rows are handed out one at a time from one counter (args.a_ready[0]), in order, to whichever
// warp asks: every warp of a CTA before it starts, until the rows of its first tile's m-block are
// all claimed, then the producer warpgroup's warps that issue no copies, until none is left. A
// warp quantizes the row it claimed to the end without waiting on anything, then adds it to its
// m-block's count (a_ready[2 + mb]); the thread issuing an m-block's TMA loads waits for that
// count first. So a wait only ever waits on rows that running warps are finishing, and the grid
// needs no co-residency for it. The last CTA to finish (a_ready[1]) zeroes the counters for the
// next launch, as the stream-K locks are left zero.
#pragma once
#include "gemm/schedule.cuh"
#include "numerics/encode.cuh"
#include "numerics/half2.cuh"
#include "ptx/global.cuh"
#include "ptx/tma.cuh"

namespace gemm {

static_assert(!kQuantA || (kA8 && !kAGroupScales && kGemmType == GemmType::kDense && kLoadWarps == 4 &&
                           kKReal % 8 == 0),
              "kQuantA: dense wgmma_ws with 8-bit A per token, rows of whole 16-byte chunks");

// Whether this launch quantizes its A (a kQuantA kernel also runs on A quantized before it).
HUM_DEV bool quantizes_a(const hum_gemm_args &args)
{
    return kQuantA && args.a16 != nullptr;
}

HUM_DEV int *rows_claimed(const hum_gemm_args &args)
{
    return args.a_ready;
}

HUM_DEV int *ctas_finished(const hum_gemm_args &args)
{
    return args.a_ready + 1;
}

HUM_DEV int *rows_ready(const hum_gemm_args &args, int mb)
{
    return args.a_ready + 2 + mb;
}

// The rows of m-block mb that exist.
HUM_DEV int block_rows(const hum_gemm_args &args, int mb)
{
    const int left = args.m - mb * kBM;
    return left < kBM ? left : kBM;
}

// The 16-byte chunk at p as it is (C's 16-bit type, two values a word): a lane holds its chunks
// in flight in half the registers that their float32 values would take.
HUM_DEV void load_chunk(const u16 *p, u32 (&w)[4])
{
    asm("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];\n" : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(p));
}

// The 8 values of a chunk as float32.
HUM_DEV void chunk_values(const u32 (&w)[4], float (&v)[8])
{
#pragma unroll
    for (int i = 0; i < 8; ++i)
        v[i] = to_float<kBF16>(static_cast<u16>(w[i / 2] >> (16 * (i % 2))));
}

// Row r of the host's A quantized by one warp: its amax, the scale amax / max into a_scale[r],
// the codes of x * (max / amax) into row r of `a`. The row is read twice (the codes' pass finds
// it in L2). A warp's time on a row is its rounds' load latencies, so a lane keeps up to DEPTH
// chunks in flight, as 16-bit words, as many as its registers allow (a producer warp keeps few:
// the rounds stay a loop, which ptxas unrolled and spilled up to 1 KB under the producer's 40
// registers at K = 2064), in whole rounds of the warp's chunks, then the rest a chunk a lane,
// those past the row's end loading its last chunk again and storing nothing (a predicate: the
// warp takes every branch together).
template <int DEPTH>
HUM_DEV void quantize_row(const hum_gemm_args &args, int r, int lane)
{
    // a round no larger than the row's whole rounds: a short row's chunks then stay in few rounds
    // instead of one chunk a lane at a time (K = 2064 at depth 16: 9 rounds a pass, at 8: 2)
    constexpr int kChunks = kKReal / 8, kFit = kChunks / 32 > 0 ? kChunks / 32 : 1;
    constexpr int kDepth = DEPTH < kFit ? DEPTH : kFit;
    constexpr int kRound = 32 * kDepth, kWhole = kChunks / kRound * kRound;
    constexpr float kMax = kAInt8 ? enc::kInt8Max : enc::kE4m3Max;
    const u16 *a = static_cast<const u16 *>(args.a16) + static_cast<i64>(r) * args.lda16;
    u8 *q = static_cast<u8 *>(const_cast<void *>(args.a)) + static_cast<i64>(r) * args.lda;
    // chunk c of the lane's, the row's last for lanes past it
    auto load = [&](int c, u32 (&w)[4]) { load_chunk(a + 8 * (c < kChunks ? c : kChunks - 1), w); };
    // f(c, v) for each of the lane's chunks c (past the row's end: its last chunk's values), a
    // round's loads all issued before the first f
    auto walk = [&](auto &&f) {
#pragma unroll 1
        for (int c0 = 0; c0 < kWhole; c0 += kRound) {
            u32 w[kDepth][4];
#pragma unroll
            for (int d = 0; d < kDepth; ++d)
                load(c0 + 32 * d + lane, w[d]);
#pragma unroll
            for (int d = 0; d < kDepth; ++d) {
                float v[8];
                chunk_values(w[d], v);
                f(c0 + 32 * d + lane, v);
            }
        }
        if constexpr (kWhole < kChunks) {
#pragma unroll 1
            for (int c0 = kWhole; c0 < kChunks; c0 += 32) {
                u32 w[4];
                float v[8];
                load(c0 + lane, w);
                chunk_values(w, v);
                f(c0 + lane, v);
            }
        }
    };
    float m = 0.f;
    walk([&](int, const float (&v)[8]) {
#pragma unroll
        for (int i = 0; i < 8; ++i)
            m = fmaxf(m, fabsf(v[i]));
    });
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
    const float inv = enc::group_scale(m, kMax, false, const_cast<float *>(args.a_scale), r, lane == 0);
    walk([&](int c, const float (&v)[8]) {
        u32 w[2];
        enc::codes8(v, inv, kAInt8, w);
        asm volatile("{\n .reg .pred p;\n setp.lt.s32 p, %3, %4;\n @p st.global.v2.u32 [%0], {%1,%2};\n}\n" ::"l"(
                         q + 8 * c),
                     "r"(w[0]), "r"(w[1]), "r"(c), "n"(kChunks)
                     : "memory");
    });
}

// Rows claimed one at a time and quantized by the calling warp (every lane calls; nothing when
// the launch does not quantize its A) until the claims reach `until` or M: a claimed row is
// always finished, so the count may pass `until` by a row a warp. Each row's codes and scale are
// made visible to the TMA loads (the async proxy) and the epilogue's loads of every CTA before
// its m-block's count takes it: every lane's proxy fence after its stores, the warp's barrier,
// then lane 0's release add, made where it claims the next row.
template <int DEPTH>
HUM_DEV void quantize_rows(const hum_gemm_args &args, int until, int lane)
{
    if (!quantizes_a(args))
        return;
    int done = -1;  // the m-block of the row this warp finished last
    for (;;) {
        int r = 0x7FFFFFFF;
        if (lane == 0) {
            if (done >= 0)
                red_release_add(rows_ready(args, done), 1);
            if (ld_relaxed(rows_claimed(args)) < until)
                r = atomicAdd(rows_claimed(args), 1);
        }
        r = __shfl_sync(0xFFFFFFFFu, r, 0);
        if (r >= args.m)
            return;
        quantize_row<DEPTH>(args, r, lane);
        fence_proxy_async_global();
        __syncwarp();
        done = r / kBM;
    }
}

// The end of the rows of this CTA's first m-block: where its warps stop taking rows before they
// start their own work.
HUM_DEV int first_block_end(const hum_gemm_args &args, const Rows &rows, const Schedule &sch)
{
    int mb, nb;
    tile_coords(sch.step(Work{0, 0}, 0).tile, rows.blocks, mb, nb);
    return (mb + 1) * kBM < args.m ? (mb + 1) * kBM : args.m;
}

// Waits until every row of m-block mb is quantized; what the quantizing warps wrote is then
// visible to this thread's loads and (the proxy fence) its TMA copies.
HUM_DEV void wait_rows(const hum_gemm_args &args, int mb)
{
    const int want = block_rows(args, mb);
    while (ld_acquire(rows_ready(args, mb)) < want) {
    }
    fence_proxy_async_global();
}

// Every thread of the CTA, once none will touch the counters again: the last CTA of the launch
// to get here zeroes them (`blocks`: the launch's m-blocks).
HUM_DEV void quant_finish(const hum_gemm_args &args, int blocks, int tid)
{
    __syncwarp();  // the aligned barrier: the warp's lanes converged after their spin loops
    asm volatile("bar.sync 0;\n" ::: "memory");
    if (tid == 0) {
        __threadfence();
        if (atomicAdd(ctas_finished(args), 1) == static_cast<int>(gridDim.x) - 1) {
            __threadfence();
            for (int mb = 0; mb < blocks; ++mb)
                *rows_ready(args, mb) = 0;
            *rows_claimed(args) = 0;
            *ctas_finished(args) = 0;
        }
    }
}

}  // namespace gemm
