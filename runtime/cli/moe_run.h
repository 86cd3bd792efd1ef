/* Running one MoE layer from the CLI (`hum demo --moe`, `hum run` on an experts module,
 * `hum bench --moe`): random routings, device buffers and a workspace for the largest M, one
 * checked forward, and the float64 check of sampled tokens (hum_moe_reference). */
#ifndef HUM_MOE_RUN_H
#define HUM_MOE_RUN_H

#include "bench_check.h"
#include "hum/hum_tools.h"

#include <cuda.h>

/* One forward's inputs on the host: hidden codes [m][H] of `dtype`, the router's choice of
 * top_k distinct global experts per token and their weights. */
typedef struct moe_batch {
    int64_t m, hidden;
    int32_t top_k;
    hum_dtype dtype;
    uint16_t *x;
    int32_t *ids;
    float *weights;
} moe_batch;

/* ids[m * top_k]: top_k distinct experts of e_global per token, uniformly at random, or
 * balanced: token t's slot j takes expert (t * top_k + j) mod e_global. */
void moe_random_ids(bench_rng *rng, int64_t m, int32_t top_k, int32_t e_global, int balanced, int32_t *ids);

/* Random inputs: hidden ~ N(0, 1); experts uniformly at random (balanced: token t's slot j
 * takes expert (t * top_k + j) mod e_global, so every expert gets the same number of rows);
 * weights the softmax of normal logits over the token's experts, as a router gives them. */
hum_status moe_batch_random(bench_rng *rng, int64_t m, int64_t hidden, int32_t top_k, int32_t e_global, int balanced,
                            hum_dtype dtype, moe_batch *b);
void moe_batch_free(moe_batch *b);

/* Device buffers for up to m_cap tokens of one layer, a workspace for them in one pass, and
 * the tensor views of the last moe_device_load. */
typedef struct moe_device {
    hum_moe *moe;
    hum_moe_info info;
    int64_t m_cap;
    void *x, *ids, *weights, *out;
    hum_workspace *ws;
    hum_tensor tx, tids, tw, tout;
} moe_device;
hum_status moe_device_create(hum_runtime *rt, int32_t ordinal, hum_moe *moe, int64_t m_cap, moe_device *d);
void moe_device_destroy(moe_device *d);
/* Uploads a batch (m <= m_cap) and sets the views to it. */
hum_status moe_device_load(moe_device *d, const moe_batch *b);
/* The output poisoned (NaN), one forward on the legacy stream, waited for, downloaded. */
hum_status moe_device_forward(moe_device *d, uint16_t *out);

/* bench_enqueue_fn: the forward of the loaded batch (ctx: moe_device), or one step of it
 * (ctx: moe_step, after a whole forward filled the workspace). */
hum_status moe_enqueue(void *ctx, CUstream stream);
typedef struct moe_step {
    moe_device *d;
    int32_t step; /* hum_moe_step */
} moe_step;
hum_status moe_enqueue_step(void *ctx, CUstream stream);

/* The relative error of out (codes, [m][H]) over `count` sampled tokens against the float64
 * reference of w13 and w2 (the layer's experts, as hum_moe_reference takes them; opts its
 * options; info the prepared layer's, whose GEMMs' A types and 16-bit rows the reference
 * follows, so that 8-bit A is held to the bar of 16-bit); *bad counts elements not finite. tokens:
 * the first, the last and evenly spaced ones between, as many as the reference's budget allows
 * (moe_check_tokens). */
int64_t moe_check_tokens(const moe_batch *b, int64_t intermediate, int64_t *tokens, int64_t cap);
hum_status moe_check(const hum_standard_weight *w13, const hum_standard_weight *w2, const hum_moe_options *opts,
                     const hum_moe_info *info, const moe_batch *b, const uint16_t *out, const int64_t *tokens,
                     int64_t count, double *rel_error, int64_t *bad);

#endif
