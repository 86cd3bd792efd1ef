// The expert of a routed slot, as the align (moe/align.cu) and the combine (moe/combine.cu) both
// read it: topk_ids[i] (int32 or int64), through the expert map when there is one (int32
// [e_global]: local id, or -1 when the expert is not on this rank). An id outside
// [0, e_global), or a local id outside [0, e_local), leaves the slot with no expert.
#pragma once
#include "common.cuh"

namespace moe {

HUM_DEV int expert_of(const void *ids, int ids64, i64 i, const int *map, int e_global, int e_local)
{
    const i64 g = ids64 ? __ldg(static_cast<const i64 *>(ids) + i) : __ldg(static_cast<const int *>(ids) + i);
    if (g < 0 || g >= e_global)
        return -1;
    const int e = map ? __ldg(map + g) : static_cast<int>(g);
    return e >= 0 && e < e_local ? e : -1;
}

}  // namespace moe
