/* The hum_layer object (hum.h, HUM-SECTION layer) inside libhum: the files layer*.c share it.
 *   layer.c          create, copy, destroy, info, the tuning check
 *   layer_plan.c     planning in one pass (lua/hum/layer.lua: LayerConfig and the policy's ranges;
 *                    C: each tuning fitted and checked), kernel compiles
 *   layer_upload.c   device buffers and the GPU preprocessing (kernels/prep/repack.cu)
 *   layer_forward.c  the hot path
 *   layer_reload.c   dispatch tables: build, publish, replace on a policy reload
 *   workspace.c      the per-forward scratch memory (workspace.h)
 *   layer_spec.c     SPEC strings and random weights for them
 *   layer_describe.c the dispatch table in force, or planned, for hum_layer_describe */
#ifndef HUM_LAYER_H
#define HUM_LAYER_H

#include "gemm_family.h"
#include "gemm_variant.h"
#include "hazard.h"
#include "hum_ffi.h"
#include "jit.h"
#include "launch.h"
#include "tma.h"

/* One row of the dispatch table: everything hum_layer_forward needs for M <= m_max. */
typedef struct hum_dispatch_entry {
    int64_t m_max;
    hum_kernel *kernel;
    uint32_t threads, smem_bytes;
    int32_t block_m, stream_k;
    int32_t stream_k_sum; /* 1: stream-K slices sum in the workspace's partial tiles */
    int32_t whole_fill;   /* with stream_k_sum: tiles whole where they fill the waves to this % */
    int64_t n_blocks;  /* padded N / block N */
    int64_t k_blocks;  /* padded K / block K */
    int64_t max_grid;  /* SMs x CTAs per SM: every CTA of a launch is resident at once */
    int32_t cluster_n;     /* CTAs of a cluster along N (multicast_a: 2), 1 without clusters */
    int64_t cluster_grid;  /* with clusters: the CTAs of the clusters resident at once */
    const hum_gemm_family *family;
    /* weights_ss: the layer's codes as the kernel's TMA reads them (args.b_map), encoded once the
     * weights are on the device (hum_dispatch_table_bind_weights) */
    int32_t weights_ss;
    hum_tensor_map b_map;
    int32_t quantize_a;    /* the GEMM quantizes its own A (kernels/gemm/quant_a.cuh) */
} hum_dispatch_entry;

/* What forwards of a layer dispatch on, immutable once published. A policy reload builds a new
 * one and swaps it in (hum_layers_reload_locked); forwards pin the one in force through their
 * workspace's hazard slot (hazard.h), so it is freed, kernels and all, only when no forward
 * holds it and the GPU has run every launch made with it. */
typedef struct hum_dispatch_table {
    hum_layer_plan plan;       /* what planning returned: tunings, policy, arch */
    hum_dispatch_entry entries[HUM_LAYER_MAX_ENTRIES];
    int64_t partial_bytes;     /* the stream-K partial tiles its kernels take (hum_workspace_partial_bytes) */
    uint64_t generation;       /* 0 at prepare, +1 per reload that replaced the table */
    double compile_ms;
    int32_t kernels_compiled, kernels_cached;
} hum_dispatch_table;

/* Device buffers of a prepared layer (kernel arguments; NULL when unused). */
typedef struct hum_layer_buffers {
    void *weight;   /* repacked codes */
    void *scale;    /* [scale_rows][padded_n] activation dtype (float16 for 8-bit A), permuted */
    void *zero;     /* same layout */
    void *bias;     /* float32 [padded_n] */
    void *col_scale; /* 8-bit A: float32 [experts][padded_n], the weight's factor of each column */
    void *k_perm;   /* int32 [k]: act-order, A's column of each prepared K row */
    void *input_scale; /* float32 [1]: the static activation scale of an 8-bit layer per tensor */
    int64_t bytes;
} hum_layer_buffers;

/* The types a layer computes in (hum_layer_options resolved): A, C, and the K extent of one
 * scale of 8-bit A (0: one per row). */
typedef struct hum_layer_types {
    hum_dtype a, c;
    int32_t a_group;
} hum_layer_types;

struct hum_layer {
    hum_runtime *rt;
    /* The hum_dispatch_table in force (NULL until prepared). Forwards read it with
     * hum_hazard_pin; other readers (hum_layer_get_info, describe, tune) take the runtime's
     * live_lock, under which no reload replaces it: hum_layer_table_locked. */
    _Atomic(void *) table;
    struct hum_layer *next_live; /* the runtime's list of prepared layers (live_lock) */
    hum_standard_weight weight; /* host copy until prepared */
    hum_layer_types types;
    int64_t input_k;            /* A's columns: the weight's K (plan.config.k is the stored K') */
    hum_gemm_type gemm_type;    /* dense, or one of the MoE expert GEMM types (expert_gemm.c) */
    /* an indexed MoE layer's gate/up GEMM once the layer is prepared: its down GEMM
     * (hum_layer_pair_experts), which policy reloads re-plan and check together; NULL
     * otherwise (live_lock) */
    struct hum_layer *moe_down;
    int32_t prepared;
    hum_layer_plan plan;        /* after planning: config and tunings */
    hum_layer_buffers buf;
    int32_t scale_exponent;
    float out_factor;
    int32_t a_vector;           /* activations are copied 16 bytes at a time (alignment rule) */
    hum_kernel *permute;        /* act-order: kernels/prep/permute_a.cu */
    hum_kernel *quantize;       /* 8-bit A, or 16-bit A rounded through mxfp8, from the host's
                                 * 16-bit A: kernels/prep/quantize_a.cu (hum_gemm_quantizes_a) */
    hum_workspace *workspace;   /* hum_layer_forward's own */
    double prepare_ms;
    double plan_ms, context_ms, upload_ms, load_ms; /* hum_layer_prepare's phases (hum_layer_info) */
    double compile_ms;             /* hum_layer_compile only (a prepared layer's are its table's) */
    int32_t kernels_compiled, kernels_cached;
};

/* The table in force; the caller holds layer->rt->live_lock. */
static inline const hum_dispatch_table *hum_layer_table_locked(const hum_layer *layer)
{
    return atomic_load((_Atomic(void *) *)&layer->table);
}

/* hum_standard_validate, experts exactly when `type` is a MoE type, and the types opts (or the
 * param dtype) give: A float16, bfloat16, float8_e4m3fn or int8; C float16 or bfloat16, A's own
 * dtype when A is 16-bit; activation_group as hum_layer_a_group_ok takes it. HUM_ERR_INVALID_ARG
 * naming the option. */
hum_status hum_layer_check_weight(const hum_standard_weight *w, const hum_layer_options *opts, hum_gemm_type type,
                                  hum_layer_types *types);

/* Whether A the host passes as codes of dtype `a` may come with scales in groups of `group`
 * columns along K (hum_layer_options.activation_group, hum_moe_options.hidden_group): 0, one
 * scale per token, always; 128 (float32) and 32 (MXFP8's e8m0) for float8_e4m3fn alone, the
 * only 8-bit A whose scales the kernels promote along K (gemm_variant.c, a_type_rule).
 * *expected: what `a` takes, for the caller's message. */
int hum_layer_a_group_ok(hum_dtype a, int32_t group, const char **expected);

/* A layer of GEMM type `type` from w (copied; `what` names the caller in messages). */
hum_status hum_layer_create(hum_runtime *rt, const hum_standard_weight *w, const hum_layer_options *opts,
                            hum_gemm_type type, const char *what, hum_layer **out);

/* HUM_ERR_INVALID_ARG (messages start with `fn`) unless t is a rank-2 device tensor of `dtype`
 * with `cols` columns and contiguous rows; *ld: its row stride in elements. */
hum_status hum_layer_check_tensor(const char *fn, const hum_tensor *t, const char *name, hum_dtype dtype, int64_t cols,
                                  int64_t *ld);

/* The entry of table t for M = m (>= 1). */
const hum_dispatch_entry *hum_dispatch_entry_for(const hum_dispatch_table *t, int64_t m);

/* How entry e runs over `blocks` blocks of e->block_m rows, with the workspace's partial tiles at
 * hand (have_partials) or not. sums: its stream-K slices meet in those partial tiles. That needs
 * them at hand, and its whole_fill unmet: where the tiles fill the waves of its grid to that
 * percent, the last wave's idle SMs cost less than the slices' meeting, and every tile runs
 * whole. ctas: its persistent grid, one CTA per unit of work (a tile, or a k-block of one under
 * stream-K), at most what is resident at once (stream-K slices wait on each other): e->max_grid,
 * with clusters e->cluster_grid in whole clusters. */
typedef struct hum_gemm_grid {
    int sums;
    int64_t ctas;
} hum_gemm_grid;
hum_gemm_grid hum_gemm_grid_for(const hum_dispatch_entry *e, int64_t blocks, int have_partials);

/* Launches entry e with args (every field but the locks and partials filled; the family's
 * binding done) over `blocks` blocks of e->block_m rows on hum_gemm_grid_for's grid,
 * overlapping the kernel before it where args->overlaps says so. partials: ws's partial tiles
 * (hum_workspace_partials), passed on where the grid sums in them; NULL runs every tile whole. */
hum_status hum_gemm_launch(const hum_dispatch_entry *e, hum_workspace *ws, struct CUstream_st *stream,
                           hum_gemm_args *args, void *partials, int64_t blocks);

/* 8-bit A's scales `name` for function fn: float32 device [rows], one per row of A, or with
 * activation groups [rows, ceil(K / a_group)] of hum_gemm_a_scale_dtype (e8m0 bytes for MXFP8's
 * groups of 32, the groups the expert GEMMs take), row r's for the rows that read row r of A
 * (16-bit A: none, s must be NULL); float32 scales 4-byte aligned; *ld: elements from one row's
 * scales to the next. HUM_ERR_INVALID_ARG naming what was expected. */
hum_status hum_expert_gemm_check_a_scale(const char *fn, const char *name, const hum_layer_config *cfg,
                                        const hum_tensor *s, int64_t rows, int64_t *ld);

/* A's alignment for the expert GEMM `gemm` (its `a_vector` copies: 16-byte rows) at address a
 * with row stride lda (elements of its A type), for function fn naming it `name`. */
hum_status hum_expert_gemm_check_a_align(const char *fn, const char *name, const hum_layer *gemm, const void *a,
                                        int64_t lda);

/* hum_expert_gemm_forward through the first `bytes` of ws (at most ws->bytes): the locks and
 * the partial tiles of the table in force, or, where they do not fit there, none (every tile
 * whole: hum_workspace_partials). A MoE layer's forward passes the GEMMs' part of its
 * workspace (hum_moe_areas.gemm), sized for the tables in force when it laid the workspace
 * out: a reload since may put in force a table of larger partial tiles, which must not land
 * on the areas past that part. hum_expert_gemm_forward passes ws->bytes. */
hum_status hum_expert_gemm_forward_in(hum_layer *gemm, hum_workspace *ws, int64_t bytes, struct CUstream_st *stream,
                                      const hum_tensor *a, const hum_tensor *a_scale, const hum_tensor *c,
                                      const hum_expert_routing *r);

/* The first bytes of ws in which hum_expert_gemm_forward_in puts the partial tiles of the table
 * in force of the prepared gemm: ws's locks, then those tiles, as hum_layer_workspace_size(gemm,
 * 0) counts them for a workspace of gemm's runtime. The table is read as a forward reads it,
 * pinned through ws's hazard slot: this never waits on a policy reload, which holds live_lock
 * from re-planning to the context synchronisation. */
int64_t hum_expert_gemm_bytes_in(hum_layer *gemm, hum_workspace *ws);

/* The weight a layer of `opts` holds: *use = w, or (opts->shard set) *use = cut = its shard,
 * which the caller frees (cut is zeroed otherwise). */
hum_status hum_layer_shard_weight(const hum_standard_weight *w, const hum_layer_options *opts, hum_standard_weight *cut,
                                  const hum_standard_weight **use);

/* The power of two the prepared scales carry (hum_layer_info.scale_exponent): the largest x
 * with |decoded code| * |scale| * 2^(x - exp_compensation) <= 2^14 and |scale| * 2^x <= 2^14,
 * so that neither the 16-bit scales nor the dequantized weights overflow while the weights use
 * the whole range; scale_max is the largest |scale| (ignored without scales: 1), zero_max the
 * largest float zero point. Integer weights without scales need none (0). */
int32_t hum_layer_scale_exponent(const hum_layer_config *cfg, double scale_max, double zero_max);

/* LayerConfig's fold_window of a weight: float4_e2m1 codes with e8m0 scales in groups along K,
 * every group of every row (of every expert) within 2^11 of its row's largest, read from the
 * host's scales (kernels/gemm/dequant.cuh, fp4_window, tests the same of the staged rows). */
int hum_layer_fold_window(const hum_standard_weight *w);

/* The kernels' limit on N and K (they index them, padded by up to a block, with 32 bits). */
hum_status hum_layer_check_dims(int64_t n, int64_t k);

/* HUM_ERR_INVALID_ARG naming the key and value unless every field of `spec` is one
 * hum_layer_spec_parse gives (hum.h). */
hum_status hum_layer_spec_check(const hum_layer_spec *spec);

/* Fills a config's input fields from a checked spec: the layer hum_layer_spec_weight's weight
 * gives, without the weight. */
void hum_layer_spec_config(const hum_layer_spec *spec, hum_layer_config *config);

/* Fills plan->config's input fields from a standard weight and the layer's types (and the
 * compute config's GEMM type: dense). */
void hum_layer_plan_inputs(const hum_standard_weight *w, const hum_layer_types *types, hum_layer_plan *plan);

/* Fills plan's target (arch, device name, sm, SMs, shared memory, L2) from a GPU. */
hum_status hum_layer_plan_target(const hum_device_info *dev, hum_layer_plan *plan);

/* Plans `plan` (inputs and target filled) in one pass: lua/hum/layer.lua's plan() derives the
 * config and writes the policy's ranges and tunings, then C fits each to the layer and checks it,
 * once (hum_layer_fit_plan), and checks the table's shape. lua_locked: the caller holds the Lua
 * lock. */
hum_status hum_layer_run_plan(hum_runtime *rt, hum_layer_plan *plan, int lua_locked);

/* The description of a planned table: the kernel rules that fitted the tunings give each
 * entry's shared memory and threads. */
hum_status hum_layer_plan_describe(const hum_layer_plan *plan, hum_layer_dispatch *out);

/* A plan for the layer config's input fields on device `dev` (plan may hold the inputs). */
hum_status hum_layer_plan_for(hum_runtime *rt, const hum_device_info *dev, const hum_layer_config *inputs,
                              const hum_compute_config *compute, int lua_locked, hum_layer_plan *plan);

/* The rest of hum_layer_prepare once `plan` (the layer's inputs) is planned for dev: the table's
 * kernels compiled and loaded beside the weights' upload, the layer's own workspace, the table
 * put in force. t0: when the prepare began (prepare_ms counts from it); plan_ms is the caller's.
 * On failure the layer stays unprepared, nothing of it allocated. An expert GEMM of a MoE layer
 * comes here planned with its pair (moe/moe_prepare.c). */
hum_status hum_layer_prepare_planned(hum_layer *layer, const hum_device_info *dev, const hum_layer_plan *plan,
                                     double t0);

/* A table for `plan` with its kernels loaded from results[plan->entry_count] on dev; on
 * failure nothing stays loaded. */
hum_status hum_dispatch_table_build(const hum_device_info *dev, const hum_layer_plan *plan,
                                    const hum_jit_result *results, hum_dispatch_table **out);
void hum_dispatch_table_free(hum_dispatch_table *t);

/* The tensor maps of table t's weights_ss entries over the layer's prepared codes `weight`
 * (kernels/contract/gemm_args.h, b_map), once those are on the device: before the table is
 * published. HUM_ERR_INVALID_ARG or the driver's error from hum_tma_encode_2d. */
hum_status hum_dispatch_table_bind_weights(hum_dispatch_table *t, void *weight);

/* Puts a freshly prepared layer's first table in force and the layer on the runtime's list. */
void hum_layer_publish_first(hum_layer *layer, hum_dispatch_table *table);
/* Takes the layer off the list and frees its table (hum_layer_destroy: no forward runs). */
void hum_layer_retire(hum_layer *layer);

/* HUM_ERR_POLICY unless the planned tables of an indexed MoE layer's gate/up and down GEMMs
 * give every rows-per-expert count the same block_m (the GEMMs share one routing layout); the
 * message names the policy and the range. *max: the largest block_m. MoE prepare,
 * hum_moe_compile(_spec), hum_moe_describe_spec (moe/moe_prepare.c) and policy reloads apply it. */
hum_status hum_layer_check_block_m(const hum_layer_plan *gate_up, const hum_layer_plan *down, int32_t *max);

/* Ties an indexed MoE layer's two prepared GEMMs (moe_prepare.c): under the live lock, their
 * tables in force must share one block_m per range of rows per expert (hum_layer_check_block_m);
 * *block_m_max: the largest, which sizes the layer's routing layout. gate_up then names down
 * (moe_down), so that reloads check the pair's new tables together and keep its block_m.
 * hum_moe_destroy destroys gate_up first. */
hum_status hum_layer_pair_experts(hum_layer *gate_up, hum_layer *down, int32_t *block_m_max);

/* Re-plans every prepared layer of the runtime under the policies just loaded, compiles and
 * loads what the new tables need, checks the new tables of each indexed MoE layer's GEMM pair
 * as its prepare did (one block_m per range) and keeps the block_m of every range as in force
 * (forwards during the swap may pair an old table with a new one), then swaps every table in, or, on any error, none (naming the layer and why). The caller
 * holds the Lua lock. */
hum_status hum_layers_reload_locked(hum_runtime *rt);

/* Whether forwards permute A into the weights' K order before the GEMM (a dense act-order
 * layer; act-order experts gather their columns in the GEMM, kernels/gemm/load_a.cuh). */
static inline int hum_plan_permutes_a(const hum_layer_plan *plan)
{
    return plan->config.act_order && plan->compute.gemm_type == HUM_GEMM_DENSE;
}

/* The 16-bit elements of a row of A that the permutation kernel stages in shared memory: the
 * row (input_k rounded up to 8), at most 64 KiB, the opt-in every supported GPU allows (sm_75's
 * largest); columns past it are gathered from global memory (kernels/prep/permute_a.cu). */
static inline int32_t hum_permute_staged(int64_t input_k)
{
    const int64_t row = (input_k + 7) / 8 * 8, most = 65536 / 2;
    return (int32_t)(row < most ? row : most);
}

/* Compiles the kernel of every planned entry for plan->arch through the runtime's cache, and
 * the one kernel that prepares A before them, if any: for a layer that permutes A
 * (hum_plan_permutes_a) the permutation kernel (kernels/prep/permute_a.cu), for a layer that
 * quantizes or rounds A (hum_gemm_quantizes_a) the quantizer (kernels/prep/quantize_a.cu, its
 * entry hum_act_quant_kernel): results[plan->entry_count (+ 1)] are filled (free each with
 * hum_jit_result_free) on success;
 * compile_ms, compiled and cached describe the run. */
enum { HUM_LAYER_MAX_KERNELS = HUM_LAYER_MAX_ENTRIES + 1 };
hum_status hum_layer_compile_entries(hum_runtime *rt, const hum_layer_plan *plan, hum_jit_result *results,
                                     double *compile_ms, int32_t *compiled, int32_t *cached);

/* Compiles the kernels of `count` tunings of plan->config for plan->arch in parallel into the
 * runtime's kernel cache (hum tune, before it prepares a layer for each), so that preparing
 * them later finds them there. Tunings the kernels refuse, and compiles that fail, are left
 * out: the later prepare reports them. Returns the number of tunings the kernels take (the
 * compile requests made). */
int32_t hum_layer_precompile(hum_runtime *rt, const hum_layer_plan *plan, const hum_tuning *tunings, int32_t count);

/* Plans plan (inputs, compute and arch filled) and compiles its kernels, CPU only; fills *out.
 * t0: when the call began (hum_layer_info.prepare_ms counts from it). */
hum_status hum_layer_compile_plan(hum_runtime *rt, hum_layer_plan *plan, double t0, hum_layer_info *out);
/* Its second half, for a plan planned already (hum_layer_run_plan): the kernels compiled. */
hum_status hum_layer_compile_planned(hum_runtime *rt, const hum_layer_plan *plan, double t0, hum_layer_info *out);

/* hum_layer_compile_spec (experts NULL, type HUM_GEMM_DENSE) and hum_expert_gemm_compile_spec
 * (*experts in 1 .. 2^20, a MoE type): the arguments, arch and SPEC checked, then the SPEC's
 * plan compiled; errors name `who`. */
hum_status hum_layer_compile_spec_as(hum_runtime *rt, const hum_layer_spec *spec, const int64_t *experts,
                                     hum_gemm_type type, const char *arch, hum_layer_info *out, const char *who);

/* Uploads the host weight of `layer` (planned) to the GPU and preprocesses it into *buf; sets
 * the layer's scale_exponent and out_factor. On failure nothing stays allocated. */
hum_status hum_layer_upload(hum_layer *layer, int32_t ordinal, hum_layer_buffers *buf);
void hum_layer_buffers_free(hum_layer_buffers *buf);

/* Milliseconds on a monotonic clock. */
double hum_layer_now_ms(void);

#endif
