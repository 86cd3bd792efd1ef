/* The CUDA driver, loaded at run time (dlopen of libcuda.so.1, or the file named by
 * HUM_CUDA_DRIVER) so that libhum and every CPU-side feature work on a machine without one.
 * <cuda.h> is included for its types only; libcuda is never linked.
 *
 * Each entry point is resolved with cuGetProcAddress at the ABI version its PFN type names
 * (cudaTypedefs.h), so a newer driver that adds a _v3 of a function still hands back the
 * signature this table was compiled against. Entries use the legacy default-stream variants:
 * a NULL stream means the legacy default stream of the current context.
 *
 * Fields carry the driver's own names. Some of those are macros in <cuda.h>
 * (cuMemAlloc -> cuMemAlloc_v2); the field and every use expand the same way, so
 * `hum_cuda()->cuMemAlloc(...)` reads and works as written. */
#ifndef HUM_CUDA_DRIVER_H
#define HUM_CUDA_DRIVER_H

#include "hum/hum.h"

#include <cuda.h>
#include <cudaTypedefs.h>

/* Oldest driver accepted: cuTensorMapEncodeTiled and cuLaunchKernelEx clusters need CUDA 12.0. */
enum { HUM_CUDA_MIN_DRIVER_VERSION = 12000 };

/* X(name, abi version of its PFN type) */
#define HUM_CUDA_ENTRIES(X)                                                                        \
    X(cuGetErrorName, 6000)                                                                        \
    X(cuGetErrorString, 6000)                                                                      \
    X(cuInit, 2000)                                                                                \
    X(cuDriverGetVersion, 2020)                                                                    \
    X(cuDeviceGet, 2000)                                                                           \
    X(cuDeviceGetCount, 2000)                                                                      \
    X(cuDeviceGetName, 2000)                                                                       \
    X(cuDeviceGetAttribute, 2000)                                                                  \
    X(cuDeviceTotalMem, 3020)                                                                      \
    X(cuDevicePrimaryCtxRetain, 7000)                                                              \
    X(cuDevicePrimaryCtxRelease, 11000)                                                            \
    X(cuCtxSetCurrent, 4000)                                                                       \
    X(cuCtxGetCurrent, 4000)                                                                       \
    X(cuCtxSynchronize, 2000)                                                                      \
    X(cuPointerGetAttribute, 4000)                                                                 \
    X(cuModuleLoadData, 2000)                                                                      \
    X(cuModuleUnload, 2000)                                                                        \
    X(cuModuleGetFunction, 2000)                                                                   \
    X(cuFuncSetAttribute, 9000)                                                                    \
    X(cuFuncGetAttribute, 2020)                                                                    \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050)                                           \
    X(cuOccupancyMaxActiveClusters, 11070)                                                         \
    X(cuLaunchKernelEx, 11060)                                                                     \
    X(cuMemGetInfo, 3020)                                                                          \
    X(cuMemAlloc, 3020)                                                                            \
    X(cuMemFree, 3020)                                                                             \
    X(cuMemcpy, 4000)                                                                              \
    X(cuMemcpyAsync, 4000)                                                                         \
    X(cuMemcpyHtoD, 3020)                                                                          \
    X(cuMemcpyDtoH, 3020)                                                                          \
    X(cuMemcpyHtoDAsync, 3020)                                                                     \
    X(cuMemcpyDtoHAsync, 3020)                                                                     \
    X(cuMemsetD8, 3020)                                                                            \
    X(cuMemsetD8Async, 3020)                                                                       \
    X(cuMemsetD32, 3020)                                                                           \
    X(cuMemsetD32Async, 3020)                                                                      \
    X(cuStreamCreate, 2000)                                                                        \
    X(cuStreamDestroy, 4000)                                                                       \
    X(cuStreamSynchronize, 2000)                                                                   \
    X(cuStreamWaitEvent, 3020)                                                                     \
    X(cuStreamBeginCapture, 10010)                                                                 \
    X(cuStreamEndCapture, 10000)                                                                   \
    X(cuStreamIsCapturing, 10000)                                                                  \
    X(cuEventCreate, 2000)                                                                         \
    X(cuEventDestroy, 4000)                                                                        \
    X(cuEventRecord, 2000)                                                                         \
    X(cuEventQuery, 2000)                                                                          \
    X(cuEventSynchronize, 2000)                                                                    \
    X(cuEventElapsedTime, 2000)                                                                    \
    X(cuGraphInstantiateWithFlags, 11040)                                                          \
    X(cuGraphUpload, 11010)                                                                        \
    X(cuGraphLaunch, 10000)                                                                        \
    X(cuGraphExecDestroy, 10000)                                                                   \
    X(cuGraphDestroy, 10000)                                                                       \
    X(cuTensorMapEncodeTiled, 12000)

#define HUM_CUDA_FIELD(name, version) PFN_##name##_v##version name;
typedef struct hum_cuda_api {
    HUM_CUDA_ENTRIES(HUM_CUDA_FIELD)
    int driver_version; /* cuDriverGetVersion, e.g. 13000 */
} hum_cuda_api;
#undef HUM_CUDA_FIELD

/* Loads the driver and runs cuInit once per process (thread-safe). HUM_OK and the table, or
 * HUM_ERR_NO_DEVICE with a message that contains "no CUDA driver" (library missing, too old,
 * or unusable) or "no GPU" (cuInit found no device); the same answer on every later call. */
hum_status hum_cuda_load(const hum_cuda_api **out);

/* The table, or NULL with hum_last_error() set as hum_cuda_load does. */
const hum_cuda_api *hum_cuda(void);

/* HUM_OK for CUDA_SUCCESS; otherwise HUM_ERR_CUDA (HUM_ERR_OUT_OF_MEMORY for
 * CUDA_ERROR_OUT_OF_MEMORY) with "<what>: CUDA_ERROR_X (driver's description)". */
hum_status hum_cuda_check(CUresult result, const char *what);

#endif
