// Act-order preprocessing, once per forward: out[r][j] = a[r][perm[j]] for r < m, j < k, and 0
// where perm[j] is -1 (a padding column of an act-order row shard: its weights are zero, and a
// zero here keeps an Inf or NaN elsewhere in A out of it). k is the stored K', A's rows may be
// narrower: it has `cols` columns, and perm's entries are below cols.
//
// The prepared weights of an act-order layer are stored in permuted K order, so once A's columns
// are gathered into that order the GEMM runs its contiguous A loads (cp.async 16-byte chunks,
// TMA) exactly as for a layer without act-order.
//
// A block first copies a source row into shared memory with coalesced loads, and the gather
// reads it there: gathered straight from global memory, every warp-wide load touched up to 32
// sectors, and at M = 8192 the L1 wavefronts, not DRAM, set the copy's time. Columns from
// `staged` on (a row wider than the shared memory the launch gave) are gathered from global
// memory, L1/L2-resident as the row is read anyway. The dynamic shared memory holds `staged`
// 16-bit elements, a multiple of 8. Each thread owns 8-column chunks of the output row (two
// 16-byte loads of perm, one 16-byte store), so a warp writes 512 contiguous bytes. `out` is
// dense (row stride k) and 16-byte aligned; when k is not a multiple of 8 its rows are not, and
// the chunk is stored element by element.
// Elements are 16-bit (float16 or bfloat16: the copy does not look at them).
//
// A block of grid (slices, y) gathers the columns [x * 2048 .. k) step slices * 2048 of rows y,
// y + gridDim.y, ..., staging the whole row each time: at small M one block per row left most SMs
// idle (act-order at M = 16 cost 1.24x the plain layer on the H200, session 6), so the host cuts
// rows into slices until there are two blocks per SM, each block reading the row from L2 again.
//
// Launch: block 256 threads, grid (slices, any y >= 1), dynamic shared memory staged * 2 bytes.
// On sm_90 the GEMM that reads `out` is launched to overlap this kernel (ptx/griddep.cuh). With
// `early` set (the host's rule: launch_permute in runtime/src/layer/layer_forward.c) a block lets
// it in at its first instruction, so that the GEMM's launch and its prefetch of the weights run
// during the permutation; otherwise once its stores are issued. Let in early while these blocks
// held part of the SMs, the M 1..16 GEMM of session 6, two of whose CTAs fit one SM, ran 10 us
// slower at M = 1 and 16 on the H200 (36.4 / 38.4 us against 26.7 / 28.9, bench/NOTES.md).
//
// Each thread's perm entries for its first chunk load before the row is staged: the two
// independent loads overlap instead of following each other.
#include "common.cuh"
#include "ptx/griddep.cuh"

// The perm entries of the 8 output columns from j0 (-1 past k); nothing when j0 >= k.
__device__ __forceinline__ void load_perm(const int *__restrict__ perm, int j0, int k, bool whole, int (&col)[8])
{
    if (j0 >= k)
        return;
    if (whole) {
        asm("ld.global.nc.v4.s32 {%0,%1,%2,%3}, [%4];\n"
            : "=r"(col[0]), "=r"(col[1]), "=r"(col[2]), "=r"(col[3])
            : "l"(perm + j0));
        asm("ld.global.nc.v4.s32 {%0,%1,%2,%3}, [%4];\n"
            : "=r"(col[4]), "=r"(col[5]), "=r"(col[6]), "=r"(col[7])
            : "l"(perm + j0 + 4));
    } else {
#pragma unroll
        for (int i = 0; i < 8; ++i)
            col[i] = j0 + i < k ? __ldg(perm + j0 + i) : -1;
    }
}

// Copies elements 0 .. n - 1 of src to dst, kBatch loads of each thread in flight: as one load and
// one store per iteration, each thread's loads of a row waited for each other (ptxas does not
// overlap them across iterations), 4 DRAM round trips per 16 KB row at 256 threads.
template <typename T>
__device__ __forceinline__ void stage_row(T *dst, const T *__restrict__ src, int n)
{
    constexpr int kBatch = 8;
    for (int c0 = threadIdx.x; c0 < n; c0 += kBatch * blockDim.x) {
        T v[kBatch];
#pragma unroll
        for (int i = 0; i < kBatch; ++i)
            if (c0 + i * static_cast<int>(blockDim.x) < n)
                v[i] = __ldg(src + c0 + i * blockDim.x);
#pragma unroll
        for (int i = 0; i < kBatch; ++i)
            if (c0 + i * static_cast<int>(blockDim.x) < n)
                dst[c0 + i * blockDim.x] = v[i];
    }
}

extern "C" __global__ void __launch_bounds__(256)
hum_permute_a(const u16 *__restrict__ a, i64 lda, const int *__restrict__ perm, u16 *__restrict__ out, int k,
              int cols, int staged, int m, int early)
{
    if (early)
        grid_dependents_launch();
    extern __shared__ uint4 row_smem[];
    u16 *row = reinterpret_cast<u16 *>(row_smem);
    const int copied = staged < cols ? staged : cols;
    const bool whole = (k & 7) == 0;
    const int j_first = (blockIdx.x * blockDim.x + threadIdx.x) * 8;
    int first[8];
    load_perm(perm, j_first, k, whole, first);
    for (int r = blockIdx.y; r < m; r += gridDim.y) {
        const u16 *src = a + r * lda;
        if (r != blockIdx.y)
            __syncthreads(); // the previous row's gathers are done with the staged row
        if ((reinterpret_cast<u64>(src) & 15) == 0) {
            stage_row(row_smem, reinterpret_cast<const uint4 *>(src), copied / 8);
            for (int c = copied / 8 * 8 + threadIdx.x; c < copied; c += blockDim.x)
                row[c] = __ldg(src + c);
        } else {
            stage_row(row, src, copied);
        }
        __syncthreads();
        u16 *dst = out + static_cast<i64>(r) * k;
        for (int j0 = j_first; j0 < k; j0 += gridDim.x * blockDim.x * 8) {
            int col[8];
            if (j0 == j_first) {
#pragma unroll
                for (int i = 0; i < 8; ++i)
                    col[i] = first[i];
            } else {
                load_perm(perm, j0, k, whole, col);
            }
            u16 v[8];
#pragma unroll
            for (int i = 0; i < 8; ++i)
                v[i] = col[i] < 0 ? u16(0) : col[i] < staged ? row[col[i]] : __ldg(src + col[i]);
            if (whole) {
                const u32 w0 = v[0] | static_cast<u32>(v[1]) << 16, w1 = v[2] | static_cast<u32>(v[3]) << 16;
                const u32 w2 = v[4] | static_cast<u32>(v[5]) << 16, w3 = v[6] | static_cast<u32>(v[7]) << 16;
                asm volatile("st.global.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"l"(dst + j0), "r"(w0), "r"(w1), "r"(w2),
                             "r"(w3)
                             : "memory");
            } else {
#pragma unroll
                for (int i = 0; i < 8; ++i)
                    if (j0 + i < k)
                        dst[j0 + i] = v[i];
            }
        }
    }
    if (!early)
        grid_dependents_launch();
}
