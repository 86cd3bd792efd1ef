/* The CPU twin of the activation quantizer (hum_quantize_activations, runtime/src/quant/
 * quantize_a.c) against independent float64 references: every float16 and bfloat16 value
 * encoded to e4m3fn and int8 (hum_dtype_encode's float64 encoder), per-token, per-group and MX
 * scales recomputed with frexp, all-zero rows and groups (scale 0, codes 0, no NaN), partial
 * last groups, padded code columns, column-major scale views, bad arguments; MXFP8 as rounding
 * (q of a 16-bit type) against a float64 search over the e4m3fn codes; then NVRTC
 * compiles kernels/prep/quantize_a.cu (the GPU kernel the twin mirrors) for every arch. */
#include "hum/hum_tools.h"
#include "jit.h"
#include "quant_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double decode1(hum_dtype dt, uint64_t code)
{
    double v = 0.0;
    uint8_t b1 = (uint8_t)code;
    uint16_t b2 = (uint16_t)code;
    hum_dtype_decode(dt, hum_dtype_code_size(dt) == 1 ? (const void *)&b1 : (const void *)&b2, 1, &v);
    return v;
}

static uint8_t encode8(hum_dtype dt, double x)
{
    uint8_t c = 0;
    hum_dtype_encode(dt, &x, 1, &c);
    return c;
}

/* The reference e4m3fn code: the float64 encoder after clamping to +-448 (saturation). */
static uint8_t ref_e4m3(double x)
{
    return encode8(HUM_DTYPE_FLOAT8_E4M3FN, fmin(fmax(x, -448.0), 448.0));
}

static uint8_t ref_int8(double x)
{
    return encode8(HUM_DTYPE_INT8, fmin(fmax(x, -127.0), 127.0));
}

/* Every finite float16 and bfloat16 value, as one row, through the static scale 1 (e4m3fn) and
 * 2^-6 (int8: inv 64, exact): the encoders alone. */
static void check_every_value(void)
{
    static const hum_dtype ins[] = {HUM_DTYPE_FLOAT16, HUM_DTYPE_BFLOAT16};
    uint16_t *a = malloc(65536 * 2);
    uint8_t *q = malloc(65536);
    for (size_t d = 0; d < 2; d++) {
        int64_t n = 0;
        for (uint32_t c = 0; c < 65536; c++)
            if (isfinite(decode1(ins[d], c)))
                a[n++] = (uint16_t)c;
        for (int int8 = 0; int8 <= 1; int8++) {
            const hum_act_quant how = {int8 ? HUM_DTYPE_INT8 : HUM_DTYPE_FLOAT8_E4M3FN, HUM_ACT_SCALE_TENSOR, 0,
                                       HUM_DTYPE_FLOAT32};
            const float s = int8 ? 1.0f / 64.0f : 1.0f;
            hum_tensor ta = quant_matrix(a, ins[d], 1, n, HUM_MEMORY_HOST),
                       tq = quant_matrix(q, how.dtype, 1, n, HUM_MEMORY_HOST);
            if (!QUANT_CHECK(hum_quantize_activations(&ta, &how, s, &tq, NULL) == HUM_OK, "%s", hum_last_error()))
                continue;
            int64_t bad = 0;
            for (int64_t i = 0; i < n; i++) {
                const double x = decode1(ins[d], a[i]);
                const uint8_t want = int8 ? ref_int8(x * 64.0) : ref_e4m3(x);
                if (q[i] != want && bad++ < 5)
                    QUANT_CHECK(0, "%s 0x%04x (%g) -> %s 0x%02x, expected 0x%02x", hum_dtype_name(ins[d]), a[i], x,
                                hum_dtype_name(how.dtype), q[i], want);
            }
            QUANT_CHECK(bad == 0, "%s -> %s: %lld of %lld codes differ", hum_dtype_name(ins[d]),
                        hum_dtype_name(how.dtype), (long long)bad, (long long)n);
        }
    }
    free(a);
    free(q);
}

/* Random float32 bit patterns (every binade, subnormals included) against the float64 encoder,
 * through bfloat16 rows scaled by powers of two: x * 2^s is exact in float32 before encoding. */
static void check_random_products(quant_rng *rng)
{
    enum { N = 4096 };
    uint16_t a[N];
    uint8_t q[N];
    for (int round = 0; round < 64; round++) {
        for (int i = 0; i < N; i++) {
            uint16_t c;
            do
                c = (uint16_t)quant_rng_next(rng);
            while (!isfinite(decode1(HUM_DTYPE_BFLOAT16, c)));
            a[i] = c;
        }
        const int e = (int)quant_rng_below(rng, 200) - 100;
        const hum_act_quant how = {HUM_DTYPE_FLOAT8_E4M3FN, HUM_ACT_SCALE_TENSOR, 0, HUM_DTYPE_FLOAT32};
        const float s = (float)ldexp(1.0, -e);
        hum_tensor ta = quant_matrix(a, HUM_DTYPE_BFLOAT16, 1, N, HUM_MEMORY_HOST),
                   tq = quant_matrix(q, how.dtype, 1, N, HUM_MEMORY_HOST);
        QUANT_CHECK(hum_quantize_activations(&ta, &how, s, &tq, NULL) == HUM_OK, "%s", hum_last_error());
        int bad = 0;
        for (int i = 0; i < N; i++) {
            const double x = decode1(HUM_DTYPE_BFLOAT16, a[i]);
            /* the product rounded to float32 as the kernel holds it (subnormal or overflowing) */
            const double p = (double)(float)(x * ldexp(1.0, e));
            bad += q[i] != ref_e4m3(p);
        }
        QUANT_CHECK(bad == 0, "bfloat16 x 2^%d -> e4m3fn: %d of %d codes differ", e, bad, N);
    }
}

/* Per token and per group (float32 and e8m0 scales), recomputed from the values. */
static void check_dynamic(quant_rng *rng)
{
    static const struct {
        int64_t m, k, kq;
        hum_act_scale mode;
        int32_t group;
        hum_dtype codes, scales, in;
    } cases[] = {
        {5, 1000, 1024, HUM_ACT_SCALE_TOKEN, 0, HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT32, HUM_DTYPE_FLOAT16},
        {3, 777, 777, HUM_ACT_SCALE_TOKEN, 0, HUM_DTYPE_INT8, HUM_DTYPE_FLOAT32, HUM_DTYPE_BFLOAT16},
        {4, 1000, 1024, HUM_ACT_SCALE_GROUP, 128, HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT32, HUM_DTYPE_BFLOAT16},
        {4, 200, 208, HUM_ACT_SCALE_GROUP, 128, HUM_DTYPE_INT8, HUM_DTYPE_FLOAT32, HUM_DTYPE_FLOAT16},
        {6, 1000, 1000, HUM_ACT_SCALE_GROUP, 32, HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT8_E8M0, HUM_DTYPE_BFLOAT16},
        {2, 96, 128, HUM_ACT_SCALE_GROUP, 32, HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT8_E8M0, HUM_DTYPE_FLOAT16},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int64_t m = cases[c].m, k = cases[c].k, kq = cases[c].kq, lda = k + 3;
        const int32_t group = cases[c].group;
        const int64_t groups = group ? (k + group - 1) / group : 1;
        const int e8m0 = cases[c].scales == HUM_DTYPE_FLOAT8_E8M0;
        uint16_t *a = calloc((size_t)(m * lda), 2);
        double *x = calloc((size_t)(m * k), sizeof *x);
        uint8_t *q = malloc((size_t)(m * kq));
        float *sf = malloc((size_t)(m * groups) * 4);
        uint8_t *se = malloc((size_t)(m * groups));
        for (int64_t r = 0; r < m; r++) {
            /* row 0 all zero; in row 1 the first group zero; elsewhere normal values of a
             * row-dependent magnitude (tiny ones in bfloat16 reach float32 subnormals) */
            const double mag =
                cases[c].in == HUM_DTYPE_BFLOAT16 ? ldexp(1.0, (int)(r * 30) - 140) : ldexp(1.0, (int)r - 2);
            for (int64_t j = 0; j < k; j++) {
                if (r == 0 || (r == 1 && j < (group ? group : 0)))
                    continue;
                double v = quant_rng_normal(rng) * mag;
                uint16_t code;
                hum_dtype_encode(cases[c].in, &v, 1, &code);
                a[r * lda + j] = code;
                x[r * k + j] = decode1(cases[c].in, code);
            }
        }
        quant_poison(q, (size_t)(m * kq));
        hum_tensor ta = quant_matrix(a, cases[c].in, m, k, HUM_MEMORY_HOST),
                   tq = quant_matrix(q, cases[c].codes, m, kq, HUM_MEMORY_HOST);
        ta.strides[0] = lda;
        /* group scales as a column-major [G][M] buffer seen through strides */
        hum_tensor ts = quant_matrix(e8m0 ? (void *)se : (void *)sf, cases[c].scales, m, groups, HUM_MEMORY_HOST);
        if (group) {
            ts.strides[0] = 1;
            ts.strides[1] = m;
        }
        const hum_act_quant how = {cases[c].codes, cases[c].mode, group, cases[c].scales};
        if (!QUANT_CHECK(hum_quantize_activations(&ta, &how, 0.0f, &tq, &ts) == HUM_OK, "case %zu: %s", c,
                         hum_last_error()))
            continue;
        const int int8 = cases[c].codes == HUM_DTYPE_INT8;
        const double max = int8 ? 127.0 : 448.0;
        int bad = 0;
        for (int64_t r = 0; r < m; r++)
            for (int64_t g = 0; g < groups; g++) {
                const int64_t j0 = group ? g * group : 0, j1 = group && j0 + group < k ? j0 + group : k;
                double amax = 0.0;
                for (int64_t j = j0; j < j1; j++)
                    amax = fmax(amax, fabs(x[r * k + j]));
                const int64_t at = group ? g * m + r : r;
                double inv, scale;
                if (e8m0) {
                    int ex = 0;
                    if (amax > 0.0)
                        frexp(amax, &ex);
                    const int code = amax > 0.0 ? (int)fmin(fmax(ex - 1 - 8 + 127, 0), 254) : 0;
                    bad += QUANT_CHECK(se[at] == code, "case %zu row %lld group %lld: e8m0 0x%02x, expected 0x%02x",
                                       c, (long long)r, (long long)g, se[at], code) == 0;
                    scale = ldexp(1.0, code - 127);
                    inv = amax > 0.0 ? 1.0 / scale : 0.0;
                } else {
                    scale = (double)(float)(amax / max);
                    inv = amax > 0.0 ? fmin((double)(float)(max / amax), 3.40282347e38) : 0.0;
                    bad += QUANT_CHECK(sf[at] == (float)scale, "case %zu row %lld group %lld: scale %.9g, expected "
                                       "%.9g", c, (long long)r, (long long)g, (double)sf[at], scale) == 0;
                }
                if (amax == 0.0)
                    bad += QUANT_CHECK(scale == 0.0 || e8m0, "case %zu row %lld: zero group has scale %g", c,
                                       (long long)r, scale) == 0;
                for (int64_t j = j0; j < j1; j++) {
                    const double p = (double)(float)(x[r * k + j] * (double)(float)inv);
                    const uint8_t want = int8 ? ref_int8(p) : ref_e4m3(p);
                    if (q[r * kq + j] != want && bad++ < 5)
                        QUANT_CHECK(0, "case %zu [%lld][%lld] = %g: code 0x%02x, expected 0x%02x", c, (long long)r,
                                    (long long)j, x[r * k + j], q[r * kq + j], want);
                    /* what the GEMM sees, code * scale, is the value to half a code step (MX: up to
                     * amax / 4, the elements past 448 saturate) */
                    const double back = decode1(cases[c].codes, q[r * kq + j]) * scale;
                    const double tol = amax * (e8m0 ? 0.25 : int8 ? 0.5 / 127.0 * 1.0001 : 1.0 / 16.0);
                    if (amax > 0.0 && inv < 3.4e38 && !(fabs(back - x[r * k + j]) <= tol))
                        bad += QUANT_CHECK(0, "case %zu [%lld][%lld]: %g comes back as %g", c, (long long)r,
                                           (long long)j, x[r * k + j], back) == 0;
                }
            }
        for (int64_t r = 0; r < m; r++)
            for (int64_t j = k; j < kq; j++)
                bad += q[r * kq + j] != 0;
        QUANT_CHECK(bad == 0, "case %zu (%s, group %d, %s): %d mismatches", c, hum_dtype_name(cases[c].codes), group,
                    hum_dtype_name(cases[c].scales), bad);
        free(a);
        free(x);
        free(q);
        free(sf);
        free(se);
    }
}

/* float32 rows (the MoE activation kernel quantizes its float32 results, kernels/moe/act.cu)
 * give the codes and scales of the same values held as bfloat16; a value between two bfloat16
 * ones is quantized as itself, not rounded to 16 bits first. */
static void check_float32_rows(void)
{
    enum { M = 3, K = 40 };
    uint16_t h[M * K];
    float f[M * K];
    double d[M * K];
    for (int i = 0; i < M * K; i++)
        d[i] = (i % 7 - 3) * ldexp(1.0, i % 11 - 5) * (i / K + 1);
    hum_dtype_encode(HUM_DTYPE_BFLOAT16, d, M * K, h);
    hum_dtype_decode(HUM_DTYPE_BFLOAT16, h, M * K, d);
    for (int i = 0; i < M * K; i++)
        f[i] = (float)d[i];
    static const hum_dtype types[2] = {HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_INT8};
    for (int t = 0; t < 2; t++) {
        uint8_t q16[M * K], q32[M * K];
        float s16[M], s32[M];
        const hum_act_quant how = {types[t], HUM_ACT_SCALE_TOKEN, 0, HUM_DTYPE_FLOAT32};
        const hum_memory H = HUM_MEMORY_HOST;
        hum_tensor a16 = quant_matrix(h, HUM_DTYPE_BFLOAT16, M, K, H),
                   a32 = quant_matrix(f, HUM_DTYPE_FLOAT32, M, K, H);
        hum_tensor t16 = quant_matrix(q16, types[t], M, K, H), t32 = quant_matrix(q32, types[t], M, K, H);
        hum_tensor ts16 = quant_matrix(s16, HUM_DTYPE_FLOAT32, M, 1, H),
                   ts32 = quant_matrix(s32, HUM_DTYPE_FLOAT32, M, 1, H);
        QUANT_CHECK(hum_quantize_activations(&a16, &how, 0.0f, &t16, &ts16) == HUM_OK &&
                        hum_quantize_activations(&a32, &how, 0.0f, &t32, &ts32) == HUM_OK &&
                        !memcmp(q16, q32, sizeof q16) && !memcmp(s16, s32, sizeof s16),
                    "%s: float32 rows quantize as their bfloat16 twins: %s", hum_dtype_name(types[t]),
                    hum_last_error());
        /* 1 + 2^-10 is no bfloat16 value; as int8 at scale 1/127 of amax 1 + 2^-10 it is 127 */
        float one[K] = {1.0f + 0x1p-10f, 0.5f};
        uint8_t q1[K];
        float s1;
        hum_tensor ta = quant_matrix(one, HUM_DTYPE_FLOAT32, 1, K, H), tq1 = quant_matrix(q1, types[t], 1, K, H),
                   ts1 = quant_matrix(&s1, HUM_DTYPE_FLOAT32, 1, 1, H);
        QUANT_CHECK(hum_quantize_activations(&ta, &how, 0.0f, &tq1, &ts1) == HUM_OK &&
                        s1 == (1.0f + 0x1p-10f) / (types[t] == HUM_DTYPE_INT8 ? 127.0f : 448.0f),
                    "%s: a float32 row's scale %.9g", hum_dtype_name(types[t]), (double)s1);
    }
}

static void expect_invalid(const char *what, const hum_tensor *a, const hum_act_quant *how, float s,
                           const hum_tensor *q, const hum_tensor *scale, const char *needle)
{
    const hum_status st = hum_quantize_activations(a, how, s, q, scale);
    QUANT_CHECK(st == HUM_ERR_INVALID_ARG && strstr(hum_last_error(), needle), "%s: status %d '%s', expected "
                "HUM_ERR_INVALID_ARG naming '%s'", what, st, hum_last_error(), needle);
}

static void check_errors(void)
{
    uint16_t a[64] = {0};
    uint8_t q[64];
    float s[4];
    hum_tensor ta = quant_matrix(a, HUM_DTYPE_FLOAT16, 2, 32, HUM_MEMORY_HOST),
               tq = quant_matrix(q, HUM_DTYPE_FLOAT8_E4M3FN, 2, 32, HUM_MEMORY_HOST);
    hum_tensor ts = quant_matrix(s, HUM_DTYPE_FLOAT32, 2, 1, HUM_MEMORY_HOST);
    const hum_act_quant tok = {HUM_DTYPE_FLOAT8_E4M3FN, HUM_ACT_SCALE_TOKEN, 0, HUM_DTYPE_FLOAT32};
    QUANT_CHECK(hum_quantize_activations(&ta, &tok, 0.0f, &tq, &ts) == HUM_OK, "%s", hum_last_error());
    expect_invalid("NULL q", &ta, &tok, 0.0f, NULL, &ts, "NULL q");
    hum_tensor bad = ta;
    bad.dtype = HUM_DTYPE_INT32;
    expect_invalid("int32 a", &bad, &tok, 0.0f, &tq, &ts, "a must be host float16, bfloat16 or float32");
    bad = ta;
    bad.memory = HUM_MEMORY_DEVICE;
    expect_invalid("device a", &bad, &tok, 0.0f, &tq, &ts, "a must be host");
    hum_act_quant h = tok;
    h.dtype = HUM_DTYPE_FLOAT8_E5M2;
    expect_invalid("e5m2 codes", &ta, &h, 0.0f, &tq, &ts, "code dtype float8_e5m2");
    bad = tq;
    bad.shape[1] = 16;
    expect_invalid("narrow q", &ta, &tok, 0.0f, &bad, &ts, "q must be host float8_e4m3fn [M, Kq >= K]");
    h = tok;
    h.scale = HUM_ACT_SCALE_GROUP;
    h.group = 48;
    expect_invalid("group 48", &ta, &h, 0.0f, &tq, &ts, "group 48");
    h.group = 16;
    expect_invalid("group scales of the wrong shape", &ta, &h, 0.0f, &tq, &ts, "scale must be host float32 [M, 2]");
    h = tok;
    h.scale_dtype = HUM_DTYPE_FLOAT8_E8M0;
    expect_invalid("e8m0 per token", &ta, &h, 0.0f, &tq, &ts, "scale dtype float8_e8m0");
    h = (hum_act_quant){HUM_DTYPE_INT8, HUM_ACT_SCALE_GROUP, 32, HUM_DTYPE_FLOAT8_E8M0};
    hum_tensor tq8 = quant_matrix(q, HUM_DTYPE_INT8, 2, 32, HUM_MEMORY_HOST);
    expect_invalid("e8m0 with int8", &ta, &h, 0.0f, &tq8, &ts, "scale dtype float8_e8m0");
    const hum_act_quant st = {HUM_DTYPE_FLOAT8_E4M3FN, HUM_ACT_SCALE_TENSOR, 0, HUM_DTYPE_FLOAT32};
    expect_invalid("negative input_scale", &ta, &st, -1.0f, &tq, NULL, "input_scale -1");
    expect_invalid("NaN input_scale", &ta, &st, NAN, &tq, NULL, "input_scale nan");
    expect_invalid("scales for TENSOR", &ta, &st, 1.0f, &tq, &ts, "scale must be NULL for TENSOR");
    /* strides whose offsets pass INT64_MAX: they wrapped to addresses before the buffers */
    bad = ta;
    bad.strides[0] = INT64_MAX;
    expect_invalid("a row stride of INT64_MAX", &bad, &tok, 0.0f, &tq, &ts, "a's strides reach past INT64_MAX");
    bad = ts;
    bad.strides[0] = INT64_MAX / 2;
    expect_invalid("a scale row stride of INT64_MAX / 2", &ta, &tok, 0.0f, &tq, &bad,
                   "scale's strides reach past INT64_MAX");
    /* input_scale 0: codes 0, no NaN */
    for (int i = 0; i < 64; i++)
        a[i] = 0x3C00; /* 1.0 */
    memset(q, 0x55, sizeof q);
    QUANT_CHECK(hum_quantize_activations(&ta, &st, 0.0f, &tq, NULL) == HUM_OK && q[0] == 0 && q[63] == 0,
                "input_scale 0: code 0x%02x", q[0]);
}

/* The value mxfp8 gives x under the e8m0 scale of a group whose largest magnitude is amax, in
 * float64 without the twin's arithmetic: scale = 2^clamp(floor(log2 amax) - 8, -127, 127) from
 * frexp, the e4m3fn code by search over the 256 codes (nearest to x / scale, ties to the even
 * code, past 448 the largest), its value times the scale; a negative x rounded to zero is -0. */
static double ref_mxfp8(double x, double amax)
{
    if (amax == 0.0)
        return 0.0;
    int ex;
    frexp(amax, &ex);
    const double scale = ldexp(1.0, (int)fmin(fmax(ex - 1 - 8, -127), 127)), y = x / scale;
    double best = 0.0, dist = INFINITY;
    int best_code = 0;
    for (int c = 0; c < 256; c++) {
        const double v = decode1(HUM_DTYPE_FLOAT8_E4M3FN, (uint64_t)c);
        if (!isfinite(v))
            continue;
        const double d = fabs(v - fmin(fmax(y, -448.0), 448.0));
        if (d < dist || (d == dist && !(c & 1) && (best_code & 1))) {
            best = v, dist = d, best_code = c;
        }
    }
    return best == 0.0 ? copysign(0.0, x) : best * scale; /* the sign survives rounding to zero */
}

/* MXFP8 as rounding (q of a 16-bit type): each value against ref_mxfp8 rounded to q's type by
 * the float64 encoder, for float16, bfloat16 and float32 rows: all-zero rows and groups (0),
 * partial last groups (K % 32), K % 8 != 0, padded columns (0), elements past 448 x the scale
 * (saturated), tiny elements beside large ones (subnormal e4m3fn codes, or 0), magnitudes
 * from float32's subnormals (bfloat16, float32) to float16's largest. */
static void check_rounding(quant_rng *rng)
{
    static const struct {
        int64_t m, k, kq;
        hum_dtype in, out;
    } cases[] = {
        {6, 1000, 1024, HUM_DTYPE_BFLOAT16, HUM_DTYPE_BFLOAT16}, {6, 203, 208, HUM_DTYPE_FLOAT16, HUM_DTYPE_FLOAT16},
        {5, 64, 64, HUM_DTYPE_FLOAT16, HUM_DTYPE_FLOAT16},       {6, 77, 80, HUM_DTYPE_FLOAT32, HUM_DTYPE_BFLOAT16},
        {4, 96, 96, HUM_DTYPE_FLOAT32, HUM_DTYPE_FLOAT16},
    };
    const hum_act_quant mx = {HUM_DTYPE_FLOAT8_E4M3FN, HUM_ACT_SCALE_GROUP, 32, HUM_DTYPE_FLOAT8_E8M0};
    int64_t saturated = 0, subnormal = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int64_t m = cases[c].m, k = cases[c].k, kq = cases[c].kq, lda = k + 5;
        const hum_dtype in = cases[c].in, out = cases[c].out;
        const int64_t in_bytes = in == HUM_DTYPE_FLOAT32 ? 4 : 2;
        char *a = calloc((size_t)(m * lda), (size_t)in_bytes);
        double *x = calloc((size_t)(m * k), sizeof *x);
        uint16_t *q = malloc((size_t)(m * kq) * 2);
        for (int64_t r = 0; r < m; r++) {
            /* row 0 all zero, row 1's first group zero; magnitudes 2^-140 .. 2^14 by row */
            const double mag = in == HUM_DTYPE_FLOAT16 ? ldexp(1.0, (int)(r * 5) - 14)
                                                       : ldexp(1.0, (int)(r * 31) - 140);
            for (int64_t j = 0; j < k; j++) {
                if (r == 0 || (r == 1 && j < 32))
                    continue;
                double v = quant_rng_normal(rng) * mag;
                if (j % 32 == 3) /* the group's largest, past 448 x its scale: 1.75..2 x 2^e */
                    v = (1.76 + 0.2 * quant_rng_uniform(rng)) * 4.0 * mag * (j % 64 == 3 ? 1 : -1);
                if (j % 32 == 9) /* far below it: subnormal e4m3fn codes, or 0 */
                    v = quant_rng_normal(rng) * ldexp(mag, -8 - (int)(j / 32 % 6));
                if (in == HUM_DTYPE_FLOAT32) {
                    const float f = (float)v;
                    memcpy(a + (r * lda + j) * 4, &f, 4);
                    x[r * k + j] = f;
                } else {
                    uint16_t h;
                    hum_dtype_encode(in, &v, 1, &h);
                    memcpy(a + (r * lda + j) * 2, &h, 2);
                    x[r * k + j] = decode1(in, h);
                }
            }
        }
        quant_poison(q, (size_t)(m * kq) * 2);
        hum_tensor ta = quant_matrix(a, in, m, k, HUM_MEMORY_HOST), tq = quant_matrix(q, out, m, kq, HUM_MEMORY_HOST);
        ta.strides[0] = lda;
        if (!QUANT_CHECK(hum_quantize_activations(&ta, &mx, 0.0f, &tq, NULL) == HUM_OK, "rounding case %zu: %s", c,
                         hum_last_error()))
            continue;
        int64_t bad = 0;
        for (int64_t r = 0; r < m; r++)
            for (int64_t j0 = 0; j0 < k; j0 += 32) {
                double amax = 0.0;
                for (int64_t j = j0; j < j0 + 32 && j < k; j++)
                    amax = fmax(amax, fabs(x[r * k + j]));
                for (int64_t j = j0; j < j0 + 32 && j < k; j++) {
                    const double v = ref_mxfp8(x[r * k + j], amax);
                    uint16_t want;
                    hum_dtype_encode(out, &v, 1, &want);
                    saturated += amax > 0.0 && fabs(x[r * k + j]) == amax && fabs(v) < amax;
                    subnormal += v != 0.0 && fabs(v) < amax * 0x1p-14;
                    if (q[r * kq + j] != want && bad++ < 5)
                        QUANT_CHECK(0, "rounding case %zu [%lld][%lld] = %.9g: 0x%04x (%g), expected 0x%04x (%g)", c,
                                    (long long)r, (long long)j, x[r * k + j], q[r * kq + j],
                                    decode1(out, q[r * kq + j]), want, v);
                }
            }
        for (int64_t r = 0; r < m; r++)
            for (int64_t j = k; j < kq; j++)
                bad += q[r * kq + j] != 0;
        QUANT_CHECK(bad == 0, "rounding case %zu (%s -> %s, K %lld): %lld mismatches", c, hum_dtype_name(in),
                    hum_dtype_name(out), (long long)k, (long long)bad);
        free(a);
        free(x);
        free(q);
    }
    /* the cases reach what they are for */
    QUANT_CHECK(saturated > 0 && subnormal > 0, "rounding: %lld saturated groups, %lld subnormal codes",
                (long long)saturated, (long long)subnormal);
    /* refused: another scheme, or a scale tensor beside a 16-bit q */
    uint16_t a16[64] = {0}, q16[64];
    uint8_t s8[2];
    hum_tensor ta = quant_matrix(a16, HUM_DTYPE_FLOAT16, 2, 32, HUM_MEMORY_HOST),
               tq = quant_matrix(q16, HUM_DTYPE_FLOAT16, 2, 32, HUM_MEMORY_HOST),
               ts = quant_matrix(s8, HUM_DTYPE_FLOAT8_E8M0, 2, 1, HUM_MEMORY_HOST);
    expect_invalid("rounding with scales", &ta, &mx, 0.0f, &tq, &ts, "q of float16 (rounding) takes mxfp8");
    hum_act_quant g16 = mx;
    g16.group = 16;
    expect_invalid("rounding in groups of 16", &ta, &g16, 0.0f, &tq, NULL, "q of float16 (rounding) takes mxfp8");
    const hum_act_quant tok = {HUM_DTYPE_FLOAT8_E4M3FN, HUM_ACT_SCALE_TOKEN, 0, HUM_DTYPE_FLOAT32};
    expect_invalid("rounding per token", &ta, &tok, 0.0f, &tq, NULL, "q of float16 (rounding) takes mxfp8");
    /* 16-bit A rounds into its own type only (bfloat16's range overflows float16) */
    const hum_tensor tqb = quant_matrix(q16, HUM_DTYPE_BFLOAT16, 2, 32, HUM_MEMORY_HOST);
    expect_invalid("rounding float16 into bfloat16", &ta, &mx, 0.0f, &tqb, NULL,
                   "q of bfloat16 (rounding) with a of float16: expected a's type");
}

/* NVRTC compiles the kernel the twin mirrors for every arch (the fp8 conversion from sm_89,
 * the integer encoder before). */
static void check_compiles(void)
{
    static const char *const archs[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90a"};
    static const char *const entries[] = {"hum_quantize_a", "hum_quantize_a_round"};
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        for (size_t e = 0; e < 2; e++) {
            const hum_jit_request req = {.source = "kernels/prep/quantize_a.cu", .kernel_name = entries[e],
                                         .arch = archs[i]};
            hum_jit_result res;
            QUANT_CHECK(hum_jit_compile(NULL, &req, &res) == HUM_OK && res.cubin_size > 0,
                        "quantize_a.cu (%s) for %s: %s", entries[e], archs[i], hum_last_error());
            hum_jit_result_free(&res);
        }
}

int main(void)
{
    quant_rng rng = quant_rng_fresh("test_quantize_a");
    check_every_value();
    check_random_products(&rng);
    check_dynamic(&rng);
    check_errors();
    check_float32_rows();
    check_rounding(&rng);
    check_compiles();
    return quant_test_result("test_quantize_a");
}
