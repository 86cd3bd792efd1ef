// MoE activation: between the experts' gate/up GEMM and their down GEMM, out[r][i] =
// act(gate, up) of row r, for the rows the layer's layout places (kGemmType,
// kernels/contract/moe_layout.h), so that rows no local expert took are never read:
//   indexed: the sorted ids below *post_padded that are not the sentinel `rows` (R);
//   grouped contiguous: rows layout[0] .. layout[experts] - 1 (int64 expert offsets);
//   grouped masked: of expert e's `rows` rows from e * rows, its first layout[e] (int32 counts).
// In: the gate/up GEMM's C [.][kN13] (2I columns, gate and up split or interleaved; I for the
// non-gated relu2); out: [.][kInter], both the activation dtype, packed rows. Computed in
// float32, rounded once. Constants (hum_constants.h, runtime/src/moe/moe_kernels.c): kAct
// (hum_moe_activation), kInterleaved, kBf16, kInter (I), kGemmType (hum_gemm_type).
//
// Each thread makes 8 outputs of one row from 16-byte loads when I % 8 == 0 (element by element
// otherwise). Launch: 256 threads, any grid (grid-stride over the placed rows' chunks); on sm_90
// launched to overlap the GEMM before it (ptx/griddep.cuh), which it waits for before any read. It
// does not let the next kernel start early: a dependent grid waiting on the SMs slows this one
// (the act-order permutation measured 27 us without the early start, 36 us with it, at M = 1).
#include "common.cuh"
#include "hum_constants.h"
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

// The positions a launch covers: each holds a row or none (placed_row).
HUM_DEV i64 positions(const int *post_padded, int rows, int experts)
{
    if constexpr (kGemmType == 1)
        return *post_padded;
    else if constexpr (kGemmType == 2)
        return rows;
    else
        return static_cast<i64>(experts) * rows;
}

// The row at position p, or -1: padding (indexed), a row outside every expert's.
HUM_DEV i64 placed_row(const void *layout, i64 p, int rows, int experts)
{
    if constexpr (kGemmType == 1) {
        const int r = __ldg(static_cast<const int *>(layout) + p);
        return r < rows ? r : -1;
    } else if constexpr (kGemmType == 2) {
        const long long *offsets = static_cast<const long long *>(layout);
        return p >= __ldg(offsets) && p < __ldg(offsets + experts) ? p : -1;
    } else {
        return p % rows < __ldg(static_cast<const int *>(layout) + p / rows) ? p : -1;
    }
}

}  // namespace moe

extern "C" __global__ void __launch_bounds__(256)
hum_moe_act(const u16 *__restrict__ in, u16 *__restrict__ out, const void *__restrict__ layout,
            const int *__restrict__ post_padded, int rows, int experts, float alpha, float beta, float limit)
{
    using namespace moe;
    grid_dependency_wait();
    const i64 total = positions(post_padded, rows, experts) * kChunks;
    for (i64 idx = blockIdx.x * 256ll + threadIdx.x; idx < total; idx += gridDim.x * 256ll) {
        const i64 r = placed_row(layout, idx / kChunks, rows, experts);
        if (r < 0)
            continue;  // no row here
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
