/* The hum_moe object (hum.h, HUM-SECTION moe) inside libhum: the files of moe/ share it.
 *   moe.c          options, creation from standard weights (checks, expert shard), info, destroy
 *   moe_prepare.c  the two expert GEMMs (layer/, hum_expert_gemm_*) and the kernels around them,
 *                  prepared in parallel; CPU-only compiles; workspace sizes
 *   moe_forward.c  the hot path: align, gate/up GEMM, activation, down GEMM, combine
 *   moe_grouped.c  the hot path of rows already grouped by expert: gate/up, activation, down
 *   moe_load.c     from checkpoints: the experts' projections found, gate and up joined
 *   moe_spec.c     MoE SPEC strings and their random weights
 *   moe_align.c    the routing layout on the GPU (kernels/moe/align.cu)
 *   moe_kernels.c  the activation and the combine (kernels/moe/act.cu, combine.cu)
 *   align_ref.c    the layout's host twin; moe_ref.c the float64 MoE layer (hum_tools.h) */
#ifndef HUM_MOE_H
#define HUM_MOE_H

#include "hum/hum_tools.h"
#include "moe_align.h"
#include "moe_kernels.h"

struct hum_moe {
    hum_runtime *rt;
    hum_moe_options opts;      /* experts NULL: the kept weights are the layer's experts */
    hum_standard_weight w13;   /* host copies until prepared */
    hum_standard_weight w2;
    hum_dtype activation_dtype;
    int64_t experts, hidden, intermediate;
    /* prepared */
    int32_t prepared;
    hum_layer *gate_up, *down;  /* the expert GEMMs, indexed */
    hum_moe_align_kernels align;
    hum_kernel *act, *combine;
    int32_t sm_count;
    int32_t block_m_max;        /* the largest block_m of the GEMMs' tables: sizes the layout
                                 * (a reload keeps every block_m: hum_layer_pair_experts) */
    double prepare_ms;
};

/* Rows of the gate/up projection per intermediate column: 2 (gate and up) for the gated
 * activations, 1 for relu2 (hum.h, hum_moe_activation). */
int64_t hum_moe_gated(int32_t activation);

/* The options each expert GEMM plans with: the activation dtype, or for the gate/up GEMM of a
 * layer whose host quantizes hidden (hum_moe_options.hidden_dtype) those codes and their scale
 * groups, as the host passes them (a_fixed), C in the activation dtype. */
hum_layer_options hum_moe_gemm_options(const hum_moe *moe, int gate_up);

/* Whether the layer makes its gate/up GEMM's A from the host's 16-bit hidden rows (quantized, or
 * rounded through mxfp8) into the workspace's hidden area: never when the host quantized them
 * (hum_moe_options.hidden_dtype). The prepared layer only. */
int hum_moe_makes_hidden(const hum_moe *moe);

/* Whether a spec is one hum_moe_spec_parse could give (its rules, for a spec a caller built):
 * HUM_ERR_INVALID_ARG naming the field and what it takes (experts 1..HUM_MOE_SPEC_MAX_EXPERTS,
 * top_k up to experts, the enums in range, the projection's spec, an even n for gated
 * activations); HUM_ERR_UNSUPPORTED for act-order. */
hum_status hum_moe_spec_check(const hum_moe_spec *s);

/* The workspace of a forward of m tokens in one pass (a grouped layer's: m rows, m rows per
 * expert when masked): byte offsets from its base of each area, 256-byte aligned. */
typedef struct hum_moe_areas {
    int64_t gemm;      /* the GEMMs' own part, at the base (stream-K locks, partial tiles): its bytes */
    int64_t hidden;    /* the gate/up GEMM's A made from the hidden rows (hum_moe_quantize_hidden) */
    int64_t route;     /* indexed: the routing layout (hum_moe_route_place) */
    int64_t inter;     /* the gate/up GEMM's output [rows, n13] */
    int64_t act;       /* the activation's output [rows, I]: codes for an 8-bit down GEMM */
    int64_t act_scale; /* an 8-bit down GEMM's: the scales of act's rows (hum_moe_act_scales; else 0) */
    int64_t y;         /* indexed: the down GEMM's output [rows, H], before the combine */
    int64_t bytes;     /* the whole */
} hum_moe_areas;
/* The areas for m tokens past a GEMMs' part of `gemm` bytes (the larger of the two GEMMs'
 * locks and partial tiles: hum_moe_gemm_bytes_in or hum_moe_areas_of). */
void hum_moe_areas_past(const hum_moe *moe, int64_t gemm, int64_t m, hum_moe_areas *areas);
/* The areas as hum_moe_workspace_size sizes them: the GEMMs' part from hum_layer_workspace_size,
 * which reads the tables in force under the runtime's live_lock (it has no workspace to pin
 * them with), so it waits for a policy reload that holds that lock. */
hum_status hum_moe_areas_of(const hum_moe *moe, int64_t m, hum_moe_areas *areas);
/* The areas of a forward of m tokens through ws past a GEMMs' part of `gemm` bytes
 * (hum_moe_gemm_bytes_in), or past ws's locks alone where those partial tiles leave too little
 * room for m tokens and the locks alone do not (the expert GEMMs then run without stream-K
 * summed in the workspace). */
void hum_moe_areas_in(const hum_moe *moe, const hum_workspace *ws, int64_t gemm, int64_t m, hum_moe_areas *areas);
/* The GEMMs' part of ws as a forward through it sizes it, once per forward: from the tables in
 * force, pinned through ws's hazard slot (hum_expert_gemm_bytes_in), never waiting on a reload;
 * what hum_moe_areas_of counts for a workspace of the layer's runtime. */
int64_t hum_moe_gemm_bytes_in(const hum_moe *moe, hum_workspace *ws);
/* The most tokens one pass can route: its padded layout must index rows with int32 (a grouped
 * layer: the most rows T), and its workspace stay below INT64_MAX / 4 bytes. */
int64_t hum_moe_max_tokens(const hum_moe *moe);

/* For a gate/up GEMM of 8-bit A: `rows` rows of the host's 16-bit hidden (row stride ldh)
 * quantized per token (or group) into `area` (the workspace's hidden area, hum_moe_areas), as a
 * dense forward lays out its rows (workspace.h; kernels/prep/quantize_a.cu); *codes and *scale:
 * the a and a_scale the GEMM takes. For one that rounds A through mxfp8 (a_round): the rows
 * rounded into 16-bit rows of K, *scale zeroed (the GEMM takes none). */
hum_status hum_moe_quantize_hidden(const hum_moe *moe, void *area, struct CUstream_st *stream, const void *hidden,
                                   int64_t ldh, int64_t rows, hum_tensor *codes, hum_tensor *scale);

/* The a_scale tensor of the down GEMM of config `down` (8-bit A) over the activation's scales
 * for `rows` rows at `scales`: float32 [rows] per row, or [rows, groups] of its scale dtype. */
hum_tensor hum_moe_act_scales(const hum_layer_config *down, void *scales, int64_t rows);

/* HUM_ERR_INVALID_ARG, the message starting with fn, unless t is a device tensor of `dtype` (or
 * alt when nonzero) of rank 2 [rows, cols] with contiguous rows (contiguous: packed); *ld its
 * row stride. */
hum_status hum_moe_check_tensor(const char *fn, const hum_tensor *t, const char *name, hum_dtype dtype, hum_dtype alt,
                                int64_t rows, int64_t cols, int contiguous, int64_t *ld);

#endif
