/* Layers of 8-bit activations fed the host's 16-bit A, which they quantize themselves in each
 * forward (kernels/prep/quantize_a.cu into the workspace, then the 8-bit GEMM): e4m3 per token
 * and per tensor (the checkpoint's static input_scale), int8 per token, float16 and bfloat16 A
 * and C; and layers of mxfp8 A, which they round into their 16-bit A in the workspace before the
 * 16-bit GEMM (a_round; K % 8 != 0 included: element loads and stores, unaligned rows); at M
 * across the policy's ranges and through a workspace too small for M (chunks). The float64
 * reference multiplies A quantized (rounded) the same way on the host (the CPU twin,
 * hum_quantize_activations), so only the accumulation and C's rounding differ:
 * ||C - round(ref)|| / ||ref|| <= 1e-3; the error against unquantized A is printed. C is
 * poisoned first. The first three layers again on a site policy that gives the wgmma_ws entries
 * above M = 1024 quantize_a (the GEMM quantizes its own A, kernels/gemm/quant_a.cuh; on sm_90
 * W8A8's entry above 1024 and W4A8 MXFP4's above 2048 take it): at M 1100 and 2100 (a partial
 * last m-block, K = 2064 and 2080 a partial last round of a warp's chunks), in chunks of a
 * workspace too small for M (the launches one after the other reuse the counters the last CTA
 * zeroed), with A of the other 16-bit type than C's (quantized before the GEMM instead), and at
 * M 2100 with rows of inf, -inf, NaN and zeros against A the GEMM cannot take (misaligned rows:
 * the quantizer kernel first), C bit for bit, each forward a captured graph with one node fewer
 * where the GEMM quantizes (no quantizer kernel: the path it took). Also: a_scale with 16-bit A
 * is refused. Skipped (77) without a GPU; the 8-bit layers without fp8 (sm_89), bfloat16 below
 * sm_80. */
#include "cuda_driver.h"
#include "gemm_test.h"
#include "graph_test.h"
#include "hum/hum_tools.h"
#include "rt_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a (codes of `act`, [M][K]) as the layer's GEMM sees it: quantized by its plan, times scales. */
static int quantized_values(const hum_layer_config *cfg, const hum_standard_weight *w, hum_dtype act,
                            const uint16_t *a, int64_t m, double *out)
{
    const int64_t k = cfg->k;
    if (cfg->a_round == HUM_A_ROUND_MXFP8) { /* mxfp8's values in A's 16-bit type */
        const hum_act_quant mx = {HUM_DTYPE_FLOAT8_E4M3FN, HUM_ACT_SCALE_GROUP, 32, HUM_DTYPE_FLOAT8_E8M0};
        uint16_t *r16 = malloc((size_t)(m * k) * 2);
        hum_tensor ta = quant_matrix((void *)a, act, m, k, HUM_MEMORY_HOST),
                   tr = quant_matrix(r16, cfg->a_dtype, m, k, HUM_MEMORY_HOST);
        const int ok = QUANT_CHECK(r16 && hum_quantize_activations(&ta, &mx, 0.0f, &tr, NULL) == HUM_OK &&
                                       hum_dtype_decode(cfg->a_dtype, r16, m * k, out) == HUM_OK,
                                   "host rounding: %s", hum_last_error());
        free(r16);
        return ok;
    }
    const hum_act_quant how = {cfg->a_dtype, (hum_act_scale)cfg->a_scale, 0, HUM_DTYPE_FLOAT32};
    const int tensor_scale = cfg->a_scale == HUM_ACT_SCALE_TENSOR;
    const float input_scale = tensor_scale ? *(const float *)w->input_scale.data : 0.0f;
    uint8_t *codes = malloc((size_t)(m * k));
    float *scales = malloc((size_t)m * sizeof *scales);
    hum_tensor ta = quant_matrix((void *)a, act, m, k, HUM_MEMORY_HOST),
               tq = quant_matrix(codes, cfg->a_dtype, m, k, HUM_MEMORY_HOST);
    hum_tensor ts = quant_matrix(scales, HUM_DTYPE_FLOAT32, m, 1, HUM_MEMORY_HOST);
    int ok = QUANT_CHECK(hum_quantize_activations(&ta, &how, input_scale, &tq, tensor_scale ? NULL : &ts) == HUM_OK &&
                             hum_dtype_decode(cfg->a_dtype, codes, m * k, out) == HUM_OK,
                         "host quantization: %s", hum_last_error());
    for (int64_t i = 0; ok && i < m * k; i++)
        out[i] *= tensor_scale ? (double)input_scale : (double)scales[i / k];
    free(codes);
    free(scales);
    return ok;
}

/* Whether the entry of `info` that takes M quantizes its own A (quantize_a). */
static int entry_quantizes(const hum_layer_info *info, int64_t m)
{
    for (int i = 0; i < info->entry_count; i++)
        if (m >= info->entries[i].m_min && m <= info->entries[i].m_max)
            return info->entries[i].quantize_a;
    return 0;
}

/* The built-in tables with quantize_a on their wgmma_ws entries above M = 1024 (the fit keeps it
 * on dense layers of 8-bit A per token only), each changed entry a copy of its own. */
#define QUANTIZE_A_EDIT                                                                            \
    "if e.m_min > 1024 and t.kernel == 'wgmma_ws' then local c = {} for k, v in pairs(t) do c[k] = v end " \
    "c.quantize_a = true e.tuning = c end"

static double run_m(hum_layer *layer, hum_workspace *ws, quant_rng *rng, const char *name,
                    const hum_standard_weight *w, hum_dtype act, int64_t m);

/* A forward special_rows captures. */
typedef struct {
    hum_layer *layer;
    hum_tensor a, c;
} graph_forward;

static hum_status record_forward(void *ctx, CUstream stream)
{
    const graph_forward *g = ctx;
    return hum_layer_forward(g->layer, stream, &g->a, NULL, &g->c);
}

/* The rows the GEMM quantizes itself against the same rows quantized by the quantizer kernel
 * first, which the forward launches where it cannot take them (layer_forward.c's
 * launch_quantize): A at a row stride of K + 1 elements, and A one element past a 16-byte
 * boundary. Both paths share the encoder (kernels/numerics/encode.cuh) and the GEMM sums in a
 * fixed order, so C must match bit for bit, also on the rows holding an inf, a -inf, a NaN
 * (fmaxf leaves it out of the amax) and all zeros (scale 0: C finite, never 0/0). M = 2100 runs
 * a quantize_a entry on sm_90 (W8A8 above M = 1024, W4A8 MXFP4 above 2048). Each forward runs
 * as a captured CUDA graph whose node count shows the path it took: where the GEMM quantizes,
 * one node fewer than the misaligned layouts (no quantizer kernel; every other node the same, and
 * the layer's own workspace holds M = 2100 rows at these K, so one chunk); elsewhere the same
 * count. Returns 0, -1 on a failed check. */
static int special_rows(hum_layer *layer, const hum_layer_info *info, quant_rng *rng, const char *name,
                        const hum_standard_weight *w, hum_dtype act, int sm90)
{
    const int64_t m = 2100, n = w->n, k = w->k, ld = k + 1;
    enum { ZERO = 3, POS_INF = 17, NEG_INF = 1000, NAN_ROW = 2099 };
    uint16_t *a = malloc((size_t)(m * ld) * 2), *c[3] = {0};
    double *values = malloc((size_t)(m * k) * sizeof *values);
    void *d_a = NULL, *d_c = NULL;
    int ok = QUANT_CHECK(a && values, "%s: host buffers", name) &&
             QUANT_CHECK(!sm90 || entry_quantizes(info, m), "%s: M = %lld runs no quantize_a entry", name,
                         (long long)m) &&
             quant_fill_activations(rng, act, m * k, 1.0, a, values) == 0;
    /* the special values in A's 16-bit type: 0x7C00 / 0xFC00 / 0x7E00 in float16, 0x7F80 / 0xFF80 /
     * 0x7FC0 in bfloat16 */
    const int f16 = act == HUM_DTYPE_FLOAT16;
    if (ok) {
        memset(a + ZERO * k, 0, (size_t)k * 2);
        a[POS_INF * k + 5] = f16 ? 0x7C00 : 0x7F80;
        a[NEG_INF * k + k - 1] = f16 ? 0xFC00 : 0xFF80;
        a[NAN_ROW * k + k / 2] = f16 ? 0x7E00 : 0x7FC0;
    }
    ok = ok && QUANT_CHECK(hum_device_alloc(0, (size_t)(m * ld + 8) * 2, &d_a) == HUM_OK &&
                               hum_device_alloc(0, (size_t)(m * n) * 2, &d_c) == HUM_OK,
                           "%s: device buffers: %s", name, hum_last_error());
    const hum_cuda_api *cu = hum_cuda();
    CUstream stream = NULL;
    size_t nodes[3] = {0};
    ok = ok && QUANT_CHECK(cu && hum_cuda_result(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                                                 "cuStreamCreate") == HUM_OK,
                           "%s: graph setup: %s", name, hum_last_error());
    /* 0: packed and aligned (on sm_90 the GEMM quantizes; elsewhere all three take the quantizer
     * kernel); 1: rows K + 1 apart; 2: one element past 16 bytes */
    for (int v = 0; v < 3 && ok; v++) {
        const int64_t lda = v == 1 ? ld : k, at = v == 2 ? 1 : 0;
        uint16_t *rows = (uint16_t *)d_a + at;
        ok = QUANT_CHECK((c[v] = malloc((size_t)(m * n) * 2)) != NULL, "%s: host buffers", name);
        for (int64_t r = 0; r < m && ok; r++)
            ok = QUANT_CHECK(hum_memcpy_htod(rows + r * lda, a + r * k, (size_t)k * 2) == HUM_OK, "%s: %s", name,
                             hum_last_error());
        CUgraphExec exec = NULL;
        graph_forward g = {layer, quant_matrix(rows, act, m, k, HUM_MEMORY_DEVICE),
                           quant_matrix(d_c, info->config.c_dtype, m, n, HUM_MEMORY_DEVICE)};
        g.a.strides[0] = lda;
        ok = ok &&
             QUANT_CHECK(graph_test_capture(stream, record_forward, &g, &exec, &nodes[v]) == HUM_OK &&
                             hum_memset_d8(d_c, 0xFF, (size_t)(m * n) * 2) == HUM_OK &&
                             hum_stream_synchronize(NULL) == HUM_OK &&
                             hum_cuda_result(cu->cuGraphLaunch(exec, stream), "cuGraphLaunch") == HUM_OK &&
                             hum_cuda_result(cu->cuStreamSynchronize(stream), "cuStreamSynchronize") == HUM_OK &&
                             hum_memcpy_dtoh(c[v], d_c, (size_t)(m * n) * 2) == HUM_OK,
                         "%s: special rows, A layout %d, as a graph: %s", name, v, hum_last_error());
        if (exec)
            cu->cuGraphExecDestroy(exec);
    }
    ok = ok && QUANT_CHECK(nodes[1] == nodes[2] && nodes[0] + (size_t)sm90 == nodes[1],
                           "%s: special rows: forwards of %zu, %zu and %zu graph nodes; expected %s", name, nodes[0],
                           nodes[1], nodes[2],
                           sm90 ? "one fewer where the GEMM quantizes A" : "the same count for every layout");
    for (int v = 1; v < 3 && ok; v++) {
        int64_t i = 0;
        while (i < m * n && c[v][i] == c[0][i])
            i++;
        ok = QUANT_CHECK(i == m * n, "%s: special rows: C[%lld][%lld] = 0x%04x where the GEMM quantizes, 0x%04x "
                         "from the quantizer kernel (A layout %d)", name, (long long)(i / n), (long long)(i % n),
                         c[0][i], c[v][i], v);
    }
    /* every row but the inf and NaN ones finite (the exponent field not all ones) */
    const uint16_t exp_mask = info->config.c_dtype == HUM_DTYPE_FLOAT16 ? 0x7C00 : 0x7F80;
    int64_t bad = 0;
    for (int64_t i = 0; ok && i < m * n; i++) {
        const int64_t r = i / n;
        bad += r != POS_INF && r != NEG_INF && r != NAN_ROW && (c[0][i] & exp_mask) == exp_mask;
    }
    ok = ok && QUANT_CHECK(bad == 0, "%s: special rows: %lld outputs of finite rows not finite", name, (long long)bad);
    if (ok)
        printf("    M %5lld: inf, -inf, NaN and zero rows: C bit for bit with misaligned A\n", (long long)m);
    if (stream)
        cu->cuStreamDestroy(stream);
    hum_device_free(d_a);
    hum_device_free(d_c);
    for (int v = 0; v < 3; v++)
        free(c[v]);
    free(a);
    free(values);
    return ok ? 0 : -1;
}

/* Weight w's layer on runtime qrt (QUANTIZE_A_EDIT), where the GEMM quantizes its own A: at M 1100
 * and 2100 (each forward on a quantize_a entry counted in *ran), at 1100 with A of the other
 * 16-bit type (the quantizer kernel first), and M = 2300 through a workspace of 1100 rows (three
 * chunks, one launch after the other on the counters the last CTA zeroed); then special_rows.
 * Returns the worst relative error, -1 on a failed check. */
static double own_quantize(hum_runtime *qrt, quant_rng *rng, const char *name, const hum_standard_weight *w,
                           hum_dtype out, int *ran)
{
    static const int64_t ms[] = {1100, 2100};
    hum_layer *layer = NULL;
    hum_layer_info info;
    double worst = 0;
    if (!QUANT_CHECK(hum_layer_from_standard(qrt, w, NULL, &layer) == HUM_OK && hum_layer_prepare(layer) == HUM_OK &&
                         hum_layer_get_info(layer, &info) == HUM_OK,
                     "%s with quantize_a: %s", name, hum_last_error())) {
        hum_layer_destroy(layer);
        return -1;
    }
    hum_device_info dev;
    const int sm90 = hum_runtime_device(qrt, &dev) == HUM_OK && dev.sm_major == 9 && dev.sm_minor == 0;
    for (size_t j = 0; j < sizeof ms / sizeof ms[0] && worst >= 0; j++) {
        *ran += sm90 && entry_quantizes(&info, ms[j]);
        const double e = run_m(layer, NULL, rng, name, w, out, ms[j]);
        worst = e < 0 ? -1 : (e > worst ? e : worst);
    }
    const hum_dtype other = out == HUM_DTYPE_FLOAT16 ? HUM_DTYPE_BFLOAT16 : HUM_DTYPE_FLOAT16;
    if (worst >= 0 && run_m(layer, NULL, rng, name, w, other, 1100) < 0)
        worst = -1;
    int64_t bytes = 0;
    hum_workspace *ws = NULL;
    if (worst >= 0 && QUANT_CHECK(hum_layer_workspace_size(layer, 1100, &bytes) == HUM_OK &&
                                      hum_workspace_create(qrt, NULL, bytes, &ws) == HUM_OK,
                                  "%s: workspace: %s", name, hum_last_error()))
        worst = run_m(layer, ws, rng, name, w, out, 2300) < 0 ? -1 : worst;
    if (worst >= 0 && special_rows(layer, &info, rng, name, w, out, sm90) < 0)
        worst = -1;
    hum_workspace_destroy(ws);
    hum_layer_destroy(layer);
    return worst;
}

/* One forward at M rows of `act` A through `ws` (NULL: the layer's own); returns the relative
 * error. */
static double run_m(hum_layer *layer, hum_workspace *ws, quant_rng *rng, const char *name,
                    const hum_standard_weight *w, hum_dtype act, int64_t m)
{
    hum_layer_info info;
    hum_layer_get_info(layer, &info);
    const int64_t n = w->n, k = w->k;
    uint16_t *a_codes = malloc((size_t)(m * k) * 2), *c_codes = malloc((size_t)(m * n) * 2);
    uint16_t *rounded = malloc((size_t)(m * n) * 2);
    double *a = malloc((size_t)(m * k) * sizeof *a), *aq = malloc((size_t)(m * k) * sizeof *aq);
    double *ref = malloc((size_t)(m * n) * sizeof *ref), *ref16 = malloc((size_t)(m * n) * sizeof *ref16);
    double *got = malloc((size_t)(m * n) * sizeof *got), *ref_r = malloc((size_t)(m * n) * sizeof *ref_r);
    void *d_a = NULL, *d_c = NULL;
    double err = -1;
    if (!QUANT_CHECK(a_codes && c_codes && rounded && a && aq && ref && ref16 && got && ref_r, "%s: host buffers",
                     name))
        goto done;
    if (quant_fill_activations(rng, act, m * k, 1.0, a_codes, a) != 0 ||
        !quantized_values(&info.config, w, act, a_codes, m, aq) ||
        !QUANT_CHECK(hum_reference_gemm(w, 0, aq, m, ref) == HUM_OK && hum_reference_gemm(w, 0, a, m, ref16) == HUM_OK,
                     "%s: reference: %s", name, hum_last_error()))
        goto done;
    if (!QUANT_CHECK(hum_device_alloc(0, (size_t)(m * k) * 2, &d_a) == HUM_OK &&
                         hum_device_alloc(0, (size_t)(m * n) * 2, &d_c) == HUM_OK &&
                         hum_memcpy_htod(d_a, a_codes, (size_t)(m * k) * 2) == HUM_OK &&
                         hum_memset_d8(d_c, 0xFF, (size_t)(m * n) * 2) == HUM_OK,
                     "%s: device buffers: %s", name, hum_last_error()))
        goto done;
    const hum_tensor ta = quant_matrix(d_a, act, m, k, HUM_MEMORY_DEVICE),
                     tc = quant_matrix(d_c, info.config.c_dtype, m, n, HUM_MEMORY_DEVICE);
    const hum_status st = ws ? hum_layer_forward_ws(layer, ws, NULL, &ta, NULL, &tc)
                             : hum_layer_forward(layer, NULL, &ta, NULL, &tc);
    if (!QUANT_CHECK(st == HUM_OK, "%s: forward M = %lld: %s", name, (long long)m, hum_last_error()) ||
        !QUANT_CHECK(hum_stream_synchronize(NULL) == HUM_OK &&
                         hum_memcpy_dtoh(c_codes, d_c, (size_t)(m * n) * 2) == HUM_OK,
                     "%s: M = %lld: %s", name, (long long)m, hum_last_error()))
        goto done;
    const hum_dtype cd = info.config.c_dtype;
    int64_t unwritten = 0;
    err = quant_rel_error_rounded(cd, c_codes, ref, m * n, got, rounded, ref_r, &unwritten);
    if (!QUANT_CHECK(unwritten == 0, "%s: M = %lld: %lld outputs not finite", name, (long long)m, (long long)unwritten))
        goto done;
    printf("    M %5lld: %.2e against the quantized A, %.2e against the 16-bit A\n", (long long)m, err,
           quant_rel_error(got, ref16, m * n));
    /* 8-bit A: only the accumulation differs from the reference. mxfp8 rounded into 16-bit A runs
     * the 16-bit GEMM, whose weights are dequantized into A's type with their scales folded in:
     * bfloat16's 8 bits round them by up to 2^-9 (test_gemm's e4m3 weights in bfloat16 read
     * 1.9e-03 .. 3.8e-03 on the H100 of bench/NOTES.md, session 38; float16 2.1e-04 .. 3.2e-04) */
    const double bar = info.config.a_round && cd == HUM_DTYPE_BFLOAT16 ? 5e-3 : 1e-3;
    if (!QUANT_CHECK(err <= bar, "%s: M = %lld: relative error %.3e above %.0e", name, (long long)m, err, bar))
        err = -1;
done:
    hum_device_free(d_a);
    hum_device_free(d_c);
    free(a_codes);
    free(c_codes);
    free(rounded);
    free(a);
    free(aq);
    free(ref);
    free(ref16);
    free(got);
    free(ref_r);
    return err;
}

int main(void)
{
    if (!gemm_test_have_gpu())
        return 77;
    quant_rng rng = quant_rng_fresh("test_gemm_a8_quantize");
    hum_runtime *rt = NULL;
    hum_device_info dev;
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK && hum_runtime_device(rt, &dev) == HUM_OK, "%s",
                     hum_last_error()))
        return quant_test_result("test_gemm_a8_quantize");
    const int sm = dev.sm_major * 10 + dev.sm_minor;
    static const char *const specs[] = {
        "n=1024,k=1024,w=e4m3,a=e4m3,out=float16",
        "n=1000,k=2064,w=e4m3,scale=float32,bias=1,a=e4m3,out=bfloat16",
        "n=256,k=2080,w=e2m1,group=32,scale=e8m0,a=e4m3,out=bfloat16",
        "n=512,k=4096,w=e4m3,scale=tensor,a=e4m3,ascale=tensor,out=bfloat16",
        "n=1024,k=1024,w=uint8,a=int8,out=float16",
        "n=2048,k=4096,w=uint8,scale=float32,a=int8,ascale=tensor,out=bfloat16",
        /* mxfp8, rounded into 16-bit A */
        "n=1024,k=1024,w=e4m3,a=mxfp8,out=bfloat16",
        "n=1000,k=2060,w=uint4,group=128,a=mxfp8,out=float16",
        "n=512,k=4096,w=e4m3,scale=float32,bias=1,a=mxfp8,out=float16",
    };
    static const int64_t ms[] = {1, 7, 48, 200, 1024};
    int own_ran = 0;
    char dir[512];
    hum_runtime *qrt = gemm_test_site_runtime(QUANTIZE_A_EDIT, dir, sizeof dir);
    QUANT_CHECK(qrt, "the quantize_a runtime");
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        hum_layer_spec s;
        hum_standard_weight w;
        hum_layer *layer = NULL;
        if (!QUANT_CHECK(hum_layer_spec_parse(specs[i], &s) == HUM_OK, "%s: %s", specs[i], hum_last_error()))
            continue;
        /* the SPEC's mxfp8 (e4m3 per 1 x 32 e8m0 group) is rounded into the output's 16-bit type */
        const int round = s.activation_dtype == HUM_DTYPE_FLOAT8_E4M3FN && s.act_scale == HUM_ACT_SCALE_GROUP &&
                          s.act_group == 32;
        if (sm < (!round ? 89 : s.output_dtype == HUM_DTYPE_BFLOAT16 ? 80 : 75)) {
            printf("  %-70s skipped on sm_%d\n", specs[i], sm);
            continue;
        }
        if (!QUANT_CHECK(hum_layer_spec_weight(&s, quant_rng_next(&rng), &w) == HUM_OK, "%s: %s", specs[i],
                         hum_last_error()))
            continue;
        printf("  %s\n", specs[i]);
        hum_layer_info info;
        double worst = 0;
        if (QUANT_CHECK(hum_layer_from_standard(rt, &w, NULL, &layer) == HUM_OK && hum_layer_prepare(layer) == HUM_OK &&
                            hum_layer_get_info(layer, &info) == HUM_OK,
                        "%s: %s", specs[i], hum_last_error()) &&
            QUANT_CHECK(round ? info.config.a_dtype == s.output_dtype && info.config.a_round == HUM_A_ROUND_MXFP8
                              : info.config.a_dtype == s.activation_dtype &&
                                    info.config.a_scale == (int32_t)s.act_scale && !info.config.a_round,
                        "%s: the layer runs %s (scale mode %d, a_round %d)", specs[i],
                        hum_dtype_name(info.config.a_dtype), info.config.a_scale, info.config.a_round)) {
            for (size_t j = 0; j < sizeof ms / sizeof ms[0] && worst >= 0; j++) {
                const double e = run_m(layer, NULL, &rng, specs[i], &w, s.output_dtype, ms[j]);
                worst = e < 0 ? -1 : (e > worst ? e : worst);
            }
            /* a workspace for 64 rows: M = 200 runs in four chunks */
            int64_t bytes = 0;
            hum_workspace *ws = NULL;
            if (worst >= 0 && QUANT_CHECK(hum_layer_workspace_size(layer, 64, &bytes) == HUM_OK &&
                                              hum_workspace_create(rt, NULL, bytes, &ws) == HUM_OK,
                                          "%s: workspace: %s", specs[i], hum_last_error()))
                worst = run_m(layer, ws, &rng, specs[i], &w, s.output_dtype, 200) < 0 ? -1 : worst;
            hum_workspace_destroy(ws);
            if (i < 3 && worst >= 0 && qrt)
                worst = own_quantize(qrt, &rng, specs[i], &w, s.output_dtype, &own_ran) < 0 ? -1 : worst;
            /* 16-bit A carries no scale: the layer makes its own */
            if (i == 0) {
                void *d = NULL;
                if (QUANT_CHECK(hum_device_alloc(0, 1024 * 2 * 4, &d) == HUM_OK, "%s", hum_last_error())) {
                    const hum_tensor ta = quant_matrix(d, HUM_DTYPE_FLOAT16, 1, 1024, HUM_MEMORY_DEVICE),
                                     tc = quant_matrix(d, HUM_DTYPE_FLOAT16, 1, 1024, HUM_MEMORY_DEVICE);
                    hum_tensor ts = quant_matrix(d, HUM_DTYPE_FLOAT32, 1, 0, HUM_MEMORY_DEVICE);
                    ts.rank = 1;
                    QUANT_CHECK(hum_layer_forward(layer, NULL, &ta, &ts, &tc) == HUM_ERR_INVALID_ARG &&
                                    strstr(hum_last_error(), "a_scale must be NULL"),
                                "a_scale with 16-bit A: '%s'", hum_last_error());
                    hum_device_free(d);
                }
            }
        }
        printf("  %-70s %s %.2e\n", specs[i], worst < 0 ? "FAIL" : "ok  ", worst < 0 ? 0.0 : worst);
        hum_layer_destroy(layer);
        hum_standard_free(&w);
    }
    /* W8A8 at M 1100, 2100 and W4A8 MXFP4 at 2100 (its table's entry above M = 2048) */
    QUANT_CHECK(sm != 90 || own_ran == 5, "%d of the 5 forwards above M = 1024 given quantize_a ran on such an "
                "entry", own_ran);
    if (qrt) {
        hum_runtime_destroy(qrt);
        rt_rmtree(dir);
    }
    hum_runtime_destroy(rt);
    return quant_test_result("test_gemm_a8_quantize");
}
