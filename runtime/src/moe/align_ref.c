/* The host twin of kernels/moe/align.cu (hum_tools.h, HUM-SECTION moe): the routing layout,
 * in plain loops. */
#include "hum/hum_tools.h"

#include "contract/moe_layout.h"
#include "internal.h"

#include <stdint.h>

int64_t hum_moe_align_rows(int64_t numel, int64_t e_local, int32_t block_m)
{
    if (numel < 0 || e_local < 1 || block_m < 1)
        return -1;
    /* rows past INT64_MAX (the padding's and the rounding's) name no layout either; the contract's
     * sum adds block_m before it takes the 1 off, so that sum must fit */
    const int64_t runs = e_local < numel ? e_local : numel;
    if (numel > INT64_MAX - block_m || (runs > 0 && block_m - 1 > (INT64_MAX - block_m - numel) / runs))
        return -1;
    return hum_moe_indexed_capacity(numel, e_local, block_m);
}

/* The local expert of slot i, or -1 (as expert_of in kernels/moe/align.cu). */
static int32_t expert_of(const hum_tensor *ids, int64_t i, const int32_t *map, int32_t e_global, int32_t e_local)
{
    const int64_t g = ids->dtype == HUM_DTYPE_INT64 ? ((const int64_t *)ids->data)[i] : ((const int32_t *)ids->data)[i];
    if (g < 0 || g >= e_global)
        return -1;
    const int32_t e = map ? map[g] : (int32_t)g;
    return e >= 0 && e < e_local ? e : -1;
}

hum_status hum_moe_align_reference(const hum_tensor *topk_ids, const int32_t *expert_map, int32_t e_global,
                                   int32_t e_local, int32_t block_m, int32_t *sorted, int32_t *expert_ids,
                                   int32_t *offsets, int32_t *post_padded)
{
    if (!topk_ids || !sorted || !expert_ids || !offsets || !post_padded)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_align_reference: NULL %s",
                        !topk_ids ? "topk_ids" : !sorted ? "sorted" : !expert_ids ? "expert_ids"
                                                 : !offsets ? "offsets" : "post_padded");
    const hum_tensor *t = topk_ids;
    if (t->memory != HUM_MEMORY_HOST || t->rank != 2 || (t->dtype != HUM_DTYPE_INT32 && t->dtype != HUM_DTYPE_INT64) ||
        t->shape[0] < 0 || t->shape[1] < 1 || (t->shape[0] > 0 && !t->data) ||
        (t->strides[1] > 1 || (t->strides[0] != 0 && t->strides[0] != t->shape[1])))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_align_reference: topk_ids must be a contiguous host int32 or "
                        "int64 tensor [M, top_k] (M >= 0, top_k >= 1)");
    if (e_global < 1 || e_local < 1 || block_m < 1)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_align_reference: e_global %d, e_local %d, block_m %d (expected "
                        ">= 1 each)", e_global, e_local, block_m);
    const int64_t numel = t->shape[0] * t->shape[1];
    const int64_t rows = hum_moe_align_rows(numel, e_local, block_m);
    if (rows > INT32_MAX)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_align_reference: %lld slots take up to %lld rows (at most "
                        "2^31 - 1)", (long long)numel, (long long)rows);
    offsets[0] = 0;
    for (int32_t e = 0; e < e_local; e++) {
        int64_t count = 0;
        for (int64_t i = 0; i < numel; i++)
            count += expert_of(t, i, expert_map, e_global, e_local) == e;
        int32_t row = offsets[e];
        for (int64_t i = 0; i < numel; i++)
            if (expert_of(t, i, expert_map, e_global, e_local) == e)
                sorted[row++] = (int32_t)i;
        const int32_t end = offsets[e] + (int32_t)((count + block_m - 1) / block_m * block_m);
        while (row < end)
            sorted[row++] = (int32_t)numel;
        for (int32_t b = offsets[e] / block_m; b < end / block_m; b++)
            expert_ids[b] = e;
        offsets[e + 1] = end;
    }
    *post_padded = offsets[e_local];
    for (int64_t b = offsets[e_local] / block_m; b < rows / block_m; b++)
        expert_ids[b] = HUM_MOE_SKIP_BLOCK;
    return HUM_OK;
}
