/* hum_tma_encode_2d names the field that breaks a TMA rule, before any driver call. The rules are
 * those cuTensorMapEncodeTiled documents in cuda.h (CUDA 12.0+). */
#define _GNU_SOURCE
#include "jit_support.h"
#include "tma.h"

#include <string.h>

static hum_tma_2d valid(void)
{
    /* A [1000 x 4096] bfloat16 matrix with padded rows, read in 64 x 64 tiles (128-byte rows). */
    return (hum_tma_2d){.dtype = HUM_DTYPE_BFLOAT16, .global_address = (void *)0x7f0000010000, .rows = 1000,
                        .cols = 4096, .row_stride_bytes = 8192 + 256, .box_rows = 64, .box_cols = 64,
                        .swizzle = HUM_TMA_SWIZZLE_128B};
}

static void expect_refused(hum_tma_2d d, const char *what, const char *words)
{
    hum_tensor_map map;
    memset(&map, 0x77, sizeof map);
    JT_STATUS(hum_tma_encode_2d(&d, &map), HUM_ERR_INVALID_ARG);
    JT_CHECK(strstr(hum_last_error(), words) != NULL, "%s: message lacks '%s': %s", what, words, hum_last_error());
    for (int i = 0; i < 16; i++)
        JT_CHECK(map.opaque[i] == 0, "%s: the refused map was not zeroed", what);
}

int main(void)
{
    hum_tensor_map map;
    hum_tma_2d d = valid();
    hum_status st = hum_tma_encode_2d(&d, &map);
    JT_CHECK(st != HUM_ERR_INVALID_ARG, "a valid tile was refused: %s", hum_last_error());

    d = valid(); d.dtype = HUM_DTYPE_UINT4;
    expect_refused(d, "4-bit elements", "dtype");
    d = valid(); d.dtype = HUM_DTYPE_INVALID;
    expect_refused(d, "invalid dtype", "dtype");
    d = valid(); d.global_address = (char *)d.global_address + 8;
    expect_refused(d, "8-byte aligned address", "16-byte aligned");
    d = valid(); d.global_address = NULL;
    expect_refused(d, "NULL address", "global address");
    d = valid(); d.rows = 0;
    expect_refused(d, "zero rows", "extent");
    d = valid(); d.cols = (1ull << 32) + 1;
    expect_refused(d, "2^32 + 1 columns", "extent");
    d = valid(); d.row_stride_bytes = 8200;
    expect_refused(d, "stride not a multiple of 16", "row stride 8200");
    d = valid(); d.row_stride_bytes = 4096;
    expect_refused(d, "stride shorter than a row", "at least cols");
    d = valid(); d.rows = 2; d.row_stride_bytes = 1ull << 40;
    expect_refused(d, "stride of 2^40", "below 2^40");
    d = valid(); d.box_rows = 257;
    expect_refused(d, "box of 257 rows", "1..256");
    d = valid(); d.box_cols = 0;
    expect_refused(d, "empty box", "1..256");
    d = valid(); d.box_cols = 12; d.swizzle = HUM_TMA_SWIZZLE_NONE;
    expect_refused(d, "24-byte box rows", "multiple of 16");
    d = valid(); d.box_cols = 128;
    expect_refused(d, "256-byte box rows with 128B swizzle", "swizzle span");
    d = valid(); d.box_cols = 64; d.swizzle = HUM_TMA_SWIZZLE_64B;
    expect_refused(d, "128-byte box rows with 64B swizzle", "64-byte swizzle");
    d = valid(); d.swizzle = (hum_tma_swizzle)48;
    expect_refused(d, "swizzle 48", "swizzle 48");

    /* The same limits admit every legal variant. */
    hum_tma_2d ok[] = {valid(), valid(), valid(), valid()};
    ok[1].box_cols = 16; ok[1].swizzle = HUM_TMA_SWIZZLE_32B;           /* 32-byte rows, 32B swizzle */
    ok[2].box_cols = 256; ok[2].swizzle = HUM_TMA_SWIZZLE_NONE;         /* 512-byte rows unswizzled */
    ok[3].dtype = HUM_DTYPE_FLOAT8_E4M3FN; ok[3].box_cols = 128;        /* fp8 travels as bytes */
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        st = hum_tma_encode_2d(&ok[i], &map);
        JT_CHECK(st != HUM_ERR_INVALID_ARG, "legal variant %zu refused: %s", i, hum_last_error());
    }
    JT_STATUS(hum_tma_encode_2d(NULL, &map), HUM_ERR_INVALID_ARG);
    printf("tma_validate: ok\n");
    return 0;
}
