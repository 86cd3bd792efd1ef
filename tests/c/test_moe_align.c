/* The MoE routing layout on the CPU: the host twin (hum_moe_align_reference) against a layout
 * worked out by hand, and against the layout's rules on random routings (every kept slot once,
 * in its expert's run; runs padded with the sentinel to block_m; expert ids per block; dropped
 * ids, map entries of -1 and ids out of range in no run); hum_moe_align_rows; argument errors.
 * (NVRTC compiles of the kernels: test_moe_kernels.c.) */
#include "hum/hum.h"
#include "hum/hum_tools.h"
#include "quant_test.h"

#include <stdlib.h>
#include <string.h>

/* 3 tokens x top-2 over 4 global experts mapped to 3 local ones, block_m 2. */
static void check_by_hand(void)
{
    /* slots: 0:e2 1:e0 | 2:e2 3:e3(not local) | 4:e-1(dropped) 5:e0 ; map: 0->1, 1->-1, 2->0, 3->-1
     * local 0 (global 2): slots 0, 2 -> rows 0..1, no padding
     * local 1 (global 0): slots 1, 5 -> rows 2..3
     * local 2: nothing */
    const int32_t ids[6] = {2, 0, 2, 3, -1, 0};
    const int32_t map[4] = {1, -1, 0, -1};
    hum_tensor t = quant_matrix((void *)ids, HUM_DTYPE_INT32, 3, 2, HUM_MEMORY_HOST);
    const int64_t rows = hum_moe_align_rows(6, 3, 2);
    QUANT_CHECK(rows == 10, "rows %lld", (long long)rows);
    int32_t sorted[10], blocks[5], offsets[4], total = -7;
    memset(sorted, 0x55, sizeof sorted);
    QUANT_CHECK(hum_moe_align_reference(&t, map, 4, 3, 2, sorted, blocks, offsets, &total) == HUM_OK, "%s",
                hum_last_error());
    const int32_t want_sorted[4] = {0, 2, 1, 5}, want_blocks[5] = {0, 1, -1, -1, -1}, want_offsets[4] = {0, 2, 4, 4};
    QUANT_CHECK(total == 4, "padded total %d", total);
    QUANT_CHECK(!memcmp(sorted, want_sorted, sizeof want_sorted), "sorted %d %d %d %d", sorted[0], sorted[1],
                sorted[2], sorted[3]);
    QUANT_CHECK(!memcmp(blocks, want_blocks, sizeof want_blocks), "expert ids %d %d %d %d", blocks[0], blocks[1],
                blocks[2], blocks[3]);
    QUANT_CHECK(!memcmp(offsets, want_offsets, sizeof want_offsets), "offsets %d %d %d %d", offsets[0], offsets[1],
                offsets[2], offsets[3]);

    /* the same ids as int64 without a map, block_m 4: ids >= e_global (3) and -1 dropped */
    const int64_t ids64[6] = {2, 0, 2, 3, -1, 0};
    t = quant_matrix((void *)ids64, HUM_DTYPE_INT64, 3, 2, HUM_MEMORY_HOST);
    int32_t s2[16], b2[4], o2[4];
    QUANT_CHECK(hum_moe_align_reference(&t, NULL, 3, 3, 4, s2, b2, o2, &total) == HUM_OK, "%s", hum_last_error());
    /* local 0: slots 1, 5 + 2 pads; local 1: none; local 2: slots 0, 2 + 2 pads */
    const int32_t want2[8] = {1, 5, 6, 6, 0, 2, 6, 6}, wantb2[4] = {0, 2, -1, -1}, wanto2[4] = {0, 4, 4, 8};
    QUANT_CHECK(total == 8 && !memcmp(s2, want2, sizeof want2) && !memcmp(b2, wantb2, sizeof wantb2) &&
                    !memcmp(o2, wanto2, sizeof wanto2),
                "int64 case: total %d, sorted %d %d %d %d %d %d %d %d, blocks %d %d %d", total, s2[0], s2[1], s2[2],
                s2[3], s2[4], s2[5], s2[6], s2[7], b2[0], b2[1], b2[2]);
}

/* The layout's rules on one random routing of m tokens x top_k over e_global experts, e_local of
 * them kept (a random map when e_local < e_global or `use_map`). */
static void check_random(quant_rng *rng, int64_t m, int32_t top_k, int32_t e_global, int32_t e_local,
                         int32_t block_m, int use_map)
{
    const int64_t numel = m * top_k;
    int32_t *ids = malloc((size_t)(numel + 1) * 4), *map = malloc((size_t)e_global * 4);
    const int64_t rows = hum_moe_align_rows(numel, e_local, block_m);
    int32_t *sorted = malloc((size_t)(rows + 1) * 4), *blocks = malloc((size_t)(rows / block_m + 1) * 4);
    int32_t *offsets = malloc((size_t)(e_local + 1) * 4), *seen = calloc((size_t)numel + 1, 4);
    for (int32_t g = 0; g < e_global; g++)
        map[g] = -1;
    for (int32_t l = 0; l < e_local; l++) { /* a random injective map local -> global */
        int32_t g;
        do
            g = (int32_t)quant_rng_below(rng, e_global);
        while (map[g] != -1);
        map[g] = l;
    }
    for (int64_t i = 0; i < numel; i++) /* a few ids -1 or past e_global */
        ids[i] = quant_rng_below(rng, 50) == 0 ? -1 : quant_rng_below(rng, 80) == 0 ? e_global + 3
                                                    : (int32_t)quant_rng_below(rng, e_global);
    const int32_t *use = use_map ? map : NULL;
    const int32_t limit = use_map ? e_local : e_global;
    hum_tensor t = quant_matrix(ids, HUM_DTYPE_INT32, m, top_k, HUM_MEMORY_HOST);
    int32_t total = -1;
    if (!QUANT_CHECK(hum_moe_align_reference(&t, use, e_global, use_map ? e_local : e_global, block_m, sorted, blocks,
                                             offsets, &total) == HUM_OK,
                     "%s", hum_last_error()))
        goto done;
    const int32_t experts = limit;
    int bad = 0;
    QUANT_CHECK(offsets[0] == 0 && offsets[experts] == total && total <= rows && total % block_m == 0,
                "m %lld: offsets[0] %d, end %d, total %d, rows %lld", (long long)m, offsets[0], offsets[experts], total,
                (long long)rows);
    for (int32_t e = 0; e < experts && !bad; e++) {
        int64_t count = 0;
        for (int64_t i = 0; i < numel; i++) {
            const int32_t g = ids[i];
            const int32_t l = g < 0 || g >= e_global ? -1 : use ? use[g] : g;
            count += l == e;
        }
        const int32_t begin = offsets[e], end = offsets[e + 1];
        bad |= !QUANT_CHECK(end - begin == (count + block_m - 1) / block_m * block_m && begin % block_m == 0,
                            "expert %d: run %d..%d for %lld slots", e, begin, end, (long long)count);
        int32_t prev = -1;
        for (int32_t r = begin; r < end && !bad; r++) {
            const int32_t s = sorted[r];
            if (r < begin + count) {
                const int32_t g = s >= 0 && s < numel ? ids[s] : -2;
                bad |= !QUANT_CHECK(s > prev && g >= 0 && g < e_global && (use ? use[g] : g) == e && !seen[s]++,
                                    "expert %d row %d: slot %d (id %d)", e, r, s, g);
                prev = s;
            } else {
                bad |= !QUANT_CHECK(s == numel, "expert %d row %d: padding %d, expected the sentinel %lld", e, r, s,
                                    (long long)numel);
            }
            bad |= !QUANT_CHECK(blocks[r / block_m] == e, "block %d: expert %d, expected %d", r / block_m,
                                blocks[r / block_m], e);
        }
    }
    for (int64_t b = total / block_m; b < rows / block_m && !bad; b++)
        bad |= !QUANT_CHECK(blocks[b] == -1, "block %lld past the total: %d", (long long)b, blocks[b]);
    for (int64_t i = 0; i < numel && !bad; i++) {
        const int32_t g = ids[i];
        const int kept = g >= 0 && g < e_global && (!use || use[g] >= 0);
        bad |= !QUANT_CHECK(seen[i] == kept, "slot %lld (id %d) placed %d times", (long long)i, g, seen[i]);
    }
done:
    free(ids);
    free(map);
    free(sorted);
    free(blocks);
    free(offsets);
    free(seen);
}

static void check_errors(void)
{
    int32_t ids[2] = {0, 1}, out[64], total;
    hum_tensor t = quant_matrix(ids, HUM_DTYPE_INT32, 1, 2, HUM_MEMORY_HOST);
    QUANT_CHECK(hum_moe_align_reference(&t, NULL, 0, 2, 16, out, out, out, &total) == HUM_ERR_INVALID_ARG &&
                    strstr(hum_last_error(), "e_global 0"),
                "e_global 0: %s", hum_last_error());
    QUANT_CHECK(hum_moe_align_reference(&t, NULL, 2, 2, 16, NULL, out, out, &total) == HUM_ERR_INVALID_ARG &&
                    strstr(hum_last_error(), "sorted"),
                "NULL sorted: %s", hum_last_error());
    t.dtype = HUM_DTYPE_FLOAT32;
    QUANT_CHECK(hum_moe_align_reference(&t, NULL, 2, 2, 16, out, out, out, &total) == HUM_ERR_INVALID_ARG &&
                    strstr(hum_last_error(), "int32 or int64"),
                "float ids: %s", hum_last_error());
    t.dtype = HUM_DTYPE_INT32;
    t.shape[0] = 0; /* M = 0: an empty layout */
    QUANT_CHECK(hum_moe_align_reference(&t, NULL, 2, 2, 16, out, out, out, &total) == HUM_OK && total == 0 &&
                    out[0] == 0,
                "M = 0: %s, total %d", hum_last_error(), total);
    QUANT_CHECK(hum_moe_align_rows(0, 8, 64) == 0 && hum_moe_align_rows(8, 128, 64) == 512 &&
                    hum_moe_align_rows(5, 2, 4) == 12 && hum_moe_align_rows(32768, 128, 64) == 40832 &&
                    hum_moe_align_rows(-1, 1, 1) == -1 && hum_moe_align_rows(1, 1, 0) == -1 &&
                    hum_moe_align_rows(INT64_MAX, 8, 64) == -1 && hum_moe_align_rows(INT64_MAX - 63, 1, 64) == -1 &&
                    hum_moe_align_rows(INT64_MAX - 127, 1, 64) == INT64_MAX - 63,
                "hum_moe_align_rows");
}

int main(void)
{
    quant_rng rng = quant_rng_fresh("test_moe_align");
    check_by_hand();
    check_errors();
    static const struct {
        int64_t m;
        int32_t top_k, e_global, e_local, block_m, map;
    } cases[] = {
        {1, 8, 128, 128, 16, 0},    {1, 8, 128, 128, 64, 1},  {37, 2, 8, 8, 16, 0},   {300, 8, 128, 32, 64, 1},
        {513, 4, 33, 33, 32, 0},    {1000, 6, 64, 7, 128, 1}, {4096, 8, 128, 128, 64, 0}, {3, 1, 1, 1, 16, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_random(&rng, cases[i].m, cases[i].top_k, cases[i].e_global, cases[i].e_local, cases[i].block_m,
                     cases[i].map);
    return quant_test_result("test_moe_align");
}
