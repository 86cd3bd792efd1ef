/* The hum_workspace object (hum.h, HUM-SECTION layer): per-forward scratch memory on the GPU.
 * Layout from its base (256-byte aligned):
 *   locks  int32 [SMs x HUM_MAX_CTAS_PER_SM], rounded up to 256 bytes: the stream-K locks of
 *          every kernel of every layer (a grid never exceeds SMs x CTAs per SM); zeroed at
 *          create, and every launch leaves them zero (kernels/gemm/schedule.cuh)
 *   rows   the rest: A of an act-order forward gathered into the weights' K order
 *          (kernels/prep/permute_a.cu), rows of K 16-bit elements, packed; or the host's
 *          16-bit A quantized for a layer of 8-bit A (kernels/prep/quantize_a.cu): codes
 *          [rows][K rounded up to 16], then from the next 256 bytes their float32 scales
 *          [rows] or [rows][groups]. */
#ifndef HUM_WORKSPACE_H
#define HUM_WORKSPACE_H

#include "gemm_family.h"
#include "hazard.h"
#include "hum/hum.h"

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

/* Bytes of the lock area for a device of `sm_count` SMs. */
int64_t hum_workspace_lock_bytes(int32_t sm_count);

/* For a layer of 8-bit A: the row stride of the codes the forward quantizes A into (K rounded
 * up to 16 bytes, the GEMM's 16-byte loads), and the bytes of one row, codes and float32 scales
 * (one per row, or per a_group columns); 0 for 16-bit A. */
int64_t hum_workspace_codes_stride(const hum_layer_config *c);
int64_t hum_workspace_quantized_row_bytes(const hum_layer_config *c);

/* hum_layer_workspace_size for a planned config on a device of `sm_count` SMs; max_m within
 * the limit that function checks. */
int64_t hum_workspace_bytes(const hum_layer_config *c, int32_t sm_count, int64_t max_m);

#endif
