// MoE combine: out[t] = sum over j < top_k of w[t][j] * y[t * top_k + j], in float32 with j in
// order, rounded once to the activation dtype; slots whose expert is not on this rank (moe/
// route.cuh: -1, out of range, mapped to -1) add nothing and their y rows are never read, so a
// token with no local expert gets exactly 0. The router weights are applied here and only here
// (the expert GEMMs write y unweighted, kernels/contract/moe_layout.h). With `accumulate`, out
// keeps what it held and the sum is added to it (shared experts computed before), rounded once.
// y: the down GEMM's C [m * top_k][kHidden]; w: float32 [m][top_k]; out: [m][ldo]. Constants
// (hum_constants.h): kBf16, kHidden (H).
//
// Each thread makes 8 outputs of one token from 16-byte loads of y when H % 8 == 0 (and stores
// them at once when `out_vec`: out and its row stride 16-byte aligned). Launch: 256 threads,
// any grid; on sm_90 launched to overlap the GEMM before it, which it waits for before any read.
#include "common.cuh"
#include "hum_constants.h"
#include "moe/route.cuh"
#include "numerics/half2.cuh"
#include "ptx/griddep.cuh"

using namespace hum_cfg;

extern "C" __global__ void __launch_bounds__(256)
hum_moe_combine(const u16 *__restrict__ y, const void *__restrict__ ids, int ids64, const int *__restrict__ map,
                int e_global, int e_local, const float *__restrict__ weights, int top_k, int m, u16 *out, i64 ldo,
                int accumulate, int out_vec)
{
    constexpr int kChunks = (kHidden + 7) / 8;
    constexpr bool kVec = kHidden % 8 == 0;
    grid_dependency_wait();
    const i64 total = static_cast<i64>(m) * kChunks;
    for (i64 idx = blockIdx.x * 256ll + threadIdx.x; idx < total; idx += gridDim.x * 256ll) {
        const i64 t = idx / kChunks;
        const int j0 = static_cast<int>(idx % kChunks) * 8;
        const int n = kHidden - j0 < 8 ? kHidden - j0 : 8;
        float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
        for (int j = 0; j < top_k; ++j) {
            const i64 slot = t * top_k + j;
            if (moe::expert_of(ids, ids64, slot, map, e_global, e_local) < 0)
                continue;
            const float w = __ldg(weights + slot);
            const u16 *src = y + slot * kHidden + j0;
            if constexpr (kVec) {
                u32 v[4];
                asm("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                    : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
                    : "l"(src));
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    acc[2 * i] += w * to_float<kBf16>(static_cast<u16>(v[i] & 0xffff));
                    acc[2 * i + 1] += w * to_float<kBf16>(static_cast<u16>(v[i] >> 16));
                }
            } else {
                for (int i = 0; i < n; ++i)
                    acc[i] += w * to_float<kBf16>(src[i]);
            }
        }
        u16 *dst = out + t * ldo + j0;
        if (kVec && out_vec) {
            u32 v[4];
            if (accumulate) {
                asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                             : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
                             : "l"(dst));
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    acc[2 * i] += to_float<kBf16>(static_cast<u16>(v[i] & 0xffff));
                    acc[2 * i + 1] += to_float<kBf16>(static_cast<u16>(v[i] >> 16));
                }
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
                v[i] = pack2<kBf16>(acc[2 * i], acc[2 * i + 1]);
            asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"l"(dst), "r"(v[0]), "r"(v[1]), "r"(v[2]),
                         "r"(v[3])
                         : "memory");
        } else {
            for (int i = 0; i < n; ++i)
                dst[i] = pack1<kBf16>(acc[i] + (accumulate ? to_float<kBf16>(dst[i]) : 0.f));
        }
    }
}
