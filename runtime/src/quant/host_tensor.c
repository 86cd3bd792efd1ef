/* Host tensors and the bulk data moves (transpose, column gather, row re-pitch) that turn
 * checkpoint layouts into the standard format. */
#include "internal.h"
#include "hum_ffi.h"

#include <stdlib.h>
#include <string.h>

static int valid_elem(int32_t e) { return e == 1 || e == 2 || e == 4 || e == 8; }

hum_status hum_host_tensor_alloc(hum_tensor *t, hum_dtype dtype, int32_t rank, const int64_t *shape)
{
    if (t)
        memset(t, 0, sizeof *t); /* a failed call leaves no pointer to free */
    if (!t || (rank > 0 && !shape) || rank < 0 || rank > HUM_MAX_RANK)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_host_tensor_alloc: NULL tensor or shape, or rank %d outside [0, 4]",
                        rank);
    /* the dtype's own check (0xdead passed a test of its low byte alone) */
    const int32_t elem = hum_dtype_code_size(dtype);
    if (elem == 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_host_tensor_alloc: invalid dtype 0x%08x", (unsigned)dtype);
    size_t bytes = (size_t)elem;
    for (int32_t d = 0; d < rank; d++)
        if (shape[d] < 0 || __builtin_mul_overflow(bytes, (size_t)shape[d], &bytes))
            return hum_fail(HUM_ERR_INVALID_ARG, "hum_host_tensor_alloc: bad shape[%d] = %lld", d, (long long)shape[d]);
    void *data = calloc(bytes ? bytes : 1, 1);
    if (!data)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_host_tensor_alloc: cannot allocate %zu bytes", bytes);
    t->data = data;
    t->dtype = dtype;
    t->rank = rank;
    for (int32_t d = 0; d < rank; d++)
        t->shape[d] = shape[d];
    t->memory = HUM_MEMORY_HOST;
    return HUM_OK;
}

void hum_host_tensor_free(hum_tensor *t)
{
    if (!t)
        return;
    free(t->data);
    memset(t, 0, sizeof *t);
}

/* Blocked so that both the rows read and the columns written stay in cache. */
#define TRANSPOSE_BODY(T)                                                                                      \
    for (int64_t b = 0; b < batch; b++) {                                                                      \
        const T *s = (const T *)src + b * rows * cols;                                                         \
        T *d = (T *)dst + b * rows * cols;                                                                     \
        for (int64_t r0 = 0; r0 < rows; r0 += 32)                                                              \
            for (int64_t c0 = 0; c0 < cols; c0 += 32) {                                                        \
                int64_t r1 = r0 + 32 < rows ? r0 + 32 : rows, c1 = c0 + 32 < cols ? c0 + 32 : cols;            \
                for (int64_t r = r0; r < r1; r++)                                                              \
                    for (int64_t c = c0; c < c1; c++)                                                          \
                        d[c * rows + r] = s[r * cols + c];                                                     \
            }                                                                                                  \
    }

hum_status hum_host_transpose(const void *src, void *dst, int64_t batch, int64_t rows, int64_t cols,
                              int32_t elem_bytes)
{
    if (batch < 0 || rows < 0 || cols < 0 || !valid_elem(elem_bytes) ||
        ((!src || !dst) && batch * rows * cols > 0) || (src == dst && rows > 1 && cols > 1))
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "hum_host_transpose: bad arguments (batch %lld, rows %lld, cols %lld, element %d bytes)",
                        (long long)batch, (long long)rows, (long long)cols, elem_bytes);
    switch (elem_bytes) {
    case 1: TRANSPOSE_BODY(uint8_t) break;
    case 2: TRANSPOSE_BODY(uint16_t) break;
    case 4: TRANSPOSE_BODY(uint32_t) break;
    default: TRANSPOSE_BODY(uint64_t) break;
    }
    return HUM_OK;
}

hum_status hum_host_gather_columns(const void *src, void *dst, int64_t rows, int64_t src_cols, int64_t dst_cols,
                                   const int32_t *index, int32_t elem_bytes)
{
    if (rows < 0 || src_cols < 0 || dst_cols < 0 || !valid_elem(elem_bytes) ||
        (!index && dst_cols > 0) || ((!src || !dst) && rows * dst_cols > 0) || (src == dst && rows * dst_cols > 0))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_host_gather_columns: bad arguments");
    for (int64_t j = 0; j < dst_cols; j++)
        if (index[j] < 0 || index[j] >= src_cols)
            return hum_fail(HUM_ERR_INVALID_ARG, "hum_host_gather_columns: index[%lld] = %d outside [0, %lld)",
                            (long long)j, index[j], (long long)src_cols);
    const char *s = src;
    char *d = dst;
    size_t e = (size_t)elem_bytes;
    for (int64_t r = 0; r < rows; r++) {
        const char *sr = s + (size_t)(r * src_cols) * e;
        char *dr = d + (size_t)(r * dst_cols) * e;
        for (int64_t j = 0; j < dst_cols; j++)
            memcpy(dr + (size_t)j * e, sr + (size_t)index[j] * e, e);
    }
    return HUM_OK;
}

hum_status hum_host_copy_rows(const void *src, int64_t src_row_bytes, void *dst, int64_t dst_row_bytes, int64_t rows)
{
    if (rows < 0 || src_row_bytes < 0 || dst_row_bytes < src_row_bytes ||
        ((!src || !dst) && rows > 0 && dst_row_bytes > 0))
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "hum_host_copy_rows: rows of %lld bytes do not fit rows of %lld bytes",
                        (long long)src_row_bytes, (long long)dst_row_bytes);
    const char *s = src;
    char *d = dst;
    for (int64_t r = 0; r < rows; r++) {
        memcpy(d + r * dst_row_bytes, s + r * src_row_bytes, (size_t)src_row_bytes);
        memset(d + r * dst_row_bytes + src_row_bytes, 0, (size_t)(dst_row_bytes - src_row_bytes));
    }
    return HUM_OK;
}
