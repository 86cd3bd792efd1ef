// Microbenchmark (ao11, session 10): the hand-off from a permutation-like kernel to a GEMM-like
// kernel launched with programmatic dependent launch: griddepcontrol.wait against a counter the
// primary's blocks raise (release) and the secondary spins on (acquire).
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <algorithm>
#include <vector>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void __launch_bounds__(256) prim(const unsigned short *a, const int *perm, unsigned short *out, int k, unsigned *ready, int flag)
{
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
    extern __shared__ unsigned short row[];
    const int r = blockIdx.y;
    const int j0 = (blockIdx.x * 256 + threadIdx.x) * 8;
    int col[8];
    for (int i = 0; i < 8; ++i) col[i] = __ldg(perm + j0 + i);
    const uint4 *src4 = reinterpret_cast<const uint4 *>(a + (long)r * k);
    for (int c = threadIdx.x; c < k / 8; c += 256) reinterpret_cast<uint4 *>(row)[c] = __ldg(src4 + c);
    __syncthreads();
    unsigned short v[8];
    for (int i = 0; i < 8; ++i) v[i] = row[col[i]];
    uint4 w;
    w.x = v[0] | (unsigned)v[1] << 16; w.y = v[2] | (unsigned)v[3] << 16; w.z = v[4] | (unsigned)v[5] << 16; w.w = v[6] | (unsigned)v[7] << 16;
    *reinterpret_cast<uint4 *>(out + (long)r * k + j0) = w;
    if (flag) {
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0) atomicAdd(ready, 1u);
    }
}

__global__ void __launch_bounds__(256) sec(const unsigned short *out, int elems, unsigned *ready, unsigned want, float *res, int mode)
{
    if (mode == 1) {
        asm volatile("griddepcontrol.wait;\n" ::: "memory");
    } else if (mode == 2) {
        if (threadIdx.x == 0) {
            unsigned v;
            do { asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(ready) : "memory"); } while (v < want);
            // the last CTA through resets the counter for the next launch
            if (atomicAdd(ready + 1, 1u) == gridDim.x - 1) { ready[0] = 0; ready[1] = 0; }
        }
        __syncthreads();
    }
    // read a slice (as the GEMM's first A stage would), from L2
    float s = 0;
    for (int i = blockIdx.x * 256 + threadIdx.x; i < elems / 8; i += gridDim.x * 256) {
        uint4 q = __ldcg(reinterpret_cast<const uint4 *>(out) + i);
        s += q.x + q.y + q.z + q.w;
    }
    if (s == 1234.5f) res[0] = s;
}

int main()
{
    const int m = 16, k = 8192;
    unsigned short *a, *out; int *perm; unsigned *ready; float *res; char *flush;
    const size_t fl = 256u << 20;
    CK(cudaMalloc(&a, m * k * 2)); CK(cudaMalloc(&out, m * k * 2)); CK(cudaMalloc(&perm, k * 4));
    CK(cudaMalloc(&ready, 256)); CK(cudaMalloc(&res, 256)); CK(cudaMalloc(&flush, fl));
    CK(cudaMemset(a, 0, m * k * 2)); CK(cudaMemset(ready, 0, 256));
    std::vector<int> hp(k); for (int i = 0; i < k; ++i) hp[i] = (i * 4099) % k;
    CK(cudaMemcpy(perm, hp.data(), k * 4, cudaMemcpyHostToDevice));
    CK(cudaFuncSetAttribute(prim, cudaFuncAttributeMaxDynamicSharedMemorySize, k * 2));
    cudaStream_t st; CK(cudaStreamCreate(&st));
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    // cases: 0 secondary alone (no wait); 1 prim + sec (PDL wait); 2 prim + sec (counter); 3 prim then sec serial (no PDL)
    const char *names[] = {"secondary alone", "PDL griddepcontrol.wait", "counter spin", "serial (no PDL)", "primary alone"};
    for (int round = 0; round < 2; ++round)
    for (int c = 0; c < 5; ++c) {
        std::vector<float> t;
        for (int rep = 0; rep < 300; ++rep) {
            CK(cudaMemsetAsync(flush, rep & 255, fl, st));
            CK(cudaEventRecord(e0, st));
            if (c != 0) {
                cudaLaunchConfig_t cfg = {}; cfg.gridDim = dim3(k / 2048, m); cfg.blockDim = dim3(256); cfg.dynamicSmemBytes = k * 2; cfg.stream = st;
                CK(cudaLaunchKernelEx(&cfg, prim, (const unsigned short *)a, (const int *)perm, out, k, ready, c == 2 ? 1 : 0));
            }
            if (c != 4) {
                cudaLaunchConfig_t cfg = {}; cfg.gridDim = dim3(132); cfg.blockDim = dim3(256); cfg.stream = st;
                cudaLaunchAttribute at[1]; at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization; at[0].val.programmaticStreamSerializationAllowed = 1;
                cfg.attrs = at; cfg.numAttrs = (c == 1 || c == 2) ? 1 : 0;
                CK(cudaLaunchKernelEx(&cfg, sec, (const unsigned short *)out, m * k, ready, (unsigned)(m * k / 2048), res, c == 0 || c == 3 ? 0 : c));
            }
            CK(cudaEventRecord(e1, st));
            CK(cudaEventSynchronize(e1));
            float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); t.push_back(ms * 1000);
        }
        std::sort(t.begin(), t.end());
        printf("round %d  %-26s median %7.2f us  p10 %7.2f  p90 %7.2f\n", round, names[c], t[t.size() / 2], t[t.size() / 10], t[t.size() * 9 / 10]);
    }
    unsigned hr[2]; CK(cudaMemcpy(hr, ready, 8, cudaMemcpyDeviceToHost)); printf("counter left %u %u\n", hr[0], hr[1]);
    return 0;
}
