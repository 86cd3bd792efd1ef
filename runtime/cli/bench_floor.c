/* The driver's launch floor (see bench_floor.h). */
#include "bench_floor.h"

#include <cudaTypedefs.h>
#include <math.h>

typedef struct floor_call {
    PFN_cuLaunchKernel_v4000 launch;
    CUfunction function;
} floor_call;

static hum_status enqueue_floor(void *ctx, CUstream stream)
{
    const floor_call *f = ctx;
    unsigned int n = 0;
    void *values = NULL, *halves = NULL;
    void *args[] = {&values, &halves, &n};
    /* one thread; 4 KiB of dynamic shared memory covers the mirror index of any block size */
    return hum_cuda_result(f->launch(f->function, 1, 1, 1, 1, 1, 1, 4096, stream, args, NULL), "cuLaunchKernel");
}

hum_status bench_launch_floor(bench_timer *t, const char *cache_dir, const char *arch, int32_t batches,
                              int32_t calls, double *us_per_call)
{
    *us_per_call = NAN;
    void *load = NULL, *get = NULL, *unload = NULL;
    floor_call f = {0};
    hum_status st;
    if ((st = hum_cuda_entry("cuModuleLoadData", 2000, &load)) != HUM_OK ||
        (st = hum_cuda_entry("cuModuleGetFunction", 2000, &get)) != HUM_OK ||
        (st = hum_cuda_entry("cuModuleUnload", 2000, &unload)) != HUM_OK ||
        (st = hum_cuda_entry("cuLaunchKernel", 4000, (void **)&f.launch)) != HUM_OK)
        return st;
    hum_jit_result kernel;
    if ((st = hum_selfcheck_compile(cache_dir, arch, HUM_SELFCHECK_SEED, &kernel)) != HUM_OK)
        return st;
    CUmodule module = NULL;
    st = hum_cuda_result(((PFN_cuModuleLoadData_v2000)load)(&module, kernel.cubin), "cuModuleLoadData (self-check)");
    if (st == HUM_OK)
        st = hum_cuda_result(((PFN_cuModuleGetFunction_v2000)get)(&f.function, module, kernel.lowered_name),
                             "cuModuleGetFunction (self-check)");
    if (st == HUM_OK)
        st = bench_host_overhead(t, enqueue_floor, &f, batches, calls, us_per_call);
    if (module != NULL)
        ((PFN_cuModuleUnload_v2000)unload)(module);
    hum_jit_result_free(&kernel);
    return st;
}
