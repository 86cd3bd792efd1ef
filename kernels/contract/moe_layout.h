/* The MoE layout contract: what the expert GEMMs (the GEMM types indexed, grouped_contiguous and
 * grouped_masked of kernels/contract/gemm_args.h) read, and so what the align/sort kernel, the
 * activation and the combine of a MoE layer write and read around them. Plain C, read by the C11
 * library and NVRTC alike; every size rule of the layout lives here once. docs/moe.md says the
 * same for people.
 *
 * Indexed (routing by sorted token ids). A forward of m tokens routed to top_k experts each has
 * R = m * top_k routed rows, numbered token * top_k + slot (topk_ids[m][top_k] row-major). The
 * align step writes, for block rows B (the block_m of the dispatch entry the launch uses,
 * hum_expert_gemm_block_m):
 *   sorted_token_ids int32 [capacity]: the routed rows of local expert 0, padded with the
 *       sentinel R to a multiple of B, then those of expert 1, ... (experts with no rows take
 *       no block); a routed row appears at most once; rows routed to no local expert appear
 *       nowhere. Entries past *num_tokens_post_padded are never read.
 *   expert_ids int32 [capacity / B]: the local expert (0 .. E-1) of each block of B sorted
 *       rows, or HUM_MOE_SKIP_BLOCK: the block is neither read nor written.
 *   num_tokens_post_padded int32 [1] (device): the sorted rows, a multiple of B, at most the
 *       capacity.
 * capacity = hum_moe_indexed_capacity(R, E, B) is the most rows any routing pads to: every
 * expert that has rows adds at most B - 1 sentinels, and at most min(E, R) experts have rows.
 * The GEMM of the gate/up projection reads A row r / top_k (A = hidden [m][K]) and writes C row
 * r (C [R][N]); the down projection runs the same sorted ids with m = R and top_k = 1 (A = the
 * activated [R][K'], C [R][N']). Router weights are not applied by the GEMMs: the combine
 * applies each exactly once (out[t] = sum_j w[t][j] * y[t * top_k + j], float32).
 *
 * Grouped contiguous: A [T][K] with the rows of expert e at expert_offsets[e] ..
 * expert_offsets[e + 1] - 1 (int64 [E + 1], nondecreasing, expert_offsets[E] <= T); C [T][N]
 * the same rows; rows outside every expert are neither read nor written. Each expert's rows
 * are cut into ceil(count / B) blocks; at most hum_moe_grouped_blocks(T, E, B) in all.
 *
 * Grouped masked (DeepEP low-latency): A [E][T][K], C [E][T][N], expert e's first
 * expert_counts[e] rows real (int32 [E], 0 .. T); E * ceil(T / B) blocks at most.
 *
 * Weights: the E experts' prepared weights (kernels/prep/repack.cu, each exactly a dense
 * layer's) back to back, expert e's at e times the strides below, in units of the buffer's
 * elements (codes: uint32 words; scales and zero points: activation-dtype values; bias:
 * float32). An act-order expert GEMM has one K permutation per expert, k_perm int32 [E][K'] (K'
 * the stored columns; -1 a padding column, read as 0), which the A loader applies per block. */
#ifndef HUM_CONTRACT_MOE_LAYOUT_H
#define HUM_CONTRACT_MOE_LAYOUT_H

#ifdef __cplusplus
#define HUM_CONTRACT_FN __host__ __device__ constexpr inline
#else
#define HUM_CONTRACT_FN static inline
#endif

/* expert_ids value of a block that the GEMM skips (its expert is not on this rank) */
#define HUM_MOE_SKIP_BLOCK (-1)

/* Rows of sorted_token_ids (a multiple of block_m) enough for any routing of `routed` rows to
 * `experts` local experts. */
HUM_CONTRACT_FN long long hum_moe_indexed_capacity(long long routed, long long experts, long long block_m)
{
    return (routed + (experts < routed ? experts : routed) * (block_m - 1) + block_m - 1) / block_m * block_m;
}

/* Blocks of block_m rows that `rows` rows split over `experts` experts take at most (grouped
 * contiguous). */
HUM_CONTRACT_FN long long hum_moe_grouped_blocks(long long rows, long long experts, long long block_m)
{
    return hum_moe_indexed_capacity(rows, experts, block_m) / block_m;
}

/* The expert strides of the prepared weight of padded_n x padded_k, `bits`-bit codes and
 * scale_rows scale (and zero-point) rows. */
HUM_CONTRACT_FN long long hum_moe_code_stride(long long padded_n, long long padded_k, long long bits)
{
    return padded_k / 16 * (padded_n / 64) * 32 * bits;
}

HUM_CONTRACT_FN long long hum_moe_param_stride(long long padded_n, long long scale_rows)
{
    return scale_rows * padded_n;
}

#endif
