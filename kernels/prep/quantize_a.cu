// Activation quantization, once per forward of a layer that computes with 8-bit A: 16-bit A
// (float16 or bfloat16) to e4m3fn or int8 codes and their float32 (or e8m0) scales, by the rules
// of kernels/contract/quantize_args.h: dynamic per token, static per tensor, dynamic per group of
// columns (1 x 128 for FP8 block-wise layers, 1 x 32 with e8m0 exponents for MXFP8).
//
// Each thread owns 8-column chunks (one 16-byte load, one 8-byte store); a CTA pass covers 8
// columns a thread. A group (8..256 columns) is therefore the lanes of one warp that hold its
// chunks, reduced with shuffles; a token's amax is the whole CTA's, so a per-token CTA walks the
// full row, keeping it in registers (HUM_QUANTIZE_HELD passes) until the amax gives the scale:
// one read of the row, all its loads issued at once (reading it twice, loop by loop, left a chain
// of dependent loads on the path to the GEMM at small M), the other modes split the row over
// blockIdx.x. blockIdx.y walks the rows. MXFP8 as rounding (the entry hum_quantize_a_round, for
// a layer whose GEMM takes 16-bit A: no GPU before sm_100 has a block-scaled MMA) is the e8m0
// group mode writing each code's value times its scale in A's 16-bit type instead of the codes
// and scales. Rows that are not 16-byte aligned (K % 8, odd strides) are read element by
// element, and q's rows unless 8-byte (rounded values: 16-byte) aligned are written so.
//
// Launch: contract/quantize_args.h. On sm_90 the GEMM after it may be launched to overlap it
// (ptx/griddep.cuh). At most 64 registers a thread (kMinCtas CTAs of kThreads), 1024 threads an
// SM: left to itself ptxas took 128, two CTAs an SM, whose rows' loads, reductions and stores
// took turns (ncu, H100, n = k = 8192 e4m3 at M = 8192: 107 µs for 201 MB, 53 % of DRAM
// bandwidth, occupancy 24 %). Where the rows outnumber a wave of 256-thread CTAs, a row gets the
// fewest threads that hold it: at K = 8192 a 256-thread CTA filled four of its eight held
// passes, so 128 threads double the bytes in flight an SM (64 KB -> 128 KB; before, on an H100
// at M = 1024, two waves of 528 rows at ~38 % of DRAM bandwidth under ncu, bench/NOTES.md
// session 33; after, one round on an H100, n = k = 8192, the layer's forward in µs: W8A8 M 1024
// 127.63 -> 126.94, 8192 947.49 -> 935.34, W4A8 MXFP4 M 1024 118.50 -> 117.66,
// bench/results/H100-2026-12-05/s34-d-79378323492e/). Fewer rows keep 256 threads: each row's
// CTA then has its SM to itself, and more threads convert it sooner.
#include "common.cuh"
#include "contract/quantize_args.h"
#include "numerics/encode.cuh"
#include "ptx/griddep.cuh"

namespace {

constexpr int kThreads = HUM_QUANTIZE_MAX_THREADS;
constexpr int kMinCtas = HUM_QUANTIZE_CTAS;
// Per token: passes of a row a thread holds in registers between its amax and its codes (rows
// up to 8 x kHeld columns a thread are read once; longer ones read the rest again, from L1/L2).
constexpr int kHeld = HUM_QUANTIZE_HELD;
// Groups and the tensor's scale: rows a CTA has in flight at once (one 16-byte chunk of each a
// thread), as many as 64 registers a thread hold without spilling.
constexpr int kRowsHeld = HUM_QUANTIZE_ROWS_HELD;

// The 8 16-bit values of chunk j0 of row `row`, two per word; columns at or past k read as 0.
// Nothing reads the words here, so a caller may have several chunks' loads in flight.
HUM_DEV void load8_raw(const hum_quantize_args &p, const u16 *row, int j0, bool vec, u32 (&w)[4])
{
    if (vec && j0 + 8 <= p.k) {
        asm("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];\n"
            : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3])
            : "l"(row + j0));
    } else {
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const u32 lo = j0 + 2 * i < p.k ? __ldg(row + j0 + 2 * i) : 0;
            const u32 hi = j0 + 2 * i + 1 < p.k ? __ldg(row + j0 + 2 * i + 1) : 0;
            w[i] = lo | hi << 16;
        }
    }
}

// The words of load8_raw as 8 float32 values.
HUM_DEV void widen8(const hum_quantize_args &p, const u32 (&w)[4], float (&v)[8])
{
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const u16 h = static_cast<u16>(w[i / 2] >> (16 * (i % 2)));
        if (p.bf16) {
            v[i] = __uint_as_float(static_cast<u32>(h) << 16);
        } else {
            float f;
            asm("cvt.f32.f16 %0, %1;\n" : "=f"(f) : "h"(h));
            v[i] = f;
        }
    }
}

// The 8 values of chunk j0 of row `row` as float32; columns at or past k read as 0.
HUM_DEV void load8(const hum_quantize_args &p, const u16 *row, int j0, bool vec, float (&v)[8])
{
    u32 w[4];
    load8_raw(p, row, j0, vec, w);
    widen8(p, w, v);
}

HUM_DEV float amax8(const float (&v)[8])
{
    float m = 0.0f;
#pragma unroll
    for (int i = 0; i < 8; ++i)
        m = fmaxf(m, fabsf(v[i]));
    return m;
}

// Codes of v * inv for chunk j0 of q's row (zeros past k, nothing past kq).
HUM_DEV void store8(const hum_quantize_args &p, u8 *row, int j0, bool vec, const float (&v)[8], float inv)
{
    u32 w[2];
    enc::codes8(v, inv, p.int8, w);
    if (vec && j0 + 8 <= p.kq) {
        asm volatile("st.global.v2.u32 [%0], {%1,%2};\n" ::"l"(row + j0), "r"(w[0]), "r"(w[1]) : "memory");
    } else {
#pragma unroll
        for (int i = 0; i < 8; ++i)
            if (j0 + i < p.kq)
                row[j0 + i] = static_cast<u8>(w[i / 4] >> (8 * (i % 4)));
    }
}

// Round mode: chunk j0 of q's row (A's 16-bit type) gets the values of v's codes under inv, as
// enc::mx_round2 gives them (zeros past k, nothing past kq; one 16-byte store when aligned).
HUM_DEV void store8_rounded(const hum_quantize_args &p, u16 *row, int j0, bool vec, const float (&v)[8], float inv)
{
    const float scale = enc::mx_scale(inv);
    u32 w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
        w[i] = enc::mx_round2(v[2 * i], v[2 * i + 1], inv, scale, p.bf16);
    if (vec && j0 + 8 <= p.kq) {
        asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"l"(row + j0), "r"(w[0]), "r"(w[1]), "r"(w[2]),
                     "r"(w[3])
                     : "memory");
    } else {
#pragma unroll
        for (int i = 0; i < 8; ++i)
            if (j0 + i < p.kq)
                row[j0 + i] = static_cast<u16>(w[i / 2] >> (16 * (i % 2)));
    }
}

// The CTA's largest value of `x` (every thread gets it).
HUM_DEV float cta_max(float x, float *red)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        x = fmaxf(x, __shfl_xor_sync(0xFFFFFFFFu, x, o));
    const int warp = threadIdx.x / 32;
    __syncthreads();  // red is reused row after row
    if (threadIdx.x % 32 == 0)
        red[warp] = x;
    __syncthreads();
    float m = red[0];
#pragma unroll
    for (int w = 1; w < kThreads / 32; ++w)
        if (w < static_cast<int>(blockDim.x / 32))
            m = fmaxf(m, red[w]);
    return m;
}

// Groups and the tensor's scale, or (kRound, hum_quantize_a_round) MXFP8 as rounding: this
// CTA's pass of rows blockIdx.y, + gridDim.y, ..., kRowsHeld rows at a time, their loads in
// flight at once (a CTA a row, one 16-byte load a thread, kept too few bytes in flight to near
// DRAM bandwidth). Chunks past kq read zeros and
// store nothing, but still take part in their group's shuffles; a row index is the same for the
// whole CTA, so every lane of a group takes the same branches. vec_a, vec_q: A's and q's rows
// aligned for the vector loads and stores; span: the columns of a CTA pass.
template <bool kRound>
HUM_DEV void group_rows(const hum_quantize_args &p, float max, float tensor_inv, bool vec_a, bool vec_q, int span)
{
    const int j0 = blockIdx.x * span + threadIdx.x * 8;
    // 64-bit rows: m may come within kRowsHeld x gridDim.y of INT_MAX
    for (long long r0 = blockIdx.y; r0 < p.m; r0 += kRowsHeld * gridDim.y) {
        u32 held[kRowsHeld][4];
#pragma unroll
        for (int i = 0; i < kRowsHeld; ++i) {
            const long long r = r0 + i * gridDim.y;
            if (r < p.m)
                load8_raw(p, static_cast<const u16 *>(p.a) + r * p.lda, j0, vec_a, held[i]);
        }
#pragma unroll
        for (int i = 0; i < kRowsHeld; ++i) {
            const long long r = r0 + i * gridDim.y;
            if (r >= p.m)
                break;
            float v[8];
            widen8(p, held[i], v);
            float inv = tensor_inv;
            if (p.group > 0) {
                const int lanes = p.group / 8;  // a group's chunks sit in `lanes` consecutive lanes
                float m = amax8(v);
                for (int o = 1; o < lanes; o <<= 1)
                    m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
                const int g = j0 / p.group;
                const bool first = j0 % p.group == 0 && j0 < p.k && !kRound;  // round: no scales
                inv = enc::group_scale(m, max, p.e8m0, p.scale, r * p.scale_row + g * p.scale_group, first);
            }
            if constexpr (kRound)
                store8_rounded(p, static_cast<u16 *>(p.q) + r * p.ldq, j0, vec_q, v, inv);
            else
                store8(p, static_cast<u8 *>(p.q) + r * p.ldq, j0, vec_q, v, inv);
        }
    }
}

// What both entries do first: A may be what the previous kernel of the stream wrote; the GEMM
// that reads q may be scheduled now: it starts once every CTA of this grid has come here (the
// last wave running: its CTAs take the SMs as this grid's leave them), fetches its first weights
// and waits for this grid to finish (gemm/entry.cuh).
HUM_DEV void begin()
{
    grid_dependency_wait();
    grid_dependents_launch();
}

// Whether rows from `base`, `ld_bytes` apart, all start on a multiple of `align` bytes.
HUM_DEV bool rows_aligned(const void *base, long long ld_bytes, int align)
{
    return ((reinterpret_cast<unsigned long long>(base) | static_cast<unsigned long long>(ld_bytes)) &
            (align - 1)) == 0;
}

}  // namespace

extern "C" __global__ void __launch_bounds__(kThreads, kMinCtas) hum_quantize_a(const __grid_constant__ hum_quantize_args p)
{
    __shared__ float red[kThreads / 32];
    begin();
    const float max = p.int8 ? enc::kInt8Max : enc::kE4m3Max;
    const bool vec_a = rows_aligned(p.a, p.lda * 2, 16), vec_q = rows_aligned(p.q, p.ldq, 8);
    const float tensor_inv = p.group < 0 ? (*p.input_scale != 0.0f ? 1.0f / *p.input_scale : 0.0f) : 0.0f;
    const int span = blockDim.x * 8;  // columns of a CTA pass
    if (p.group == 0) {
        for (int r = blockIdx.y; r < p.m; r += gridDim.y) {
            const u16 *a = static_cast<const u16 *>(p.a) + r * p.lda;
            u8 *q = static_cast<u8 *>(p.q) + r * p.ldq;
            // the row's first kHeld passes stay in registers, all their loads in flight at once
            u32 held[kHeld][4];
#pragma unroll
            for (int i = 0; i < kHeld; ++i) {
                const int j0 = i * span + threadIdx.x * 8;
                if (j0 < p.kq)
                    load8_raw(p, a, j0, vec_a, held[i]);
            }
            float m = 0.0f;
#pragma unroll
            for (int i = 0; i < kHeld; ++i) {
                const int j0 = i * span + threadIdx.x * 8;
                if (j0 < p.kq) {
                    float v[8];
                    widen8(p, held[i], v);
                    m = fmaxf(m, amax8(v));
                }
            }
            for (int j0 = kHeld * span + threadIdx.x * 8; j0 < p.k; j0 += span) {
                float v[8];
                load8(p, a, j0, vec_a, v);
                m = fmaxf(m, amax8(v));
            }
            m = cta_max(m, red);
            const float inv = enc::group_scale(m, max, false, p.scale, r * p.scale_row, threadIdx.x == 0);
#pragma unroll
            for (int i = 0; i < kHeld; ++i) {
                const int j0 = i * span + threadIdx.x * 8;
                if (j0 < p.kq) {
                    float v[8];
                    widen8(p, held[i], v);
                    store8(p, q, j0, vec_q, v, inv);
                }
            }
            for (int j0 = kHeld * span + threadIdx.x * 8; j0 < p.kq; j0 += span) {
                float v[8];
                load8(p, a, j0, vec_a, v);
                store8(p, q, j0, vec_q, v, inv);
            }
        }
        return;
    }
    group_rows<false>(p, max, tensor_inv, vec_a, vec_q, span);
}

// MXFP8 as rounding (group 32 e8m0): the group pass writing rounded 16-bit values, an
// entry of its own (inside hum_quantize_a, beside the codes' stores, it spilled under the 64
// registers before sm_89: ptxas, sm_80). Launched as hum_quantize_a is (hum_act_quant_launch).
extern "C" __global__ void __launch_bounds__(kThreads, kMinCtas)
hum_quantize_a_round(const __grid_constant__ hum_quantize_args p)
{
    begin();
    // 16-byte stores of the rounded 16-bit values
    group_rows<true>(p, enc::kE4m3Max, 0.0f, rows_aligned(p.a, p.lda * 2, 16), rows_aligned(p.q, p.ldq * 2, 16),
                     blockDim.x * 8);
}
