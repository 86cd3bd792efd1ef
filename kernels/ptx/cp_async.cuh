// Asynchronous global-to-shared copies for the multi-stage pipeline. On sm_80 and newer they are
// cp.async (16 bytes, zero-filled when the predicate is off); sm_75 has no cp.async, so there the
// copy is a plain load and store and the group operations are no-ops (correct, only less
// overlapped).
#pragma once
#include "ptx/smem.cuh"

HUM_DEV void cp_async16(u32 dst, const void *src, bool pred)
{
#if __CUDA_ARCH__ >= 800
    const int src_bytes = pred ? 16 : 0;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
#else
    u32 a = 0, b = 0, c = 0, d = 0;
    if (pred)
        asm volatile("ld.global.nc.v4.u32 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                     : "l"(src));
    sts128(dst, a, b, c, d);
#endif
}

// A 4-byte copy through L1 of the first `src_bytes` (0 .. 4) bytes at src, the rest zero-filled
// (sm_80 and newer).
HUM_DEV void cp_async4(u32 dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}

HUM_DEV void cp_async_commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

// One arrival on mbarrier `bar` once every cp.async this thread issued so far has completed
// (sm_80 and newer). noinc: the arrival counts against the barrier's expected count, which
// must include it.
HUM_DEV void cp_async_mbar_arrive(u32 bar)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
#endif
}

// Waits until at most `PENDING` committed groups of this thread are still in flight.
template <int PENDING>
HUM_DEV void cp_async_wait()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
#endif
}
