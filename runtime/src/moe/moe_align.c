/* Launching kernels/moe/align.cu (moe_align.h). */
#include "moe_align.h"

#include "internal.h"
#include "workspace.h"

#include <string.h>

/* Up to this many slots one block of 1024 threads lays them out in one launch (a few passes
 * over shared memory); past it three grids spread the counting and scattering over the SMs. */
enum { SMALL_SLOTS = 4096, THREADS = 1024 };

static const char *const names[HUM_MOE_ALIGN_KERNELS] = {"hum_moe_align", "hum_moe_count", "hum_moe_scan",
                                                         "hum_moe_scatter"};

void hum_moe_align_requests(const char *arch, hum_jit_request reqs[HUM_MOE_ALIGN_KERNELS])
{
    for (int i = 0; i < HUM_MOE_ALIGN_KERNELS; i++)
        reqs[i] = (hum_jit_request){.source = "kernels/moe/align.cu", .kernel_name = names[i], .arch = arch};
}

void hum_moe_align_unload(hum_moe_align_kernels *k)
{
    for (int i = 0; i < HUM_MOE_ALIGN_KERNELS; i++) {
        hum_kernel_destroy(k->k[i]);
        k->k[i] = NULL;
    }
}

hum_status hum_moe_align_load(int32_t ordinal, const hum_jit_result results[HUM_MOE_ALIGN_KERNELS],
                              hum_moe_align_kernels *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < HUM_MOE_ALIGN_KERNELS; i++) {
        hum_status st = hum_kernel_load(ordinal, &results[i], 2 * HUM_MOE_MAX_LOCAL_EXPERTS * 4, &out->k[i]);
        if (st != HUM_OK) {
            hum_moe_align_unload(out);
            return hum_fail_context(st, "loading %s", names[i]);
        }
    }
    return HUM_OK;
}

/* expert_ids get a slot per row, not per block: the layout of a smaller block_m (more blocks,
 * fewer rows) then fits where one of block_m was sized, as capacity / b <= capacity(block_m)
 * for every b <= block_m. */
int64_t hum_moe_route_bytes(int64_t numel, int32_t e_local, int32_t block_m)
{
    const int64_t rows = hum_moe_align_rows(numel, e_local, block_m);
    return 2 * hum_workspace_round_up(rows * 4) + hum_workspace_round_up((e_local + 1) * 4) + HUM_WORKSPACE_ALIGN +
           hum_workspace_round_up((int64_t)HUM_MOE_ALIGN_CHUNKS * e_local * 4);
}

void hum_moe_route_place(void *base, int64_t numel, int32_t e_local, int32_t block_m, hum_moe_route *out)
{
    const int64_t rows = hum_moe_align_rows(numel, e_local, block_m);
    char *p = base;
    out->sorted = (int32_t *)p;
    p += hum_workspace_round_up(rows * 4);
    out->expert_ids = (int32_t *)p;
    p += hum_workspace_round_up(rows * 4);
    out->offsets = (int32_t *)p;
    p += hum_workspace_round_up((e_local + 1) * 4);
    out->post_padded = (int32_t *)p;
    p += HUM_WORKSPACE_ALIGN;
    out->chunk_counts = (int32_t *)p;
}

hum_status hum_moe_align_launch(const hum_moe_align_kernels *k, struct CUstream_st *stream, const void *ids,
                                int32_t ids64, const int32_t *expert_map, int32_t e_global, int32_t e_local,
                                int32_t block_m, int64_t numel, const hum_moe_route *r)
{
    int32_t n = (int32_t)numel;
    int32_t max_blocks = (int32_t)(hum_moe_align_rows(numel, e_local, block_m) / block_m);
    const uint32_t smem = (uint32_t)(2 * e_local * 4);
    hum_launch_config one = {.grid = {1, 1, 1}, .block = {THREADS, 1, 1}, .dynamic_smem_bytes = smem,
                             .stream = stream};
    if (numel <= SMALL_SLOTS) {
        void *args[] = {(void *)&ids, &ids64, (void *)&expert_map, &e_global, &e_local, &block_m, &n, &max_blocks,
                        (void *)&r->sorted, (void *)&r->expert_ids, (void *)&r->offsets, (void *)&r->post_padded};
        return hum_kernel_launch(k->k[0], &one, args);
    }
    int32_t chunks = (int32_t)((numel + SMALL_SLOTS - 1) / SMALL_SLOTS);
    if (chunks > HUM_MOE_ALIGN_CHUNKS)
        chunks = HUM_MOE_ALIGN_CHUNKS;
    int32_t chunk = (int32_t)((numel + chunks - 1) / chunks);
    chunks = (int32_t)((numel + chunk - 1) / chunk);
    hum_launch_config grid = one;
    grid.grid[0] = (uint32_t)chunks;
    grid.overlap_previous = 1;
    one.overlap_previous = 1;
    void *count_args[] = {(void *)&ids, &ids64, (void *)&expert_map, &e_global, &e_local, &n, &chunk,
                          (void *)&r->chunk_counts};
    void *scan_args[] = {(void *)&r->chunk_counts, &chunks, &e_local, &block_m, &n, &max_blocks,
                         (void *)&r->sorted, (void *)&r->expert_ids, (void *)&r->offsets, (void *)&r->post_padded};
    void *scatter_args[] = {(void *)&ids, &ids64, (void *)&expert_map, &e_global, &e_local, &n, &chunk,
                            (void *)&r->chunk_counts, (void *)&r->sorted};
    hum_status st = hum_kernel_launch(k->k[1], &grid, count_args);
    if (st == HUM_OK)
        st = hum_kernel_launch(k->k[2], &one, scan_args);
    if (st == HUM_OK)
        st = hum_kernel_launch(k->k[3], &grid, scatter_args);
    return st;
}
