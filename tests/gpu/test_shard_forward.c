/* Tensor-parallel shards on the GPU: layers made with hum_layer_options.shard from one weight
 * (int4 groups with zero points and bias, int8 channels, NVFP4-style e2m1 with e4m3 group scales
 * and a global scale, e4m3 with 128x128 float32 blocks, act-order int4 and int8 whose random
 * permutation spreads every group over K, so that each row shard holds parts of groups and runs
 * with padding columns, A narrower than the GEMM's K). The column shards' outputs concatenated
 * along N and the row shards' outputs (each on its slice of A, read in place with A's row
 * stride) summed must match the float64 reference of the full weight within the GEMM tests'
 * tolerance, as the full layer does. Outputs are poisoned first. Skipped (77) without a GPU. */
#include "gemm_test.h"
#include "hum/hum.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int padded_shards; /* act-order row shards that ran with padding columns */

/* Runs the layer of `w` cut by `shard` on A's columns [k0, k0 + cols) of d_a (row stride k);
 * returns its float64 output [m][n_out] (malloc'ed) or NULL after a failed check. */
static double *run_shard(hum_runtime *rt, const hum_standard_weight *w, hum_shard shard, void *d_a, int64_t m,
                         int64_t k0, const char *what, int64_t *n_out)
{
    hum_layer *layer = NULL;
    hum_layer_options opts = {.activation_dtype = HUM_DTYPE_FLOAT16, .shard = shard};
    hum_layer_info info;
    double *out = NULL;
    void *d_c = NULL;
    if (!QUANT_CHECK(hum_layer_from_standard(rt, w, &opts, &layer) == HUM_OK && hum_layer_prepare(layer) == HUM_OK &&
                         hum_layer_get_info(layer, &info) == HUM_OK,
                     "%s: %s", what, hum_last_error()))
        goto done;
    const int64_t n = info.config.n, k = info.input_k; /* config.k counts an act-order shard's padding too */
    padded_shards += info.config.k > k;
    uint16_t *codes = malloc((size_t)(m * n) * 2);
    float *f = malloc((size_t)(m * n) * sizeof *f);
    out = malloc((size_t)(m * n) * sizeof *out);
    hum_tensor ta = gemm_test_matrix((uint16_t *)d_a + k0, HUM_DTYPE_FLOAT16, m, k, w->k), tc;
    if (QUANT_CHECK(hum_device_alloc(0, (size_t)(m * n) * 2, &d_c) == HUM_OK &&
                        hum_memset_d8(d_c, 0xFF, (size_t)(m * n) * 2) == HUM_OK,
                    "%s: %s", what, hum_last_error())) {
        tc = gemm_test_matrix(d_c, HUM_DTYPE_FLOAT16, m, n, n);
        QUANT_CHECK(hum_layer_forward(layer, NULL, &ta, NULL, &tc) == HUM_OK &&
                        hum_stream_synchronize(NULL) == HUM_OK &&
                        hum_memcpy_dtoh(codes, d_c, (size_t)(m * n) * 2) == HUM_OK &&
                        hum_dtype_to_float(HUM_DTYPE_FLOAT16, codes, m * n, f) == HUM_OK,
                    "%s: forward: %s", what, hum_last_error());
        for (int64_t i = 0; i < m * n; i++)
            out[i] = f[i];
    }
    *n_out = n;
    free(codes);
    free(f);
done:
    hum_device_free(d_c);
    hum_layer_destroy(layer);
    return out;
}

static void check_weight(hum_runtime *rt, quant_rng *rng, const char *name, const hum_standard_weight *w)
{
    const int64_t m = 37, n = w->n, k = w->k;
    uint16_t *a_codes = malloc((size_t)(m * k) * 2);
    double *a = malloc((size_t)(m * k) * sizeof *a), *ref = malloc((size_t)(m * n) * sizeof *ref);
    double *got = malloc((size_t)(m * n) * sizeof *got);
    void *d_a = NULL;
    quant_fill_activations(rng, HUM_DTYPE_FLOAT16, m * k, 1.0, a_codes, a);
    QUANT_CHECK(hum_reference_gemm(w, 0, a, m, ref) == HUM_OK &&
                    hum_device_alloc(0, (size_t)(m * k) * 2, &d_a) == HUM_OK &&
                    hum_memcpy_htod(d_a, a_codes, (size_t)(m * k) * 2) == HUM_OK,
                "%s: %s", name, hum_last_error());
    char what[160];
    int64_t n_out = 0;
    double *full = run_shard(rt, w, (hum_shard){0}, d_a, m, 0, name, &n_out);
    if (full)
        QUANT_CHECK(quant_rel_error(full, ref, m * n) < 1e-2, "%s: full layer error %g", name,
                    quant_rel_error(full, ref, m * n));
    for (int world = 2; world <= 4; world *= 2) {
        /* column shards: rank r writes columns [r*N/W, (r+1)*N/W) of the output */
        for (int r = 0; r < world; r++) {
            snprintf(what, sizeof what, "%s: column shard %d of %d", name, r, world);
            double *part = run_shard(rt, w, (hum_shard){.dim = HUM_SHARD_COLUMN, .rank = r, .world = world}, d_a, m, 0,
                                     what, &n_out);
            for (int64_t i = 0; part && i < m; i++)
                memcpy(got + i * n + r * n_out, part + i * n_out, (size_t)n_out * sizeof *got);
            free(part);
        }
        double err = quant_rel_error(got, ref, m * n);
        QUANT_CHECK(err < 1e-2, "%s: %d column shards concatenated: error %g", name, world, err);
        printf("  %s: %d column shards concatenated: error %.3g\n", name, world, err);
        /* row shards: rank r reads A's columns [r*K/W, (r+1)*K/W); the outputs add up */
        memset(got, 0, (size_t)(m * n) * sizeof *got);
        for (int r = 0; r < world; r++) {
            snprintf(what, sizeof what, "%s: row shard %d of %d", name, r, world);
            double *part = run_shard(rt, w, (hum_shard){.dim = HUM_SHARD_ROW, .rank = r, .world = world}, d_a, m,
                                     r * k / world, what, &n_out);
            for (int64_t i = 0; part && i < m * n; i++)
                got[i] += part[i];
            free(part);
        }
        err = quant_rel_error(got, ref, m * n);
        QUANT_CHECK(err < 1e-2, "%s: %d row shards summed: error %g", name, world, err);
        printf("  %s: %d row shards summed: error %.3g\n", name, world, err);
    }
    free(full);
    hum_device_free(d_a);
    free(a_codes), free(a), free(ref), free(got);
}

int main(void)
{
    if (!gemm_test_have_gpu())
        return 77;
    quant_rng rng = quant_rng_fresh("test_shard_forward");
    hum_runtime *rt = NULL;
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error()))
        return quant_test_result("test_shard_forward");
    static const char *specs[] = {
        "n=1024,k=2048,w=uint4,a=float16,group=128,zp=int,bias=1",
        "n=512,k=1024,w=uint8,a=float16",
        "n=512,k=1024,w=e2m1,a=float16,group=16,scale=e4m3,global=1",
        "n=1024,k=2048,w=uint4,a=float16,group=128,zp=int,bias=1,actorder=1",
        "n=512,k=1536,w=uint8,a=float16,group=64,actorder=1",
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        hum_layer_spec spec;
        hum_standard_weight w;
        memset(&w, 0, sizeof w);
        if (QUANT_CHECK(hum_layer_spec_parse(specs[i], &spec) == HUM_OK &&
                            hum_layer_spec_weight(&spec, quant_rng_next(&rng), &w) == HUM_OK,
                        "%s: %s", specs[i], hum_last_error()))
            check_weight(rt, &rng, specs[i], &w);
        hum_standard_free(&w);
    }
    /* FP8 with 128x128 float32 blocks (DeepSeek-V3 style): shards of whole blocks */
    const int64_t n = 512, k = 1024;
    float *dense = malloc((size_t)(n * k) * sizeof *dense);
    quant_fill_normal_f32(&rng, dense, n * k, 0.05);
    hum_quant_spec q = {.weight_dtype = HUM_DTYPE_FLOAT8_E4M3FN, .param_dtype = HUM_DTYPE_FLOAT16,
                        .scale_type = HUM_SCALE_BLOCK, .group_size = 128, .group_size_n = 128};
    hum_standard_weight w;
    if (QUANT_CHECK(hum_quantize_reference(dense, n, k, &q, &w) == HUM_OK, "fp8 blocks: %s", hum_last_error())) {
        check_weight(rt, &rng, "e4m3 128x128 blocks", &w);
        hum_standard_free(&w);
    }
    free(dense);
    QUANT_CHECK(padded_shards >= 12, "act-order row shards with padding columns: %d (expected every one of 12)",
                padded_shards);
    printf("  act-order row shards run with padding columns: %d\n", padded_shards);
    hum_runtime_destroy(rt);
    return quant_test_result("test_shard_forward");
}
