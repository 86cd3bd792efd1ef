// Sustained rate of Hopper fp8 wgmma (m64nNk32.f32.e4m3.e4m3) with A from registers (RS, as hum's
// W4A8 MXFP4 GEMM issues it: the decoded weight fragment) against A from shared memory (SS), with
// no loads, no barriers and no decode: does RS alone lose tensor-pipe rate (ncu: 71 % at M = 1024),
// or does it need more groups in flight? Standalone (no hum headers); see wgmma-rate.sh.
//   nvcc -O3 -arch=sm_90a -std=c++17 -o /tmp/wgmma-rate bench/sweeps/wgmma-rate.cu && /tmp/wgmma-rate
// One CTA per SM, WG math warpgroups (2 or 3), each looping over 16 wgmma steps on constant shared
// memory: 4 B stages of N*PG rows x 128 bytes (K-major, 128-byte swizzle; 4 k32 steps a stage) and,
// for SS, 2 A stages of 64 x 128 bytes per warpgroup. Peak: 4096 fp8 FMA per cycle per SM, so one
// m64n128k32 (262,144 FMA) takes 64 cycles; "cyc/n128" is the SM's cycles per m64n128k32-equivalent.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

// ---- PTX wrappers (PTX ISA 8.x, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate") ----
// wgmma.fence: this thread's register writes (A fragments, accumulators) are ordered before the
// warpgroup's next wgmma; required before the first wgmma and after writing an A fragment.
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wg_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Shared-memory matrix descriptor, K-major with 128-byte swizzle: start address >> 4 in bits 0-13,
// leading byte offset (unused by swizzled K-major layouts, 1 by convention) in bits 16-29, stride
// byte offset 1024 >> 4 (distance between 8-row groups of 128-byte rows) in bits 32-45, base offset
// 0 (tiles 1024-byte aligned) in 49-51, swizzle mode 1 = 128B in bits 62-63. A k32 step inside a
// 128-byte row is +32 bytes of start address (the hardware applies the swizzle to the address).
__device__ __forceinline__ uint64_t sw128_desc(uint32_t smem_addr)
{
    return (uint64_t)((smem_addr & 0x3FFFFu) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}

__device__ __forceinline__ uint64_t desc(uint32_t hi, uint32_t lo) { return (uint64_t)hi << 32 | lo; }

// Operand lists: "%t0,...,%t9" for tens t, so that 64 / 128 accumulators are %0..%63 / %0..%127.
#define T10(t) "%" #t "0,%" #t "1,%" #t "2,%" #t "3,%" #t "4,%" #t "5,%" #t "6,%" #t "7,%" #t "8,%" #t "9"
#define ACC64 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9," T10(1) "," T10(2) "," T10(3) "," T10(4) "," T10(5) ",%60,%61,%62,%63}"
#define ACC128                                                                                                  \
    "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9," T10(1) "," T10(2) "," T10(3) "," T10(4) "," T10(5) "," T10(6) "," T10(7) \
    "," T10(8) "," T10(9) "," T10(10) "," T10(11) ",%120,%121,%122,%123,%124,%125,%126,%127}"
#define F8(d, i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define F32(d, i) F8(d, i), F8(d, i + 8), F8(d, i + 16), F8(d, i + 24)
#define F64(d, i) F32(d, i), F32(d, i + 32)
#define F128(d) F64(d, 0), F64(d, 64)
// scale-d is a predicate (1: D = A*B + D); fp8 takes imm-scale-a, imm-scale-b (1) and no transpose.
#define WG_ASM(SHAPE, OPS, SC) \
    "{\n.reg .pred p;\nsetp.ne.b32 p, %" SC ", 0;\nwgmma.mma_async.sync.aligned." SHAPE ".f32.e4m3.e4m3 " OPS ", p, 1, 1;\n}\n"

// d (N/2 floats per thread) += A (64x32 e4m3) * B^T (N x 32 e4m3 at bdesc). RS: A is 4 x b32 per
// thread (rows 16w+g and 16w+g+8, k 4t..4t+3 and 16+4t..16+4t+3; values irrelevant here).
template <int N> __device__ __forceinline__ void wgmma_rs(float *d, const uint32_t (&a)[4], uint64_t bdesc)
{
    if constexpr (N == 128)
        asm volatile(WG_ASM("m64n128k32", ACC64 ", {%64,%65,%66,%67}, %68", "69")
                     : F64(d, 0) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bdesc), "n"(1));
    else
        asm volatile(WG_ASM("m64n256k32", ACC128 ", {%128,%129,%130,%131}, %132", "133")
                     : F128(d) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(bdesc), "n"(1));
}
template <int N> __device__ __forceinline__ void wgmma_ss(float *d, uint64_t adesc, uint64_t bdesc)
{
    if constexpr (N == 128)
        asm volatile(WG_ASM("m64n128k32", ACC64 ", %64, %65", "66") : F64(d, 0) : "l"(adesc), "l"(bdesc), "n"(1));
    else
        asm volatile(WG_ASM("m64n256k32", ACC128 ", %128, %129", "130") : F128(d) : "l"(adesc), "l"(bdesc), "n"(1));
}

constexpr int kSteps = 16;           // wgmma groups per loop iteration (4 B stages x 4 k32 steps)
constexpr int kBStages = 4;          // B stages rotated through
constexpr int kAStage = 64 * 128;    // one SS A stage: 64 rows x 128 bytes (4 k32 steps)
constexpr int kBBytes = kBStages * 256 * 128;   // B area: 4 stages of up to 256 rows x 128 bytes
constexpr int kSmem = kBBytes + 3 * 2 * kAStage + 1024;  // + 2 A stages per warpgroup + alignment

// The chain of ALU rounds standing in for the decode: a multiply and a shift each, so ptxas cannot
// fold the rounds into one (an affine chain would collapse); 2 dependent instructions a round.
template <int ROUNDS> __device__ __forceinline__ uint32_t alu_chain(uint32_t x)
{
#pragma unroll
    for (int r = 0; r < ROUNDS; ++r) x = x * 0x9E3779B9u + (x >> 15);
    return x;
}

// RS: true A from registers. N: 128 or 256. PG: wgmmas per commit group (2 = hum's two 128-column
// chunks of a 256-token tile, different B rows and accumulators, same A). DEPTH: wait_group<DEPTH>
// after each commit. ALU: rounds of dependent ALU work per group, fed into the next A fragment (RS)
// so it cannot be hoisted. FRESH: write the A fragment each group (else one fragment is reused).
// WG: math warpgroups, the launch bound (128 * WG threads: at 3, 168 registers a thread, where
// ptxas serializes RS with fresh fragments and 128 accumulators at depth >= 1 (C7512); at 2, 255).
template <bool RS, int N, int PG, int DEPTH, int ALU, bool FRESH, int WG>
__global__ void __launch_bounds__(128 * WG, 1) wgmma_rate(int iters, long long *cycles, float *sink)
{
// nvcc 13 -arch=sm_90a also emits a compute_90 PTX, where wgmma does not exist: only the
// arch-specific pass (__CUDA_ARCH_FEAT_SM90_ALL) gets the body.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ uint8_t smem_raw[];
    const uint32_t raw = (uint32_t)__cvta_generic_to_shared(smem_raw);
    const uint32_t base = (raw + 1023u) & ~1023u;  // 128B-swizzle tiles must be 1024-byte aligned
    uint8_t *smem = smem_raw + (base - raw);
    // Finite e4m3 everywhere: & 0xB7 clears bits 6 and 3, so no byte is 0x7F / 0xFF (the NaNs);
    // random signs and exponents <= 2^-1 keep the float32 sums from overflowing.
    for (int i = threadIdx.x; i < (kSmem - 1024) / 4; i += blockDim.x) {
        uint32_t h = (uint32_t)i * 0x9E3779B9u ^ 0x5bd1e995u;
        h ^= h >> 13;
        reinterpret_cast<uint32_t *>(smem)[i] = h & 0xB7B7B7B7u;
    }
    // Generic-proxy writes read by wgmma (async proxy): cross-proxy fence, then the CTA barrier.
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();

    const int wg = threadIdx.x >> 7;
    // Descriptors as 32-bit halves: the high half is the same for all; the low halves are rebuilt
    // from an opaque base every iteration, else ptxas hoists all 16 x PG 64-bit descriptors out of
    // the loop and the accumulators no longer fit (it then serializes the wgmmas, C7512).
    const uint32_t hi = (uint32_t)(sw128_desc(base) >> 32);
    uint32_t blo0 = (uint32_t)sw128_desc(base);
    uint32_t alo0 = (uint32_t)sw128_desc(base + kBBytes + wg * 2 * kAStage);
    float d[PG][N / 2];
#pragma unroll
    for (int p = 0; p < PG; ++p)
#pragma unroll
        for (int j = 0; j < N / 2; ++j) d[p][j] = 0.f;
    uint32_t a[4], x = threadIdx.x * 0x01000193u + 1u;
#pragma unroll
    for (int j = 0; j < 4; ++j) a[j] = (x * (2 * j + 1)) & 0xB7B7B7B7u;

    __syncwarp();
    const long long t0 = clock64();
    for (int it = 0; it < iters; ++it) {
        asm volatile("" : "+r"(blo0), "+r"(alo0));
#pragma unroll
        for (int s = 0; s < kSteps; ++s) {
            if constexpr (ALU > 0) {
                x = alu_chain<ALU>(x);
                if constexpr (RS) {  // the chain's result is the next fragment (as decoded weights are)
#pragma unroll
                    for (int j = 0; j < 4; ++j) a[j] = (x ^ (j * 0x11111111u)) & 0xB7B7B7B7u;
                }
            } else if constexpr (RS && FRESH) {  // a new fragment each group, no long chain
#pragma unroll
                for (int j = 0; j < 4; ++j) a[j] = (a[j] + 0x01010101u) & 0xB7B7B7B7u;
            }
            wg_fence();
            const int stage = s / 4, k = s % 4;
#pragma unroll
            for (int p = 0; p < PG; ++p) {
                // descriptor start addresses advance in 16-byte units: stage, 128-column chunk, k32 step
                const uint64_t bd = desc(hi, blo0 + ((stage * N * PG * 128 + p * N * 128 + k * 32) >> 4));
                if constexpr (RS)
                    wgmma_rs<N>(d[p], a, bd);
                else
                    wgmma_ss<N>(d[p], desc(hi, alo0 + (((stage % 2) * kAStage + k * 32) >> 4)), bd);
            }
            wg_commit();
            wg_wait<DEPTH>();
        }
    }
    wg_wait<0>();
    const long long t1 = clock64();

    float sum = 0.f;
#pragma unroll
    for (int p = 0; p < PG; ++p)
#pragma unroll
        for (int j = 0; j < N / 2; ++j) sum += d[p][j];
    sum += (float)(x ^ a[0] ^ a[1] ^ a[2] ^ a[3]);
    if (sum == -1.2345f) sink[threadIdx.x] = sum;  // keeps every accumulator and the chain alive
    if ((threadIdx.x & 127) == 0) cycles[blockIdx.x * WG + wg] = t1 - t0;
#else
    __trap();
#endif
}

struct Variant {
    const char *form;
    int n, pg, depth, alu, fresh;
    void (*fn[2])(int, long long *, float *);  // 2 and 3 warpgroups
};
#define V(RS, N, PG, D, ALU, FR) \
    Variant{RS ? "RS" : "SS", N, PG, D, ALU, FR, {wgmma_rate<RS, N, PG, D, ALU, FR, 2>, wgmma_rate<RS, N, PG, D, ALU, FR, 3>}}
// depth 0/1/2 of one configuration
#define D3(RS, N, PG, ALU, FR) V(RS, N, PG, 0, ALU, FR), V(RS, N, PG, 1, ALU, FR), V(RS, N, PG, 2, ALU, FR)

static const Variant kVariants[] = {
    // the question: RS vs SS, same shapes and depths, nothing else in the loop
    D3(true, 128, 1, 0, false), D3(false, 128, 1, 0, false),
    D3(true, 128, 2, 0, false), D3(false, 128, 2, 0, false),  // hum's shape: 2 x n128 a group
    D3(true, 256, 1, 0, false), D3(false, 256, 1, 0, false),
    // RS with a fresh fragment each group (registers written while earlier wgmmas are in flight)
    D3(true, 128, 2, 0, true), D3(true, 256, 1, 0, true),
    // decode stand-in: 16 rounds (32 dependent IMAD/SHF) a group, fed into the fragment for RS;
    // SS runs the same chain beside its wgmmas (the cost of the ALU work alone)
    D3(true, 128, 2, 16, true), D3(false, 128, 2, 16, false), D3(true, 128, 1, 16, true),
};

int main()
{
    int dev = 0, sms = 0, clk_khz = 0;
    CK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, dev));
    printf("# %s, %d SMs, max SM clock %d MHz, peak dense fp8 at that clock %.0f TFLOP/s\n", prop.name, sms,
           clk_khz / 1000, 2.0 * 4096 * sms * clk_khz * 1e3 / 1e12);
    printf("# grid = %d CTAs (one per SM), %d B dynamic shared memory, %d wgmma groups per iteration\n", sms,
           kSmem, kSteps);
    printf("# cyc/n128: max over warpgroups of clock64 cycles / (m64n128k32-equivalents per SM); %%peak = 64 / "
           "cyc/n128; MHz = cycles / event time\n");
    printf("%-4s %4s %3s %5s %4s %5s %3s %8s %8s %9s %9s %7s %6s\n", "form", "N", "pg", "depth", "alu", "fresh",
           "wg", "iters", "ms", "TFLOP/s", "cyc/n128", "%peak", "MHz");

    long long *cyc;
    float *sink;
    CK(cudaMalloc(&cyc, sizeof(long long) * sms * 3));
    CK(cudaMalloc(&sink, sizeof(float) * 384));
    long long *hcyc = (long long *)malloc(sizeof(long long) * sms * 3);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));

    for (const Variant &v : kVariants) {
        for (int wg = 2; wg <= 3; ++wg) {
            auto fn = v.fn[wg - 2];
            CK(cudaFuncSetAttribute((const void *)fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
            // ~600k m64n128k32-equivalents per SM: ~38M cycles at peak, ~20-25 ms at 1.5-1.98 GHz
            const double per_iter = (double)wg * kSteps * v.pg * (v.n / 128);
            const int iters = (int)(600000.0 / per_iter);
            fn<<<sms, wg * 128, kSmem>>>(iters / 10, cyc, sink);  // warm-up (clocks, caches)
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            float best_ms = 1e30f;
            long long best_cyc = 0;
            for (int rep = 0; rep < 2; ++rep) {
                CK(cudaEventRecord(e0));
                fn<<<sms, wg * 128, kSmem>>>(iters, cyc, sink);
                CK(cudaEventRecord(e1));
                CK(cudaEventSynchronize(e1));
                CK(cudaGetLastError());
                float ms;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                CK(cudaMemcpy(hcyc, cyc, sizeof(long long) * sms * wg, cudaMemcpyDeviceToHost));
                long long mx = 0;
                for (int i = 0; i < sms * wg; ++i) mx = hcyc[i] > mx ? hcyc[i] : mx;
                if (ms < best_ms) best_ms = ms, best_cyc = mx;
            }
            const double n128_per_sm = per_iter * iters;
            const double flop = 2.0 * 64 * 128 * 32 * n128_per_sm * sms;
            const double cpw = best_cyc / n128_per_sm;
            printf("%-4s %4d %3d %5d %4d %5d %3d %8d %8.2f %9.1f %9.2f %6.1f%% %6.0f\n", v.form, v.n, v.pg, v.depth,
                   v.alu, v.fresh, wg, iters, best_ms, flop / (best_ms * 1e-3) / 1e12, cpw, 100.0 * 64.0 / cpw,
                   best_cyc / (best_ms * 1e3));
            fflush(stdout);
        }
    }
    CK(cudaFree(cyc));
    CK(cudaFree(sink));
    free(hcyc);
    return 0;
}
