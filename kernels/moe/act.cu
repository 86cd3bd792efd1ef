// MoE activation: between the experts' gate/up GEMM and their down GEMM, out[r][i] =
// act(gate, up) of row r, for the rows the layer's layout places (kGemmType,
// kernels/contract/moe_layout.h), so that rows no local expert took are never read:
//   indexed: the sorted ids below *post_padded that are not the sentinel `rows` (R);
//   grouped contiguous: rows layout[0] .. layout[kExperts] - 1 of `rows` (int64 expert offsets);
//   grouped masked: of expert e's `rows` rows from e * rows, its first layout[e] (int32 counts).
// In: the gate/up GEMM's C [.][kN13] (2I columns, gate and up split or interleaved; I for the
// non-gated relu2); out: [.][kInter], both the activation dtype, packed rows. Computed in
// float32, rounded once. Constants (hum_constants.h, runtime/src/moe/moe_kernels.c): kAct
// (hum_moe_activation), kInterleaved, kBf16, kInter (I), kGemmType (hum_gemm_type), kExperts
// (the local experts).
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
