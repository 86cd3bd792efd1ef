/* Expert GEMMs (MoE GEMM types) on the GPU against a float64 per-expert reference, the output
 * poisoned first: every routed row must match its expert's product, every row no block covers
 * (sentinel padding, skipped blocks, rows outside the grouped experts) must keep its poison.
 * Indexed gate/up (A rows gathered by token) and down (top_k 1 over the routed rows), grouped
 * contiguous and masked; experts with zero rows, expert row counts of block_m and block_m + 1,
 * E = 33, K = 96 and N = 200 (not a multiple of the tile), uint4 with integer zero points that
 * differ per expert and a bias per expert, float16 and bfloat16; rows per expert on both sides
 * of the sm90 policy's switch to wgmma; act-order experts; the Qwen3-30B-A3B shapes; and
 * M * top_k > 65,535 with M * top_k * N > 2^31 (sampled rows). On sm_90 the small and Qwen cases
 * run again under a site policy of block M that is not a power of two or is 8 (8, 48 .. 176:
 * wgmma instructions of N 8, 48, 80, 96 and 112, tests/support/wgmma_test.h), and with an e4m3 8-bit A case
 * on the warp-specialised family (wgmma_ws: its producer gathers A's rows) over the wgmma test
 * policy's six tiles, 16 x 256 x 128 to 256 x 128 x 64. The small, Qwen and 8-bit A cases run
 * again with every entry up to 16 rows per expert on 8-row mma.sync warps (EXPERT_ROWS8).
 * HUM_TEST_EXPERT_GEMM=ws runs only the bfloat16 small case on the built-in policy and the
 * wgmma_ws runs (a short device call);
 * HUM_TEST_EXPERT_GEMM=policy only the cases on the runtime's own policies (a site policy under
 * test, HUM_POLICY_PATH), without the two sm_90 test policies' runs. 8-bit A
 * (e4m3 x e4m3 weights from sm_89, int8 x uint8 from sm_80, W4A8 uint4 x e4m3, uint4 group-128
 * x int8 per token; channel scales that
 * differ per expert; MXFP8 A, e4m3 with e8m0 scales per 32 columns, also on W4A8 with group-128
 * weight scales; FP8 block-wise, e4m3 weights in float32 128 x 128 blocks beside A per 1 x 128
 * group or per token, and W4A8 group-128 beside A per 1 x 128 group), A's codes and per-row
 * (per-group) scales made by the CPU twin of the layers' quantizer, the reference from those
 * codes times their scales, so that only the accumulation and C's rounding differ (1e-3 float16,
 * 4e-3 bfloat16 output): each gathered row must bring its own row's scales. HUM_TEST_CASES=A,B runs only the cases whose name contains A or B (e.g. mxfp8).
 * Skipped (77) without a GPU. */
#include "bench_check.h"
#include "contract/moe_layout.h"
#include "gemm_test.h"
#include "hum/hum_tools.h"
#include "rt_test.h"
#include "wgmma_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A site policy's edit: every entry up to 16 rows per expert (wgmma ones too) on mma.sync warps of
 * 8 rows, the products transposed, whole tiles (two per SM on sm_90, as sm90.lua runs them; one
 * where 99 KiB hold no two): blocks of 8 rows to 8 rows per expert and of 16 (two such warps
 * along M, an expert of 9..16 rows in one block) above. sm_80 .. sm_89's tables have one range
 * up to 16 rows, so only sm_90 runs the blocks of 8. */
#define EXPERT_ROWS8                                                                                      \
    "if e.m_max <= 16 then e.tuning = policy.mma_tuning(e.m_max <= 8 and 8 or 16, 128, 256, 8, 32, 128, 4, " \
    "device.sm >= 90 and 2 or 1) e.tuning.stream_k = false end"

typedef struct expert_case {
    const char *name;
    hum_standard_weight w;
    hum_layer *gemm[4]; /* by hum_gemm_type */
    hum_workspace *ws;
    hum_dtype act;      /* the 16-bit type: C, and A unless a8 */
    hum_dtype a8;       /* 8-bit A (the GEMMs' config.a_dtype), or 0 */
    int32_t a_group;    /* 8-bit A's scales: 0 one per row, else per group of that many columns along
                         * K (the host's codes, hum_layer_options.activation_group; 32: MXFP8's e8m0) */
    double *deq;        /* [E][N][K] dequantized weights (small cases), else NULL: per expert on demand */
} expert_case;

/* Random [E][N][K] weights, each expert shifted by its own offset so that the integer zero
 * points differ from expert to expert, quantized with `base` (and a random bias per expert when
 * with_bias), and the expert GEMMs on them: every MoE type, or with indexed_only the indexed. */
static int make_case(hum_runtime *rt, quant_rng *rng, expert_case *c, const char *name, int64_t experts, int64_t n,
                     int64_t k, hum_dtype act, const hum_quant_spec *base, int with_bias, int indexed_only,
                     hum_dtype a8, int32_t a_group)
{
    memset(c, 0, sizeof *c);
    if (!quant_test_selected(name))
        return 0;
    c->name = name;
    c->act = act;
    c->a_group = a_group;
    float *w = malloc((size_t)(experts * n * k) * sizeof *w);
    float *bias = malloc((size_t)(experts * n) * sizeof *bias);
    if (!QUANT_CHECK(w && bias, "%s: host weights", name))
        return 0;
    quant_fill_normal_f32(rng, w, experts * n * k, 0.05);
    quant_fill_normal_f32(rng, bias, experts * n, 0.5);
    for (int64_t e = 0; e < experts; e++)
        for (int64_t i = 0; i < n * k; i++)
            w[e * n * k + i] += 0.01f * (float)(e % 7);
    hum_quant_spec q = *base;
    q.num_experts = experts;
    q.param_dtype = act;
    q.bias = with_bias ? bias : NULL;
    const int ok = QUANT_CHECK(hum_quantize_reference(w, n, k, &q, &c->w) == HUM_OK, "%s: %s", name, hum_last_error());
    free(w);
    free(bias);
    if (!ok)
        return 0;
    /* 8-bit A: the checkpoint's scheme, per token, which the plan takes where the GPU has it;
     * in groups along K: the host passes the codes and their group scales */
    c->w.act_dtype = a8;
    const hum_layer_options opts = a_group ? (hum_layer_options){.activation_dtype = a8, .output_dtype = act,
                                                                 .activation_group = a_group}
                                           : (hum_layer_options){.activation_dtype = act};
    for (int t = HUM_GEMM_MOE_INDEXED; t <= (indexed_only ? HUM_GEMM_MOE_INDEXED : HUM_GEMM_MOE_GROUPED_MASKED); t++)
        if (!QUANT_CHECK(hum_expert_gemm_from_standard(rt, &c->w, &opts, (hum_gemm_type)t, &c->gemm[t]) == HUM_OK &&
                             hum_layer_prepare(c->gemm[t]) == HUM_OK,
                         "%s type %d: %s", name, t, hum_last_error()))
            return 0;
    hum_layer_info info;
    if (!QUANT_CHECK(hum_layer_get_info(c->gemm[1], &info) == HUM_OK, "%s", hum_last_error()))
        return 0;
    c->a8 = info.config.a_dtype == act ? 0 : info.config.a_dtype;
    if (!QUANT_CHECK(c->a8 == a8 && info.config.a_group == a_group, "%s: A runs as %s in groups of %lld, expected "
                     "%s in groups of %d", name, hum_dtype_name(info.config.a_dtype), (long long)info.config.a_group,
                     hum_dtype_name(a8 ? a8 : act), a_group))
        return 0;
    int64_t bytes = 0;
    if (!QUANT_CHECK(hum_layer_workspace_size(c->gemm[1], 1, &bytes) == HUM_OK &&
                         hum_workspace_create(rt, NULL, bytes, &c->ws) == HUM_OK,
                     "%s: workspace: %s", name, hum_last_error()))
        return 0;
    if (experts * n * k <= (INT64_C(1) << 24)) {
        c->deq = malloc((size_t)(experts * n * k) * sizeof *c->deq);
        for (int64_t e = 0; c->deq && e < experts; e++)
            hum_reference_dequant(&c->w, e, c->deq + e * n * k);
    }
    return 1;
}

static void free_case(expert_case *c)
{
    for (int t = 0; t < 4; t++)
        hum_layer_destroy(c->gemm[t]);
    hum_workspace_destroy(c->ws);
    hum_standard_free(&c->w);
    free(c->deq);
}

/* Checks C after a launch: row r of C (c_rows of them) is expert expert_of[r]'s product of A
 * row src[r] plus its bias, or untouched (0xFFFF everywhere) when src[r] < 0. Rows are checked
 * every `stride` (and the last one); the relative error is over the checked routed rows. */
static void verify(const expert_case *c, const char *what, const double *a, const int64_t *src,
                   const int32_t *expert_of, int64_t c_rows, const void *d_c, int64_t stride)
{
    const int64_t n = c->w.n, k = c->w.k;
    uint16_t *row = malloc((size_t)n * 2);
    double *got = malloc((size_t)n * sizeof *got), *deq = c->deq ? NULL : malloc((size_t)(n * k) * sizeof *deq);
    double *out = NULL, *ref = NULL;
    int64_t checked = 0, cap = c_rows / stride + 2;
    out = malloc((size_t)(cap * n) * sizeof *out);
    ref = malloc((size_t)(cap * n) * sizeof *ref);
    if (!QUANT_CHECK(row && got && out && ref && (c->deq || deq), "%s %s: host buffers", c->name, what))
        goto done;
    int32_t loaded = -1;
    for (int64_t i = 0;; i++) {
        const int64_t r = i * stride < c_rows ? i * stride : c_rows - 1;
        if (!QUANT_CHECK(hum_memcpy_dtoh(row, (const uint16_t *)d_c + r * n, (size_t)n * 2) == HUM_OK, "%s",
                         hum_last_error()))
            goto done;
        if (src[r] < 0) {
            for (int64_t j = 0; j < n; j++)
                if (!QUANT_CHECK(row[j] == 0xFFFF, "%s %s: row %lld (no expert) written at column %lld", c->name,
                                 what, (long long)r, (long long)j))
                    goto done;
        } else {
            const int32_t e = expert_of[r];
            const double *we = c->deq ? c->deq + (int64_t)e * n * k : deq;
            if (!c->deq && e != loaded) {
                hum_reference_dequant(&c->w, e, deq);
                loaded = e;
            }
            hum_dtype_decode(c->act, row, n, out + checked * n);
            double *rr = ref + checked * n;
            double bias_f = 0;
            for (int64_t j = 0; j < n; j++) {
                double s = 0;
                for (int64_t i = 0; i < k; i++)
                    s += a[src[r] * k + i] * we[j * k + i];
                if (c->w.bias.data) {
                    hum_dtype_decode(c->w.bias.dtype, (const char *)c->w.bias.data + (e * n + j) * 2, 1, &bias_f);
                    s += bias_f;
                }
                rr[j] = s;
            }
            for (int64_t j = 0; j < n; j++)
                if (!QUANT_CHECK(isfinite(out[checked * n + j]), "%s %s: row %lld column %lld not written (expert %d)",
                                 c->name, what, (long long)r, (long long)j, e))
                    goto done;
            checked++;
        }
        if (r == c_rows - 1)
            break;
    }
    const double err = checked ? quant_rel_error(out, ref, checked * n) : 0;
    /* 8-bit A: the reference multiplies the very codes and scales the GPU does (hum run's mark) */
    const double tol = c->a8 ? bench_check_tolerance_quantized(c->act) : c->act == HUM_DTYPE_BFLOAT16 ? 2e-2 : 1e-2;
    QUANT_CHECK(err < tol, "%s %s: relative error %.3e above %.0e", c->name, what, err, tol);
    printf("  %-34s %-44s %6lld rows checked, rel err %.2e\n", c->name, what, (long long)checked, err);
done:
    free(row);
    free(got);
    free(deq);
    free(out);
    free(ref);
}

/* A's scales per row: groups along K (a_group), else one. */
static int64_t scale_groups(const expert_case *c)
{
    return c->a_group ? (c->w.k + c->a_group - 1) / c->a_group : 1;
}

/* The dtype of A's scales: e8m0 bytes for MXFP8's groups of 32, else float32. */
static hum_dtype scale_dtype(const expert_case *c)
{
    return c->a_group == 32 ? HUM_DTYPE_FLOAT8_E8M0 : HUM_DTYPE_FLOAT32;
}

/* 8-bit A: rows of 16-bit A quantized as the layers do (hum_quantize_activations, per token or
 * per group along K) into codes (q) and scales (s); a becomes what they stand for, code times
 * its scale. The scales spread over 2^-4 .. 2^4 from row to row (rows scaled before
 * quantizing) and, with groups, over 2^-2 .. 2^2 from group to group, so that a row or group
 * read with another's scale is far off. */
static int quantize_rows(const expert_case *c, int64_t rows, uint16_t *codes, double *a, uint8_t *q, void *s)
{
    const int64_t k = c->w.k, groups = scale_groups(c);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t i = 0; i < k; i++)
            a[r * k + i] *= ldexp(1.0, (int)(r % 9) - 4 + (c->a_group ? (int)(i / c->a_group % 5) - 2 : 0));
    const hum_tensor th = {.data = codes, .dtype = c->act, .rank = 2, .shape = {rows, k}, .memory = HUM_MEMORY_HOST};
    const hum_tensor tq = {.data = q, .dtype = c->a8, .rank = 2, .shape = {rows, k}, .memory = HUM_MEMORY_HOST};
    const hum_tensor ts = {.data = s, .dtype = scale_dtype(c), .rank = c->a_group ? 2 : 1,
                           .shape = {rows, c->a_group ? groups : 0}, .memory = HUM_MEMORY_HOST};
    const hum_act_quant how = {c->a8, c->a_group ? HUM_ACT_SCALE_GROUP : HUM_ACT_SCALE_TOKEN, c->a_group,
                               scale_dtype(c)};
    double *f = malloc((size_t)(rows * groups) * sizeof *f);
    const int ok = f && hum_dtype_encode(c->act, a, rows * k, codes) == HUM_OK &&
                   hum_quantize_activations(&th, &how, 0.0f, &tq, &ts) == HUM_OK &&
                   hum_dtype_decode(c->a8, q, rows * k, a) == HUM_OK &&
                   hum_dtype_decode(scale_dtype(c), s, rows * groups, f) == HUM_OK;
    for (int64_t i = 0; ok && i < rows * k; i++)
        a[i] *= f[i / k * groups + (c->a_group ? i % k / c->a_group : 0)];
    free(f);
    return ok;
}

/* Device copies of A ([a_rows][K] random, host copy *a; 8-bit A: codes and their scales *d_s,
 * *a what they stand for) and a poisoned C ([c_rows + 1][N], the last row a guard that must
 * stay poisoned). */
static int buffers(const expert_case *c, quant_rng *rng, int64_t a_rows, int64_t c_rows, double **a, void **d_a,
                   void **d_s, void **d_c)
{
    const int64_t n = c->w.n, k = c->w.k;
    const size_t s_bytes = (size_t)(a_rows * scale_groups(c)) * (scale_dtype(c) == HUM_DTYPE_FLOAT8_E8M0 ? 1 : 4);
    uint16_t *codes = malloc((size_t)(a_rows * k) * 2);
    uint8_t *q = c->a8 ? malloc((size_t)(a_rows * k)) : NULL;
    void *s = c->a8 ? malloc(s_bytes) : NULL;
    *a = malloc((size_t)(a_rows * k) * sizeof **a);
    *d_a = *d_s = *d_c = NULL;
    int ok = QUANT_CHECK(codes && *a && (!c->a8 || (q && s)) &&
                             quant_fill_activations(rng, c->act, a_rows * k, 1.0, codes, *a) == 0 &&
                             (!c->a8 || quantize_rows(c, a_rows, codes, *a, q, s)),
                         "%s: host A: %s", c->name, hum_last_error());
    ok = ok && QUANT_CHECK(hum_device_alloc(0, (size_t)(a_rows * k) * (c->a8 ? 1 : 2), d_a) == HUM_OK &&
                               hum_memcpy_htod(*d_a, c->a8 ? (void *)q : (void *)codes,
                                               (size_t)(a_rows * k) * (c->a8 ? 1 : 2)) == HUM_OK &&
                               (!c->a8 || (hum_device_alloc(0, s_bytes, d_s) == HUM_OK &&
                                           hum_memcpy_htod(*d_s, s, s_bytes) == HUM_OK)) &&
                               hum_device_alloc(0, (size_t)((c_rows + 1) * n) * 2, d_c) == HUM_OK &&
                               hum_memset_d8(*d_c, 0xFF, (size_t)((c_rows + 1) * n) * 2) == HUM_OK,
                           "%s: device buffers: %s", c->name, hum_last_error());
    free(codes);
    free(q);
    free(s);
    return ok;
}

/* The A operand of a launch: codes of c->a8 or the 16-bit rows; its scales (8-bit A) in *ts:
 * [rows] or [rows, groups]. */
static hum_tensor a_operand(const expert_case *c, void *d_a, void *d_s, int64_t rows, hum_tensor *ts)
{
    memset(ts, 0, sizeof *ts);
    ts->data = d_s;
    ts->dtype = scale_dtype(c);
    ts->rank = c->a_group ? 2 : 1;
    ts->shape[0] = rows;
    ts->shape[1] = c->a_group ? scale_groups(c) : 0;
    ts->memory = HUM_MEMORY_DEVICE;
    return gemm_test_matrix(d_a, c->a8 ? c->a8 : c->act, rows, c->w.k, 0);
}

static void check_guard(const expert_case *c, const char *what, const void *d_c, int64_t c_rows)
{
    uint16_t g[64];
    const int64_t cnt = c->w.n < 64 ? c->w.n : 64;
    if (QUANT_CHECK(hum_memcpy_dtoh(g, (const uint16_t *)d_c + c_rows * c->w.n, (size_t)cnt * 2) == HUM_OK, "%s",
                    hum_last_error()))
        for (int64_t i = 0; i < cnt; i++)
            if (!QUANT_CHECK(g[i] == 0xFFFF, "%s %s: C written past its last row", c->name, what))
                return;
}

static void *upload(const void *host, size_t bytes)
{
    void *d = NULL;
    if (hum_device_alloc(0, bytes, &d) != HUM_OK || hum_memcpy_htod(d, host, bytes) != HUM_OK) {
        hum_device_free(d);
        return NULL;
    }
    return d;
}

/* Indexed: tokens m with top_k slots, topk[m * top_k] the local expert of each slot (-1: none:
 * those rows go to a skipped block). down: the routed rows themselves are A (top_k 1). */
static void run_indexed(expert_case *c, quant_rng *rng, const char *what, int64_t m, int32_t top_k, const int32_t *topk,
                        int down, int64_t stride)
{
    const int64_t E = c->w.num_experts, R = m * top_k;
    hum_expert_routing r = {.m = down ? R : m, .top_k = down ? 1 : top_k};
    int32_t bm = 0;
    if (!QUANT_CHECK(hum_expert_gemm_block_m(c->gemm[1], c->ws, &r, &bm) == HUM_OK, "%s", hum_last_error()))
        return;
    /* the align, as the contract states it; a skipped block (-1) holds the rows of no expert */
    const int64_t capacity = hum_moe_indexed_capacity(R, E, bm) + bm;
    int32_t *sorted = malloc((size_t)capacity * 4), *blocks = malloc((size_t)(capacity / bm) * 4);
    int64_t *src = malloc((size_t)R * sizeof *src);
    int32_t *expert_of = malloc((size_t)R * 4);
    int32_t count = 0;
    for (int64_t e = -1; e < E; e++) {
        const int32_t start = count;
        for (int64_t i = 0; i < R; i++)
            if (topk[i] == e)
                sorted[count++] = (int32_t)i;
        while (count % bm)
            sorted[count++] = (int32_t)R;
        for (int32_t b = start / bm; b < count / bm; b++)
            blocks[b] = e < 0 ? HUM_MOE_SKIP_BLOCK : (int32_t)e;
    }
    for (int64_t i = count; i < capacity; i++)
        sorted[i] = 0; /* past the count: never read */
    for (int64_t i = 0; i < R; i++) {
        src[i] = topk[i] < 0 ? -1 : down ? i : i / top_k;
        expert_of[i] = topk[i];
    }
    double *a = NULL;
    void *d_a = NULL, *d_s = NULL, *d_c = NULL;
    int32_t *d_sorted = upload(sorted, (size_t)capacity * 4), *d_blocks = upload(blocks, (size_t)(capacity / bm) * 4);
    int32_t *d_count = upload(&count, 4);
    if (QUANT_CHECK(d_sorted && d_blocks && d_count, "%s: routing upload", c->name) &&
        buffers(c, rng, r.m, R, &a, &d_a, &d_s, &d_c)) {
        r.block_m = bm;
        r.sorted_token_ids = d_sorted;
        r.expert_ids = d_blocks;
        r.num_tokens_post_padded = d_count;
        r.capacity = capacity;
        hum_tensor ts;
        const hum_tensor ta = a_operand(c, d_a, d_s, r.m, &ts), tc = gemm_test_matrix(d_c, c->act, R, c->w.n, 0);
        char label[96];
        snprintf(label, sizeof label, "%s%s M=%lld top_k=%d block_m=%d", down ? "down " : "", what, (long long)m,
                 top_k, bm);
        if (QUANT_CHECK(hum_expert_gemm_forward(c->gemm[1], c->ws, NULL, &ta, c->a8 ? &ts : NULL, &tc, &r) == HUM_OK &&
                            hum_stream_synchronize(NULL) == HUM_OK,
                        "%s %s: %s", c->name, label, hum_last_error())) {
            verify(c, label, a, src, expert_of, R, d_c, stride);
            check_guard(c, label, d_c, R);
        }
    }
    hum_device_free(d_a);
    hum_device_free(d_s);
    hum_device_free(d_c);
    hum_device_free(d_sorted);
    hum_device_free(d_blocks);
    hum_device_free(d_count);
    free(a);
    free(sorted);
    free(blocks);
    free(src);
    free(expert_of);
}

/* Grouped: counts[E] rows per expert; contiguous: rows back to back after `lead` rows no
 * expert owns (and 2 after them); masked: T = max count rows per expert. */
static void run_grouped(expert_case *c, quant_rng *rng, hum_gemm_type type, const int32_t *counts)
{
    const int64_t E = c->w.num_experts;
    int64_t total = 0, t_max = 1;
    for (int64_t e = 0; e < E; e++) {
        total += counts[e];
        t_max = counts[e] > t_max ? counts[e] : t_max;
    }
    const int64_t lead = 3, rows = type == HUM_GEMM_MOE_GROUPED_CONTIGUOUS ? lead + total + 2 : E * t_max;
    int64_t *offsets = malloc((size_t)(E + 1) * sizeof *offsets), *src = malloc((size_t)rows * sizeof *src);
    int32_t *expert_of = malloc((size_t)rows * 4);
    for (int64_t i = 0; i < rows; i++)
        src[i] = -1;
    offsets[0] = lead;
    for (int64_t e = 0; e < E; e++) {
        offsets[e + 1] = offsets[e] + counts[e];
        for (int64_t i = 0; i < counts[e]; i++) {
            const int64_t row = type == HUM_GEMM_MOE_GROUPED_CONTIGUOUS ? offsets[e] + i : e * t_max + i;
            src[row] = row;
            expert_of[row] = (int32_t)e;
        }
    }
    double *a = NULL;
    void *d_a = NULL, *d_s = NULL, *d_c = NULL;
    void *d_layout = type == HUM_GEMM_MOE_GROUPED_CONTIGUOUS ? upload(offsets, (size_t)(E + 1) * 8)
                                                              : upload(counts, (size_t)E * 4);
    hum_expert_routing r = {.m = type == HUM_GEMM_MOE_GROUPED_CONTIGUOUS ? rows : t_max};
    if (type == HUM_GEMM_MOE_GROUPED_CONTIGUOUS)
        r.expert_offsets = d_layout;
    else
        r.expert_counts = d_layout;
    if (QUANT_CHECK(d_layout != NULL, "%s: layout upload", c->name) &&
        buffers(c, rng, rows, rows, &a, &d_a, &d_s, &d_c)) {
        hum_tensor ts;
        const hum_tensor ta = a_operand(c, d_a, d_s, rows, &ts), tc = gemm_test_matrix(d_c, c->act, rows, c->w.n, 0);
        char label[96];
        snprintf(label, sizeof label, "%s rows=%lld", type == HUM_GEMM_MOE_GROUPED_CONTIGUOUS ? "contiguous" : "masked",
                 (long long)rows);
        if (QUANT_CHECK(hum_expert_gemm_forward(c->gemm[type], c->ws, NULL, &ta, c->a8 ? &ts : NULL, &tc, &r) ==
                                HUM_OK &&
                            hum_stream_synchronize(NULL) == HUM_OK,
                        "%s %s: %s", c->name, label, hum_last_error())) {
            verify(c, label, a, src, expert_of, rows, d_c, 1);
            check_guard(c, label, d_c, rows);
        }
    }
    hum_device_free(d_a);
    hum_device_free(d_s);
    hum_device_free(d_c);
    hum_device_free(d_layout);
    free(a);
    free(offsets);
    free(src);
    free(expert_of);
}

/* top_k distinct random experts of E per token. */
static void random_routing(quant_rng *rng, int64_t m, int32_t top_k, int64_t experts, int32_t *topk)
{
    for (int64_t t = 0; t < m; t++)
        for (int32_t j = 0; j < top_k; j++) {
            int32_t e;
            int again;
            do {
                e = (int32_t)quant_rng_below(rng, experts);
                again = 0;
                for (int32_t i = 0; i < j; i++)
                    again |= topk[t * top_k + i] == e;
            } while (again);
            topk[t * top_k + j] = e;
        }
}

/* E = 33, N = 200, K = 96, uint4 group 32, integer zero points, bias. */
static void small_cases(hum_runtime *rt, quant_rng *rng, hum_dtype act)
{
    const hum_quant_spec q = {.weight_dtype = HUM_DTYPE_UINT4, .scale_type = HUM_SCALE_GROUP, .group_size = 32,
                              .zero_point = HUM_ZERO_POINT_INT};
    expert_case c;
    const char *name =
        act == HUM_DTYPE_BFLOAT16 ? "E=33 n=200 k=96 uint4 g32 zp bf16" : "E=33 n=200 k=96 uint4 g32 zp f16";
    if (make_case(rt, rng, &c, name, 33, 200, 96, act, &q, 1, 0, 0, 0)) {
        const int64_t ms[] = {1, 5, 40, 600}; /* rows per expert 1 .. 73: mma.sync and (sm_90) wgmma */
        for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
            int32_t *topk = malloc((size_t)ms[i] * 4 * 4);
            random_routing(rng, ms[i], 4, 33, topk);
            if (ms[i] == 5)
                topk[3] = topk[9] = -1; /* slots with no local expert */
            run_indexed(&c, rng, "random", ms[i], 4, topk, 0, 1);
            run_indexed(&c, rng, "random", ms[i], 4, topk, 1, 1);
            free(topk);
        }
        /* expert 0 gets block_m rows, expert 1 block_m + 1, expert 2 one, the rest none */
        hum_expert_routing probe = {.m = 17, .top_k = 2};
        int32_t bm = 16;
        hum_expert_gemm_block_m(c.gemm[1], c.ws, &probe, &bm);
        const int64_t m = bm + 1;
        int32_t *topk = malloc((size_t)m * 2 * 4);
        for (int64_t t = 0; t < m; t++) {
            topk[2 * t] = t < bm ? 0 : 2;
            topk[2 * t + 1] = 1;
        }
        run_indexed(&c, rng, "counts bm, bm+1, 1, 0", m, 2, topk, 0, 1);
        free(topk);
        int32_t counts[33];
        for (int e = 0; e < 33; e++)
            counts[e] = e % 5 == 0 ? 0 : (int32_t)quant_rng_below(rng, 90);
        counts[1] = 64;
        counts[2] = 65;
        counts[3] = 16;
        counts[4] = 17;
        run_grouped(&c, rng, HUM_GEMM_MOE_GROUPED_CONTIGUOUS, counts);
        run_grouped(&c, rng, HUM_GEMM_MOE_GROUPED_MASKED, counts);
        for (int e = 0; e < 33; e++)
            counts[e] = e == 7 ? 3 : 0; /* one expert holds every row */
        run_grouped(&c, rng, HUM_GEMM_MOE_GROUPED_CONTIGUOUS, counts);
        run_grouped(&c, rng, HUM_GEMM_MOE_GROUPED_MASKED, counts);
    }
    free_case(&c);
}

/* Qwen3-30B-A3B gate/up shapes: N = 1536, K = 2048, uint4 g128 bfloat16, top_k 8, over 32 experts
 * (128 would make the reference quantizer the test's cost); sampled rows at the largest M. */
static void qwen_case(hum_runtime *rt, quant_rng *rng)
{
    const hum_quant_spec q = {.weight_dtype = HUM_DTYPE_UINT4, .scale_type = HUM_SCALE_GROUP, .group_size = 128};
    expert_case c;
    if (make_case(rt, rng, &c, "qwen3 gate_up E=32 uint4 g128 bf16", 32, 1536, 2048, HUM_DTYPE_BFLOAT16, &q, 0, 1, 0,
                  0)) {
        const int64_t ms[] = {1, 64, 256, 600, 1000}; /* rows per expert 1, 16, 64, 150, 250 */
        for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
            int32_t *topk = malloc((size_t)ms[i] * 8 * 4);
            random_routing(rng, ms[i], 8, 32, topk);
            run_indexed(&c, rng, "random", ms[i], 8, topk, 0, ms[i] > 64 ? 37 : 1);
            free(topk);
        }
    }
    free_case(&c);
}

/* M * top_k = 68,000 routed rows (> 65,535) of N = 33,000 (> 2^31 outputs): 64-bit offsets. */
static void large_case(hum_runtime *rt, quant_rng *rng)
{
    const hum_quant_spec q = {.weight_dtype = HUM_DTYPE_UINT4, .scale_type = HUM_SCALE_GROUP, .group_size = 64};
    expert_case c;
    if (make_case(rt, rng, &c, "large E=4 n=33000 k=128 f16", 4, 33000, 128, HUM_DTYPE_FLOAT16, &q, 0, 1, 0, 0)) {
        const int64_t m = 17000;
        int32_t *topk = malloc((size_t)m * 4 * 4);
        random_routing(rng, m, 4, 4, topk);
        run_indexed(&c, rng, "random", m, 4, topk, 0, 4999);
        free(topk);
    }
    free_case(&c);
}

/* Act-order experts (one K permutation for all of them, as the standard weight holds today):
 * the A loader gathers each block's expert's columns (mma.sync). */
static void act_order_case(hum_runtime *rt, quant_rng *rng)
{
    int32_t perm[96];
    for (int i = 0; i < 96; i++)
        perm[i] = i;
    for (int i = 95; i > 0; i--) {
        const int j = (int)quant_rng_below(rng, i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    const hum_quant_spec q = {.weight_dtype = HUM_DTYPE_UINT4, .scale_type = HUM_SCALE_GROUP, .group_size = 32,
                              .zero_point = HUM_ZERO_POINT_INT, .k_perm = perm};
    expert_case c;
    if (make_case(rt, rng, &c, "E=8 n=200 k=96 uint4 g32 act-order bf16", 8, 200, 96, HUM_DTYPE_BFLOAT16, &q, 1, 0,
                  0, 0)) {
        const int64_t ms[] = {3, 300};
        for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
            int32_t *topk = malloc((size_t)ms[i] * 2 * 4);
            random_routing(rng, ms[i], 2, 8, topk);
            run_indexed(&c, rng, "random", ms[i], 2, topk, 0, 1);
            run_indexed(&c, rng, "random", ms[i], 2, topk, 1, 1);
            free(topk);
        }
        const int32_t counts[8] = {0, 17, 64, 65, 1, 0, 30, 3};
        run_grouped(&c, rng, HUM_GEMM_MOE_GROUPED_CONTIGUOUS, counts);
        run_grouped(&c, rng, HUM_GEMM_MOE_GROUPED_MASKED, counts);
    }
    free_case(&c);
}

/* 8-bit A on E = 12 experts, N = 320 (not a multiple of 128), K = 512, channel scales (or with
 * weight_group the weight's float32 scales along K: uint4's per group, e4m3's per block of
 * weight_group x weight_group, FP8 block-wise): indexed gate/up (rows gathered by token) and down
 * (top_k 1) at rows per expert on both sides of the sm90 policy's switch to wgmma, grouped contiguous and masked. A's scales
 * per row, or with a_group per group of columns along K (32: MXFP8, e8m0), each gathered row
 * bringing its own row's. Skipped (reported) where the GPU lacks the type (e4m3 before sm_89,
 * int8 before sm_80). */
static void a8_case(hum_runtime *rt, quant_rng *rng, hum_dtype a8, hum_dtype weight, int32_t weight_group,
                    hum_dtype out, int32_t a_group, int sm)
{
    const int need = a8 == HUM_DTYPE_INT8 ? 80 : 89;
    /* e4m3 weights' scales along K come in float32 blocks (FP8 block-wise), uint4's in groups */
    const int block = weight_group && weight == HUM_DTYPE_FLOAT8_E4M3FN;
    char name[96], w[32] = "";
    if (weight_group)
        snprintf(w, sizeof w, " %s%d", block ? "block" : "g", weight_group);
    char a[48];
    if (a_group == 32)
        snprintf(a, sizeof a, "mxfp8");
    else
        snprintf(a, sizeof a, a_group ? "%s 1x%d" : "%s", hum_dtype_name(a8), a_group);
    snprintf(name, sizeof name, "E=12 n=320 k=512 %s%s x %s A %s", hum_dtype_name(weight), w, a, hum_dtype_name(out));
    if (sm < need) {
        printf("  %-34s skipped: sm_%d (needs sm_%d)\n", name, sm, need);
        return;
    }
    const hum_quant_spec q = {.weight_dtype = weight,
                              .scale_type = block ? HUM_SCALE_BLOCK : weight_group ? HUM_SCALE_GROUP : HUM_SCALE_CHANNEL,
                              .group_size = weight_group, .group_size_n = block ? weight_group : 0};
    expert_case c;
    if (make_case(rt, rng, &c, name, 12, 320, 512, out, &q, 0, 0, a8, a_group)) {
        const int64_t ms[] = {2, 45, 400}; /* rows per expert 1, 15, 134 */
        for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
            int32_t *topk = malloc((size_t)ms[i] * 4 * 4);
            random_routing(rng, ms[i], 4, 12, topk);
            if (ms[i] == 45)
                topk[5] = -1;
            run_indexed(&c, rng, "random", ms[i], 4, topk, 0, 1);
            run_indexed(&c, rng, "random", ms[i], 4, topk, 1, 1);
            free(topk);
        }
        int32_t counts[12];
        for (int e = 0; e < 12; e++)
            counts[e] = e % 4 == 0 ? 0 : (int32_t)quant_rng_below(rng, 150);
        run_grouped(&c, rng, HUM_GEMM_MOE_GROUPED_CONTIGUOUS, counts);
        run_grouped(&c, rng, HUM_GEMM_MOE_GROUPED_MASKED, counts);
    }
    free_case(&c);
}

int main(void)
{
    if (!gemm_test_have_gpu())
        return 77;
    const char *only = getenv("HUM_TEST_EXPERT_GEMM");
    const int ws_only = only && !strcmp(only, "ws"), policy_only = only && !strcmp(only, "policy");
    if (!QUANT_CHECK(!only || ws_only || policy_only, "HUM_TEST_EXPERT_GEMM is '%s': expected 'ws', 'policy' or unset",
                     only))
        return quant_test_result("test_expert_gemm");
    quant_rng rng = quant_rng_fresh("test_expert_gemm");
    const hum_dtype E4 = HUM_DTYPE_FLOAT8_E4M3FN, BF = HUM_DTYPE_BFLOAT16, F16 = HUM_DTYPE_FLOAT16;
    hum_runtime *rt = NULL;
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error()))
        return quant_test_result("test_expert_gemm");
    if (!ws_only) {
        small_cases(rt, &rng, HUM_DTYPE_FLOAT16);
        act_order_case(rt, &rng);
    }
    small_cases(rt, &rng, HUM_DTYPE_BFLOAT16);
    hum_device_info dev;
    const int sm = hum_runtime_device(rt, &dev) == HUM_OK ? dev.sm_major * 10 + dev.sm_minor : 0;
    const int test_policies = sm >= 90 && !policy_only; /* the sm_90 test policies' runs */
    if (!ws_only) {
        qwen_case(rt, &rng);
        large_case(rt, &rng);
        a8_case(rt, &rng, E4, E4, 0, BF, 0, sm);
        a8_case(rt, &rng, E4, HUM_DTYPE_UINT4, 0, F16, 0, sm);
        a8_case(rt, &rng, HUM_DTYPE_INT8, HUM_DTYPE_UINT8, 0, BF, 0, sm);
        /* the host's MXFP8 A: e4m3 weights, W4A8 with channel scales, and with group-128 scales
         * along K (the Qwen3-30B-A3B layer's shapes: promoted every 32 of K; moe.activation =
         * mxfp8 is rounded into 16-bit A instead, tests/gpu/moe_forward.c) */
        a8_case(rt, &rng, E4, E4, 0, BF, 32, sm);
        a8_case(rt, &rng, E4, HUM_DTYPE_UINT4, 0, F16, 32, sm);
        a8_case(rt, &rng, E4, HUM_DTYPE_UINT4, 128, BF, 32, sm);
        /* FP8 block-wise: e4m3 weights in 128 x 128 blocks beside A per 1 x 128 group (its
         * scheme) and per token; W4A8 group-128 weights beside A per 1 x 128 group */
        a8_case(rt, &rng, E4, E4, 128, BF, 128, sm);
        a8_case(rt, &rng, E4, E4, 128, F16, 0, sm);
        a8_case(rt, &rng, E4, HUM_DTYPE_UINT4, 128, BF, 128, sm);
        /* W4A8 int: group-128 weights beside int8 A per token (int32 sums promoted per group) */
        a8_case(rt, &rng, HUM_DTYPE_INT8, HUM_DTYPE_UINT4, 128, F16, 0, sm);
    }
    hum_runtime_destroy(rt);
    /* wgmma_ws with C staged in a tile of its own, and in the last stage's slot (c_tile) */
    static const char *const C_TILES[] = {"own", "stage"};
    for (size_t c = 0; test_policies && c < sizeof C_TILES / sizeof C_TILES[0]; c++) {
        char dir[512];
        hum_runtime *ws = wgmma_test_runtime("wgmma_ws", C_TILES[c], dir, sizeof dir);
        if (QUANT_CHECK(ws != NULL, "the wgmma_ws policy's runtime, c_tile %s", C_TILES[c])) {
            printf("wgmma_ws, c_tile %s\n", C_TILES[c]);
            small_cases(ws, &rng, HUM_DTYPE_BFLOAT16);
            qwen_case(ws, &rng);
            a8_case(ws, &rng, E4, E4, 0, BF, 0, sm);
            a8_case(ws, &rng, E4, E4, 128, BF, 128, sm);
            hum_runtime_destroy(ws);
        }
        rt_rmtree(dir);
    }
    if (!ws_only && !policy_only) {
        char dir[512];
        hum_runtime *rows8 = gemm_test_site_runtime(EXPERT_ROWS8, dir, sizeof dir);
        if (QUANT_CHECK(rows8 != NULL, "the 8-row runtime")) {
            small_cases(rows8, &rng, HUM_DTYPE_FLOAT16);
            small_cases(rows8, &rng, HUM_DTYPE_BFLOAT16);
            qwen_case(rows8, &rng);
            a8_case(rows8, &rng, E4, E4, 0, BF, 0, sm);
            a8_case(rows8, &rng, HUM_DTYPE_INT8, HUM_DTYPE_UINT8, 0, BF, 0, sm);
            a8_case(rows8, &rng, E4, E4, 0, BF, 32, sm);
            a8_case(rows8, &rng, E4, HUM_DTYPE_UINT4, 128, BF, 32, sm);
            a8_case(rows8, &rng, E4, E4, 128, BF, 128, sm);
            a8_case(rows8, &rng, HUM_DTYPE_INT8, HUM_DTYPE_UINT4, 128, BF, 0, sm);
            hum_runtime_destroy(rows8);
        }
        rt_rmtree(dir);
    }
    if (test_policies && !ws_only) {
        char dir[512];
        hum_runtime *odd = wgmma_test_runtime_policy(WGMMA_ODD_BLOCK_POLICY, dir, sizeof dir);
        if (QUANT_CHECK(odd != NULL, "the odd block M policy's runtime")) {
            small_cases(odd, &rng, HUM_DTYPE_BFLOAT16);
            qwen_case(odd, &rng);
            hum_runtime_destroy(odd);
        }
        rt_rmtree(dir);
    }
    return quant_test_result("test_expert_gemm");
}
