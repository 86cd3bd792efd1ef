// The self-check kernel: proves end to end that NVRTC (with the toolkit's headers), the kernel
// cache, module loading, dynamic shared memory and launches work. Each thread computes the value
// of its mirror element in the block and hands it over through dynamic shared memory, so a wrong
// block shape, a missing barrier or too little shared memory shows up as wrong values.
#include <cuda_fp16.h>

#include "hum_constants.h" // kSelfcheckSeed

// Host twin: selfcheck_value() in runtime/src/cuda/selfcheck.c. A 32-bit integer mix (murmur3's
// finalizer) of the index and the seed, so every element and every seed gives a distinct pattern.
__device__ __forceinline__ unsigned int selfcheck_value(unsigned int i)
{
    unsigned int x = i * 0x9E3779B1u + kSelfcheckSeed;
    x ^= x >> 16;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    x *= 0xC2B2AE35u;
    x ^= x >> 16;
    return x;
}

// values[i] = selfcheck_value(i); halves[i] = (i % 2048) / 2 through a float16 round trip (exact).
// Launch: blocks of kBlock threads, kBlock * 4 bytes of dynamic shared memory.
template <int kBlock>
__global__ void __launch_bounds__(kBlock) hum_selfcheck(unsigned int *values, float *halves, unsigned int n)
{
    extern __shared__ unsigned int staged[];
    const unsigned int t = threadIdx.x;
    const unsigned int base = blockIdx.x * kBlock;
    staged[kBlock - 1 - t] = selfcheck_value(base + kBlock - 1 - t);
    __syncthreads();
    const unsigned int i = base + t;
    if (i < n) {
        values[i] = staged[t];
        halves[i] = __half2float(__float2half_rn(static_cast<float>(i % 2048) * 0.5f));
    }
}
