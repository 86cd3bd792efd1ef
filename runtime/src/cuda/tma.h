#ifndef HUM_TMA_H
#define HUM_TMA_H

#include "hum/hum.h"

/*
 * TMA (sm_90+): a 2-D tensor map for cp.async.bulk.tensor, encoded by cuTensorMapEncodeTiled
 * with no interleave, no L2 promotion, zero fill out of bounds and unit element strides. Passed
 * to a kernel by value (a `const __grid_constant__ CUtensorMap` parameter): put its address in
 * the launch's args. 128 bytes; hum_tma_encode_2d handles the 64-byte alignment the driver needs.
 */
typedef struct hum_tensor_map {
    uint64_t opaque[16];
} hum_tensor_map;

typedef enum hum_tma_swizzle {
    HUM_TMA_SWIZZLE_NONE = 0,
    HUM_TMA_SWIZZLE_32B = 32,  /* box rows of at most 32 bytes */
    HUM_TMA_SWIZZLE_64B = 64,  /* at most 64 bytes */
    HUM_TMA_SWIZZLE_128B = 128 /* at most 128 bytes */
} hum_tma_swizzle;

typedef struct hum_tma_2d {
    hum_dtype dtype;           /* element type of 8, 16, 32 or 64 bits (sub-byte data: its int32 words) */
    void *global_address;      /* device memory, 16-byte aligned */
    uint64_t rows, cols;       /* extent: rows (outer), cols (inner, contiguous), in elements, 1..2^32 */
    uint64_t row_stride_bytes; /* multiple of 16, >= cols * element size, < 2^40 */
    uint32_t box_rows, box_cols; /* the tile one copy moves: 1..256 each; box_cols * element size a
                                  * multiple of 16 bytes and within the swizzle span */
    hum_tma_swizzle swizzle;   /* shared-memory bank swizzle of the tile */
} hum_tma_2d;

/* Encodes `desc`. The constraints above are checked first (HUM_ERR_INVALID_ARG naming the
 * field and its limit, no driver needed); then HUM_ERR_NO_DEVICE or HUM_ERR_CUDA from the driver. */
hum_status hum_tma_encode_2d(const hum_tma_2d *desc, hum_tensor_map *out);

#endif
