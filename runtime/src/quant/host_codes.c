/* Element-wise work on integer codes for the format converters: offsets, range checks, and the
 * act-order permutation derived from g_idx. */
#include "internal.h"
#include "hum_ffi.h"

#include <stdlib.h>
#include <string.h>

hum_status hum_host_add_codes(uint8_t *codes, int64_t count, int32_t delta, int32_t bits)
{
    if (count < 0 || (!codes && count > 0) || bits < 1 || bits > 8)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_host_add_codes: bad arguments (count %lld, bits %d)",
                        (long long)count, bits);
    unsigned mask = (1u << bits) - 1u, d = (unsigned)delta & mask;
    for (int64_t i = 0; i < count; i++)
        codes[i] = (uint8_t)((codes[i] + d) & mask);
    return HUM_OK;
}

#define RANGE_BODY(T)                                                                                          \
    {                                                                                                          \
        const T *v = data;                                                                                     \
        for (int64_t i = 0; i < count; i++) {                                                                  \
            int64_t x = (int64_t)v[i];                                                                         \
            lo = x < lo ? x : lo;                                                                              \
            hi = x > hi ? x : hi;                                                                              \
        }                                                                                                      \
    }

hum_status hum_host_int_range(const void *data, hum_dtype dtype, int64_t count, int64_t *min, int64_t *max)
{
    if (count < 1 || !data || !min || !max)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_host_int_range: needs a non-empty array and two outputs");
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    switch (dtype) {
    case HUM_DTYPE_UINT8: RANGE_BODY(uint8_t) break;
    case HUM_DTYPE_INT8: RANGE_BODY(int8_t) break;
    case HUM_DTYPE_UINT16: RANGE_BODY(uint16_t) break;
    case HUM_DTYPE_INT16: RANGE_BODY(int16_t) break;
    case HUM_DTYPE_UINT32: RANGE_BODY(uint32_t) break;
    case HUM_DTYPE_INT32: RANGE_BODY(int32_t) break;
    case HUM_DTYPE_INT64: RANGE_BODY(int64_t) break;
    default:
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_host_int_range: dtype 0x%08x is not an 8/16/32/64-bit integer",
                        (unsigned)dtype);
    }
    *min = lo;
    *max = hi;
    return HUM_OK;
}

hum_status hum_host_group_order(const int32_t *g_idx, int64_t k, int64_t group_size, int32_t *k_perm,
                                int32_t *identity)
{
    if (!g_idx || !k_perm || !identity || k < 1 || k > INT32_MAX || group_size < 1)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_host_group_order: bad arguments (K %lld, group size %lld)",
                        (long long)k, (long long)group_size);
    int64_t groups = hum_ceil_div(k, group_size);
    int64_t *start = calloc((size_t)groups + 1, sizeof *start);
    if (!start)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_host_group_order: out of memory");
    hum_status s = HUM_OK;
    for (int64_t i = 0; i < k && s == HUM_OK; i++)
        if (g_idx[i] < 0 || g_idx[i] >= groups)
            s = hum_fail(HUM_ERR_FORMAT, "g_idx[%lld] = %d is outside [0, %lld) for K %lld and group size %lld",
                         (long long)i, g_idx[i], (long long)groups, (long long)k, (long long)group_size);
        else
            start[g_idx[i] + 1]++;
    for (int64_t g = 0; g < groups && s == HUM_OK; g++) {
        int64_t want = g + 1 < groups ? group_size : k - g * group_size;
        if (start[g + 1] != want)
            s = hum_fail(
                HUM_ERR_FORMAT,
                "g_idx gives group %lld %lld channels, expected %lld (group size %lld): not an act-order grouping",
                (long long)g, (long long)start[g + 1], (long long)want, (long long)group_size);
        start[g + 1] += start[g];
    }
    if (s == HUM_OK) {
        /* Counting sort: stable, so channels of one group keep their checkpoint order. */
        int32_t same = 1;
        for (int64_t i = 0; i < k; i++) {
            int64_t j = start[g_idx[i]]++;
            k_perm[j] = (int32_t)i;
            same &= j == i;
        }
        *identity = same;
    }
    free(start);
    return s;
}
