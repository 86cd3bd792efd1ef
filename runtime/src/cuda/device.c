#include "device.h"

#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEVICES = 64 };

static pthread_mutex_t contexts_lock = PTHREAD_MUTEX_INITIALIZER;
/* Written once per ordinal under contexts_lock; read lock-free on the launch path. */
static _Atomic(CUcontext) contexts[MAX_DEVICES];
static int release_registered;

static void release_contexts(void)
{
    const hum_cuda_api *cu = hum_cuda();
    for (int i = 0; cu && i < MAX_DEVICES; i++) {
        if (atomic_load(&contexts[i])) {
            CUdevice dev;
            if (cu->cuDeviceGet(&dev, i) == CUDA_SUCCESS)
                cu->cuDevicePrimaryCtxRelease(dev);
            atomic_store(&contexts[i], NULL);
        }
    }
}

hum_status hum_device_count(int32_t *count)
{
    if (!count)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_device_count: count is NULL");
    *count = 0;
    const hum_cuda_api *cu;
    hum_status st = hum_cuda_load(&cu);
    if (st != HUM_OK)
        return st;
    int n = 0;
    if ((st = hum_cuda_check(cu->cuDeviceGetCount(&n), "cuDeviceGetCount")) != HUM_OK)
        return st;
    if (n <= 0)
        return hum_fail(HUM_ERR_NO_DEVICE, "no GPU: the CUDA driver reports 0 devices");
    *count = n;
    return HUM_OK;
}

static hum_status device_handle(const hum_cuda_api *cu, int32_t ordinal, CUdevice *dev)
{
    int32_t count;
    hum_status st = hum_device_count(&count);
    if (st != HUM_OK)
        return st;
    if (ordinal < 0 || ordinal >= count || ordinal >= MAX_DEVICES)
        return hum_fail(HUM_ERR_INVALID_ARG, "device ordinal %d: expected 0..%d (%d GPU%s)", ordinal,
                        count - 1, count, count == 1 ? "" : "s");
    return hum_cuda_check(cu->cuDeviceGet(dev, ordinal), "cuDeviceGet");
}

/* values[i] = attribute which[i] of device `ordinal`; *cu and *dev for further queries. */
static hum_status query_attributes(int32_t ordinal, const CUdevice_attribute *which, int count, int *values,
                                   const hum_cuda_api **cu, CUdevice *dev)
{
    hum_status st = hum_cuda_load(cu);
    if (st != HUM_OK || (st = device_handle(*cu, ordinal, dev)) != HUM_OK)
        return st;
    for (int i = 0; i < count; i++)
        if ((st = hum_cuda_check((*cu)->cuDeviceGetAttribute(&values[i], which[i], *dev), "cuDeviceGetAttribute")) !=
            HUM_OK)
            return hum_fail_context(st, "querying attribute %d of device %d", (int)which[i], ordinal);
    return HUM_OK;
}

hum_status hum_device_query(int32_t ordinal, hum_device_info *out)
{
    if (!out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_device_query: out is NULL");
    memset(out, 0, sizeof *out);
    static const CUdevice_attribute which[] = {
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE};
    int values[5];
    const hum_cuda_api *cu;
    CUdevice dev;
    hum_status st = query_attributes(ordinal, which, 5, values, &cu, &dev);
    if (st != HUM_OK)
        return st;
    hum_device_info info = {.ordinal = ordinal, .driver_version = cu->driver_version};
    size_t total = 0;
    if ((st = hum_cuda_check(cu->cuDeviceGetName(info.name, (int)sizeof info.name, dev), "cuDeviceGetName")) !=
            HUM_OK ||
        (st = hum_cuda_check(cu->cuDeviceTotalMem(&total, dev), "cuDeviceTotalMem")) != HUM_OK)
        return hum_fail_context(st, "querying device %d", ordinal);
    info.sm_major = values[0];
    info.sm_minor = values[1];
    info.sm_count = values[2];
    info.max_smem_per_block_optin = values[3];
    info.l2_bytes = values[4];
    info.total_memory_bytes = (int64_t)total;
    *out = info;
    return HUM_OK;
}

hum_status hum_device_sm_limits(int32_t ordinal, hum_sm_limits *out)
{
    memset(out, 0, sizeof *out);
    static const CUdevice_attribute which[] = {
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
        CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK};
    int v[5];
    const hum_cuda_api *cu;
    CUdevice dev;
    hum_status st = query_attributes(ordinal, which, 5, v, &cu, &dev);
    if (st != HUM_OK)
        return st;
    *out = (hum_sm_limits){v[0], v[1], v[2], v[3], v[4]};
    return HUM_OK;
}

hum_block_usage hum_sm_block_usage(const hum_sm_limits *sm, uint32_t threads, int32_t registers_per_thread,
                                   int64_t smem_bytes)
{
    const int64_t warps = ((int64_t)threads + 31) / 32;
    return (hum_block_usage){warps * 32, warps * (((int64_t)registers_per_thread * 32 + 255) / 256 * 256),
                             smem_bytes + sm->reserved_smem_per_block};
}

int32_t hum_sm_blocks_beside(const hum_sm_limits *sm, hum_block_usage resident, int32_t count, hum_block_usage guest)
{
    const int64_t left[3] = {sm->threads - count * resident.threads, sm->registers - count * resident.registers,
                             sm->smem_bytes - count * resident.smem_bytes};
    const int64_t need[3] = {guest.threads, guest.registers, guest.smem_bytes};
    int64_t fit = sm->blocks - count;
    for (int i = 0; i < 3; i++) {
        const int64_t n = left[i] < 0 ? 0 : need[i] > 0 ? left[i] / need[i] : fit;
        fit = n < fit ? n : fit;
    }
    return fit < 0 ? 0 : (int32_t)fit;
}

hum_status hum_device_activate(int32_t ordinal, CUcontext *ctx)
{
    const hum_cuda_api *cu;
    hum_status st = hum_cuda_load(&cu);
    if (st != HUM_OK)
        return st;
    CUcontext c =
        ordinal >= 0 && ordinal < MAX_DEVICES ? atomic_load_explicit(&contexts[ordinal], memory_order_acquire) : NULL;
    if (!c) {
        CUdevice dev;
        if ((st = device_handle(cu, ordinal, &dev)) != HUM_OK)
            return st;
        pthread_mutex_lock(&contexts_lock);
        c = atomic_load(&contexts[ordinal]);
        if (!c) {
            st = hum_cuda_check(cu->cuDevicePrimaryCtxRetain(&c, dev), "cuDevicePrimaryCtxRetain");
            if (st == HUM_OK) {
                atomic_store_explicit(&contexts[ordinal], c, memory_order_release);
                if (!release_registered)
                    release_registered = atexit(release_contexts) == 0;
            }
        }
        pthread_mutex_unlock(&contexts_lock);
        if (st != HUM_OK)
            return hum_fail_context(st, "device %d", ordinal);
    }
    CUcontext current = NULL;
    if (cu->cuCtxGetCurrent(&current) != CUDA_SUCCESS || current != c)
        if ((st = hum_cuda_check(cu->cuCtxSetCurrent(c), "cuCtxSetCurrent")) != HUM_OK)
            return hum_fail_context(st, "device %d", ordinal);
    if (ctx)
        *ctx = c;
    return HUM_OK;
}

hum_status hum_device_bind_pointer(const void *dptr, const char *what)
{
    const hum_cuda_api *cu;
    hum_status st = hum_cuda_load(&cu);
    if (st != HUM_OK)
        return st;
    if (!dptr)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s is NULL", what);
    CUcontext owner = NULL, current = NULL;
    CUresult r = cu->cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)(uintptr_t)dptr);
    if (r != CUDA_SUCCESS || !owner) {
        hum_cuda_check(r == CUDA_SUCCESS ? CUDA_ERROR_INVALID_VALUE : r, "cuPointerGetAttribute");
        return hum_fail_context(HUM_ERR_INVALID_ARG, "%s (%p) is not device memory of a CUDA context", what, dptr);
    }
    if (cu->cuCtxGetCurrent(&current) != CUDA_SUCCESS || current != owner)
        return hum_cuda_check(cu->cuCtxSetCurrent(owner), "cuCtxSetCurrent");
    return HUM_OK;
}
