// MoE activation: between the experts' gate/up GEMM and their down GEMM, out[r][i] =
// act(gate, up) of row r, for the rows the layer's layout places (kGemmType,
// kernels/contract/moe_layout.h), so that rows no local expert took are never read:
//   indexed: the sorted ids below *post_padded that are not the sentinel `rows` (R);
//   grouped contiguous: rows layout[0] .. layout[kExperts] - 1 of `rows` (int64 expert offsets);
//   grouped masked: of expert e's `rows` rows from e * rows, its first layout[e] (int32 counts).
// In: the gate/up GEMM's C [.][kN13] (2I columns, gate and up split or interleaved; I for the
// non-gated relu2), the 16-bit type kBf16 says; out: [.][kInter], packed rows, of the down
// GEMM's A type. Computed in float32, rounded once. Constants (hum_constants.h, runtime/src/moe/moe_kernels.c): kAct
// (hum_moe_activation), kInterleaved, kBf16, kInter (I), kGemmType (hum_gemm_type), kExperts
// (the local experts).
//
// Each thread makes 8 outputs of one row from 16-byte loads when I % 8 == 0 (element by element
// otherwise). Launch: 256 threads, any grid (grid-stride over the placed rows' chunks); on sm_90
// launched to overlap the GEMM before it (ptx/griddep.cuh), which it waits for before any read. It
// does not let the next kernel start early: a dependent grid waiting on the SMs slows this one
// (the act-order permutation measured 27 us without the early start, 36 us with it, at M = 1).
//
// 8-bit out (the down GEMM takes 8-bit A): the activation fused with its quantization, by the
// rules of kernels/prep/quantize_a.cu (CPU twin: hum_quantize_activations on the float32
// values): hum_moe_act_quant<Q, G, E8M0, R> (Q 1 e4m3fn, 2 int8; G 0 one scale per row, else
// per group of G columns, a power of two in 8..256, with e8m0 scales when E8M0 (MXFP8: G 32); a
// template, so that a layer's compile instantiates only the kernel it runs) gives each placed
// row a warp, which keeps the row's activations in registers, reduces the amax of the row (or
// of each group: the G / 8 consecutive lanes holding its chunks) with shuffles and writes the
// scales to scale[r * scale_ld + g] (enc::group_scale) and the codes to out. R (the down GEMM
// rounds its A through mxfp8, LayerConfig a_round: <1, 32, true, true>): out gets the codes'
// values times their scales in the 16-bit type kBf16 says (enc::mx_round2), no scales (scale
// NULL), for the 16-bit down GEMM. Same launch as hum_moe_act.
#include "common.cuh"
#include "hum_constants.h"
#include "numerics/encode.cuh"
#include "numerics/half2.cuh"
#include "ptx/griddep.cuh"

using namespace hum_cfg;

namespace moe {

constexpr bool kGated = kAct != 2;
constexpr int kN13 = kGated ? 2 * kInter : kInter;
constexpr bool kVec = kInter % 8 == 0;
constexpr int kChunks = (kInter + 7) / 8;
static_assert(kGemmType >= 1 && kGemmType <= 3, "hum_constants.h: kGemmType is a MoE GEMM type (1, 2 or 3)");

HUM_DEV float activate(float g, float u, float alpha, float beta, float limit)
{
    if constexpr (kAct == 0) {  // silu(g) * u
        return g / (1.f + expf(-g)) * u;
    } else if constexpr (kAct == 1) {  // gpt-oss: clamped, sigmoid(alpha g), up + beta
        g = fminf(g, limit);
        u = fmaxf(fminf(u, limit), -limit);
        return g / (1.f + expf(-alpha * g)) * (u + beta);
    } else if constexpr (kAct == 2) {  // relu(x)^2
        g = fmaxf(g, 0.f);
        return g * g;
    } else {  // gelu(g) * u, erf form
        return 0.5f * g * (1.f + erff(g * 0.70710678118654752f)) * u;
    }
}

HUM_DEV void load8(const u16 *p, float (&v)[8])
{
    u32 w[4];
    asm("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];\n" : "=r"(w[0]), "=r"(w[1]), "=r"(w[2]), "=r"(w[3]) : "l"(p));
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        v[2 * i] = to_float<kBf16>(static_cast<u16>(w[i] & 0xffff));
        v[2 * i + 1] = to_float<kBf16>(static_cast<u16>(w[i] >> 16));
    }
}

// Grouped layouts: whether row r (< the positions) belongs to an expert, whose rows the GEMM
// before wrote.
HUM_DEV bool grouped_row(const void *layout, int r, int rows)
{
    if constexpr (kGemmType == 2) {
        const long long *offsets = static_cast<const long long *>(layout);
        return r >= __ldg(offsets) && r < __ldg(offsets + kExperts);
    } else {
        return r % rows < __ldg(static_cast<const int *>(layout) + r / rows);
    }
}

// The activations of columns j0 .. j0 + 7 of a row of the gate/up output (0 past kInter).
HUM_DEV void act8(const u16 *row, int j0, float alpha, float beta, float limit, float (&o)[8])
{
    if constexpr (kVec) {
        float g[8], u[8];
        if constexpr (!kGated) {
            load8(row + j0, g);
        } else if constexpr (kInterleaved) {
            float a[8], b[8];
            load8(row + 2 * j0, a);
            load8(row + 2 * j0 + 8, b);
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                g[i] = a[2 * i], u[i] = a[2 * i + 1];
                g[i + 4] = b[2 * i], u[i + 4] = b[2 * i + 1];
            }
        } else {
            load8(row + j0, g);
            load8(row + kInter + j0, u);
        }
#pragma unroll
        for (int i = 0; i < 8; ++i)
            o[i] = activate(g[i], kGated ? u[i] : 0.f, alpha, beta, limit);
    } else {
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const int j = j0 + i;
            o[i] = 0.f;
            if (j < kInter) {
                const float gv = to_float<kBf16>(row[!kGated ? j : kInterleaved ? 2 * j : j]);
                const float uv = kGated ? to_float<kBf16>(row[kInterleaved ? 2 * j + 1 : kInter + j]) : 0.f;
                o[i] = activate(gv, uv, alpha, beta, limit);
            }
        }
    }
}

// 8-bit out: the codes (Q: 1 e4m3fn, 2 int8) of v * inv for chunk j0 of a row (8-byte stores:
// the rows are kInter bytes apart, kInter % 8 == 0, from a 256-byte aligned base).
template <int Q>
HUM_DEV void store8(u8 *dst, int j0, const float (&v)[8], float inv)
{
    u32 w[2];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        const float *x = v + 4 * i;
        if constexpr (Q == 2)
            w[i] = enc::int8_code(x[0] * inv) | enc::int8_code(x[1] * inv) << 8 | enc::int8_code(x[2] * inv) << 16 |
                   enc::int8_code(x[3] * inv) << 24;
        else
            w[i] = enc::e4m3x2(x[0] * inv, x[1] * inv) | enc::e4m3x2(x[2] * inv, x[3] * inv) << 16;
    }
    if constexpr (kVec) {
        asm volatile("st.global.v2.u32 [%0], {%1,%2};\n" ::"l"(dst + j0), "r"(w[0]), "r"(w[1]) : "memory");
    } else {
        for (int i = 0; i < 8 && j0 + i < kInter; ++i)
            dst[j0 + i] = static_cast<u8>(w[i / 4] >> (8 * (i % 4)));
    }
}

// Rounded out (R): the values of v's codes under inv in the 16-bit type, as enc::mx_round2
// gives them, for chunk j0 of a row (16-byte stores: the rows are kInter x 2 bytes apart,
// kInter % 8 == 0, from a 256-byte aligned base).
HUM_DEV void store8_rounded(u16 *dst, int j0, const float (&v)[8], float inv)
{
    const float scale = enc::mx_scale(inv);
    u32 w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
        w[i] = enc::mx_round2(v[2 * i], v[2 * i + 1], inv, scale, kBf16);
    if constexpr (kVec) {
        asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"l"(dst + j0), "r"(w[0]), "r"(w[1]), "r"(w[2]),
                     "r"(w[3])
                     : "memory");
    } else {
        for (int i = 0; i < 8 && j0 + i < kInter; ++i)
            dst[j0 + i] = static_cast<u16>(w[i / 2] >> (16 * (i % 2)));
    }
}

}  // namespace moe

extern "C" __global__ void __launch_bounds__(256)
hum_moe_act(const u16 *__restrict__ in, u16 *__restrict__ out, const void *__restrict__ layout,
            const int *__restrict__ post_padded, int rows, float alpha, float beta, float limit)
{
    using namespace moe;
    grid_dependency_wait();
    // positions: the sorted rows (indexed), the rows, or the experts' rows (masked)
    const i64 total = (kGemmType == 1   ? static_cast<i64>(*post_padded)
                       : kGemmType == 2 ? static_cast<i64>(rows)
                                        : static_cast<i64>(kExperts) * rows) *
                      kChunks;
    for (i64 idx = blockIdx.x * 256ll + threadIdx.x; idx < total; idx += gridDim.x * 256ll) {
        int r;
        if constexpr (kGemmType == 1) {
            r = __ldg(static_cast<const int *>(layout) + idx / kChunks);
            if (r >= rows)
                continue;  // padding
        } else {
            r = static_cast<int>(idx / kChunks);
            if (!grouped_row(layout, r, rows))
                continue;  // a row no expert owns
        }
        const int j0 = static_cast<int>(idx % kChunks) * 8;
        const u16 *row = in + static_cast<i64>(r) * kN13;
        u16 *dst = out + static_cast<i64>(r) * kInter + j0;
        float g[8], u[8];
        if constexpr (kVec) {
            if constexpr (!kGated) {
                load8(row + j0, g);
            } else if constexpr (kInterleaved) {
                float a[8], b[8];
                load8(row + 2 * j0, a);
                load8(row + 2 * j0 + 8, b);
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    g[i] = a[2 * i], u[i] = a[2 * i + 1];
                    g[i + 4] = b[2 * i], u[i + 4] = b[2 * i + 1];
                }
            } else {
                load8(row + j0, g);
                load8(row + kInter + j0, u);
            }
            u32 w[4];
#pragma unroll
            for (int i = 0; i < 4; ++i)
                w[i] = pack2<kBf16>(activate(g[2 * i], kGated ? u[2 * i] : 0.f, alpha, beta, limit),
                                    activate(g[2 * i + 1], kGated ? u[2 * i + 1] : 0.f, alpha, beta, limit));
            asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"l"(dst), "r"(w[0]), "r"(w[1]), "r"(w[2]),
                         "r"(w[3])
                         : "memory");
        } else {
            for (int i = 0; i < 8 && j0 + i < kInter; ++i) {
                const int j = j0 + i;
                const float gv = to_float<kBf16>(row[!kGated ? j : kInterleaved ? 2 * j : j]);
                const float uv = kGated ? to_float<kBf16>(row[kInterleaved ? 2 * j + 1 : kInter + j]) : 0.f;
                dst[i] = pack1<kBf16>(activate(gv, uv, alpha, beta, limit));
            }
        }
    }
}

// 8-bit out (the down GEMM takes 8-bit A of type Q): codes [.][kInter] and scales [.][scale_ld];
// R: rounded 16-bit values [.][kInter], no scales.
template <int Q, int G, bool E8M0, bool R>
__global__ void __launch_bounds__(256)
hum_moe_act_quant(const u16 *__restrict__ in, void *__restrict__ out, void *__restrict__ scale, long long scale_ld,
                  const void *__restrict__ layout, const int *__restrict__ post_padded, int rows, float alpha,
                  float beta, float limit)
{
    using namespace moe;
    static_assert(Q == 1 || Q == 2, "hum_moe_act_quant<Q>: Q is 1 (e4m3fn) or 2 (int8)");
    static_assert(G == 0 || (G >= 8 && G <= 256 && (G & (G - 1)) == 0),
                  "hum_moe_act_quant<Q, G>: G is 0 (per row) or a power of two in 8..256");
    static_assert(!E8M0 || (G > 0 && Q == 1), "hum_moe_act_quant: e8m0 scales are per group of e4m3fn codes");
    static_assert(!R || (Q == 1 && G == 32 && E8M0), "hum_moe_act_quant<.., R>: the rounding is mxfp8's");
    constexpr float kMax = Q == 2 ? enc::kInt8Max : enc::kE4m3Max;
    constexpr int kPerLane = (kChunks + 31) / 32;  // chunks of the row each lane holds
    constexpr int kLanes = G == 0 ? 32 : G / 8;    // lanes whose chunks share a scale (G <= 256: <= 32)
    constexpr int kCols = G == 0 ? kInter : G;     // columns of one scale
    grid_dependency_wait();
    const int lane = threadIdx.x % 32;
    // positions as hum_moe_act walks them, a warp each
    const i64 positions = kGemmType == 1   ? static_cast<i64>(*post_padded)
                          : kGemmType == 2 ? static_cast<i64>(rows)
                                           : static_cast<i64>(kExperts) * rows;
    const i64 warps = gridDim.x * 8ll;
    for (i64 p = blockIdx.x * 8ll + threadIdx.x / 32; p < positions; p += warps) {
        int r;  // the whole warp skips padding and rows no expert owns
        if constexpr (kGemmType == 1) {
            r = __ldg(static_cast<const int *>(layout) + p);
            if (r >= rows)
                continue;
        } else {
            r = static_cast<int>(p);
            if (!grouped_row(layout, r, rows))
                continue;
        }
        const u16 *row = in + static_cast<i64>(r) * kN13;
        float v[kPerLane][8];
        float m[kPerLane];  // per row: every entry ends up the row's amax
#pragma unroll
        for (int c = 0; c < kPerLane; ++c) {
            const int chunk = lane + 32 * c;
#pragma unroll
            for (int i = 0; i < 8; ++i)
                v[c][i] = 0.f;
            if (chunk < kChunks)
                act8(row, chunk * 8, alpha, beta, limit, v[c]);
            m[c] = 0.f;
#pragma unroll
            for (int i = 0; i < 8; ++i)
                m[c] = fmaxf(m[c], fabsf(v[c][i]));
        }
        if constexpr (G == 0) {
#pragma unroll
            for (int c = 1; c < kPerLane; ++c)
                m[0] = fmaxf(m[0], m[c]);
        }
        // chunks past kInter hold zeros but still take part in their group's shuffles
#pragma unroll
        for (int c = 0; c < (G == 0 ? 1 : kPerLane); ++c)
#pragma unroll
            for (int o = 1; o < kLanes; o <<= 1)
                m[c] = fmaxf(m[c], __shfl_xor_sync(0xFFFFFFFFu, m[c], o));
#pragma unroll
        for (int c = 0; c < kPerLane; ++c) {
            const int j0 = (lane + 32 * c) * 8;
            const float inv = enc::group_scale(m[G == 0 ? 0 : c], kMax, E8M0, scale,
                                               static_cast<i64>(r) * scale_ld + j0 / kCols,
                                               j0 % kCols == 0 && j0 < kInter && !R);
            if (j0 < kInter) {
                if constexpr (R)
                    store8_rounded(static_cast<u16 *>(out) + static_cast<i64>(r) * kInter, j0, v[c], inv);
                else
                    store8<Q>(static_cast<u8 *>(out) + static_cast<i64>(r) * kInter, j0, v[c], inv);
            }
        }
    }
}
