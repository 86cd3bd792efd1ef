/* Kernels: cubin -> module -> function, and launches through cuLaunchKernelEx. */
#include "device.h"
#include "internal.h"
#include "launch.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Atomic int64_t loaded;

int64_t hum_kernel_loaded_count(void) { return atomic_load(&loaded); }

struct hum_kernel {
    CUcontext context;
    CUmodule module;
    CUfunction function;
    int32_t ordinal;
    int32_t sm_major;
    uint32_t dynamic_smem_bytes; /* opted in at load */
    int32_t registers, static_smem; /* per thread; bytes per block */
    hum_sm_limits sm;               /* of its device */
    char name[512];
};

hum_status hum_kernel_load(int32_t device_ordinal, const hum_jit_result *compiled, int32_t dynamic_smem_bytes,
                           hum_kernel **out)
{
    if (!out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_kernel_load: out is NULL");
    *out = NULL;
    if (!compiled || !compiled->cubin || compiled->cubin_size == 0 || !compiled->lowered_name[0])
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_kernel_load: expected a compiled kernel (cubin and lowered name)");
    if (dynamic_smem_bytes < 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_kernel_load %s: dynamic shared memory %d bytes is negative",
                        compiled->lowered_name, dynamic_smem_bytes);
    CUcontext ctx;
    hum_status st = hum_device_activate(device_ordinal, &ctx);
    if (st != HUM_OK)
        return st;
    hum_device_info info;
    if ((st = hum_device_query(device_ordinal, &info)) != HUM_OK)
        return st;
    if (dynamic_smem_bytes > info.max_smem_per_block_optin)
        return hum_fail(
            HUM_ERR_INVALID_ARG,
            "kernel %s: %d bytes of dynamic shared memory requested; device %d (%s) allows at most %lld per block",
            compiled->lowered_name, dynamic_smem_bytes, device_ordinal, info.name,
            (long long)info.max_smem_per_block_optin);
    const hum_cuda_api *cu = hum_cuda();
    hum_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_kernel_load: out of memory");
    k->context = ctx;
    k->ordinal = device_ordinal;
    k->sm_major = info.sm_major;
    k->dynamic_smem_bytes = (uint32_t)dynamic_smem_bytes;
    snprintf(k->name, sizeof k->name, "%s", compiled->lowered_name);
    if ((st = hum_cuda_check(cu->cuModuleLoadData(&k->module, compiled->cubin), "cuModuleLoadData")) != HUM_OK) {
        free(k);
        return hum_fail_context(st, "loading the cubin of %s on device %d (%s, sm_%d%d)", compiled->lowered_name,
                                device_ordinal, info.name, info.sm_major, info.sm_minor);
    }
    st = hum_cuda_check(cu->cuModuleGetFunction(&k->function, k->module, k->name), "cuModuleGetFunction");
    if (st == HUM_OK)
        st = hum_cuda_check(cu->cuFuncGetAttribute(&k->registers, CU_FUNC_ATTRIBUTE_NUM_REGS, k->function),
                            "cuFuncGetAttribute(NUM_REGS)");
    if (st == HUM_OK)
        st = hum_cuda_check(cu->cuFuncGetAttribute(&k->static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->function),
                            "cuFuncGetAttribute(SHARED_SIZE_BYTES)");
    if (st == HUM_OK)
        st = hum_device_sm_limits(device_ordinal, &k->sm);
    if (st == HUM_OK && dynamic_smem_bytes > 0)
        st = hum_cuda_check(cu->cuFuncSetAttribute(k->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                   dynamic_smem_bytes),
                            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    if (st != HUM_OK) {
        cu->cuModuleUnload(k->module);
        free(k);
        return hum_fail_context(st, "kernel %s on device %d", compiled->lowered_name, device_ordinal);
    }
    atomic_fetch_add(&loaded, 1);
    *out = k;
    return HUM_OK;
}

void hum_kernel_destroy(hum_kernel *k)
{
    if (!k)
        return;
    atomic_fetch_sub(&loaded, 1);
    const hum_cuda_api *cu = hum_cuda();
    if (cu && cu->cuCtxSetCurrent(k->context) == CUDA_SUCCESS)
        cu->cuModuleUnload(k->module);
    free(k);
}

int32_t hum_kernel_blocks_beside(const hum_kernel *resident, uint32_t threads, uint32_t smem, int32_t count,
                                 const hum_kernel *guest, uint32_t guest_threads, uint32_t guest_smem)
{
    const hum_sm_limits *sm = &resident->sm;
    return hum_sm_blocks_beside(
        sm, hum_sm_block_usage(sm, threads, resident->registers, (int64_t)smem + resident->static_smem), count,
        hum_sm_block_usage(sm, guest_threads, guest->registers, (int64_t)guest_smem + guest->static_smem));
}

/* Makes k's context current on this thread (a loaded kernel: the driver is loaded). */
static hum_status make_current(const hum_kernel *k)
{
    const hum_cuda_api *cu = hum_cuda();
    CUcontext current = NULL;
    if (cu->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == k->context)
        return HUM_OK;
    return hum_cuda_check(cu->cuCtxSetCurrent(k->context), "cuCtxSetCurrent");
}

hum_status hum_kernel_max_clusters(const hum_kernel *k, uint32_t threads, uint32_t smem, uint32_t cluster_x,
                                   int32_t *out)
{
    if (!k || !out || cluster_x < 1)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_kernel_max_clusters: NULL kernel or out, or cluster of %u",
                        cluster_x);
    *out = 0;
    hum_status st = make_current(k);
    if (st != HUM_OK)
        return st;
    const hum_cuda_api *cu = hum_cuda();
    CUlaunchAttribute cluster;
    memset(&cluster, 0, sizeof cluster);
    cluster.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    cluster.value.clusterDim.x = cluster_x;
    cluster.value.clusterDim.y = 1;
    cluster.value.clusterDim.z = 1;
    const CUlaunchConfig config = {.gridDimX = cluster_x, .gridDimY = 1, .gridDimZ = 1, .blockDimX = threads,
                                   .blockDimY = 1, .blockDimZ = 1, .sharedMemBytes = smem, .attrs = &cluster,
                                   .numAttrs = 1};
    int count = 0;
    st = hum_cuda_check(cu->cuOccupancyMaxActiveClusters(&count, k->function, &config), "cuOccupancyMaxActiveClusters");
    if (st != HUM_OK)
        return hum_fail_context(st, "clusters of %u x %s (%u threads, %u bytes of shared memory)", cluster_x, k->name,
                                threads, smem);
    *out = count;
    return HUM_OK;
}

static uint32_t at_least_one(uint32_t v) { return v ? v : 1; }

hum_status hum_kernel_launch(const hum_kernel *k, const hum_launch_config *cfg, void **args)
{
    if (!k || !cfg)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_kernel_launch: kernel or config is NULL");
    uint32_t grid[3] = {cfg->grid[0], at_least_one(cfg->grid[1]), at_least_one(cfg->grid[2])};
    uint32_t block[3] = {cfg->block[0], at_least_one(cfg->block[1]), at_least_one(cfg->block[2])};
    uint32_t cluster[3] = {at_least_one(cfg->cluster[0]), at_least_one(cfg->cluster[1]), at_least_one(cfg->cluster[2])};
    if (grid[0] == 0 || block[0] == 0)
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "launching %s: grid %ux%ux%u, block %ux%ux%u: expected at least one of each", k->name,
                        cfg->grid[0], cfg->grid[1], cfg->grid[2], cfg->block[0], cfg->block[1], cfg->block[2]);
    if ((uint64_t)block[0] * block[1] * block[2] > 1024)
        return hum_fail(HUM_ERR_INVALID_ARG, "launching %s: block %ux%ux%u has more than 1024 threads", k->name,
                        block[0], block[1], block[2]);
    if (cfg->dynamic_smem_bytes > k->dynamic_smem_bytes)
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "launching %s: %u bytes of dynamic shared memory, but it was loaded for at most %u",
                        k->name, cfg->dynamic_smem_bytes, k->dynamic_smem_bytes);
    int clustered = cluster[0] * cluster[1] * cluster[2] > 1;
    if (clustered && k->sm_major < 9)
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "launching %s: thread-block clusters need sm_90 or newer, device %d is sm_%d", k->name,
                        k->ordinal, k->sm_major * 10);
    for (int i = 0; clustered && i < 3; i++)
        if (grid[i] % cluster[i] != 0)
            return hum_fail(HUM_ERR_INVALID_ARG, "launching %s: grid %ux%ux%u is not a multiple of cluster %ux%ux%u",
                            k->name, grid[0], grid[1], grid[2], cluster[0], cluster[1], cluster[2]);
    hum_status st = make_current(k);
    if (st != HUM_OK)
        return st;
    const hum_cuda_api *cu = hum_cuda();
    CUlaunchAttribute attributes[2];
    memset(attributes, 0, sizeof attributes);
    unsigned count = 0;
    if (clustered) {
        attributes[count].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attributes[count].value.clusterDim.x = cluster[0];
        attributes[count].value.clusterDim.y = cluster[1];
        attributes[count++].value.clusterDim.z = cluster[2];
    }
    if (cfg->overlap_previous && k->sm_major >= 9) {
        attributes[count].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attributes[count++].value.programmaticStreamSerializationAllowed = 1;
    }
    CUlaunchConfig launch = {
        .gridDimX = grid[0], .gridDimY = grid[1], .gridDimZ = grid[2],
        .blockDimX = block[0], .blockDimY = block[1], .blockDimZ = block[2],
        .sharedMemBytes = cfg->dynamic_smem_bytes,
        .hStream = cfg->stream,
        .attrs = count ? attributes : NULL,
        .numAttrs = count,
    };
    st = hum_cuda_check(cu->cuLaunchKernelEx(&launch, k->function, args, NULL), "cuLaunchKernelEx");
    return st == HUM_OK ? HUM_OK
                        : hum_fail_context(st, "launching %s (grid %ux%ux%u, block %ux%ux%u, %u bytes smem)", k->name,
                                           grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                           cfg->dynamic_smem_bytes);
}
