/* Primary contexts, one per device ordinal, shared by everything hum does on that device. */
#ifndef HUM_DEVICE_H
#define HUM_DEVICE_H

#include "cuda_driver.h"

/* Retains the primary context of `ordinal` on first use (released at process exit) and makes it
 * current on the calling thread. HUM_ERR_NO_DEVICE without a driver or GPU, HUM_ERR_INVALID_ARG
 * for an ordinal out of range. `ctx` may be NULL. */
hum_status hum_device_activate(int32_t ordinal, CUcontext *ctx);

/* What one SM of a device holds at once: threads, 32-bit registers, shared memory (bytes) and
 * blocks, and the shared memory the driver reserves per block beside what a kernel asks for. */
typedef struct hum_sm_limits {
    int64_t threads, registers, smem_bytes, blocks, reserved_smem_per_block;
} hum_sm_limits;

/* The SM limits of device `ordinal` (cuDeviceGetAttribute). HUM_ERR_NO_DEVICE, HUM_ERR_CUDA. */
hum_status hum_device_sm_limits(int32_t ordinal, hum_sm_limits *out);

/* What one block holds of an SM while it runs: threads in whole warps, registers as the SM
 * allocates them (per warp, in units of 256), shared memory (static + dynamic bytes) with the
 * driver's reservation per block. */
typedef struct hum_block_usage {
    int64_t threads, registers, smem_bytes;
} hum_block_usage;

hum_block_usage hum_sm_block_usage(const hum_sm_limits *sm, uint32_t threads, int32_t registers_per_thread,
                                   int64_t smem_bytes);

/* How many `guest` blocks an SM holds beside `count` `resident` blocks (0 when none fits, or
 * when the resident blocks alone exceed it). */
int32_t hum_sm_blocks_beside(const hum_sm_limits *sm, hum_block_usage resident, int32_t count, hum_block_usage guest);

/* Makes current the context that owns device pointer `dptr`; HUM_ERR_INVALID_ARG naming `what`
 * when the driver does not know the pointer. */
hum_status hum_device_bind_pointer(const void *dptr, const char *what);

#endif
