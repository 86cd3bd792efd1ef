// Hopper (sm_90) asynchronous copies: mbarriers, TMA tensor loads and the proxy fence between
// generic and async shared-memory accesses.
#pragma once
#include "common.cuh"
#include "contract/gemm_args.h"

// Orders this thread's earlier generic-proxy shared-memory accesses before later async-proxy
// ones (wgmma reads, TMA writes) of the same bytes; each thread fences before the barrier.
HUM_DEV void fence_proxy_async_smem()
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// The same between this thread's global-memory writes and TMA reads of them (the writer fences
// after its writes, the reader after acquiring the flag that publishes them, before its copies).
HUM_DEV void fence_proxy_async_global()
{
    asm volatile("fence.proxy.async.global;\n" ::: "memory");
}

// mbarrier (8 bytes of shared memory) expecting `count` arrivals per phase; the init is made
// visible to the copy engine before any copy signals it.
HUM_DEV void mbar_init(u32 bar, u32 count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

HUM_DEV void mbar_init_fence()
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

// One arrival that also announces `bytes` of copies completing on the barrier in this phase.
HUM_DEV void mbar_arrive_expect_tx(u32 bar, u32 bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

// Announces `bytes` more of copies completing on the barrier in this phase, without an arrival.
HUM_DEV void mbar_expect_tx(u32 bar, u32 bytes)
{
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

// One arrival of this thread.
HUM_DEV void mbar_arrive(u32 bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// Waits until the phase with parity `parity` of the barrier has completed.
HUM_DEV void mbar_wait(u32 bar, u32 parity)
{
    u32 done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}

// TMA: the box at element coordinates (col, row) of the map's 2-D tensor into shared memory at
// `dst` (laid out and swizzled as the map says), completing `bar`'s transaction bytes. Elements
// outside the tensor arrive as zeros. The copy engine writes through the async proxy, so wgmma
// may read the bytes once the barrier phase completes, with no proxy fence. The map must sit
// in parameter, constant or global memory (here: a __grid_constant__ kernel argument).
HUM_DEV void tma_load_2d(u32 dst, const hum_gemm_tma_map &map, int col, int row, u32 bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
                 ::"r"(dst), "l"(reinterpret_cast<u64>(&map)), "r"(col), "r"(row), "r"(bar)
                 : "memory");
}
