// Thread-block clusters (sm_90): a CTA's rank in its cluster, the cluster barrier, an address in
// another CTA's shared memory and arrivals on its mbarriers, and TMA loads multicast to several
// CTAs of the cluster.
#pragma once
#include "common.cuh"
#include "contract/gemm_args.h"

// Not volatile, nor cluster_peer: both are pure (the rank is fixed for the CTA's life), so the
// compiler keeps the rank, and a peer address's rank byte, out of the loops that use them.
HUM_DEV u32 cluster_ctarank()
{
    u32 r;
    asm("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

// Every thread of every CTA of the cluster (each warp converged) meets here; shared-memory
// writes and arrivals before it are visible to the cluster after it.
HUM_DEV void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// The address in the shared memory of the cluster's CTA `rank` at which that CTA holds what
// this one holds at `addr` (same offset).
HUM_DEV u32 cluster_peer(u32 addr, u32 rank)
{
    u32 r;
    asm("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
    return r;
}

// One arrival on another CTA's mbarrier (an address from cluster_peer). Its release orders this
// thread's earlier accesses at CTA scope only: enough after reads that have finished (a slot's
// wgmma operands), and no membar of the GPU in the loop that issues it.
HUM_DEV void mbar_arrive_remote(u32 bar)
{
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// The same, releasing this thread's earlier shared-memory writes to the cluster (a membar of the
// GPU): for a slot the CTA wrote through the generic proxy before another CTA's copies overwrite it.
HUM_DEV void mbar_arrive_remote_release(u32 bar)
{
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// tma_load_2d (ptx/tma.cuh) into every CTA of the cluster in `mask` (bit r: rank r): the box lands
// at offset `dst` of each one's shared memory and completes the transaction bytes of the barrier
// at offset `bar` of each.
HUM_DEV void tma_load_2d_multicast(u32 dst, const hum_gemm_tma_map &map, int col, int row, u32 bar, u16 mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%2, %3}], [%4], %5;\n"
                 ::"r"(dst), "l"(reinterpret_cast<u64>(&map)), "r"(col), "r"(row), "r"(bar), "h"(mask)
                 : "memory");
}
