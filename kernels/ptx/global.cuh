// Global-memory accesses with explicit ordering or caching: the acquire/release pair of the
// stream-K handshake, the relaxed read of a counter before an atomic on it and the release add
// that publishes rows (gemm/quant_a.cuh), L2 reads (ld.global.cg, past the non-coherent L1) of partial sums
// another CTA wrote, and reads of streamed read-only data that leave L1 alone (mma_direct's weights).
#pragma once
#include "common.cuh"

HUM_DEV int ld_acquire(const int *p)
{
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}

HUM_DEV int ld_relaxed(const int *p)
{
    int v;
    asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}

HUM_DEV void red_release_add(int *p, int v)
{
    asm volatile("red.release.gpu.global.add.s32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}

HUM_DEV void st_release(int *p, int v)
{
    asm volatile("st.release.gpu.global.b32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}

HUM_DEV u16 ld_l2_16(const u16 *p)
{
    u16 v;
    asm volatile("ld.global.cg.b16 %0, [%1];\n" : "=h"(v) : "l"(p) : "memory");
    return v;
}

HUM_DEV u32 ld_l2_32(const u16 *p)
{
    u32 v;
    asm volatile("ld.global.cg.b32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}

HUM_DEV void ld_l2_128(const void *p, u32 (&v)[4])
{
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
                 : "l"(p)
                 : "memory");
}

HUM_DEV void st_global_128(void *p, const u32 (&v)[4])
{
    asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"l"(p), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3])
                 : "memory");
}

// N words from global memory the kernel only reads, in runs of ALIGN_WORDS aligned words (as
// lds_words, ptx/smem.cuh), left out of L1 (ld.global.nc.L1::no_allocate: data streamed once,
// such as a GEMM's weights read straight into registers). The asm names no memory it reads, so
// the compiler may move these loads above grid_dependency_wait (ptx/griddep.cuh): only for what
// no kernel of the stream writes (weights, scales and zero points, written when the layer was
// prepared).
template <int N, int ALIGN_WORDS>
HUM_DEV void ldg_stream_words(const u32 *p, u32 *w)
{
    if constexpr (N % 4 == 0 && ALIGN_WORDS % 4 == 0) {
#pragma unroll
        for (int i = 0; i < N; i += 4)
            asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                : "=r"(w[i]), "=r"(w[i + 1]), "=r"(w[i + 2]), "=r"(w[i + 3])
                : "l"(p + i));
    } else if constexpr (N % 2 == 0 && ALIGN_WORDS % 2 == 0) {
#pragma unroll
        for (int i = 0; i < N; i += 2)
            asm("ld.global.nc.L1::no_allocate.v2.u32 {%0,%1}, [%2];\n" : "=r"(w[i]), "=r"(w[i + 1]) : "l"(p + i));
    } else {
#pragma unroll
        for (int i = 0; i < N; ++i)
            asm("ld.global.nc.L1::no_allocate.u32 %0, [%1];\n" : "=r"(w[i]) : "l"(p + i));
    }
}
