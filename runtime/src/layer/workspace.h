/* The hum_workspace object (hum.h, HUM-SECTION layer): per-forward scratch memory on the GPU.
 * Layout from its base (256-byte aligned):
 *   locks     int32 [SMs x HUM_MAX_CTAS_PER_SM], rounded up to 256 bytes: the stream-K locks of
 *             every kernel of every layer, one per stream-K tile or (slices summed in the
 *             workspace) per CTA (a grid never exceeds SMs x CTAs per SM); zeroed at create,
 *             and every launch leaves them zero (kernels/gemm/schedule.cuh)
 *   ready     int32 [2 + HUM_WORKSPACE_READY_BLOCKS], 4096 bytes: the counters of a GEMM that
 *             quantizes its own A (quantize_a; kernels/gemm/quant_a.cuh); zeroed at create, and
 *             every launch leaves them zero
 *   partials  the stream-K partial tiles of the table in force (hum_workspace_partial_bytes:
 *             none unless a tuning sums its slices in the workspace), when the workspace holds
 *             them beside the rows below; else none, and those GEMMs run without stream-K
 *             (hum_workspace_partials, hum_workspace_areas)
 *   rows      the rest: A of an act-order forward gathered into the weights' K order
 *             (kernels/prep/permute_a.cu), rows of K 16-bit elements, packed; or the host's
 *             16-bit A quantized for a layer of 8-bit A (kernels/prep/quantize_a.cu): codes
 *             [rows][K rounded up to 16], then from the next 256 bytes their float32 scales
 *             [rows] or [rows][groups]; or, for a layer that rounds A through mxfp8
 *             (a_round), the rounded rows of K 16-bit elements, packed.
 * A MoE layer's forward (moe/moe.h, hum_moe_areas) sizes the partials for the larger of its
 * two expert GEMMs' tables and puts its own areas in the rest: first the hidden rows it
 * quantizes or rounds for the gate/up GEMM, laid out as rows above, then the rows between its
 * steps. Its expert GEMMs take their A made and use only the locks and the partials, within
 * that part alone: a table a reload puts in force after the sizing may need more partials,
 * and then runs without them (hum_expert_gemm_forward_in). */
#ifndef HUM_WORKSPACE_H
#define HUM_WORKSPACE_H

#include "gemm_family.h"
#include "hazard.h"
#include "hum/hum.h"
#include "hum/hum_tools.h"

struct hum_workspace {
    hum_runtime *rt;
    hum_hazard slot;  /* the dispatch table the forward running through it uses */
    int32_t ordinal;
    int32_t owned;    /* hum allocated `base` */
    void *base;
    int64_t bytes;
    int64_t lock_bytes;
    /* the kernel families' binding cache (A's tensor map for wgmma): used by the forward
     * running through this workspace only, so never by two threads at once */
    hum_gemm_bind_state bind;
};

/* The boundary every area of a workspace starts on (the layer's and a MoE layer's alike: TMA
 * maps and vector loads of what the areas hold need it), and `bytes` rounded up to it. */
enum { HUM_WORKSPACE_ALIGN = 256 };
int64_t hum_workspace_round_up(int64_t bytes);

/* Bytes of the lock area for a device of `sm_count` SMs: the locks and the ready counters. */
int64_t hum_workspace_lock_bytes(int32_t sm_count);

/* Row blocks of A a GEMM that quantizes its own A (quantize_a) counts in one launch; a forward's
 * chunk of more rows is quantized before its GEMM instead (layer_forward.c). */
enum { HUM_WORKSPACE_READY_BLOCKS = 1022 };
/* Where those counters are (kernels/contract/gemm_args.h, a_ready). */
int *hum_workspace_ready(const hum_workspace *ws);

/* For a layer of 8-bit A: the row stride of the codes the forward quantizes A into (K rounded
 * up to 16 bytes, the GEMM's 16-byte loads), and the bytes of one row, codes and float32 scales
 * (one per row, or per a_group columns); 0 for 16-bit A. */
int64_t hum_workspace_codes_stride(const hum_layer_config *c);
int64_t hum_workspace_quantized_row_bytes(const hum_layer_config *c);
/* Bytes of one row of A a dense forward makes in the workspace: K 16-bit elements for act-order
 * (permuted) and mxfp8 rounding (a_round), hum_workspace_quantized_row_bytes for 8-bit A, 0
 * for neither. */
int64_t hum_workspace_staged_row_bytes(const hum_layer_config *c);
/* The bytes the codes of `rows` quantized rows take before their scales start (the two
 * regions each aligned): where a forward's scales follow its codes. */
int64_t hum_workspace_codes_bytes(const hum_layer_config *c, int64_t rows);
/* Bytes of the rows area for `rows` rows of A a forward makes: hum_workspace_staged_row_bytes
 * each, packed and rounded up; for 8-bit A the codes and their scales, two regions each rounded
 * up. */
int64_t hum_workspace_rows_bytes(const hum_layer_config *c, int64_t rows);
/* The most quantized rows whose codes and scales (the two regions, each aligned, as
 * hum_workspace_bytes counts them) fit in `room` bytes: max_m in a workspace of
 * hum_layer_workspace_size(max_m), so that M = max_m runs in one chunk. */
int64_t hum_workspace_quantized_rows(const hum_layer_config *c, int64_t room);

/* Bytes of the stream-K partial tiles of a plan's kernels on a device of `sm_count` SMs: the
 * most over its entries whose stream-K slices sum in the workspace (stream_k_sum) of one 32-bit
 * tile [block M x block N] per CTA of the grid (SMs x CTAs per SM), rounded up to 256; 0
 * without such entries. */
int64_t hum_workspace_partial_bytes(const hum_layer_plan *plan, int32_t sm_count);

/* hum_layer_workspace_size for a plan on a device of `sm_count` SMs; max_m within the limit
 * that function checks. */
int64_t hum_workspace_bytes(const hum_layer_plan *plan, int32_t sm_count, int64_t max_m);

/* Where a forward puts the `partial_bytes` partial tiles of its table: after ws's locks when
 * they end within the first `bytes` of ws; NULL otherwise, and without partial tiles (none to
 * put, too little room) its GEMMs run without stream-K summed in the workspace, every tile
 * whole (hum_gemm_launch). */
void *hum_workspace_partials(const hum_workspace *ws, int64_t bytes, int64_t partial_bytes);

/* A forward's areas of ws for a table of `partial_bytes` partial tiles: *partials as
 * hum_workspace_partials puts them where ws holds them and `min_rows` bytes of rows beyond,
 * *rows after them (or after the locks) and *room, the bytes of ws from *rows on. */
void hum_workspace_areas(const hum_workspace *ws, int64_t partial_bytes, int64_t min_rows, void **partials,
                         char **rows, int64_t *room);

#endif
