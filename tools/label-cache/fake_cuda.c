/* A stand-in for libcuda.so.1 (HUM_CUDA_DRIVER) that reports one sm_90 GPU shaped as an H100 SXM /
 * H200 (132 SMs, 227 KiB of shared memory a block) and runs nothing: "device" memory is zeroed
 * host memory, copies and fills are memcpy / memset, module loads, launches, events and graphs
 * succeed without doing anything. Under it the gpu-labelled tests go through every
 * hum_layer_prepare as on the device, so NVRTC fills HUM_CACHE_DIR with the label's sm_90a
 * kernels on a machine without a GPU (tools/label-cache/build.sh); their results are garbage and
 * their checks fail, which is expected. The cache key (runtime/src/jit/jit_key.c) holds NVRTC's
 * major.minor, the sources, options (the toolkit's include folder among them: cuda-home.sh),
 * constants and arch; of the device, the policies read its arch, SM count and shared memory, which
 * this reports as the device does, and its name, an H100's unless HUM_FAKE_DEVICE_NAME names the
 * card the call will get. Its entry points are runtime/src/cuda/cuda_driver.h's,
 * each assigned to the driver's own PFN type at the ABI version hum asks for, so a signature that
 * differs does not compile (-Werror=incompatible-pointer-types, build.sh). */
#include "cuda_driver.h"

#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { SM_COUNT = 132, SMEM_OPTIN = 232448, SMEM_PER_SM = 233472, MAX_ALLOCS = 1 << 16 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct alloc {
    uintptr_t base;
    size_t size;
} allocs[MAX_ALLOCS];
static int alloc_count;
static char context_token, module_token, function_token, stream_token, event_token, graph_token, exec_token;

static CUresult fake_cuGetErrorName(CUresult error, const char **s)
{
    *s = error == CUDA_SUCCESS ? "CUDA_SUCCESS" : "CUDA_ERROR_FAKE";
    return CUDA_SUCCESS;
}

static CUresult fake_cuGetErrorString(CUresult error, const char **s)
{
    *s = error == CUDA_SUCCESS ? "no error" : "an error of tools/label-cache/fake_cuda.c";
    return CUDA_SUCCESS;
}

static CUresult fake_cuInit(unsigned int flags) { return flags ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS; }

CUresult cuDriverGetVersion(int *version)
{
    *version = 13000;
    return CUDA_SUCCESS;
}

static CUresult fake_cuDriverGetVersion(int *version) { return cuDriverGetVersion(version); }

static CUresult fake_cuDeviceGet(CUdevice *device, int ordinal)
{
    if (ordinal != 0)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGetCount(int *count)
{
    *count = 1;
    return CUDA_SUCCESS;
}

/* The name policies see (policies/sm90.lua tells an H100 from other sm_90 parts by it):
 * HUM_FAKE_DEVICE_NAME, e.g. "NVIDIA H200", else an H100's. */
static CUresult fake_cuDeviceGetName(char *name, int len, CUdevice device)
{
    (void)device;
    const char *given = getenv("HUM_FAKE_DEVICE_NAME");
    snprintf(name, (size_t)len, "%s", given && *given ? given : "NVIDIA H100 80GB HBM3");
    return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceGetAttribute(int *value, CUdevice_attribute attrib, CUdevice device)
{
    (void)device;
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = SM_COUNT; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = SMEM_OPTIN; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *value = SMEM_PER_SM; break;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *value = 2048; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = 50 << 20; break;
    default: *value = 0; break;
    }
    return CUDA_SUCCESS;
}

static CUresult fake_cuDeviceTotalMem(size_t *bytes, CUdevice device)
{
    (void)device;
    *bytes = (size_t)80 << 30;
    return CUDA_SUCCESS;
}

static CUresult fake_cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice device)
{
    (void)device;
    *ctx = (CUcontext)&context_token;
    return CUDA_SUCCESS;
}

static CUresult fake_cuDevicePrimaryCtxRelease(CUdevice device)
{
    (void)device;
    return CUDA_SUCCESS;
}

static _Thread_local CUcontext current;

static CUresult fake_cuCtxSetCurrent(CUcontext ctx)
{
    current = ctx;
    return CUDA_SUCCESS;
}

static CUresult fake_cuCtxGetCurrent(CUcontext *ctx)
{
    *ctx = current;
    return CUDA_SUCCESS;
}

static CUresult fake_cuCtxSynchronize(void) { return CUDA_SUCCESS; }

/* The allocation that holds p, or -1. Called under `lock`. */
static int find_alloc(uintptr_t p)
{
    for (int i = 0; i < alloc_count; i++)
        if (p >= allocs[i].base && p < allocs[i].base + allocs[i].size)
            return i;
    return -1;
}

static CUresult fake_cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
    if (attribute != CU_POINTER_ATTRIBUTE_CONTEXT)
        return CUDA_ERROR_NOT_SUPPORTED;
    pthread_mutex_lock(&lock);
    const int found = find_alloc((uintptr_t)ptr) >= 0;
    pthread_mutex_unlock(&lock);
    if (!found)
        return CUDA_ERROR_INVALID_VALUE;
    *(CUcontext *)data = (CUcontext)&context_token;
    return CUDA_SUCCESS;
}

static CUresult fake_cuModuleLoadData(CUmodule *module, const void *image)
{
    *module = image ? (CUmodule)&module_token : NULL;
    return image ? CUDA_SUCCESS : CUDA_ERROR_INVALID_IMAGE;
}

static CUresult fake_cuModuleUnload(CUmodule module)
{
    (void)module;
    return CUDA_SUCCESS;
}

static CUresult fake_cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name)
{
    (void)module;
    (void)name;
    *function = (CUfunction)&function_token;
    return CUDA_SUCCESS;
}

static CUresult fake_cuFuncSetAttribute(CUfunction function, CUfunction_attribute attrib, int value)
{
    (void)function;
    (void)attrib;
    (void)value;
    return CUDA_SUCCESS;
}

/* 128 registers a thread: what the hot kernels use (HUM_PTXAS_REPORT); only grid sizes follow */
static CUresult fake_cuFuncGetAttribute(int *value, CUfunction_attribute attrib, CUfunction function)
{
    (void)function;
    *value = attrib == CU_FUNC_ATTRIBUTE_NUM_REGS ? 128 : 0;
    return CUDA_SUCCESS;
}

static CUresult fake_cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, CUfunction function, int threads,
                                                                  size_t smem)
{
    (void)function;
    (void)threads;
    (void)smem;
    *blocks = 1;
    return CUDA_SUCCESS;
}

static CUresult fake_cuOccupancyMaxActiveClusters(int *clusters, CUfunction function, const CUlaunchConfig *config)
{
    (void)function;
    unsigned x = 1;
    for (unsigned i = 0; i < config->numAttrs; i++)
        if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
            x = config->attrs[i].value.clusterDim.x;
    *clusters = SM_COUNT / (int)(x ? x : 1);
    return CUDA_SUCCESS;
}

static CUresult fake_cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params, void **extra)
{
    (void)config;
    (void)params;
    (void)extra;
    return f ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

static CUresult fake_cuMemGetInfo(size_t *free_bytes, size_t *total)
{
    *total = (size_t)80 << 30;
    *free_bytes = (size_t)79 << 30;
    return CUDA_SUCCESS;
}

/* Zeroed pages reserved without backing: a test's large buffers cost only what it touches. */
static CUresult fake_cuMemAlloc(CUdeviceptr *p, size_t bytes)
{
    if (bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&lock);
    const int full = alloc_count == MAX_ALLOCS;
    if (!full)
        allocs[alloc_count++] = (struct alloc){(uintptr_t)m, bytes};
    pthread_mutex_unlock(&lock);
    if (full) {
        munmap(m, bytes);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *p = (CUdeviceptr)(uintptr_t)m;
    return CUDA_SUCCESS;
}

static CUresult fake_cuMemFree(CUdeviceptr p)
{
    pthread_mutex_lock(&lock);
    const int i = find_alloc((uintptr_t)p);
    struct alloc a = {0, 0};
    if (i >= 0 && allocs[i].base == (uintptr_t)p) {
        a = allocs[i];
        allocs[i] = allocs[--alloc_count];
    }
    pthread_mutex_unlock(&lock);
    if (!a.size)
        return CUDA_ERROR_INVALID_VALUE;
    munmap((void *)a.base, a.size);
    return CUDA_SUCCESS;
}

static CUresult fake_cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes)
{
    memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, bytes);
    return CUDA_SUCCESS;
}

static CUresult fake_cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream)
{
    (void)stream;
    return fake_cuMemcpy(dst, src, bytes);
}

static CUresult fake_cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes)
{
    return fake_cuMemcpy(dst, (CUdeviceptr)(uintptr_t)src, bytes);
}

static CUresult fake_cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes)
{
    return fake_cuMemcpy((CUdeviceptr)(uintptr_t)dst, src, bytes);
}

static CUresult fake_cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t bytes, CUstream stream)
{
    (void)stream;
    return fake_cuMemcpyHtoD(dst, src, bytes);
}

static CUresult fake_cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t bytes, CUstream stream)
{
    (void)stream;
    return fake_cuMemcpyDtoH(dst, src, bytes);
}

static CUresult fake_cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t count)
{
    memset((void *)(uintptr_t)dst, value, count);
    return CUDA_SUCCESS;
}

static CUresult fake_cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t count, CUstream stream)
{
    (void)stream;
    return fake_cuMemsetD8(dst, value, count);
}

static CUresult fake_cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t count)
{
    unsigned int *d = (unsigned int *)(uintptr_t)dst;
    for (size_t i = 0; i < count; i++)
        d[i] = value;
    return CUDA_SUCCESS;
}

static CUresult fake_cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t count, CUstream stream)
{
    (void)stream;
    return fake_cuMemsetD32(dst, value, count);
}

static CUresult fake_cuStreamCreate(CUstream *stream, unsigned int flags)
{
    (void)flags;
    *stream = (CUstream)&stream_token;
    return CUDA_SUCCESS;
}

static CUresult fake_cuStreamDestroy(CUstream stream)
{
    (void)stream;
    return CUDA_SUCCESS;
}

static CUresult fake_cuStreamSynchronize(CUstream stream)
{
    (void)stream;
    return CUDA_SUCCESS;
}

static CUresult fake_cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags)
{
    (void)stream;
    (void)event;
    (void)flags;
    return CUDA_SUCCESS;
}

/* Capture is per stream on the device; a flag per thread is enough for the tests, each of which
 * captures on the thread that launches. */
static _Thread_local int capturing;

static CUresult fake_cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode mode)
{
    (void)stream;
    (void)mode;
    capturing = 1;
    return CUDA_SUCCESS;
}

static CUresult fake_cuStreamEndCapture(CUstream stream, CUgraph *graph)
{
    (void)stream;
    capturing = 0;
    *graph = (CUgraph)&graph_token;
    return CUDA_SUCCESS;
}

static CUresult fake_cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus *status)
{
    (void)stream;
    *status = capturing ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
}

static CUresult fake_cuEventCreate(CUevent *event, unsigned int flags)
{
    (void)flags;
    *event = (CUevent)&event_token;
    return CUDA_SUCCESS;
}

static CUresult fake_cuEventDestroy(CUevent event)
{
    (void)event;
    return CUDA_SUCCESS;
}

static CUresult fake_cuEventRecord(CUevent event, CUstream stream)
{
    (void)event;
    (void)stream;
    return CUDA_SUCCESS;
}

static CUresult fake_cuEventQuery(CUevent event)
{
    (void)event;
    return CUDA_SUCCESS;
}

static CUresult fake_cuEventSynchronize(CUevent event)
{
    (void)event;
    return CUDA_SUCCESS;
}

static CUresult fake_cuEventElapsedTime(float *ms, CUevent start, CUevent end)
{
    (void)start;
    (void)end;
    *ms = 0.001f;
    return CUDA_SUCCESS;
}

static CUresult fake_cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph, unsigned long long flags)
{
    (void)graph;
    (void)flags;
    *exec = (CUgraphExec)&exec_token;
    return CUDA_SUCCESS;
}

static CUresult fake_cuGraphUpload(CUgraphExec exec, CUstream stream)
{
    (void)exec;
    (void)stream;
    return CUDA_SUCCESS;
}

static CUresult fake_cuGraphLaunch(CUgraphExec exec, CUstream stream)
{
    (void)exec;
    (void)stream;
    return CUDA_SUCCESS;
}

static CUresult fake_cuGraphExecDestroy(CUgraphExec exec)
{
    (void)exec;
    return CUDA_SUCCESS;
}

static CUresult fake_cuGraphDestroy(CUgraph graph)
{
    (void)graph;
    return CUDA_SUCCESS;
}

static CUresult fake_cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank, void *address,
                                            const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
                                            const cuuint32_t *element_strides, CUtensorMapInterleave interleave,
                                            CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                                            CUtensorMapFloatOOBfill fill)
{
    (void)type, (void)rank, (void)address, (void)dims, (void)strides, (void)box, (void)element_strides;
    (void)interleave, (void)swizzle, (void)l2, (void)fill;
    memset(map, 0, sizeof *map);
    return CUDA_SUCCESS;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status)
{
    (void)version;
    (void)flags;
#define FAKE_ENTRY(name, abi)                                                                      \
    if (strcmp(symbol, #name) == 0) {                                                              \
        PFN_##name##_v##abi typed = fake_##name;                                                   \
        *pfn = (void *)typed;                                                                      \
        if (status)                                                                                \
            *status = CU_GET_PROC_ADDRESS_SUCCESS;                                                 \
        return CUDA_SUCCESS;                                                                       \
    }
    HUM_CUDA_ENTRIES(FAKE_ENTRY)
#undef FAKE_ENTRY
    *pfn = NULL;
    if (status)
        *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}
