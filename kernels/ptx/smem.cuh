// Shared-memory addresses and loads/stores by byte address (32-bit shared window).
#pragma once
#include "common.cuh"

// Shared-memory byte address of a generic pointer into __shared__ storage.
HUM_DEV u32 smem_addr(const void *p)
{
    u64 a;
    asm("cvta.to.shared.u64 %0, %1;\n" : "=l"(a) : "l"(p));
    return static_cast<u32>(a);
}

HUM_DEV void lds128(u32 addr, u32 &a, u32 &b, u32 &c, u32 &d)
{
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                 : "r"(addr));
}

HUM_DEV void lds64(u32 addr, u32 &a, u32 &b)
{
    asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];\n" : "=r"(a), "=r"(b) : "r"(addr));
}

HUM_DEV u32 lds32(u32 addr)
{
    u32 a;
    asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(a) : "r"(addr));
    return a;
}

HUM_DEV void sts128(u32 addr, u32 a, u32 b, u32 c, u32 d)
{
    asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"r"(addr), "r"(a), "r"(b), "r"(c), "r"(d));
}

HUM_DEV void sts32(u32 addr, u32 a)
{
    asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(addr), "r"(a));
}

HUM_DEV void sts16(u32 addr, u16 a)
{
    asm volatile("st.shared.u16 [%0], %1;\n" ::"r"(addr), "h"(a));
}

// Two 8 x 8 matrices of 16-bit values stored transposed (sm_90): lane 4 g + t holds in r[i] the
// pair of row g, columns 2 t and 2 t + 1, of matrix i; lane 8 i + r gives the address of the 16
// bytes that take column r of matrix i (its rows 0..7 in order). Lanes 16..31 give none that is
// read. One instruction stores what four 16-bit stores a thread did.
HUM_DEV void stmatrix_x2_trans(u32 addr, u32 r0, u32 r1)
{
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};\n" ::"r"(addr), "r"(r0), "r"(r1)
                 : "memory");
}

// Loads `n` consecutive words (n = 1, 2, 4 or a multiple of 4 with matching alignment) from
// shared memory into w[0..n). `align_words` is the guaranteed alignment of addr in words.
template <int N, int ALIGN_WORDS>
HUM_DEV void lds_words(u32 addr, u32 *w)
{
    if constexpr (N % 4 == 0 && ALIGN_WORDS % 4 == 0) {
#pragma unroll
        for (int i = 0; i < N; i += 4)
            lds128(addr + 4 * i, w[i], w[i + 1], w[i + 2], w[i + 3]);
    } else if constexpr (N % 2 == 0 && ALIGN_WORDS % 2 == 0) {
#pragma unroll
        for (int i = 0; i < N; i += 2)
            lds64(addr + 4 * i, w[i], w[i + 1]);
    } else {
#pragma unroll
        for (int i = 0; i < N; ++i)
            w[i] = lds32(addr + 4 * i);
    }
}
