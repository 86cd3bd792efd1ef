#include "cuda_driver.h"

#include "internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static hum_cuda_api api;
static PFN_cuGetProcAddress_v12000 get_proc_address; /* for hum_cuda_entry */
static hum_status load_status;
/* The first failure's message, replayed into the thread-local error of every later caller. */
static char load_message[1024];

static void load_failed(hum_status status, const char *fmt, ...) HUM_PRINTF(2, 3);
static void load_failed(hum_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(load_message, sizeof load_message, fmt, ap);
    va_end(ap);
    load_status = status;
}

static void load_driver(void)
{
    const char *env = getenv("HUM_CUDA_DRIVER");
    const char *path = env && *env ? env : "libcuda.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        load_failed(HUM_ERR_NO_DEVICE, "no CUDA driver: cannot load %s (%s)", path, dlerror());
        return;
    }
    PFN_cuGetProcAddress_v12000 get_proc = (PFN_cuGetProcAddress_v12000)dlsym(lib, "cuGetProcAddress_v2");
    PFN_cuDriverGetVersion_v2020 get_version = (PFN_cuDriverGetVersion_v2020)dlsym(lib, "cuDriverGetVersion");
    int version = 0;
    if (!get_version || get_version(&version) != CUDA_SUCCESS) {
        load_failed(HUM_ERR_NO_DEVICE, "no CUDA driver usable: %s does not report its version", path);
        dlclose(lib);
        return;
    }
    if (!get_proc || version < HUM_CUDA_MIN_DRIVER_VERSION) {
        load_failed(HUM_ERR_NO_DEVICE, "no CUDA driver usable: %s is CUDA %d.%d, hum needs %d.%d or newer",
                    path, version / 1000, version % 1000 / 10, HUM_CUDA_MIN_DRIVER_VERSION / 1000,
                    HUM_CUDA_MIN_DRIVER_VERSION % 1000 / 10);
        dlclose(lib);
        return;
    }
    hum_cuda_api table = {.driver_version = version};
#define HUM_CUDA_RESOLVE(name, abi)                                                                \
    {                                                                                              \
        CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;               \
        void *fn = NULL;                                                                           \
        CUresult r = get_proc(#name, &fn, abi, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found);         \
        if (r != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || !fn) {                    \
            load_failed(HUM_ERR_NO_DEVICE,                                                         \
                        "no CUDA driver usable: %s (CUDA %d.%d) lacks %s (ABI %d), error %d", path, \
                        version / 1000, version % 1000 / 10, #name, abi, (int)r);                  \
            dlclose(lib);                                                                          \
            return;                                                                                \
        }                                                                                          \
        table.name = (PFN_##name##_v##abi)fn;                                                      \
    }
    HUM_CUDA_ENTRIES(HUM_CUDA_RESOLVE)
#undef HUM_CUDA_RESOLVE

    CUresult r = table.cuInit(0);
    if (r != CUDA_SUCCESS) {
        const char *name = NULL, *text = NULL;
        table.cuGetErrorName(r, &name);
        table.cuGetErrorString(r, &text);
        if (r == CUDA_ERROR_NO_DEVICE)
            load_failed(HUM_ERR_NO_DEVICE, "no GPU: the CUDA driver (%s, CUDA %d.%d) found no device",
                        path, version / 1000, version % 1000 / 10);
        else
            load_failed(HUM_ERR_NO_DEVICE, "no CUDA driver usable: cuInit failed with %s (%s)",
                        name ? name : "an unknown error", text ? text : "no description");
        /* The library stays loaded: the driver may have registered exit handlers in cuInit. */
        return;
    }
    api = table;
    get_proc_address = get_proc;
    load_status = HUM_OK;
}

hum_status hum_cuda_load(const hum_cuda_api **out)
{
    pthread_once(&load_once, load_driver);
    if (load_status != HUM_OK) {
        *out = NULL;
        return hum_fail(load_status, "%s", load_message);
    }
    *out = &api;
    return HUM_OK;
}

const hum_cuda_api *hum_cuda(void)
{
    const hum_cuda_api *table;
    return hum_cuda_load(&table) == HUM_OK ? table : NULL;
}

hum_status hum_cuda_check(CUresult result, const char *what)
{
    if (result == CUDA_SUCCESS)
        return HUM_OK;
    const char *name = NULL, *text = NULL;
    if (api.cuGetErrorName) {
        api.cuGetErrorName(result, &name);
        api.cuGetErrorString(result, &text);
    }
    return hum_fail(result == CUDA_ERROR_OUT_OF_MEMORY ? HUM_ERR_OUT_OF_MEMORY : HUM_ERR_CUDA, "%s: %s (%s)",
                    what, name ? name : "unknown CUDA error", text ? text : "no description");
}

hum_status hum_cuda_entry(const char *name, int32_t abi_version, void **fn)
{
    if (!name || !fn)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_cuda_entry: NULL argument");
    *fn = NULL;
    const hum_cuda_api *cu;
    hum_status st = hum_cuda_load(&cu);
    if (st != HUM_OK)
        return st;
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult r = get_proc_address(name, fn, abi_version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found);
    if (r != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || !*fn) {
        *fn = NULL;
        return hum_fail(HUM_ERR_CUDA, "the CUDA driver (CUDA %d.%d) has no %s at ABI version %d",
                        cu->driver_version / 1000, cu->driver_version % 1000 / 10, name, (int)abi_version);
    }
    return HUM_OK;
}

hum_status hum_cuda_result(int32_t result, const char *what)
{
    return hum_cuda_check((CUresult)result, what ? what : "CUDA call");
}
