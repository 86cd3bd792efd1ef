// MoE align: routes the M*top_k slots of a forward (slot i = token i / top_k, its (i % top_k)-th
// choice) to the local experts and lays them out for the indexed expert GEMMs as
// kernels/contract/moe_layout.h states (runtime/src/moe/moe_align.c launches it; C twin:
// runtime/src/moe/align_ref.c, compared with these kernels exactly):
//   sorted[max_padded]      slot ids grouped by local expert in expert order; each expert's run
//                           is padded to a multiple of block_m with `numel` (the sentinel)
//   expert_ids[max_blocks]  the local expert of each block_m block of `sorted`; HUM_MOE_SKIP_BLOCK
//                           past the end
//   offsets[e_local + 1]    where each expert's run starts; offsets[e_local] = the padded total
//   post_padded[1]          the padded total again, for kernels that only need the end
// A slot's expert is topk_ids[i] (int32 or int64) mapped through expert_map (int32
// [e_global], -1: not on this rank) when there is one; ids outside [0, e_global) and map entries
// outside [0, e_local) drop the slot. Order inside one expert's run is unspecified (shared
// atomics): no result depends on it, as every row of a GEMM is computed on its own.
//
// Two paths, one layout. For few slots (moe_align.c decides): hum_moe_align, one block of 1024
// threads, counts, scans and scatters in shared memory (one launch on the decode path). Above:
// hum_moe_count (nb blocks, each counting its own chunk of slots into counts[b][e]),
// hum_moe_scan (one block: per-expert prefix over the chunks, then the same scan and padding as
// the small path), hum_moe_scatter (nb blocks, each placing its chunk from its own bases), so no
// memory needs zeroing beforehand and no grid has more than HUM_MOE_ALIGN_CHUNKS (128) blocks
// for any M * top_k.
// All kernels: 1024 threads; dynamic shared memory 2 * e_local int32.
#include "common.cuh"
#include "contract/moe_layout.h"
#include "moe/route.cuh"
#include "ptx/griddep.cuh"

namespace moe {

constexpr int kThreads = 1024;
constexpr int kWarps = kThreads / 32;

// counts[e] += slots of [begin, end) on expert e (shared atomics; counts zeroed by the caller).
HUM_DEV void count_slots(const void *ids, int ids64, const int *map, int e_global, int e_local, i64 begin, i64 end,
                         int *counts)
{
    for (i64 i = begin + threadIdx.x; i < end; i += kThreads) {
        const int e = expert_of(ids, ids64, i, map, e_global, e_local);
        if (e >= 0)
            atomicAdd(counts + e, 1);
    }
}

// Block-wide exclusive prefix sum of v over the threads; returns it, and the total in *total.
HUM_DEV int block_exclusive_scan(int v, int *total)
{
    __shared__ int warp_sums[kWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int x = v;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d)
            x += y;
    }
    if (lane == 31)
        warp_sums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        int s = warp_sums[lane];
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const int y = __shfl_up_sync(0xffffffffu, s, d);
            if (lane >= d)
                s += y;
        }
        warp_sums[lane] = s;
    }
    __syncthreads();
    const int before = (warp > 0 ? warp_sums[warp - 1] : 0) + x - v;
    *total = warp_sums[kWarps - 1];
    __syncthreads();  // warp_sums is reused by the next call
    return before;
}

// From counts[e_local] (shared): offsets[e] (shared and global) of the padded runs, the padded
// total, expert_ids of every block up to max_blocks and the sentinel in every padding row.
HUM_DEV void lay_out(const int *counts, int *offsets_s, int e_local, int block_m, int numel, int max_blocks,
                     int *sorted, int *expert_ids, int *offsets, int *post_padded)
{
    // experts in chunks of kThreads, each chunk scanned at once and added to the running base
    int base = 0;
    for (int e0 = 0; e0 < e_local; e0 += kThreads) {
        const int e = e0 + threadIdx.x;
        const int padded = e < e_local ? (counts[e] + block_m - 1) / block_m * block_m : 0;
        int total;
        const int before = block_exclusive_scan(padded, &total);
        if (e < e_local) {
            offsets_s[e] = base + before;
            offsets[e] = base + before;
        }
        base += total;
    }
    if (threadIdx.x == 0) {
        offsets[e_local] = base;
        *post_padded = base;
    }
    __syncthreads();
    const int blocks = base / block_m;
    for (int b = threadIdx.x; b < max_blocks; b += kThreads) {
        if (b >= blocks) {
            expert_ids[b] = HUM_MOE_SKIP_BLOCK;
            continue;
        }
        // the last expert whose run starts at or before row b * block_m (empty runs share
        // their start with the next one, so the last such one owns the block)
        const int row = b * block_m;
        int lo = 0, hi = e_local - 1;
        while (lo < hi) {
            const int mid = (lo + hi + 1) >> 1;
            if (offsets_s[mid] <= row)
                lo = mid;
            else
                hi = mid - 1;
        }
        expert_ids[b] = lo;
        const int valid_end = offsets_s[lo] + counts[lo];
        for (int r = row > valid_end ? row : valid_end; r < row + block_m; ++r)
            sorted[r] = numel;
    }
}

}  // namespace moe

// The small path: everything in one block. Grid 1.
extern "C" __global__ void __launch_bounds__(moe::kThreads)
hum_moe_align(const void *ids, int ids64, const int *map, int e_global, int e_local, int block_m, int numel,
              int max_blocks, int *sorted, int *expert_ids, int *offsets, int *post_padded)
{
    extern __shared__ int smem[];
    int *counts = smem, *starts = smem + e_local;
    for (int e = threadIdx.x; e < e_local; e += moe::kThreads)
        counts[e] = 0;
    __syncthreads();
    grid_dependency_wait();  // topk_ids may come from the kernel before
    moe::count_slots(ids, ids64, map, e_global, e_local, 0, numel, counts);
    __syncthreads();
    moe::lay_out(counts, starts, e_local, block_m, numel, max_blocks, sorted, expert_ids, offsets, post_padded);
    __syncthreads();
    for (i64 i = threadIdx.x; i < numel; i += moe::kThreads) {
        const int e = moe::expert_of(ids, ids64, i, map, e_global, e_local);
        if (e >= 0)
            sorted[atomicAdd(starts + e, 1)] = static_cast<int>(i);
    }
}

// The large path, 1 of 3: block b counts slots [b * chunk, (b + 1) * chunk) into counts[b][e].
// Grid nb = ceil(numel / chunk).
extern "C" __global__ void __launch_bounds__(moe::kThreads)
hum_moe_count(const void *ids, int ids64, const int *map, int e_global, int e_local, int numel, int chunk,
              int *chunk_counts)
{
    extern __shared__ int smem[];
    for (int e = threadIdx.x; e < e_local; e += moe::kThreads)
        smem[e] = 0;
    __syncthreads();
    grid_dependency_wait();
    const i64 begin = static_cast<i64>(blockIdx.x) * chunk;
    const i64 end = begin + chunk < numel ? begin + chunk : numel;
    moe::count_slots(ids, ids64, map, e_global, e_local, begin, end, smem);
    __syncthreads();
    for (int e = threadIdx.x; e < e_local; e += moe::kThreads)
        chunk_counts[static_cast<i64>(blockIdx.x) * e_local + e] = smem[e];
}

// 2 of 3, grid 1: the expert totals, the layout, and in chunk_counts[b][e] the row where chunk b
// places its first slot of expert e.
extern "C" __global__ void __launch_bounds__(moe::kThreads)
hum_moe_scan(int *__restrict__ chunk_counts, int nb, int e_local, int block_m, int numel, int max_blocks, int *sorted,
             int *expert_ids, int *offsets, int *post_padded)
{
    extern __shared__ int smem[];
    int *counts = smem, *starts = smem + e_local;
    grid_dependency_wait();
    for (int e = threadIdx.x; e < e_local; e += moe::kThreads) {
        int running = 0;
#pragma unroll 8
        for (int b = 0; b < nb; ++b) {
            int *c = chunk_counts + static_cast<i64>(b) * e_local + e;
            const int v = *c;
            *c = running;
            running += v;
        }
        counts[e] = running;
    }
    __syncthreads();
    moe::lay_out(counts, starts, e_local, block_m, numel, max_blocks, sorted, expert_ids, offsets, post_padded);
    __syncthreads();
    for (i64 i = threadIdx.x; i < static_cast<i64>(nb) * e_local; i += moe::kThreads)
        chunk_counts[i] += starts[i % e_local];
}

// 3 of 3, grid nb: chunk b places its slots from its bases.
extern "C" __global__ void __launch_bounds__(moe::kThreads)
hum_moe_scatter(const void *ids, int ids64, const int *map, int e_global, int e_local, int numel, int chunk,
                const int *chunk_counts, int *sorted)
{
    extern __shared__ int smem[];
    grid_dependency_wait();
    for (int e = threadIdx.x; e < e_local; e += moe::kThreads)
        smem[e] = chunk_counts[static_cast<i64>(blockIdx.x) * e_local + e];
    __syncthreads();
    const i64 begin = static_cast<i64>(blockIdx.x) * chunk;
    const i64 end = begin + chunk < numel ? begin + chunk : numel;
    for (i64 i = begin + threadIdx.x; i < end; i += moe::kThreads) {
        const int e = moe::expert_of(ids, ids64, i, map, e_global, e_local);
        if (e >= 0)
            sorted[atomicAdd(smem + e, 1)] = static_cast<int>(i);
    }
}
