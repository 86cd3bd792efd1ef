/* Kernels: a compiled cubin loaded on a device (module + function), and launches through
 * cuLaunchKernelEx. For libhum's layers and the GPU tests. */
#ifndef HUM_LAUNCH_H
#define HUM_LAUNCH_H

#include "hum/hum_tools.h"

/* A compiled kernel loaded on a device: module + function. Thread-safe to launch concurrently. */
typedef struct hum_kernel hum_kernel;

/* Loads compiled->cubin on device `device_ordinal` and finds compiled->lowered_name in it.
 * dynamic_smem_bytes is the most dynamic shared memory any launch will ask for; it is opted in
 * here, once (cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES), never per launch.
 * Errors: HUM_ERR_NO_DEVICE; HUM_ERR_INVALID_ARG (NULL, negative smem, smem beyond the device's
 * opt-in maximum, named with both numbers); HUM_ERR_CUDA (a cubin for another architecture, a
 * symbol not in it). */
hum_status hum_kernel_load(int32_t device_ordinal, const hum_jit_result *compiled, int32_t dynamic_smem_bytes,
                           hum_kernel **out);
void hum_kernel_destroy(hum_kernel *k);

typedef struct hum_launch_config {
    uint32_t grid[3];            /* blocks; grid[0] >= 1, grid[1] and grid[2] 0 count as 1 */
    uint32_t block[3];           /* threads; block[0] >= 1, block[1] and block[2] 0 count as 1 */
    uint32_t cluster[3];         /* thread-block cluster (sm_90+), dividing grid; all 0 or 1: none */
    uint32_t dynamic_smem_bytes; /* at most what hum_kernel_load opted in to */
    struct CUstream_st *stream;  /* the host's stream; NULL: the legacy default stream */
    /* nonzero: on sm_90 and newer the kernel may be scheduled before the previous kernel of the
     * stream has finished (programmatic dependent launch); it must wait for that kernel before
     * reading its results (griddepcontrol.wait, kernels/ptx/griddep.cuh). Ignored before sm_90 */
    int32_t overlap_previous;
} hum_launch_config;

/* Launches k (cuLaunchKernelEx) with args[i] pointing at the value of parameter i, as the
 * driver's kernelParams. Asynchronous. HUM_ERR_INVALID_ARG for a shape or smem outside the
 * limits above; HUM_ERR_CUDA when the driver refuses the launch. */
hum_status hum_kernel_launch(const hum_kernel *k, const hum_launch_config *cfg, void **args);

/* How many clusters of `cluster_x` blocks of k (threads, smem bytes of dynamic shared memory, a
 * cluster along x) the device holds at once (cuOccupancyMaxActiveClusters): a GPC holds whole
 * clusters only. HUM_ERR_CUDA when the driver refuses the query. */
hum_status hum_kernel_max_clusters(const hum_kernel *k, uint32_t threads, uint32_t smem, uint32_t cluster_x,
                                   int32_t *out);

/* How many blocks of `guest` (guest_threads threads, guest_smem bytes of dynamic shared memory)
 * an SM holds beside `count` resident blocks of `resident` (threads, smem): the threads,
 * registers, shared memory and blocks the device's SM has, less theirs; 0 when none fits. Both
 * kernels are loaded on the same device. A kernel launched to overlap the one before it
 * (overlap_previous) that finds no room waits for the SM; where that matters, as for persistent
 * grids whose CTAs wait on each other, this says whether it can be let in early. */
int32_t hum_kernel_blocks_beside(const hum_kernel *resident, uint32_t threads, uint32_t smem, int32_t count,
                                 const hum_kernel *guest, uint32_t guest_threads, uint32_t guest_smem);

#endif
