/* The Hopper warpgroup-MMA families of the GEMM (kernels/gemm/gemm_wgmma.cu, two rows of
 * gemm_family.c: "wgmma", and "wgmma_ws", the same kernel warp-specialised): the layers and
 * tunings they take beyond the rules every family shares (gemm_variant.c), and their extra shared
 * memory. They share the constants header, the prepared weights and the argument of the mma.sync
 * kernel. */
#ifndef HUM_GEMM_WGMMA_H
#define HUM_GEMM_WGMMA_H

#include "gemm_variant.h"

/* Shared memory the kernel takes beyond its pipeline (and warp-specialised, its epilogue tile):
 * up to 1008 bytes to align the stages to 1024 bytes, then one 8-byte mbarrier per stage (two
 * warp-specialised: full, empty). */
enum { HUM_GEMM_WGMMA_EXTRA_SMEM = 2048 };
/* Static shared memory of the kernel: its `extern __shared__ __align__(1024)` buffer makes the
 * compiler reserve 1024 bytes in the cubin (.nv.shared.hum_gemm_wgmma), on top of the dynamic. */
enum { HUM_GEMM_WGMMA_STATIC_SMEM = 1024 };

/* Layers, both families: K a multiple of 8 (activations arrive by TMA, or gathered by cp.async
 * for the MoE types, in 16-byte rows); every weight width, act-order included for dense layers
 * (A is permuted once per forward). HUM_ERR_UNSUPPORTED naming the rule. */
hum_status hum_gemm_wgmma_takes(const hum_layer_config *c, const hum_compute_config *compute);

/* Accumulator registers per thread of a tuning: warp_n / 16 * block_m / 2 per set; one set, two
 * when promoted (hum_gemm_promotes: the float32 totals; one and a half where half of them live in
 * shared memory, hum_gemm_wgmma_smem_totals), three for promotion periods under 128 of K (hum_gemm_kscale_k:
 * ping-pong sets) and for sets alternating stage by stage (hum_gemm_wgmma_stage_sets). */
int hum_gemm_wgmma_acc_regs(const hum_layer_config *c, const hum_tuning *t);

/* Whether half of a tuning's promoted totals live in shared memory (kernels/gemm/gemm_wgmma.cu,
 * kSmemTotals): on wgmma_ws alone on its SM, e4m3 A promoted without K-group scales, one slab
 * (warp_n 16), where two sets (accumulators and totals) exceed hum_gemm_wgmma_acc_budget (block M
 * above 192: a 256-row tile, 2 x 128; 128 and 64 in registers fit the 192). */
int hum_gemm_wgmma_smem_totals(const hum_layer_config *c, const hum_tuning *t);

/* Whether a tuning's promoted accumulators alternate between two sets stage by stage
 * (kernels/gemm/gemm_wgmma.cu, kStageSets), so that a stage's sums are added to the totals while
 * the next stage's first wgmmas run instead of after the tensor pipe drains: on wgmma_ws alone on
 * its SM, promoted every block K, three sets within 192 registers (one slab of 128 rows: 3 x 64);
 * without K-group scales where the totals could leave the registers but do not; with them
 * (hum_gemm_kscale_k: the period of FP8 block-wise, or of A per 1 x 128) on weights in shared
 * memory (weights_ss) without A multicast, the promotion reading each stage's factors as it
 * multiplies. */
int hum_gemm_wgmma_stage_sets(const hum_layer_config *c, const hum_tuning *t);

/* The most accumulator registers a thread may hold: 128; 192 on wgmma_ws with one CTA per SM and
 * no K-group factors held beside them (no K-group scales, or sets by stage, which read them as
 * they multiply), whose math threads have 232 (setmaxnreg): 192-row e4m3 tiles, two sets of 96,
 * compile without local memory (sm_90a, W8A8 and W4A8), and so do FP8 block-wise's three sets of
 * 64 on SS weights. */
int hum_gemm_wgmma_acc_budget(const hum_layer_config *c, const hum_tuning *t);

/* Tunings: warp_m = block_m, a multiple of 16 up to 256; warp_k = block_k; one or two whole
 * warpgroups (block_n / warp_n 4 or 8) of one, two or four slabs (warp_n 16, 32 or 64) and at most 128
 * accumulator registers per thread, or 192 (hum_gemm_wgmma_acc_regs, _acc_budget), at two CTAs per
 * SM with 32 more within the registers each thread gets; for "wgmma" the epilogue tile
 * (hum_gemm_wgmma_c_tile_bytes) within the pipeline's shared memory, where it stages C; c_tile "stage"
 * on wgmma_ws only, without totals in shared memory, and 8 rows of C or more in the last stage's A slot;
 * weights_ss only where hum_gemm_wgmma_fit keeps it. HUM_ERR_UNSUPPORTED naming the rule. */
hum_status hum_gemm_wgmma_check(const hum_gemm_variant *v);

/* The epilogue's tile of C, block_m rows of block_n 16-bit values (unpadded: its 16-byte chunks
 * swizzled), bytes: "wgmma" stages it in the drained pipeline; "wgmma_ws" in shared memory of its
 * own after the stages (c_tile "own": its producer fills the next segment's stages while the
 * epilogue runs), which holds the totals in shared memory too (hum_gemm_wgmma_smem_totals: half of
 * each math thread's, 2 x block_n x block_m bytes, the tile's size), or with c_tile "stage" in
 * the A slot of the segment's last stage, as many rows at a time as the slot holds (the producer
 * refills that slot only after the epilogue; the others keep loading). */
int64_t hum_gemm_wgmma_c_tile_bytes(const hum_gemm_variant *v);

/* The shared memory of wgmma_ws's epilogue tile of its own, bytes: hum_gemm_wgmma_c_tile_bytes, 0
 * with c_tile "stage". */
int64_t hum_gemm_wgmma_epilogue_smem(const hum_gemm_variant *v);

/* Fitting a policy's tuning: c_tile "stage" kept on wgmma_ws only, without totals in shared memory,
 * where the last stage's A slot holds 8 rows of C or more; multicast_a on wgmma_ws with dense A only,
 * padded N a multiple of 2 x block_n, block_m a multiple of 16; weights_ss on wgmma_ws with dense A,
 * e4m3 weights beside e4m3 A and block_n at most 128; a warp spans the whole block in M and K; warp N at most block N / 4
 * (whole warpgroups in a narrower block N) and at least 16; promoted accumulators
 * (hum_gemm_promotes) within their budget (hum_gemm_wgmma_acc_regs, _acc_budget): block M at
 * most 128 (192 asked for within a budget of 192; any where the totals may live in shared
 * memory, hum_gemm_wgmma_smem_totals), one slab above block M 64, and with ping-pong
 * sets block M at most 64 in one slab (an expert GEMM's too where its MoE layer's other GEMM
 * has them: compute->moe_kscale_k); one CTA per SM where two would leave a thread too few
 * registers for its accumulators (hum_gemm_wgmma_check). */
void hum_gemm_wgmma_fit(const hum_layer_config *c, const hum_compute_config *compute, hum_tuning *t);

#endif
