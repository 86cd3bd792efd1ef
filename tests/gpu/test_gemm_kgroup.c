/* GEMMs of e4m3 activations with scales that change along K (kernels/gemm/kscale.cuh) on a GPU:
 * A with a float32 scale per row and 1 x 128 group (FP8 block-wise) or an e8m0 scale per 1 x 32
 * group (MXFP8), times e4m3 weights with float32 128 x 128 block scales (DeepSeek-style
 * weight_scale_inv; also beside A with one scale per row), e4m3 weights with channel scales
 * (beside either A), or uint4 with group-128 scales; float16 and bfloat16 output; M = 1, 7, 24,
 * 48, 96, 130, 1024 (on sm_90 mma.sync, on 8-row warps to M = 8, then wgmma_ws with the scales
 * staged with the codes; FP8 block-wise N = 7168 on whole 64-column tiles to M = 128; the
 * built-in policy's stream-K, slices summed in the workspace, splits most tiles' K: N = 1000 is 8
 * tiles of 128 columns); N and K not
 * multiples of 128 (the DeepSeek shape N = 7168 up to M = 130: the float64 reference's time);
 * MXFP8's scale rows of 65 bytes (K = 2064, 2080) start at every offset mod 4, which the staged
 * copies' windows cover.
 * Two feeds of A:
 *   host    the host's e4m3 codes with their scales (hum_layer_options.activation_group), random
 *           codes and scales (powers of two for e8m0);
 *   layer   16-bit A that the layer quantizes itself (the checkpoint's scheme, the SPEC's a=,
 *           which a layer runs by default), the reference's A from the CPU twin
 *           hum_quantize_activations (not mxfp8, which the layer rounds into 16-bit A instead:
 *           tests/gpu/test_gemm_a8_quantize.c).
 * The float64 reference (hum_reference_gemm) multiplies the same quantized values, so only the
 * accumulation and C's rounding differ: ||C - round(ref)|| / ||ref|| <= 1e-3, every output
 * written (C poisoned first, a guard row after it). Also: an a_scale of the wrong dtype is
 * refused naming the one expected. On sm_90 every case runs again with wgmma_ws staging C in the
 * last stage's slot (c_tile "stage") and multicasting A to 2-CTA clusters where N allows (multicast_a),
 * and the cases of A per 1 x 128 over e4m3 weights with every tile whole (stream_k off). A layer
 * made for the host's groups (1 x 128, MXFP8's 1 x 32) and given 16-bit A quantizes it in those
 * groups (M = 7, 130).
 * Skipped (77) without a GPU of sm_89 or newer. */
#include "gemm_test.h"
#include "hum/hum_tools.h"
#include "rt_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static hum_tensor host_matrix(void *data, hum_dtype dtype, int64_t rows, int64_t cols)
{
    hum_tensor t = gemm_test_matrix(data, dtype, rows, cols, 0);
    t.memory = HUM_MEMORY_HOST;
    return t;
}

typedef struct feed {
    int host;           /* the host quantizes A (else the layer does) */
    int32_t group;      /* A's K group: 128 (float32 scales) or 32 (e8m0); 0: one float32 scale per row */
    hum_dtype sdtype;   /* the scales' dtype */
    int64_t groups;     /* scales per row */
} feed;

/* A's scales in `memory`: [M] per token (no group), else [M, groups] */
static hum_tensor a_scales(void *data, const feed *f, int64_t m, hum_memory memory)
{
    hum_tensor t = quant_matrix(data, f->sdtype, m, f->groups, memory);
    if (!f->group)
        t.rank = 1;
    return t;
}

/* A for M rows: what the forward takes (host: e4m3 codes and scales; layer: 16-bit A) and the
 * values the GEMM multiplies (quantized, times the scales) into aq. */
static int make_a(quant_rng *rng, const feed *f, hum_dtype c_dtype, int64_t m, int64_t k, void *a_in, void *scales,
                  double *aq)
{
    const int e8m0 = f->sdtype == HUM_DTYPE_FLOAT8_E8M0;
    uint8_t *codes = f->host ? a_in : malloc((size_t)(m * k));
    double *a16 = f->host ? NULL : malloc((size_t)(m * k) * sizeof *a16);
    int ok = QUANT_CHECK(codes && (f->host || a16), "host buffers");
    if (ok && f->host) {
        for (int64_t i = 0; i < m * k; i++)
            aq[i] = 64 * quant_rng_normal(rng);
        hum_dtype_encode(HUM_DTYPE_FLOAT8_E4M3FN, aq, m * k, codes);
        for (int64_t i = 0; i < m * f->groups; i++) {
            if (e8m0)
                ((uint8_t *)scales)[i] = (uint8_t)(127 - 10 + quant_rng_below(rng, 5));
            else
                ((float *)scales)[i] = (float)((0.5 + quant_rng_uniform(rng)) / 64);
        }
    } else if (ok) {
        const hum_act_quant how = {HUM_DTYPE_FLOAT8_E4M3FN, f->group ? HUM_ACT_SCALE_GROUP : HUM_ACT_SCALE_TOKEN,
                                   f->group, f->sdtype};
        const hum_tensor ta = host_matrix(a_in, c_dtype, m, k), tq = host_matrix(codes, HUM_DTYPE_FLOAT8_E4M3FN, m, k);
        const hum_tensor ts = a_scales(scales, f, m, HUM_MEMORY_HOST);
        ok = quant_fill_activations(rng, c_dtype, m * k, 1.0, a_in, a16) == 0 &&
             QUANT_CHECK(hum_quantize_activations(&ta, &how, 0.0f, &tq, &ts) == HUM_OK, "host quantization: %s",
                         hum_last_error());
    }
    if (ok) {
        hum_dtype_decode(HUM_DTYPE_FLOAT8_E4M3FN, codes, m * k, aq);
        double *s = malloc((size_t)(m * f->groups) * sizeof *s);
        ok = QUANT_CHECK(s && hum_dtype_decode(f->sdtype, scales, m * f->groups, s) == HUM_OK, "scales: %s",
                         hum_last_error());
        for (int64_t i = 0; ok && i < m * k; i++)
            aq[i] *= s[i / k * f->groups + (f->group ? i % k / f->group : 0)];
        free(s);
    }
    if (!f->host)
        free(codes);
    free(a16);
    return ok;
}

/* One forward at M rows; returns ||C - round(ref)|| / ||ref||, or -1 after a failed check. */
static double run_m(hum_layer *layer, quant_rng *rng, const char *name, const hum_standard_weight *w, const feed *f,
                    hum_dtype c_dtype, int64_t m)
{
    const int64_t n = w->n, k = w->k, a_bytes = f->host ? 1 : 2;
    const int64_t s_bytes = m * f->groups * (f->sdtype == HUM_DTYPE_FLOAT32 ? 4 : 1);
    void *a_in = malloc((size_t)(m * k * a_bytes)), *scales = malloc((size_t)s_bytes);
    uint16_t *c_codes = malloc((size_t)((m + 1) * n) * 2), *rounded = malloc((size_t)(m * n) * 2);
    double *aq = malloc((size_t)(m * k) * sizeof *aq), *ref = malloc((size_t)(m * n) * sizeof *ref);
    double *got = malloc((size_t)(m * n) * sizeof *got), *ref_r = malloc((size_t)(m * n) * sizeof *ref_r);
    void *d_a = NULL, *d_s = NULL, *d_c = NULL;
    double err = -1;
    if (!QUANT_CHECK(a_in && scales && c_codes && rounded && aq && ref && got && ref_r, "%s: host buffers", name) ||
        !make_a(rng, f, c_dtype, m, k, a_in, scales, aq) ||
        !QUANT_CHECK(hum_reference_gemm(w, 0, aq, m, ref) == HUM_OK, "%s: reference: %s", name, hum_last_error()) ||
        !QUANT_CHECK(hum_device_alloc(0, (size_t)(m * k * a_bytes), &d_a) == HUM_OK &&
                         hum_device_alloc(0, (size_t)s_bytes, &d_s) == HUM_OK &&
                         hum_device_alloc(0, (size_t)((m + 1) * n) * 2, &d_c) == HUM_OK &&
                         hum_memcpy_htod(d_a, a_in, (size_t)(m * k * a_bytes)) == HUM_OK &&
                         hum_memcpy_htod(d_s, scales, (size_t)s_bytes) == HUM_OK &&
                         hum_memset_d8(d_c, 0xFF, (size_t)((m + 1) * n) * 2) == HUM_OK,
                     "%s: device buffers: %s", name, hum_last_error()))
        goto done;
    const hum_tensor ta = gemm_test_matrix(d_a, f->host ? HUM_DTYPE_FLOAT8_E4M3FN : c_dtype, m, k, 0);
    const hum_tensor ts = a_scales(d_s, f, m, HUM_MEMORY_DEVICE), tc = gemm_test_matrix(d_c, c_dtype, m, n, 0);
    if (!QUANT_CHECK(hum_layer_forward(layer, NULL, &ta, f->host ? &ts : NULL, &tc) == HUM_OK,
                     "%s: forward M = %lld: %s", name, (long long)m, hum_last_error()) ||
        !QUANT_CHECK(hum_stream_synchronize(NULL) == HUM_OK &&
                         hum_memcpy_dtoh(c_codes, d_c, (size_t)((m + 1) * n) * 2) == HUM_OK,
                     "%s: M = %lld: %s", name, (long long)m, hum_last_error()))
        goto done;
    for (int64_t i = 0; i < n; i++)
        if (!QUANT_CHECK(c_codes[m * n + i] == 0xFFFF, "%s: M = %lld: C written past its last row", name, (long long)m))
            goto done;
    int64_t unwritten = 0;
    err = quant_rel_error_rounded(c_dtype, c_codes, ref, m * n, got, rounded, ref_r, &unwritten);
    if (!QUANT_CHECK(unwritten == 0, "%s: M = %lld: %lld of %lld outputs not finite", name, (long long)m,
                     (long long)unwritten, (long long)(m * n)))
        goto done;
    printf("    M %5lld: %.2e\n", (long long)m, err);
    if (!QUANT_CHECK(err <= 1e-3, "%s: M = %lld: relative error %.3e above 1e-3", name, (long long)m, err))
        err = -1;
done:
    hum_device_free(d_a);
    hum_device_free(d_s);
    hum_device_free(d_c);
    free(a_in);
    free(scales);
    free(c_codes);
    free(rounded);
    free(aq);
    free(ref);
    free(got);
    free(ref_r);
    return err;
}

/* An a_scale of the other scale dtype is refused naming the expected one; C stays poisoned. */
static void check_scale_dtype(hum_layer *layer, const feed *f, hum_dtype c_dtype, int64_t n, int64_t k)
{
    void *d_a = NULL, *d_s = NULL, *d_c = NULL;
    const hum_dtype wrong = f->sdtype == HUM_DTYPE_FLOAT32 ? HUM_DTYPE_FLOAT8_E8M0 : HUM_DTYPE_FLOAT32;
    if (QUANT_CHECK(hum_device_alloc(0, (size_t)(2 * k), &d_a) == HUM_OK &&
                        hum_device_alloc(0, (size_t)(2 * f->groups * 4), &d_s) == HUM_OK &&
                        hum_device_alloc(0, (size_t)(2 * n * 2), &d_c) == HUM_OK &&
                        hum_memset_d8(d_c, 0xFF, (size_t)(2 * n * 2)) == HUM_OK,
                    "buffers: %s", hum_last_error())) {
        const hum_tensor ta = gemm_test_matrix(d_a, HUM_DTYPE_FLOAT8_E4M3FN, 2, k, 0);
        hum_tensor ts = a_scales(d_s, f, 2, HUM_MEMORY_DEVICE);
        ts.dtype = wrong;
        const hum_tensor tc = gemm_test_matrix(d_c, c_dtype, 2, n, 0);
        char want[64];
        snprintf(want, sizeof want, "a_scale must be %s", hum_dtype_name(f->sdtype));
        QUANT_CHECK(hum_layer_forward(layer, NULL, &ta, &ts, &tc) == HUM_ERR_INVALID_ARG &&
                        strstr(hum_last_error(), want),
                    "a_scale of %s: '%s' should say '%s'", hum_dtype_name(wrong), hum_last_error(), want);
        uint16_t c[2];
        QUANT_CHECK(hum_stream_synchronize(NULL) == HUM_OK && hum_memcpy_dtoh(c, d_c, sizeof c) == HUM_OK &&
                        c[0] == 0xFFFF && c[1] == 0xFFFF,
                    "a refused forward wrote C");
    }
    hum_device_free(d_a);
    hum_device_free(d_s);
    hum_device_free(d_c);
}

/* Every case of `cases` on runtime rt; `how` labels the lines. */
typedef struct kgroup_case {
    const char *spec;
    int host;
    int32_t group;
} kgroup_case;

static void run_cases(hum_runtime *rt, quant_rng *rng, const kgroup_case *cases, size_t count, const char *how)
{
    static const int64_t ms[] = {1, 7, 24, 48, 96, 130, 1024};
    for (size_t i = 0; i < count; i++) {
        hum_layer_spec s;
        hum_standard_weight w;
        hum_layer *layer = NULL;
        if (!QUANT_CHECK(hum_layer_spec_parse(cases[i].spec, &s) == HUM_OK &&
                             hum_layer_spec_weight(&s, quant_rng_next(rng), &w) == HUM_OK,
                         "%s: %s", cases[i].spec, hum_last_error()))
            continue;
        const int32_t g = cases[i].group;
        const feed f = {cases[i].host, g, g == 32 ? HUM_DTYPE_FLOAT8_E8M0 : HUM_DTYPE_FLOAT32, g ? (w.k + g - 1) / g : 1};
        const hum_layer_options host = {.activation_dtype = HUM_DTYPE_FLOAT8_E4M3FN, .output_dtype = s.output_dtype,
                                        .activation_group = g};
        char name[192];
        snprintf(name, sizeof name, "%s, A from the %s%s", cases[i].spec, f.host ? "host" : "layer", how);
        printf("  %s\n", name);
        hum_layer_info info;
        double worst = 0;
        if (QUANT_CHECK(hum_layer_from_standard(rt, &w, f.host ? &host : NULL, &layer) == HUM_OK &&
                            hum_layer_prepare(layer) == HUM_OK && hum_layer_get_info(layer, &info) == HUM_OK,
                        "%s: %s", name, hum_last_error()) &&
            QUANT_CHECK(info.config.a_dtype == HUM_DTYPE_FLOAT8_E4M3FN && info.config.a_group == g,
                        "%s: the layer runs %s in groups of %lld", name, hum_dtype_name(info.config.a_dtype),
                        (long long)info.config.a_group)) {
            for (size_t j = 0; j < sizeof ms / sizeof ms[0] && worst >= 0; j++) {
                if (ms[j] > 130 && (double)ms[j] * w.n * w.k > 4e9) /* the float64 reference's time */
                    continue;
                const double e = run_m(layer, rng, name, &w, &f, s.output_dtype, ms[j]);
                worst = e < 0 ? -1 : (e > worst ? e : worst);
            }
            if (!how[0] && f.host && (i == 0 || g == 32))
                check_scale_dtype(layer, &f, s.output_dtype, w.n, w.k);
            /* the same layer given 16-bit A quantizes it in the groups it takes from the host */
            const feed f16 = {0, f.group, f.sdtype, f.groups};
            for (int64_t m = 7; !how[0] && f.host && g && (i == 0 || g == 32) && worst >= 0 && m <= 130; m += 123) {
                char name16[224];
                snprintf(name16, sizeof name16, "%s, 16-bit A", name);
                const double e = run_m(layer, rng, name16, &w, &f16, s.output_dtype, m);
                worst = e < 0 ? -1 : (e > worst ? e : worst);
            }
        }
        printf("  %-100s %s %.2e\n", name, worst < 0 ? "FAIL" : "ok  ", worst < 0 ? 0.0 : worst);
        hum_layer_destroy(layer);
        hum_standard_free(&w);
    }
}

int main(void)
{
    if (!gemm_test_have_gpu())
        return 77;
    quant_rng rng = quant_rng_fresh("test_gemm_kgroup");
    hum_runtime *rt = NULL;
    hum_device_info dev;
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK && hum_runtime_device(rt, &dev) == HUM_OK, "%s",
                     hum_last_error()))
        return quant_test_result("test_gemm_kgroup");
    if (dev.sm_major * 10 + dev.sm_minor < 89) {
        hum_runtime_destroy(rt);
        return 77;
    }
    /* host: the SPEC's weight and out=, A from the host in groups of `group`; layer: the SPEC's
     * a= is the checkpoint's scheme the layer quantizes 16-bit A to */
    static const kgroup_case cases[] = {
        {"n=1000,k=2064,w=e4m3,block=128x128,a=e4m3,ascale=group128,out=float16", 1, 128},
        {"n=1000,k=2064,w=e4m3,block=128x128,a=e4m3,ascale=group128,out=bfloat16,bias=1", 0, 128},
        {"n=7168,k=2048,w=e4m3,block=128x128,a=e4m3,ascale=group128,out=bfloat16", 1, 128},
        {"n=1000,k=2064,w=e4m3,a=e4m3,ascale=group128,out=float16", 1, 128},
        {"n=3000,k=640,w=e4m3,block=128x128,a=e4m3,ascale=group128,out=float16", 1, 128},
        {"n=1000,k=2064,w=e4m3,block=128x128,a=e4m3,out=bfloat16", 1, 0},
        {"n=1000,k=2064,w=e4m3,block=128x128,a=mxfp8,out=bfloat16", 1, 32},
        {"n=1000,k=2080,w=e4m3,block=128x128,a=mxfp8,out=float16", 1, 32},
        {"n=1024,k=1024,w=e4m3,scale=float32,a=mxfp8,out=float16", 1, 32},
        {"n=1000,k=2064,w=uint4,group=128,scale=float32,a=e4m3,ascale=group128,out=bfloat16", 0, 128},
        /* weight blocks wider than a warpgroup's columns (one factor read for them), and narrower
         * than them or not a multiple (one per column) */
        {"n=1000,k=2064,w=e4m3,block=256x128,a=e4m3,ascale=group128,out=bfloat16", 1, 128},
        {"n=1000,k=2064,w=e4m3,block=96x128,a=e4m3,ascale=group128,out=float16", 0, 128},
    };
    const size_t count = sizeof cases / sizeof cases[0], a128 = 6; /* the first a128: e4m3 weights, A by row */
    run_cases(rt, &rng, cases, count, "");
    hum_runtime_destroy(rt);
    /* on sm_90 again with wgmma_ws staging C in the last stage's slot (c_tile "stage") and A multicast
     * to 2-CTA clusters (multicast_a): the FP8 block-wise kernels' warpgroups half a stage apart
     * (kLag) meet their barriers too */
    if (dev.sm_major == 9 && dev.sm_minor == 0) {
        char dir[512];
        hum_runtime *staged = gemm_test_site_runtime(
            "if t.kernel == 'wgmma_ws' then t.c_tile = 'stage'; t.multicast_a = true end", dir, sizeof dir);
        if (QUANT_CHECK(staged != NULL, "the c_tile stage runtime")) {
            run_cases(staged, &rng, cases, count, ", C in the last stage, A multicast");
            hum_runtime_destroy(staged);
        }
        rt_rmtree(dir);
        /* and with every tile whole: a segment of 16 or 17 k-blocks runs the 128-row tiles' stages
         * in whole runs of four sets by stage (kernels/gemm/gemm_wgmma.cu, kStageSets) and one stage
         * left over, whatever the SM count (stream-K's segments above cut runs short: 1 .. 14 k-blocks
         * on 132 SMs); N = 3000, K = 640 at M = 1024 gives 192 tiles of 5 k-blocks, so a CTA's
         * second tile starts its runs in the ring's second slot and their promotions read across
         * the ring's wrap. The host's A scales, random per row and group, fail a promotion that
         * takes another stage's factors. */
        hum_runtime *whole = gemm_test_site_runtime("if t.kernel == 'wgmma_ws' then t.stream_k = false end", dir,
                                                    sizeof dir);
        if (QUANT_CHECK(whole != NULL, "the whole-tile runtime")) {
            run_cases(whole, &rng, cases, a128, ", tiles whole");
            hum_runtime_destroy(whole);
        }
        rt_rmtree(dir);
    }
    return quant_test_result("test_gemm_kgroup");
}
