// MoE activation: between the experts' gate/up GEMM and their down GEMM, out[r][i] =
// act(gate, up) of routed row r, for the rows the align placed (sorted ids below
// *post_padded that are not the sentinel `routed`), so that rows no local expert took are never
// read. In: the gate/up GEMM's C [routed][kN13] (2I columns, gate and up split or interleaved;
// I for the non-gated relu2), the 16-bit type kBf16 says; out: [routed][kInter], packed rows,
// of the down GEMM's A type. Computed in float32, rounded once. Constants (hum_constants.h,
// runtime/src/moe/moe_kernels.c): kAct (hum_moe_activation), kInterleaved, kBf16, kInter (I).
//
// 16-bit out: each thread makes 8 outputs of one row from 16-byte loads when I % 8 == 0
// (element by element otherwise), grid-stride over the placed rows' chunks.
// 8-bit out (the down GEMM takes 8-bit A): the activation fused with its quantization per token,
// by the rules of kernels/prep/quantize_a.cu (CPU twin: hum_quantize_activations on the float32
// values): a warp per placed row keeps the row's activations in registers, reduces their amax
// with shuffles, writes row r's scale amax / max to scale[r] and its codes to out.
//
// Kernels: hum_moe_act (16-bit out), hum_moe_act_quant<Q> (8-bit out: Q 1 e4m3fn, 2 int8; a
// template, so that a layer's compile instantiates only the kernel it runs). Launch: 256
// threads, any grid; on sm_90 launched to overlap the GEMM before it
// (ptx/griddep.cuh), which it waits for before any read. It does not let the next kernel start
// early: a dependent grid waiting on the SMs slows this one (the act-order permutation measured
// 27 us without the early start, 36 us with it, at M = 1).
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
constexpr int kPerLane = (kChunks + 31) / 32;  // 8-bit out: chunks of the row each lane holds

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

}  // namespace moe

// 16-bit out (the down GEMM takes the layer's 16-bit type), as measured on the H200: its loop
// computes what act8 does, inline (the instructions that were timed are kept).
extern "C" __global__ void __launch_bounds__(256)
hum_moe_act(const u16 *__restrict__ in, u16 *__restrict__ out, const int *__restrict__ sorted,
            const int *__restrict__ post_padded, int routed, float alpha, float beta, float limit)
{
    using namespace moe;
    grid_dependency_wait();
    const i64 total = static_cast<i64>(*post_padded) * kChunks;
    for (i64 idx = blockIdx.x * 256ll + threadIdx.x; idx < total; idx += gridDim.x * 256ll) {
        const int r = __ldg(sorted + idx / kChunks);
        if (r >= routed)
            continue;  // padding
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

// 8-bit out (the down GEMM takes 8-bit A of type Q): codes [routed][kInter] and scale[r].
template <int Q>
__global__ void __launch_bounds__(256) hum_moe_act_quant(const u16 *__restrict__ in, u8 *__restrict__ out, float *__restrict__ scale,
                  const int *__restrict__ sorted, const int *__restrict__ post_padded, int routed, float alpha,
                  float beta, float limit)
{
    using namespace moe;
    static_assert(Q == 1 || Q == 2, "hum_moe_act_quant<Q>: Q is 1 (e4m3fn) or 2 (int8)");
    constexpr float kMax = Q == 2 ? enc::kInt8Max : enc::kE4m3Max;
    grid_dependency_wait();
    const int lane = threadIdx.x % 32;
    const i64 rows = *post_padded, warps = gridDim.x * 8ll;
    for (i64 p = blockIdx.x * 8ll + threadIdx.x / 32; p < rows; p += warps) {
        const int r = __ldg(sorted + p);
        if (r >= routed)
            continue;  // padding (the whole warp)
        const u16 *row = in + static_cast<i64>(r) * kN13;
        float v[kPerLane][8];
        float m = 0.f;
#pragma unroll
        for (int c = 0; c < kPerLane; ++c) {
            const int chunk = lane + 32 * c;
#pragma unroll
            for (int i = 0; i < 8; ++i)
                v[c][i] = 0.f;
            if (chunk < kChunks)
                act8(row, chunk * 8, alpha, beta, limit, v[c]);
#pragma unroll
            for (int i = 0; i < 8; ++i)
                m = fmaxf(m, fabsf(v[c][i]));
        }
#pragma unroll
        for (int o = 16; o > 0; o >>= 1)
            m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
        const float inv = enc::inverse_of(m, kMax);
        if (lane == 0)
            scale[r] = m / kMax;
        u8 *dst = out + static_cast<i64>(r) * kInter;
#pragma unroll
        for (int c = 0; c < kPerLane; ++c)
            if (lane + 32 * c < kChunks)
                store8<Q>(dst, (lane + 32 * c) * 8, v[c], inv);
    }
}
