/* The MoE routing layout on the GPU (kernels/moe/align.cu; the layout and its host twin:
 * hum_tools.h, HUM-SECTION moe): compile requests, loads and the launches of one forward. */
#ifndef HUM_MOE_ALIGN_H
#define HUM_MOE_ALIGN_H

#include "hum/hum_tools.h"
#include "jit.h"
#include "launch.h"

enum {
    HUM_MOE_ALIGN_KERNELS = 4,   /* hum_moe_align, hum_moe_count, hum_moe_scan, hum_moe_scatter */
    HUM_MOE_MAX_LOCAL_EXPERTS = 4096, /* the kernels count in 2 x e_local int32 of shared memory */
    HUM_MOE_ALIGN_CHUNKS = 128   /* most blocks of the counting and scattering grids */
};

typedef struct hum_moe_align_kernels {
    hum_kernel *k[HUM_MOE_ALIGN_KERNELS];
} hum_moe_align_kernels;

/* Device arrays of one forward's layout (hum_tools.h: sorted, expert_ids, offsets,
 * post_padded), and chunk_counts int32 [HUM_MOE_ALIGN_CHUNKS][e_local] for the large path. */
typedef struct hum_moe_route {
    int32_t *sorted, *expert_ids, *offsets, *post_padded, *chunk_counts;
} hum_moe_route;

/* The compile requests of the align kernels for `arch` (no generated constants: one set of
 * kernels serves every layer). */
void hum_moe_align_requests(const char *arch, hum_jit_request reqs[HUM_MOE_ALIGN_KERNELS]);
/* Loads what those requests compiled; on failure nothing stays loaded. */
hum_status hum_moe_align_load(int32_t ordinal, const hum_jit_result results[HUM_MOE_ALIGN_KERNELS],
                              hum_moe_align_kernels *out);
void hum_moe_align_unload(hum_moe_align_kernels *k);

/* Bytes of the layout's arrays for `numel` slots (each array 256-byte aligned), and the
 * arrays placed from `base`: the arrays of any block_m up to the one sized for fit in those
 * bytes. numel and e_local as the forward checked them. */
int64_t hum_moe_route_bytes(int64_t numel, int32_t e_local, int32_t block_m);
void hum_moe_route_place(void *base, int64_t numel, int32_t e_local, int32_t block_m, hum_moe_route *out);

/* Lays out the numel (>= 1) slots of topk_ids (device, int32 or int64 as ids64 says) on
 * `stream`: one launch up to a few thousand slots, three above. */
hum_status hum_moe_align_launch(const hum_moe_align_kernels *k, struct CUstream_st *stream, const void *ids,
                                int32_t ids64, const int32_t *expert_map, int32_t e_global, int32_t e_local,
                                int32_t block_m, int64_t numel, const hum_moe_route *route);

#endif
