/* The MoE routing layout on the GPU (kernels/moe/align.cu) against its host twin
 * (hum_moe_align_reference), exactly: offsets, the padded total, the expert of every block (-1
 * past the total) and the sentinel rows match, and each expert's run holds the same slots (the
 * kernels place a run's slots in any order, so runs are compared sorted). Both paths (one block
 * up to 4096 slots, three grids above), int32 and int64 ids, an expert map with -1 entries and
 * -1 / out-of-range ids, E = 1, 33 and 128, all slots on one expert, M * top_k past 65,535 and
 * past a million; the outputs are poisoned first. Skipped (77) without a GPU. */
#include "gemm_test.h"
#include "hum/hum.h"
#include "moe_align.h"

#include <stdlib.h>
#include <string.h>

static int cmp_int(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

typedef struct routing {
    int64_t m;
    int32_t top_k, e_global, e_local, block_m;
    int32_t map;       /* a random expert map (e_local of e_global kept) */
    int32_t ids64;     /* int64 topk_ids */
    int32_t one;       /* every slot on global expert 0 */
} routing;

static void check_one(const hum_moe_align_kernels *k, quant_rng *rng, const routing *c)
{
    const int64_t numel = c->m * c->top_k;
    const int32_t e_local = c->map ? c->e_local : c->e_global;
    const int64_t rows = hum_moe_align_rows(numel, e_local, c->block_m), blocks = rows / c->block_m;
    const size_t id_bytes = (size_t)numel * (c->ids64 ? 8 : 4);
    void *ids = malloc(id_bytes);
    int32_t *map = malloc((size_t)c->e_global * 4);
    int32_t *want = malloc((size_t)rows * 4), *got = malloc((size_t)rows * 4);
    int32_t *want_b = malloc((size_t)blocks * 4 + 4), *got_b = malloc((size_t)blocks * 4 + 4);
    int32_t *want_o = malloc((size_t)(e_local + 1) * 4), *got_o = malloc((size_t)(e_local + 1) * 4);
    void *d_ids = NULL, *d_map = NULL, *d_route = NULL;
    const int64_t route_bytes = hum_moe_route_bytes(numel, e_local, c->block_m);
    for (int32_t g = 0; g < c->e_global; g++)
        map[g] = -1;
    for (int32_t l = 0; c->map && l < e_local; l++) {
        int32_t g;
        do
            g = (int32_t)quant_rng_below(rng, c->e_global);
        while (map[g] != -1);
        map[g] = l;
    }
    for (int64_t i = 0; i < numel; i++) {
        const int64_t id = c->one ? 0 : quant_rng_below(rng, 64) == 0 ? -1 : quant_rng_below(rng, 100) == 0
                                                ? c->e_global + 1 : quant_rng_below(rng, c->e_global);
        if (c->ids64)
            ((int64_t *)ids)[i] = id;
        else
            ((int32_t *)ids)[i] = (int32_t)id;
    }
    hum_tensor t = {.data = ids, .dtype = c->ids64 ? HUM_DTYPE_INT64 : HUM_DTYPE_INT32, .rank = 2,
                    .shape = {c->m, c->top_k}, .memory = HUM_MEMORY_HOST};
    int32_t want_total = -1, got_total = -1;
    hum_moe_route r;
    if (!QUANT_CHECK(hum_moe_align_reference(&t, c->map ? map : NULL, c->e_global, e_local, c->block_m, want, want_b,
                                             want_o, &want_total) == HUM_OK &&
                         hum_device_alloc(0, id_bytes, &d_ids) == HUM_OK &&
                         hum_device_alloc(0, (size_t)c->e_global * 4, &d_map) == HUM_OK &&
                         hum_device_alloc(0, (size_t)route_bytes, &d_route) == HUM_OK &&
                         hum_memcpy_htod(d_ids, ids, id_bytes) == HUM_OK &&
                         hum_memcpy_htod(d_map, map, (size_t)c->e_global * 4) == HUM_OK &&
                         hum_memset_d8(d_route, 0xFF, (size_t)route_bytes) == HUM_OK,
                     "M %lld: setup: %s", (long long)c->m, hum_last_error()))
        goto done;
    hum_moe_route_place(d_route, numel, e_local, c->block_m, &r);
    if (!QUANT_CHECK(hum_moe_align_launch(k, NULL, d_ids, c->ids64, c->map ? d_map : NULL, c->e_global, e_local,
                                          c->block_m, numel, &r) == HUM_OK &&
                         hum_stream_synchronize(NULL) == HUM_OK &&
                         hum_memcpy_dtoh(&got_total, r.post_padded, 4) == HUM_OK &&
                         hum_memcpy_dtoh(got, r.sorted, (size_t)rows * 4) == HUM_OK &&
                         hum_memcpy_dtoh(got_b, r.expert_ids, (size_t)blocks * 4) == HUM_OK &&
                         hum_memcpy_dtoh(got_o, r.offsets, (size_t)(e_local + 1) * 4) == HUM_OK,
                     "M %lld: align: %s", (long long)c->m, hum_last_error()))
        goto done;
    char what[128];
    snprintf(what, sizeof what, "M %lld top-%d of %d (%d local%s), block_m %d, %s ids", (long long)c->m, c->top_k,
             c->e_global, e_local, c->map ? ", mapped" : "", c->block_m, c->ids64 ? "int64" : "int32");
    if (!QUANT_CHECK(got_total == want_total, "%s: padded total %d, expected %d", what, got_total, want_total) ||
        !QUANT_CHECK(!memcmp(got_o, want_o, (size_t)(e_local + 1) * 4), "%s: offsets differ", what) ||
        !QUANT_CHECK(!memcmp(got_b, want_b, (size_t)blocks * 4), "%s: expert ids differ", what))
        goto done;
    for (int32_t e = 0; e < e_local; e++)
        qsort(got + want_o[e], (size_t)(want_o[e + 1] - want_o[e]), 4, cmp_int);
    int64_t diff = -1;
    for (int64_t i = 0; i < want_total && diff < 0; i++)
        if (got[i] != want[i])
            diff = i;
    QUANT_CHECK(diff < 0, "%s: row %lld holds %d, expected %d", what, (long long)diff, diff < 0 ? 0 : got[diff],
                diff < 0 ? 0 : want[diff]);
    printf("  %s: %d rows in %d runs\n", what, want_total, e_local);
done:
    hum_device_free(d_ids);
    hum_device_free(d_map);
    hum_device_free(d_route);
    free(ids);
    free(map);
    free(want);
    free(got);
    free(want_b);
    free(got_b);
    free(want_o);
    free(got_o);
}

int main(void)
{
    if (!gemm_test_have_gpu())
        return 77;
    quant_rng rng = quant_rng_fresh("moe_align");
    hum_runtime *rt = NULL;
    hum_device_info dev;
    char arch[16];
    hum_jit_request reqs[HUM_MOE_ALIGN_KERNELS];
    hum_jit_result res[HUM_MOE_ALIGN_KERNELS];
    hum_moe_align_kernels k;
    memset(res, 0, sizeof res);
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK && hum_runtime_device(rt, &dev) == HUM_OK &&
                         hum_arch_for_device(&dev, arch, sizeof arch) == HUM_OK,
                     "%s", hum_last_error()))
        return quant_test_result("moe_align");
    hum_moe_align_requests(arch, reqs);
    if (QUANT_CHECK(hum_jit_compile_many(hum_runtime_cache_dir(rt), reqs, HUM_MOE_ALIGN_KERNELS, res, 0) == HUM_OK &&
                        hum_moe_align_load(dev.ordinal, res, &k) == HUM_OK,
                    "align kernels: %s", hum_last_error())) {
        static const routing cases[] = {
            {1, 8, 128, 128, 16, 0, 0, 0},      {1, 8, 128, 128, 64, 0, 1, 0},    {5, 2, 8, 8, 16, 0, 0, 1},
            {37, 4, 33, 33, 32, 0, 0, 0},       {300, 8, 128, 40, 64, 1, 0, 0},   {512, 8, 128, 128, 64, 0, 1, 0},
            {513, 8, 128, 128, 64, 0, 0, 0},    {2048, 1, 1, 1, 128, 0, 0, 0},    {4096, 8, 128, 16, 64, 1, 1, 0},
            {8750, 8, 128, 128, 16, 0, 0, 0},   {8750, 8, 128, 128, 64, 0, 0, 1}, {140000, 8, 256, 77, 128, 1, 1, 0},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            check_one(&k, &rng, &cases[i]);
        hum_moe_align_unload(&k);
    }
    for (int i = 0; i < HUM_MOE_ALIGN_KERNELS; i++)
        hum_jit_result_free(&res[i]);
    hum_runtime_destroy(rt);
    return quant_test_result("moe_align");
}
