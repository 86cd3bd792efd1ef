/* The GEMM kernel families: one row each (name, source, entry, arch, checks, shared-memory
 * estimate, launch binding). Every family takes the one argument of kernels/contract/
 * gemm_args.h and the constants of hum_gemm_constants; adding a family is a row here, its
 * hum_gemm_kernel value and its sources under kernels/gemm/. */
#ifndef HUM_GEMM_FAMILY_H
#define HUM_GEMM_FAMILY_H

#include "contract/gemm_args.h"
#include "gemm_variant.h"

/* What a binding keeps between launches, per workspace (one forward at a time uses it, from
 * any layer and entry): A's tensor map, encoded for the (pointer, M, row stride, K, dtype, box
 * rows) of the last launch and re-encoded only when one changes. */
typedef struct hum_gemm_bind_state {
    hum_gemm_tma_map a_map;
    const void *a;
    int64_t m, lda, k;
    hum_dtype dtype;
    int32_t block_m;
} hum_gemm_bind_state;

typedef struct hum_gemm_family {
    const char *name;      /* the policy's spelling of the tuning field `kernel` */
    const char *source;    /* under kernels/ */
    const char *entry;     /* extern "C" kernel name */
    const char *arch;      /* the only arch it compiles for; NULL: any */
    /* the layers it runs beyond the arch (hum_gemm_kernel_takes), HUM_ERR_UNSUPPORTED naming the
     * rule; NULL: every layer */
    hum_status (*takes)(const hum_layer_config *c, const hum_compute_config *compute);
    /* the family's tuning rules beyond those every family shares (hum_gemm_variant_check),
     * HUM_ERR_UNSUPPORTED naming the rule; NULL: none */
    hum_status (*check)(const hum_gemm_variant *v);
    int32_t min_stages;    /* pipeline stages the kernel needs at least */
    /* the family's own adjustments when a policy's tuning is fitted to a layer (hum_gemm_fit),
     * after block N and K are; NULL: none */
    void (*fit)(const hum_layer_config *c, const hum_compute_config *compute, hum_tuning *t);
    int32_t extra_smem;    /* dynamic shared memory beyond the pipeline and the epilogue tile, bytes */
    /* dynamic shared memory of the epilogue's own tile, beyond the pipeline; NULL: none */
    int64_t (*epilogue_smem)(const hum_gemm_variant *v);
    /* warps that only issue the pipeline's copies (a producer), beside the tile's warps; 0: every
     * thread copies its share and computes */
    int32_t load_warps;
    int32_t max_warps_k;   /* warps along K it takes at most (a power of two) */
    /* the alignment the kernel declares for its dynamic shared memory (the swizzle atoms of
     * wgmma: 1024 bytes), which the static tables before it are rounded up to */
    int32_t smem_align;
    /* an indexed expert GEMM keeps its block's rows of C in a table (the wgmma epilogue) */
    int32_t c_row_table;
    int32_t static_smem;   /* the kernel's static shared memory (its cubin's .nv.shared section),
                            * which a CTA takes on top of the dynamic; tests/c/test_gemm_smem.c */
    /* fills the family's own fields of args from the common ones (a, lda, m) of a launch of a
     * layer with activations `dtype`, K columns and tiles of block_m rows; NULL: none */
    hum_status (*bind)(hum_gemm_bind_state *state, hum_dtype dtype, int64_t k, int32_t block_m, hum_gemm_args *args);
} hum_gemm_family;

/* The family of a hum_gemm_kernel value; NULL when there is none. */
const hum_gemm_family *hum_gemm_family_of(int32_t kernel);

#endif
