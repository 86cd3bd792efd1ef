/* GEMMs of 8-bit activations on a GPU: e4m3 x e4m3, int8 x uint8 (around 128) and e4m3 or int8
 * x uint4 (around 8, W4A8) and e4m3 x e2m1 weights, with MXFP4's e8m0 group scales folded in, or
 * channel (float16, bfloat16, float32 scales), tensor, or uint4 / uint8 group weight scales along K
 * (32, 64, 128: applied where the accumulators are promoted), per-token and per-tensor
 * activation scales, bias, float16 and bfloat16 output, at M across the policy's ranges (1, 7, 48,
 * 200, 520); then at M = 1 and 200 with stream-K on, its slices summed in the workspace
 * (stream_k_sum, a site policy over the built-in tables on the plain wgmma kernel; K = 8192 at
 * M = 1: each tile split over ~16 CTAs); then on sm_90 the warp-specialised kernel (wgmma_ws,
 * which the built-in tables run from M = 17 there) on the same tables. A is fresh
 * random 8-bit codes with random float32 scales; the float64 reference (hum_reference_gemm)
 * multiplies the same quantized values, so only the accumulation and the output rounding differ:
 * ||C - round(ref)|| / ||ref|| <= 1e-3, every output written (C poisoned first, a guard row
 * after it). Also: hum_layer_forward's a_scale errors, with nothing launched. HUM_TEST_CASES
 * (e.g. e2m1) runs only the cases whose spec contains one of its pieces. Skipped (77) without a
 * GPU. */
#include "gemm_test.h"
#include "hum/hum_tools.h"
#include "rt_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hum_tensor tensor(void *data, hum_dtype dtype, int rank, int64_t rows, int64_t cols)
{
    hum_tensor t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.dtype = dtype;
    t.rank = rank;
    t.shape[0] = rows;
    t.shape[1] = cols;
    t.memory = HUM_MEMORY_DEVICE;
    return t;
}

/* Random 8-bit A (codes and exact values) and float32 scales, per token or per tensor. */
static void fill_a(quant_rng *rng, hum_dtype a_dtype, int64_t m, int64_t k, int per_token, uint8_t *codes,
                   double *values, float *scales)
{
    for (int64_t i = 0; i < m * k; i++) {
        const double x = quant_rng_normal(rng);
        values[i] = a_dtype == HUM_DTYPE_INT8 ? fmax(-127, fmin(127, nearbyint(40 * x))) : 64 * x;
    }
    hum_dtype_encode(a_dtype, values, m * k, codes);
    hum_dtype_decode(a_dtype, codes, m * k, values);
    for (int64_t r = 0; r < (per_token ? m : 1); r++)
        scales[r] = (float)((0.5 + quant_rng_uniform(rng)) / 64);
    for (int64_t i = 0; i < m * k; i++)
        values[i] *= (double)scales[per_token ? i / k : 0];
}

/* Forwards at M rows; returns ||C - round(ref)|| / ||ref||, or -1 on a failed check. Below M = 4
 * the norm pools ceil(4 / M) forwards of fresh A: rounding the reference to a bfloat16 C costs a
 * whole ulp wherever the accumulation flips a rounding, so the 1024 outputs of one row scatter
 * around the mean (W4A8 MXFP4 at M = 1, near 9e-4, read 1.06e-03 once: bench/NOTES.md, session 31). */
static double run_m(hum_layer *layer, quant_rng *rng, const char *name, const hum_standard_weight *w,
                    hum_dtype a_dtype, hum_dtype c_dtype, int64_t m, int per_token)
{
    const int64_t n = w->n, k = w->k, ns = per_token ? m : 1, draws = m >= 4 ? 1 : (4 + m - 1) / m;
    const int64_t outs = draws * m * n;
    uint8_t *a_codes = malloc((size_t)(m * k));
    uint16_t *c_codes = malloc((size_t)outs * 2), *rounded = malloc((size_t)outs * 2);
    float *scales = malloc((size_t)ns * sizeof *scales);
    double *a = malloc((size_t)(m * k) * sizeof *a), *ref = malloc((size_t)outs * sizeof *ref);
    double *got = malloc((size_t)outs * sizeof *got), *ref_r = malloc((size_t)outs * sizeof *ref_r);
    void *d_a = NULL, *d_s = NULL, *d_c = NULL;
    double err = -1;
    if (!QUANT_CHECK(a_codes && c_codes && rounded && scales && a && ref && got && ref_r, "%s: host buffers", name))
        goto done;
    if (!QUANT_CHECK(hum_device_alloc(0, (size_t)((m + 1) * k), &d_a) == HUM_OK &&
                         hum_device_alloc(0, (size_t)ns * 4, &d_s) == HUM_OK &&
                         hum_device_alloc(0, (size_t)((m + 1) * n) * 2, &d_c) == HUM_OK &&
                         hum_memset_d8(d_a, 0x7F, (size_t)((m + 1) * k)) == HUM_OK,
                     "%s: device buffers: %s", name, hum_last_error()))
        goto done;
    for (int64_t d = 0; d < draws; d++) {
        fill_a(rng, a_dtype, m, k, per_token, a_codes, a, scales);
        if (!QUANT_CHECK(hum_reference_gemm(w, 0, a, m, ref + d * m * n) == HUM_OK, "%s: reference: %s", name,
                         hum_last_error()) ||
            !QUANT_CHECK(hum_memcpy_htod(d_a, a_codes, (size_t)(m * k)) == HUM_OK &&
                             hum_memcpy_htod(d_s, scales, (size_t)ns * 4) == HUM_OK &&
                             hum_memset_d8(d_c, 0xFF, (size_t)((m + 1) * n) * 2) == HUM_OK,
                         "%s: device buffers: %s", name, hum_last_error()))
            goto done;
        const hum_tensor ta = tensor(d_a, a_dtype, 2, m, k), ts = tensor(d_s, HUM_DTYPE_FLOAT32, 1, ns, 0),
                         tc = tensor(d_c, c_dtype, 2, m, n);
        if (!QUANT_CHECK(hum_layer_forward(layer, NULL, &ta, &ts, &tc) == HUM_OK, "%s: forward M = %lld: %s", name,
                         (long long)m, hum_last_error()) ||
            !QUANT_CHECK(hum_stream_synchronize(NULL) == HUM_OK &&
                             hum_memcpy_dtoh(c_codes + d * m * n, d_c, (size_t)(m * n) * 2) == HUM_OK,
                         "%s: M = %lld: %s", name, (long long)m, hum_last_error()))
            goto done;
        uint16_t guard[64];
        const int64_t g = n < 64 ? n : 64;
        if (hum_memcpy_dtoh(guard, (uint16_t *)d_c + m * n, (size_t)g * 2) == HUM_OK)
            for (int64_t i = 0; i < g; i++)
                if (!QUANT_CHECK(guard[i] == 0xFFFF, "%s: M = %lld: C written past its last row", name, (long long)m))
                    goto done;
    }
    int64_t unwritten = 0;
    err = quant_rel_error_rounded(c_dtype, c_codes, ref, outs, got, rounded, ref_r, &unwritten);
    if (!QUANT_CHECK(unwritten == 0, "%s: M = %lld: %lld of %lld outputs not finite", name, (long long)m,
                     (long long)unwritten, (long long)outs))
        goto done;
    if (!QUANT_CHECK(err <= 1e-3, "%s: M = %lld (%s scales, %lld forward%s): relative error %.3e above 1e-3 (%.3e "
                                  "against the unrounded reference)",
                     name, (long long)m, per_token ? "token" : "tensor", (long long)draws, draws > 1 ? "s" : "", err,
                     quant_rel_error(got, ref, outs)))
        err = -1;
done:
    hum_device_free(d_a);
    hum_device_free(d_s);
    hum_device_free(d_c);
    free(a_codes);
    free(c_codes);
    free(rounded);
    free(scales);
    free(a);
    free(ref);
    free(got);
    free(ref_r);
    return err;
}

/* Bad a_scale tensors are refused naming a_scale, and C stays poisoned. */
static void check_errors(hum_layer *layer, hum_dtype a_dtype, hum_dtype c_dtype, int64_t k, int64_t n)
{
    const int64_t m = 4;
    void *d_a = NULL, *d_s = NULL, *d_c = NULL;
    if (!QUANT_CHECK(hum_device_alloc(0, (size_t)(m * k), &d_a) == HUM_OK &&
                         hum_device_alloc(0, (size_t)m * 8, &d_s) == HUM_OK &&
                         hum_device_alloc(0, (size_t)(m * n) * 2, &d_c) == HUM_OK &&
                         hum_memset_d8(d_c, 0xFF, (size_t)(m * n) * 2) == HUM_OK,
                     "error buffers: %s", hum_last_error()))
        goto done;
    const hum_tensor ta = tensor(d_a, a_dtype, 2, m, k), tc = tensor(d_c, c_dtype, 2, m, n);
    const hum_tensor wrong_dtype = tensor(d_s, HUM_DTYPE_FLOAT16, 1, m, 0),
                     wrong_rows = tensor(d_s, HUM_DTYPE_FLOAT32, 1, 3, 0);
    const hum_tensor rank2 = tensor(d_s, HUM_DTYPE_FLOAT32, 2, m, 1);
    hum_tensor host = tensor(d_s, HUM_DTYPE_FLOAT32, 1, m, 0);
    host.memory = HUM_MEMORY_HOST;
    const struct {
        const hum_tensor *s;
        const char *needle;
    } cases[] = {{NULL, "need a_scale"}, {&wrong_dtype, "float32 device memory"}, {&host, "not on the device"},
                 {&wrong_rows, "expected [M] = [4]"}, {&rank2, "rank 2"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        QUANT_CHECK(hum_layer_forward(layer, NULL, &ta, cases[i].s, &tc) == HUM_ERR_INVALID_ARG &&
                        strstr(hum_last_error(), cases[i].needle),
                    "a_scale case %zu: '%s' should name '%s'", i, hum_last_error(), cases[i].needle);
    uint16_t c[64];
    if (QUANT_CHECK(hum_stream_synchronize(NULL) == HUM_OK && hum_memcpy_dtoh(c, d_c, sizeof c) == HUM_OK, "%s",
                    hum_last_error()))
        for (int i = 0; i < 64; i++)
            if (!QUANT_CHECK(c[i] == 0xFFFF, "a refused forward wrote C"))
                break;
done:
    hum_device_free(d_a);
    hum_device_free(d_s);
    hum_device_free(d_c);
}

typedef struct a8_case {
    const char *spec;
    hum_dtype a, c;
    int ws; /* in the wgmma_ws pass: one of each weight x A type, scale kind and K shape (the time of
             * the float64 reference and of the compiles); 2: also in the promotion passes; 3: in the
             * `fill` pass alone (kFill) */
    int wide; /* MXFP4 groups far below their column's largest (spread_groups: 1 every column's, 2 some stages of
               * some columns) */
    int64_t whole_to; /* a `fill` case: the M up to which its entries are tiles whole on 132 SMs */
} a8_case;

/* MXFP4 columns whose groups lie 12 to 14 binades below the column's largest (e8m0), where e2m1
 * x 2^r is still exact in e4m3 but subnormal: e4m3 A's byte tables (kernels/gemm/dequant.cuh) take
 * those from float16 products. In three of every four columns group 0 is set 12 + n % 3 binades
 * above the others, which all take one exponent, and its codes are zeroed, so that the column's
 * every product runs through them; the fourth column keeps its scales (the IMAD tables), which
 * mixes both in the words of a lane's two columns. The reference reads the weight so changed.
 * Mode 2: only the columns of odd 64-column units, and there only groups 4..7 of every 8 (the
 * second 128 of K in every 256) lie so far below the others, whose codes are zeroed: a wgmma
 * kernel, which picks one path of byte tables per stage and warpgroup, then runs the IMAD tables
 * in one of a 128-column tile's warpgroups and the float16 products in the other, and with a
 * block K of 128 changes path from stage to stage. */
static void spread_groups(hum_standard_weight *w, int mode)
{
    const int64_t groups = w->scale.shape[1], row_words = w->weight.shape[1], group_words = w->group_size / 8;
    uint8_t *e = w->scale.data;
    for (int64_t n = 0; n < w->n; n++) {
        if (mode == 1 ? n % 4 == 3 : (n / 64) % 2 == 0)
            continue;
        uint8_t *row = e + n * groups;
        for (int64_t g = 0; g < groups; g++) {
            const int high = mode == 1 ? g == 0 : (g / 4) % 2 == 0;
            row[g] = (uint8_t)(high ? 120 + 12 + n % 3 : 120);
            if (high) /* 4-bit codes */
                memset((uint32_t *)w->weight.data + n * row_words + g * group_words, 0, (size_t)group_words * 4);
        }
    }
}

/* A case's ws, and a pass's: the cases of the tiles whole at small M, of the `fill` pass only. */
enum { kFill = 3 };

/* Whether the entry of `info` that takes M runs its tiles whole (no stream-K). */
static int whole_at(const hum_layer_info *info, int64_t m)
{
    for (int i = 0; i < info->entry_count; i++)
        if (m >= info->entries[i].m_min && m <= info->entries[i].m_max)
            return !info->entries[i].stream_k;
    return 0;
}

/* The tuning of the entry of `info` that takes M. */
static const hum_tuning *entry_at(const hum_layer_info *info, int64_t m)
{
    for (int i = 0; i < info->entry_count; i++)
        if (m >= info->entries[i].m_min && m <= info->entries[i].m_max)
            return &info->entries[i];
    return &info->entries[info->entry_count - 1];
}

/* The block M of the wgmma_ws entry of `info` that takes M, or 0 where another kernel takes it. */
static int ws_rows_at(const hum_layer_info *info, int64_t m)
{
    for (int i = 0; i < info->entry_count; i++)
        if (m >= info->entries[i].m_min && m <= info->entries[i].m_max)
            return info->entries[i].kernel == HUM_GEMM_KERNEL_WGMMA_WS ? info->entries[i].block_m : 0;
    return 0;
}

/* Every case (those marked ws, or 2, only when `ws` is 1, or 2; those of kFill only and always
 * when it is kFill) on runtime rt at each M of ms[0..nms); `how` labels the lines. A kFill case's
 * M up to its whole_to must run on whole tiles where the GPU has the 132 SMs sm90.lua's `fills`
 * was timed on (sms); elsewhere the line says which of them ran stream-K. widened: a pass whose
 * edit widens the wgmma_ws tiles above M = 128, all of which must then have more than 128 rows
 * (an edit that matched no entry, or C's fit taking a tile back to 128 or 64 rows where its
 * accumulators do not fit, would test the built-in tile under the pass's name). staged: a pass whose
 * wgmma_ws entries stage C in the last stage's slot, which every one at ms up to 192 rows must then do;
 * multicast: one whose wgmma_ws entries multicast A to 2-CTA clusters, which every one must then do;
 * ss 1: a pass whose wgmma_ws entries of e4m3 weights read them from shared memory (weights_ss: the
 * built-in sm90.lua, at every M), which every one at ms must then do,
 * -1 one where none may (their register fragments). */
static void run_cases(hum_runtime *rt, quant_rng *rng, const a8_case *cases, size_t count, int fp8, int ws,
                      const int64_t *ms, size_t nms, const char *how, int sms, int widened, int staged,
                      int multicast, int ss)
{
    for (size_t i = 0; i < count; i++) {
        if ((cases[i].a == HUM_DTYPE_FLOAT8_E4M3FN && !fp8) || cases[i].ws < ws ||
            (cases[i].ws == kFill) != (ws == kFill) ||
            !quant_test_selected(cases[i].spec))
            continue;
        hum_layer_spec s;
        hum_standard_weight w;
        hum_layer *layer = NULL;
        const hum_layer_options o = {.activation_dtype = cases[i].a, .output_dtype = cases[i].c};
        if (!QUANT_CHECK(hum_layer_spec_parse(cases[i].spec, &s) == HUM_OK &&
                             hum_layer_spec_weight(&s, quant_rng_next(rng), &w) == HUM_OK,
                         "%s: %s", cases[i].spec, hum_last_error()))
            continue;
        if (cases[i].wide)
            spread_groups(&w, cases[i].wide);
        char name[200];
        static const char *const wide[] = {"", " groups 2^-12..-14 below", " odd units' odd stages 2^-12..-14 below"};
        snprintf(name, sizeof name, "%s a=%s out=%s%s%s", cases[i].spec, hum_dtype_name(cases[i].a),
                 hum_dtype_name(cases[i].c), wide[cases[i].wide], how);
        double worst = 0;
        hum_layer_info info;
        if (QUANT_CHECK(hum_layer_from_standard(rt, &w, &o, &layer) == HUM_OK && hum_layer_prepare(layer) == HUM_OK &&
                            hum_layer_get_info(layer, &info) == HUM_OK,
                        "%s: %s", name, hum_last_error())) {
            /* MXFP4's groups: the generated weights' lie in the byte tables' window (the kernels
             * specialised to it, kFoldWindow), spread_groups' do not (the kernels' own test) */
            const int mx = w.scale_dtype == HUM_DTYPE_FLOAT8_E8M0;
            if (!QUANT_CHECK(info.config.fold_window == (mx && !cases[i].wide), "%s: fold_window %d", name,
                             info.config.fold_window))
                worst = -1;
            if (mx)
                strncat(name, info.config.fold_window ? " (window)" : " (tested)", sizeof name - strlen(name) - 1);
            for (size_t j = 0; j < nms && worst >= 0; j++) {
                if (ws == kFill && ms[j] <= cases[i].whole_to && !whole_at(&info, ms[j])) {
                    if (!QUANT_CHECK(sms != 132, "%s: M %lld under stream-K on 132 SMs (expected whole tiles)", name,
                                     (long long)ms[j]))
                        worst = -1;
                    char sk[32];
                    snprintf(sk, sizeof sk, " M %lld stream-K", (long long)ms[j]);
                    strncat(name, sk, sizeof name - strlen(name) - 1);
                }
                const int rows = ws_rows_at(&info, ms[j]);
                if (widened && ms[j] > 128 &&
                    !QUANT_CHECK(rows == 0 || rows > 128, "%s: M %lld on %d-row tiles (the pass's tile is not in "
                                 "force: its edit missed, or C's fit took it back)", name, (long long)ms[j], rows))
                    worst = -1;
                /* 256 rows of promoted e4m3 keep half their totals in the tile of their own (kSmemTotals) */
                if (staged && !QUANT_CHECK(rows == 0 || rows > 192 || entry_at(&info, ms[j])->c_tile,
                                           "%s: M %lld stages C in a tile of its own (C's fit took c_tile back)", name,
                                           (long long)ms[j]))
                    worst = -1;
                if (multicast && !QUANT_CHECK(rows == 0 || entry_at(&info, ms[j])->multicast_a,
                                              "%s: M %lld without A multicast (C's fit took it back)", name,
                                              (long long)ms[j]))
                    worst = -1;
                const int e4m3 = w.weight_dtype == HUM_DTYPE_FLOAT8_E4M3FN && cases[i].a == HUM_DTYPE_FLOAT8_E4M3FN;
                if (ss && e4m3 && rows > 0 &&
                    !QUANT_CHECK(entry_at(&info, ms[j])->weights_ss == (ss > 0), "%s: M %lld with weights_ss %d",
                                 name, (long long)ms[j], entry_at(&info, ms[j])->weights_ss))
                    worst = -1;
                for (int per_token = 1; per_token >= 0 && worst >= 0; per_token--) {
                    const double e = run_m(layer, rng, name, &w, cases[i].a, cases[i].c, ms[j], per_token);
                    worst = e < 0 ? -1 : (e > worst ? e : worst);
                }
            }
            if (!how[0] && (i == 0 || i == 4))
                check_errors(layer, cases[i].a, cases[i].c, w.k, w.n);
        }
        printf("  %-96s %s %.2e\n", name, worst < 0 ? "FAIL" : "ok  ", worst < 0 ? 0.0 : worst);
        hum_layer_destroy(layer);
        hum_standard_free(&w);
    }
}

/* The passes: the built-in policy at M across its ranges, and (`wide`, on sm_90) at M = 1100 on the
 * cases marked 2; stream-K on, its slices summed in the
 * workspace, on the plain wgmma kernel (the bfloat16 cases at M = 1 missed 1e-3 when they summed
 * through C, ab43ee7); on sm_90 the same tables warp-specialised (wgmma_ws from M = 17) at
 * M 20, 48 and 72, one in each wgmma tile of the 8-bit-A table (72 is a partial 128-row block,
 * and few tiles at N = 1024 split each tile's K over many CTAs). An argument names the one pass
 * to run (a short device call); named only: e4m3 A's accumulators promoted every 256 or 512 of K
 * (over two or four 128-column stages; K = 2064 ends on an odd stage), or never (one
 * accumulator set: 256-row tiles above M = 128, or 128 x 256), on the tables' M = 1 and M = 200
 * entries (mma.sync, wgmma_ws): whether their error at K = 8192 stays under the bar is what
 * bench/sweeps/w8a8.sh measures before a policy sets promote_k (on the H200 e4m3 weights missed it
 * every 512, 1.06e-03, and met it every 256, 8.7e-04; e2m1 met it every 512, 8.1e-04; policies/sm90.lua
 * sets 1024 on every entry of W4A8 MXFP4's table, whose entries to M 8, 33..64, 65..384 and above the
 * built-in pass runs at M 1 / 7 / 48 / 200 / 520, K = 8192 too: 8.66e-04 in session 19's s19-call2); and
 * `rows192`: the wgmma_ws 128-row entries with 192 rows (promoted every 128, two sets of 96
 * accumulators) at M 200 and 520; `rows256` (on sm_90, in every run): the M > 128 entries with 256
 * rows promoted every 256 of K, half of e4m3 A's totals in shared memory (gemm/gemm_wgmma.cu,
 * kSmemTotals; 2 x 128 accumulators exceed the registers; K = 1024 four periods, 2064 a partial last
 * one), at M 200 and 520; `fill` (on sm_90, in every run): its own cases at M 1, 12, 20, 48, 100, 200,
 * 300 and 500, on the tiles whole (one wave) sm90.lua gives n = 8192 there; `c_tile` (on sm_90, in every run):
 * the wgmma_ws pass's tables with C staged in the last stage's slot (c_tile "stage") at M 20, 72 and 520;
 * `multicast` (on sm_90, in every run): the wgmma_ws pass's tables with A multicast to 2-CTA clusters
 * (multicast_a; W8A8's stream-K entries, W4A8's whole tiles) at the same M;
 * `ampere` (on sm_90, in every run): the cases with weight scales along K at M 200 and 520 on the
 * mma.sync tile sm_86's table runs above M = 16 (int8 sums promoted per group there too);
 * `small`: every case but `fill`'s on the built-in
 * tables at M 1, 7 and 16 only (the M <= 16 entry: on sm_90 mma.sync's e4m3 as float16 products,
 * mma/mma_sync.cuh), a short device call. */
int main(int argc, char **argv)
{
    /* a line per case as it ends: a run cut by a time limit still shows which cases passed */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!gemm_test_have_gpu())
        return 77;
    quant_rng rng = quant_rng_fresh("test_gemm_a8");
    hum_runtime *rt = NULL;
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error()))
        return quant_test_result("test_gemm_a8");
    hum_device_info dev;
    const int have = hum_runtime_device(rt, &dev) == HUM_OK;
    const int fp8 = have && dev.sm_major * 10 + dev.sm_minor >= 89;
    const int sm90 = have && dev.sm_major == 9 && dev.sm_minor == 0;
    static const a8_case cases[] = {
        {"n=1024,k=1024,w=e4m3", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT16, 1, 0, 0},
        {"n=1000,k=2064,w=e4m3,a=bfloat16,scale=float32,bias=1", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_BFLOAT16, 2, 0, 0},
        {"n=2048,k=4096,w=e4m3,a=bfloat16", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_BFLOAT16, 0, 0, 0},
        {"n=512,k=4096,w=e4m3,scale=tensor", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT16, 1, 0, 0},
        {"n=1024,k=1024,w=uint8", HUM_DTYPE_INT8, HUM_DTYPE_FLOAT16, 1, 0, 0},
        {"n=1000,k=2064,w=uint8,a=bfloat16,scale=float32,bias=1", HUM_DTYPE_INT8, HUM_DTYPE_BFLOAT16, 1, 0, 0},
        {"n=512,k=4096,w=uint8,scale=tensor", HUM_DTYPE_INT8, HUM_DTYPE_BFLOAT16, 0, 0, 0},
        {"n=1024,k=1024,w=uint4", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT16, 1, 0, 0},
        {"n=1000,k=2064,w=uint4,a=bfloat16,scale=float32,bias=1", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_BFLOAT16, 0, 0, 0},
        {"n=1024,k=1024,w=uint4", HUM_DTYPE_INT8, HUM_DTYPE_BFLOAT16, 0, 0, 0},
        {"n=1000,k=2064,w=uint4,scale=float32,bias=1", HUM_DTYPE_INT8, HUM_DTYPE_FLOAT16, 1, 0, 0},
        /* weight scales per group along K, promoted at each group's end (int8: from exact int32 sums;
         * groups of 32: ping-pong accumulator sets on wgmma) */
        {"n=1000,k=2064,w=uint4,group=128,bias=1", HUM_DTYPE_INT8, HUM_DTYPE_BFLOAT16, 1, 0, 0},
        {"n=1024,k=1024,w=uint4,group=32,scale=float32", HUM_DTYPE_INT8, HUM_DTYPE_FLOAT16, 1, 0, 0},
        {"n=1024,k=1024,w=uint8,group=64", HUM_DTYPE_INT8, HUM_DTYPE_BFLOAT16, 1, 0, 0},
        {"n=1000,k=2064,w=uint4,group=128,scale=float32", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT16, 1, 0, 0},
        {"n=1024,k=1024,w=e2m1,group=32,scale=e8m0", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_BFLOAT16, 1, 0, 0},
        {"n=1000,k=2080,w=e2m1,group=32,scale=e8m0", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_BFLOAT16, 2, 1, 0},
        {"n=1000,k=2080,w=e2m1,group=32,scale=e8m0", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_BFLOAT16, 2, 2, 0},
        {"n=1000,k=2080,w=e2m1,group=32,scale=e8m0,bias=1", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT16, 1, 0, 0},
        {"n=2048,k=4096,w=e2m1,a=bfloat16", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_BFLOAT16, 0, 0, 0},
        /* M = 1 splits each of the 8 tiles' 32 k-blocks over ~16 CTAs when stream-K runs */
        {"n=1024,k=8192,w=e4m3", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_BFLOAT16, 2, 0, 0},
        {"n=1024,k=8192,w=uint8", HUM_DTYPE_INT8, HUM_DTYPE_BFLOAT16, 1, 0, 0},
        /* W8A8 on tiles whole where one wave of them fills the SMs (policies/sm90.lua: n = 8192 on the
         * H200's 132; M <= 256, here M 1, 7 and 48), and at M 200 / 520 on the stream-K entries */
        {"n=8192,k=512,w=e4m3", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_BFLOAT16, 0, 0, 0},
        /* W4A8 MXFP4's promotion period at the K of the bench's rows (policies/sm90.lua: every 1024) */
        {"n=1024,k=8192,w=e2m1,group=32,scale=e8m0", HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_BFLOAT16, 2, 0, 0},
        /* the `fill` pass: W8A8 at M <= 384 and W4A8 MXFP4 at M <= 512 on tiles whole where one wave of
         * them fills the SMs (policies/sm90.lua: n = 8192 on the H200's 132), K long enough to wrap every
         * entry's ring of stages (9 k-blocks of 256, 18 of 128) and to end MXFP4's promotion periods
         * of 1024 on a partial one */
        {.spec = "n=8192,k=2304,w=e4m3", .a = HUM_DTYPE_FLOAT8_E4M3FN, .c = HUM_DTYPE_BFLOAT16, .ws = kFill,
         .whole_to = 384},
        {.spec = "n=8192,k=2304,w=e2m1,group=32,scale=e8m0", .a = HUM_DTYPE_FLOAT8_E4M3FN, .c = HUM_DTYPE_FLOAT16,
         .ws = kFill, .whole_to = 512},
    };
    static const int64_t ms[] = {1, 7, 48, 200, 520}, ms_wide[] = {1100}, ms_small[] = {1, 7, 16}, ms_sk[] = {1, 200},
                         ms_ws[] = {20, 48, 72}, ms_p[] = {1, 200}, ms_192[] = {200, 520},
                         ms_fill[] = {1, 12, 20, 48, 100, 200, 300, 500}, ms_stage[] = {20, 72, 520};
#define A8_SUM "t.stream_k_sum = 'workspace'; "
#define A8_ON(family) "if t.kernel == 'wgmma' or t.kernel == 'wgmma_ws' then t.kernel = '" family "' end"
#define A8_NEVER "t.promote_k = layer.padded_k; "
/* every entry up to M = 16 (mma.sync or wgmma) on mma.sync's 8-row tile, the products transposed */
/* layers with scales along K above M = 16 on sm_86's mma.sync tile (policies/sm86.lua), which the
 * sm_80 .. sm_89 tables run there */
#define A8_AMPERE "if layer.kgroup_k > 0 and e.m_min > 16 then e.tuning = policy.mma_tuning(128, 128, 64, 64, 32, 64, 3) end"
#define A8_ROWS8                                                                                          \
    "if e.m_max <= 16 then e.tuning = policy.mma_tuning(8, 128, 256, 8, 32, 128, 4) "                 \
    "e.tuning.stream_k_sum = 'workspace' end"
/* wgmma_ws's 128-row e4m3 tiles with 192 rows: two promoted sets of 96 accumulators */
#define A8_ROWS192 "if t.kernel == 'wgmma_ws' and t.block_m == 128 and t.block_k == 128 then t.block_m, t.warp_m = 192, 192 end"
/* the M > 128 entries share the 65..128 entry's table: 256 rows in a copy of their own */
#define A8_ROWS256                                                                                        \
    "if e.m_min > 128 and t.block_m == 128 then local c = {} for k, v in pairs(t) do c[k] = v end "    \
    "c.block_m, c.warp_m = 256, 256 e.tuning = c end"
    static const struct {
        const char *name, *edit, *how; /* edit: NULL for the built-in policy, else Lua statements on
                                        * each entry's tuning t of its tables (gemm_test_site_runtime) */
        const int64_t *ms;
        size_t nms;
        int ws; /* the cases marked ws (1) or 2 (2), or kFill (those alone), on sm_90 only (where the
                 * tables have wgmma entries) */
        int only_named; /* run only when named */
        int widened;    /* its edit widens the wgmma_ws tiles above M = 128 (run_cases) */
        int staged;     /* its edit stages C in the last stage's slot (run_cases) */
        int multicast;  /* its edit multicasts A to 2-CTA clusters (run_cases) */
        int ss;         /* e4m3 weights in shared memory on every wgmma_ws entry (1), on none (-1) */
    } passes[] = {
        {"built-in", NULL, "", ms, sizeof ms / sizeof ms[0], 0, 0, 0, 0, 0, 1},
        /* the built-in tables above M = 1024 on the cases marked 2 (K = 8192 among them): W8A8's
         * 192-row tiles promoted every 256 of K (policies/sm90.lua) */
        {"wide", NULL, " M > 1024", ms_wide, sizeof ms_wide / sizeof ms_wide[0], 2, 0, 0, 0, 0, 1},
        /* named only: the plain wgmma pass (`workspace`) runs e4m3 weights as register fragments */
        {"registers", "t.weights_ss = false", " weights as register fragments", ms, sizeof ms / sizeof ms[0], 1, 1, 0,
         0, 0, -1},
        {"small", NULL, " M <= 16", ms_small, sizeof ms_small / sizeof ms_small[0], 0, 1, 0, 0, 0, 0},
        {"ampere", A8_AMPERE, " scales along K on mma.sync 128 x 128 above M = 16", ms_192,
         sizeof ms_192 / sizeof ms_192[0], 1, 0, 0, 0, 0, 0},
        {"rows8", A8_ROWS8, " M <= 16 on 8-row mma.sync warps", ms_small, sizeof ms_small / sizeof ms_small[0], 0, 0,
         0, 0, 0, 0},
        {"workspace", A8_SUM A8_ON("wgmma"), " stream-K in the workspace", ms_sk, sizeof ms_sk / sizeof ms_sk[0], 0,
         0, 0, 0, 0, 0},
        {"wgmma_ws", A8_SUM A8_ON("wgmma_ws"), " wgmma_ws, stream-K in the workspace", ms_ws,
         sizeof ms_ws / sizeof ms_ws[0], 1, 0, 0, 0, 0, 0},
        {"promote256", "t.promote_k = 256", " promoted every 256", ms_p, sizeof ms_p / sizeof ms_p[0], 2, 1, 0, 0, 0, 0},
        {"promote512", "t.promote_k = 512", " promoted every 512", ms_p, sizeof ms_p / sizeof ms_p[0], 2, 1, 0, 0, 0, 0},
        {"never", A8_NEVER A8_ROWS256, " never promoted", ms_p, sizeof ms_p / sizeof ms_p[0], 2, 1, 1, 0, 0, 0},
        {"never128x256",
         A8_NEVER "if t.block_m >= 128 then t.block_m, t.warp_m, t.block_n, t.warp_n = 128, 128, 256, 32 end",
         " never promoted, 128 x 256", ms_p, sizeof ms_p / sizeof ms_p[0], 2, 1, 0, 0, 0, 0},
        {"rows192", A8_ROWS192, " 192-row tiles", ms_192, sizeof ms_192 / sizeof ms_192[0], 2, 1, 1, 0, 0, 0},
        {"rows256", "t.promote_k = 256; " A8_ROWS256, " 256-row tiles, half the totals in shared memory",
         ms_192, sizeof ms_192 / sizeof ms_192[0], 1, 0, 1, 0, 0, 0},
        {"fill", NULL, " one wave of whole tiles", ms_fill, sizeof ms_fill / sizeof ms_fill[0], kFill, 0, 0, 0, 0, 0},
        {"c_tile", A8_SUM A8_ON("wgmma_ws") "; t.c_tile = 'stage'", " wgmma_ws, C in the last stage", ms_stage,
         sizeof ms_stage / sizeof ms_stage[0], 1, 0, 0, 1, 0, 0},
        {"multicast", A8_SUM A8_ON("wgmma_ws") "; t.multicast_a = true", " wgmma_ws, A multicast", ms_stage,
         sizeof ms_stage / sizeof ms_stage[0], 1, 0, 0, 0, 1, 0},
    };
    const size_t count = sizeof cases / sizeof cases[0];
    int named = argc < 2;
    for (size_t p = 0; p < sizeof passes / sizeof passes[0]; p++) {
        if (argc > 1 ? strcmp(argv[1], passes[p].name) != 0 : passes[p].only_named)
            continue;
        named = 1;
        if (passes[p].ws && !sm90)
            continue;
        char dir[512];
        hum_runtime *use = passes[p].edit ? gemm_test_site_runtime(passes[p].edit, dir, sizeof dir) : rt;
        if (!QUANT_CHECK(use, "the %s runtime", passes[p].name))
            continue;
        run_cases(use, &rng, cases, count, fp8, passes[p].ws, passes[p].ms, passes[p].nms, passes[p].how,
                  have ? dev.sm_count : 0, passes[p].widened, passes[p].staged, passes[p].multicast, passes[p].ss);
        if (use != rt) {
            hum_runtime_destroy(use);
            rt_rmtree(dir);
        }
    }
    QUANT_CHECK(named, "no pass named '%s' (expected built-in, wide, registers, small, ampere, rows8, workspace, "
                "wgmma_ws, promote256, "
                "promote512, never, never128x256, rows192, rows256, fill, c_tile or multicast)", argv[argc > 1 ? 1 : 0]);
    hum_runtime_destroy(rt);
    return quant_test_result("test_gemm_a8");
}
