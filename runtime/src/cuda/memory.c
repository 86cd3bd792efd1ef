/* Device memory and stream helpers for tests, layers and benchmarks. Copies bind the context
 * that owns the device pointer, so they work from any host thread. */
#include "device.h"
#include "internal.h"

#include <stdint.h>

static CUdeviceptr device_address(const void *p)
{
    return (CUdeviceptr)(uintptr_t)p;
}

/* cuMemcpyHtoD from pageable memory and cuMemsetD8 may return before the device memory holds
 * the data; these helpers promise it does, so that work on any stream may read it next. */
static hum_status finish(hum_status st)
{
    return st == HUM_OK ? hum_cuda_check(hum_cuda()->cuStreamSynchronize(NULL), "cuStreamSynchronize") : st;
}

hum_status hum_device_alloc(int32_t ordinal, size_t bytes, void **dptr)
{
    if (!dptr)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_device_alloc: dptr is NULL");
    *dptr = NULL;
    if (bytes == 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_device_alloc: 0 bytes requested on device %d", ordinal);
    hum_status st = hum_device_activate(ordinal, NULL);
    if (st != HUM_OK)
        return st;
    CUdeviceptr p = 0;
    if ((st = hum_cuda_check(hum_cuda()->cuMemAlloc(&p, bytes), "cuMemAlloc")) != HUM_OK)
        return hum_fail_context(st, "allocating %zu bytes on device %d", bytes, ordinal);
    *dptr = (void *)(uintptr_t)p;
    return HUM_OK;
}

hum_status hum_device_free(void *dptr)
{
    if (!dptr)
        return HUM_OK;
    hum_status st = hum_device_bind_pointer(dptr, "hum_device_free: pointer");
    return st == HUM_OK ? hum_cuda_check(hum_cuda()->cuMemFree(device_address(dptr)), "cuMemFree") : st;
}

hum_status hum_memcpy_htod(void *dst, const void *src, size_t bytes)
{
    if (bytes == 0)
        return HUM_OK;
    if (!src)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_memcpy_htod: host source is NULL");
    hum_status st = hum_device_bind_pointer(dst, "hum_memcpy_htod: device destination");
    return finish(
        st == HUM_OK ? hum_cuda_check(hum_cuda()->cuMemcpyHtoD(device_address(dst), src, bytes), "cuMemcpyHtoD") : st);
}

hum_status hum_memcpy_dtoh(void *dst, const void *src, size_t bytes)
{
    if (bytes == 0)
        return HUM_OK;
    if (!dst)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_memcpy_dtoh: host destination is NULL");
    hum_status st = hum_device_bind_pointer(src, "hum_memcpy_dtoh: device source");
    return st == HUM_OK ? hum_cuda_check(hum_cuda()->cuMemcpyDtoH(dst, device_address(src), bytes), "cuMemcpyDtoH")
                        : st;
}

hum_status hum_memset_d8(void *dst, uint8_t value, size_t bytes)
{
    if (bytes == 0)
        return HUM_OK;
    hum_status st = hum_device_bind_pointer(dst, "hum_memset_d8: device destination");
    return finish(st == HUM_OK ? hum_cuda_check(hum_cuda()->cuMemsetD8(device_address(dst), value, bytes), "cuMemsetD8")
                               : st);
}

hum_status hum_stream_synchronize(struct CUstream_st *stream)
{
    const hum_cuda_api *cu;
    hum_status st = hum_cuda_load(&cu);
    return st == HUM_OK ? hum_cuda_check(cu->cuStreamSynchronize(stream), "cuStreamSynchronize") : st;
}
