/* The dtype strings of the safetensors format. Sizes are in bits because F4 and F6 are sub-byte
 * (safetensors v0.6.0, commit faaeaf0); the FNUZ fp8 variants were added in 2026 (b3b714d). */
#include "safetensors_dtype.h"

#include "internal.h"

#include <string.h>

static const struct {
    const char *name;
    int32_t bits;
    hum_dtype dtype; /* HUM_DTYPE_INVALID: valid in a file, but hum has no code for it */
    int writable;    /* the writer picks this name for `dtype` */
} table[] = {
    {"BOOL", 8, HUM_DTYPE_UINT8, 0},
    {"U8", 8, HUM_DTYPE_UINT8, 1},
    {"I8", 8, HUM_DTYPE_INT8, 1},
    {"I16", 16, HUM_DTYPE_INT16, 1},
    {"U16", 16, HUM_DTYPE_UINT16, 1},
    {"I32", 32, HUM_DTYPE_INT32, 1},
    {"U32", 32, HUM_DTYPE_UINT32, 1},
    {"I64", 64, HUM_DTYPE_INT64, 1},
    {"U64", 64, HUM_DTYPE_UINT64, 1},
    {"F16", 16, HUM_DTYPE_FLOAT16, 1},
    {"BF16", 16, HUM_DTYPE_BFLOAT16, 1},
    {"F32", 32, HUM_DTYPE_FLOAT32, 1},
    {"F64", 64, HUM_DTYPE_FLOAT64, 1},
    {"C64", 64, HUM_DTYPE_INVALID, 0},
    {"F8_E4M3", 8, HUM_DTYPE_FLOAT8_E4M3FN, 1},
    {"F8_E5M2", 8, HUM_DTYPE_FLOAT8_E5M2, 1},
    {"F8_E8M0", 8, HUM_DTYPE_FLOAT8_E8M0, 1},
    {"F8_E4M3FNUZ", 8, HUM_DTYPE_INVALID, 0},
    {"F8_E5M2FNUZ", 8, HUM_DTYPE_INVALID, 0},
    {"F4", 4, HUM_DTYPE_FLOAT4_E2M1, 1},
    {"F6_E2M3", 6, HUM_DTYPE_FLOAT6_E2M3, 1},
    {"F6_E3M2", 6, HUM_DTYPE_FLOAT6_E3M2, 1},
};

hum_status hum_safetensors_dtype(const char *dtype_name, int32_t *bits, hum_dtype *dtype)
{
    if (!dtype_name)
        return hum_fail(HUM_ERR_INVALID_ARG, "safetensors dtype: NULL name");
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, dtype_name) == 0) {
            if (bits)
                *bits = table[i].bits;
            if (dtype)
                *dtype = table[i].dtype;
            return HUM_OK;
        }
    return hum_fail(HUM_ERR_FORMAT,
                    "unknown safetensors dtype \"%s\" (expected BOOL, U8, I8, I16, U16, I32, U32, I64, U64, F16, "
                    "BF16, F32, F64, C64, F8_E4M3, F8_E5M2, F8_E8M0, F8_E4M3FNUZ, F8_E5M2FNUZ, F4, F6_E2M3 or F6_E3M2)",
                    dtype_name);
}

const char *hum_safetensors_dtype_name(hum_dtype dtype)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].writable && table[i].dtype == dtype)
            return table[i].name;
    return NULL;
}
