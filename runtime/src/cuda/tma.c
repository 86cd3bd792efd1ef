/* 2-D TMA tensor maps (cuTensorMapEncodeTiled), with the driver's constraints checked up front
 * so that a bad tile names the field at fault instead of a bare CUDA_ERROR_INVALID_VALUE. */
#include "cuda_driver.h"
#include "internal.h"
#include "tma.h"

#include <string.h>

_Static_assert(sizeof(CUtensorMap) == sizeof(hum_tensor_map), "hum_tensor_map must hold a CUtensorMap");

static int element_type(hum_dtype t, CUtensorMapDataType *out)
{
    uint32_t bits = t & 0xff, kind = (t >> 24) & 0xf;
    switch (t) {
    case HUM_DTYPE_FLOAT16: *out = CU_TENSOR_MAP_DATA_TYPE_FLOAT16; return 1;
    case HUM_DTYPE_BFLOAT16: *out = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16; return 1;
    case HUM_DTYPE_FLOAT32: *out = CU_TENSOR_MAP_DATA_TYPE_FLOAT32; return 1;
    case HUM_DTYPE_FLOAT64: *out = CU_TENSOR_MAP_DATA_TYPE_FLOAT64; return 1;
    case HUM_DTYPE_INT32: *out = CU_TENSOR_MAP_DATA_TYPE_INT32; return 1;
    case HUM_DTYPE_INT64: *out = CU_TENSOR_MAP_DATA_TYPE_INT64; return 1;
    default: break;
    }
    if (kind < HUM_KIND_UINT || kind > HUM_KIND_UFLOAT)
        return 0;
    /* TMA only moves bytes: any other type of a supported width travels as unsigned words. */
    switch (bits) {
    case 8: *out = CU_TENSOR_MAP_DATA_TYPE_UINT8; return 1;
    case 16: *out = CU_TENSOR_MAP_DATA_TYPE_UINT16; return 1;
    case 32: *out = CU_TENSOR_MAP_DATA_TYPE_UINT32; return 1;
    case 64: *out = CU_TENSOR_MAP_DATA_TYPE_UINT64; return 1;
    default: return 0;
    }
}

hum_status hum_tma_encode_2d(const hum_tma_2d *d, hum_tensor_map *out)
{
    if (!d || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_tma_encode_2d: desc or out is NULL");
    memset(out, 0, sizeof *out);
    CUtensorMapDataType type;
    if (!element_type(d->dtype, &type))
        return hum_fail(HUM_ERR_INVALID_ARG, "TMA map: dtype 0x%08x is not an 8, 16, 32 or 64-bit type", d->dtype);
    uint64_t elem = (d->dtype & 0xff) / 8;
    if (!d->global_address || (uintptr_t)d->global_address % 16 != 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "TMA map: global address %p is not 16-byte aligned device memory",
                        d->global_address);
    if (d->rows == 0 || d->cols == 0 || d->rows > (1ull << 32) || d->cols > (1ull << 32))
        return hum_fail(HUM_ERR_INVALID_ARG, "TMA map: extent %llu x %llu: each must be 1..2^32",
                        (unsigned long long)d->rows, (unsigned long long)d->cols);
    if (d->row_stride_bytes % 16 != 0 || d->row_stride_bytes < d->cols * elem || d->row_stride_bytes >= (1ull << 40))
        return hum_fail(
            HUM_ERR_INVALID_ARG,
            "TMA map: row stride %llu bytes: expected a multiple of 16, at least cols * %llu = %llu, below 2^40",
            (unsigned long long)d->row_stride_bytes, (unsigned long long)elem, (unsigned long long)(d->cols * elem));
    if (d->box_rows == 0 || d->box_cols == 0 || d->box_rows > 256 || d->box_cols > 256)
        return hum_fail(HUM_ERR_INVALID_ARG, "TMA map: box %u x %u: each must be 1..256", d->box_rows, d->box_cols);
    uint64_t box_row_bytes = d->box_cols * elem;
    if (box_row_bytes % 16 != 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "TMA map: box row of %u elements is %llu bytes, not a multiple of 16",
                        d->box_cols, (unsigned long long)box_row_bytes);
    CUtensorMapSwizzle swizzle;
    switch (d->swizzle) {
    case HUM_TMA_SWIZZLE_NONE: swizzle = CU_TENSOR_MAP_SWIZZLE_NONE; break;
    case HUM_TMA_SWIZZLE_32B: swizzle = CU_TENSOR_MAP_SWIZZLE_32B; break;
    case HUM_TMA_SWIZZLE_64B: swizzle = CU_TENSOR_MAP_SWIZZLE_64B; break;
    case HUM_TMA_SWIZZLE_128B: swizzle = CU_TENSOR_MAP_SWIZZLE_128B; break;
    default:
        return hum_fail(HUM_ERR_INVALID_ARG, "TMA map: swizzle %d: expected 0, 32, 64 or 128 (bytes)", (int)d->swizzle);
    }
    if (d->swizzle != HUM_TMA_SWIZZLE_NONE && box_row_bytes > (uint64_t)d->swizzle)
        return hum_fail(HUM_ERR_INVALID_ARG, "TMA map: box row of %llu bytes exceeds the %d-byte swizzle span",
                        (unsigned long long)box_row_bytes, (int)d->swizzle);
    const hum_cuda_api *cu;
    hum_status st = hum_cuda_load(&cu);
    if (st != HUM_OK)
        return st;
    CUtensorMap map; /* the driver wants 64-byte alignment, which this type carries */
    const cuuint64_t dims[2] = {d->cols, d->rows};
    const cuuint64_t strides[1] = {d->row_stride_bytes};
    const cuuint32_t box[2] = {d->box_cols, d->box_rows};
    const cuuint32_t element_strides[2] = {1, 1};
    st = hum_cuda_check(cu->cuTensorMapEncodeTiled(&map, type, 2, d->global_address, dims, strides, box,
                                                   element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                                   CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                        "cuTensorMapEncodeTiled");
    if (st != HUM_OK)
        return hum_fail_context(st, "TMA map of %llu x %llu, box %u x %u", (unsigned long long)d->rows,
                                (unsigned long long)d->cols, d->box_rows, d->box_cols);
    memcpy(out, &map, sizeof *out);
    return HUM_OK;
}
