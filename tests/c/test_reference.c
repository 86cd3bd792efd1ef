/* Reference dequantizer and GEMM on standard weights built by hand here (not by the
 * quantizer), with values worked out on paper: zero points (int across word boundaries,
 * float), act-order, bias, every scale type, FP weights read as all-finite codes, experts;
 * and validation errors that name the bad field. */
#include "hum/hum_tools.h"
#include "quant_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A host tensor over a copy of `data`. */
static hum_tensor tensor(hum_dtype dtype, int rank, const int64_t *shape, const void *data, size_t bytes)
{
    hum_tensor t;
    QUANT_CHECK(hum_host_tensor_alloc(&t, dtype, rank, shape) == HUM_OK, "%s", hum_last_error());
    memcpy(t.data, data, bytes);
    return t;
}

static void check_values(const char *what, const double *got, const double *want, int count)
{
    for (int i = 0; i < count; i++)
        QUANT_CHECK(got[i] == want[i], "%s[%d] = %.17g, expected %.17g", what, i, got[i], want[i]);
}

/* uint4, N=2, K=3, GROUP 2, float16 scales (one negative), int zero points, bias, act-order. */
static void make_group_zp(hum_standard_weight *w)
{
    memset(w, 0, sizeof *w);
    w->n = 2;
    w->k = 3;
    w->weight_dtype = HUM_DTYPE_UINT4;
    w->param_dtype = HUM_DTYPE_FLOAT16;
    /* stored codes: row 0 = {3, 10, 15}, row 1 = {0, 8, 1} */
    const int32_t words[2] = {0xFA3, 0x180};
    w->weight = tensor(HUM_DTYPE_INT32, 2, (const int64_t[]){2, 1}, words, sizeof words);
    w->scale_type = HUM_SCALE_GROUP;
    w->group_size = 2;
    w->scale_dtype = HUM_DTYPE_FLOAT16;
    const uint16_t scales[4] = {0x3800, 0x4000, 0x3400, 0xBC00}; /* 0.5 2 / 0.25 -1 */
    w->scale = tensor(HUM_DTYPE_FLOAT16, 2, (const int64_t[]){2, 2}, scales, sizeof scales);
    w->has_zero_point = 1;
    /* zero points z(n, g): z(0,0)=2 z(1,0)=5 | z(0,1)=7 z(1,1)=0, packed along N per group */
    const int32_t zp[2] = {0x52, 0x07};
    w->zero_point = tensor(HUM_DTYPE_INT32, 2, (const int64_t[]){1, 2}, zp, sizeof zp);
    const uint16_t bias[2] = {0x3C00, 0xB800}; /* 1, -0.5 */
    w->bias = tensor(HUM_DTYPE_FLOAT16, 1, (const int64_t[]){2}, bias, sizeof bias);
    const int32_t perm[3] = {2, 0, 1};
    w->k_perm = tensor(HUM_DTYPE_INT32, 1, (const int64_t[]){3}, perm, sizeof perm);
}

static void check_group_zp(void)
{
    hum_standard_weight w;
    make_group_zp(&w);
    QUANT_CHECK(hum_standard_validate(&w) == HUM_OK, "%s", hum_last_error());
    /* stored row 0: (3-2)*.5, (10-2)*.5, (15-7)*2 -> columns 2, 0, 1
     * stored row 1: (0-5)*.25, (8-5)*.25, (1-0)*-1 -> columns 2, 0, 1 */
    const double want[6] = {4.0, 16.0, 0.5, 0.75, -1.0, -1.25};
    double got[6];
    QUANT_CHECK(hum_reference_dequant(&w, 0, got) == HUM_OK, "%s", hum_last_error());
    check_values("group zp dequant", got, want, 6);
    const double a[6] = {1, 2, 3, -1, 0, 0.5};
    const double c_want[4] = {38.5, -5.5, -2.75, -1.875};
    double c[4] = {NAN, NAN, NAN, NAN};
    QUANT_CHECK(hum_reference_gemm(&w, 0, a, 2, c) == HUM_OK, "%s", hum_last_error());
    check_values("group zp gemm", c, c_want, 4);
    QUANT_CHECK(hum_reference_gemm(&w, 0, a, 0, c) == HUM_OK, "M = 0 is a no-op");
    QUANT_CHECK(hum_reference_dequant(&w, 1, got) == HUM_ERR_INVALID_ARG, "expert 1 of a dense layer");
    hum_standard_free(&w);
    QUANT_CHECK(w.weight.data == NULL && w.n == 0, "hum_standard_free zeroes the struct");
    hum_standard_free(&w); /* safe on a zeroed struct */
}

/* NVFP4-like: e2m1 weights, e4m3fn group-2 scales, global 0.5. */
static void check_group_tensor_fp4(void)
{
    hum_standard_weight w = {0};
    w.n = 1;
    w.k = 4;
    w.weight_dtype = HUM_DTYPE_FLOAT4_E2M1;
    w.param_dtype = HUM_DTYPE_BFLOAT16;
    const int32_t words[1] = {0x37F1}; /* codes 0x1 (0.5), 0xF (-6), 0x7 (6), 0x3 (1.5) */
    w.weight = tensor(HUM_DTYPE_INT32, 2, (const int64_t[]){1, 1}, words, sizeof words);
    w.scale_type = HUM_SCALE_GROUP_TENSOR;
    w.group_size = 2;
    w.scale_dtype = HUM_DTYPE_FLOAT8_E4M3FN;
    const uint8_t scales[2] = {0x38, 0x42}; /* 1.0, 2.5 */
    w.scale = tensor(HUM_DTYPE_FLOAT8_E4M3FN, 2, (const int64_t[]){1, 2}, scales, sizeof scales);
    const float global = 0.5f;
    w.global_scale = tensor(HUM_DTYPE_FLOAT32, 1, (const int64_t[]){1}, &global, sizeof global);
    const double want[4] = {0.25, -3.0, 7.5, 1.875};
    double got[4];
    QUANT_CHECK(hum_reference_dequant(&w, 0, got) == HUM_OK, "%s", hum_last_error());
    check_values("nvfp4 dequant", got, want, 4);
    hum_standard_free(&w);
}

/* FP weights are read as all-finite codes: e4m3fn 0x7F is 480, e5m2 0x7C is 65536. */
static void check_finite_reading(void)
{
    const struct {
        hum_dtype dtype;
        int32_t word;
        double want[2];
    } cases[2] = {{HUM_DTYPE_FLOAT8_E4M3FN, 0xFF7F, {480.0, -480.0}},
                  {HUM_DTYPE_FLOAT8_E5M2, 0xFE7C, {65536.0, -98304.0}}};
    for (int i = 0; i < 2; i++) {
        hum_standard_weight w = {0};
        w.n = 1;
        w.k = 2;
        w.weight_dtype = cases[i].dtype;
        w.param_dtype = HUM_DTYPE_BFLOAT16;
        w.weight = tensor(HUM_DTYPE_INT32, 2, (const int64_t[]){1, 1}, &cases[i].word, 4);
        w.scale_type = HUM_SCALE_CHANNEL;
        w.scale_dtype = HUM_DTYPE_BFLOAT16;
        const uint16_t one = 0x3F80;
        w.scale = tensor(HUM_DTYPE_BFLOAT16, 2, (const int64_t[]){1, 1}, &one, 2);
        double got[2];
        QUANT_CHECK(hum_reference_dequant(&w, 0, got) == HUM_OK, "%s", hum_last_error());
        check_values(hum_dtype_name(cases[i].dtype), got, cases[i].want, 2);
        hum_standard_free(&w);
    }
}

/* uint3, N=11 (zero point of row 10 straddles words 0 and 1), CHANNEL, float16 scale 1, two
 * experts with different zero points; every code is 7, so row n dequantizes to 7 - z(e, n). */
static void check_experts_zp_across_words(void)
{
    enum { E = 2, N = 11 };
    hum_standard_weight w = {0};
    w.num_experts = E;
    w.n = N;
    w.k = 1;
    w.weight_dtype = HUM_DTYPE_UINT3;
    w.param_dtype = HUM_DTYPE_FLOAT16;
    int32_t words[E * N];
    for (int i = 0; i < E * N; i++)
        words[i] = 7;
    w.weight = tensor(HUM_DTYPE_INT32, 3, (const int64_t[]){E, N, 1}, words, sizeof words);
    w.scale_type = HUM_SCALE_CHANNEL;
    w.scale_dtype = HUM_DTYPE_FLOAT16;
    uint16_t ones[E * N];
    for (int i = 0; i < E * N; i++)
        ones[i] = 0x3C00;
    w.scale = tensor(HUM_DTYPE_FLOAT16, 3, (const int64_t[]){E, N, 1}, ones, sizeof ones);
    w.has_zero_point = 1;
    /* z(e, n) = (n + 3e) % 8 at stream bits [3n, 3n+3), set bit by bit */
    uint32_t zp[E * 2] = {0};
    for (int e = 0; e < E; e++)
        for (int n = 0; n < N; n++)
            for (int t = 0; t < 3; t++)
                if ((((n + 3 * e) % 8) >> t) & 1)
                    zp[e * 2 + (3 * n + t) / 32] |= 1u << ((3 * n + t) % 32);
    w.zero_point = tensor(HUM_DTYPE_INT32, 3, (const int64_t[]){E, 2, 1}, zp, sizeof zp);
    for (int e = 0; e < E; e++) {
        double got[N], want[N];
        for (int n = 0; n < N; n++)
            want[n] = 7.0 - (double)((n + 3 * e) % 8);
        QUANT_CHECK(hum_reference_dequant(&w, e, got) == HUM_OK, "%s", hum_last_error());
        check_values(e ? "expert 1" : "expert 0", got, want, N);
    }
    hum_standard_free(&w);
}

/* BLOCK (2 x 2, float32), uint2 symmetric (midpoint 2); TENSOR uint8; float zero point. */
static void check_block_tensor_float_zp(void)
{
    hum_standard_weight w = {0};
    w.n = 3;
    w.k = 3;
    w.weight_dtype = HUM_DTYPE_UINT2;
    w.param_dtype = HUM_DTYPE_FLOAT16;
    /* every row codes {0, 3, 1}: values -2, 1, -1 before scaling */
    const int32_t words[3] = {0x1C, 0x1C, 0x1C};
    w.weight = tensor(HUM_DTYPE_INT32, 2, (const int64_t[]){3, 1}, words, sizeof words);
    w.scale_type = HUM_SCALE_BLOCK;
    w.group_size = 2;
    w.group_size_n = 2;
    w.scale_dtype = HUM_DTYPE_FLOAT32;
    const float s[4] = {1.0f, 10.0f, 0.5f, -3.0f};
    w.scale = tensor(HUM_DTYPE_FLOAT32, 2, (const int64_t[]){2, 2}, s, sizeof s);
    const double want[9] = {-2, 1, -10, -2, 1, -10, -1, 0.5, 3};
    double got[9];
    QUANT_CHECK(hum_reference_dequant(&w, 0, got) == HUM_OK, "%s", hum_last_error());
    check_values("block dequant", got, want, 9);
    hum_standard_free(&w);

    hum_standard_weight t = {0};
    t.n = 1;
    t.k = 3;
    t.weight_dtype = HUM_DTYPE_UINT8;
    t.param_dtype = HUM_DTYPE_BFLOAT16;
    const int32_t tw = 0xFF8000; /* codes 0, 128, 255 */
    t.weight = tensor(HUM_DTYPE_INT32, 2, (const int64_t[]){1, 1}, &tw, 4);
    t.scale_type = HUM_SCALE_TENSOR;
    t.scale_dtype = HUM_DTYPE_FLOAT32;
    const float g = 0.25f;
    t.global_scale = tensor(HUM_DTYPE_FLOAT32, 1, (const int64_t[]){1}, &g, 4);
    const double twant[3] = {-32.0, 0.0, 31.75};
    QUANT_CHECK(hum_reference_dequant(&t, 0, got) == HUM_OK, "%s", hum_last_error());
    check_values("tensor dequant", got, twant, 3);
    hum_standard_free(&t);

    hum_standard_weight f = {0};
    f.n = 1;
    f.k = 2;
    f.weight_dtype = HUM_DTYPE_UINT4;
    f.param_dtype = HUM_DTYPE_FLOAT16;
    const int32_t fw = 0x0F; /* codes 15, 0 */
    f.weight = tensor(HUM_DTYPE_INT32, 2, (const int64_t[]){1, 1}, &fw, 4);
    f.scale_type = HUM_SCALE_CHANNEL;
    f.scale_dtype = HUM_DTYPE_FLOAT16;
    const uint16_t fs = 0x4000; /* 2 */
    f.scale = tensor(HUM_DTYPE_FLOAT16, 2, (const int64_t[]){1, 1}, &fs, 2);
    f.has_zero_point = 1;
    f.zero_point_is_float = 1;
    const uint16_t zf = 0x4780; /* 7.5 */
    f.zero_point = tensor(HUM_DTYPE_FLOAT16, 2, (const int64_t[]){1, 1}, &zf, 2);
    const double fwant[2] = {15.0, -15.0};
    QUANT_CHECK(hum_reference_dequant(&f, 0, got) == HUM_OK, "%s", hum_last_error());
    check_values("float zero point dequant", got, fwant, 2);
    hum_standard_free(&f);
}

static void expect_invalid(hum_standard_weight *w, const char *needle, const char *what)
{
    QUANT_CHECK(hum_standard_validate(w) == HUM_ERR_INVALID_ARG, "%s must be refused", what);
    QUANT_CHECK(strstr(hum_last_error(), needle) != NULL, "%s: message '%s' lacks '%s'", what, hum_last_error(),
                needle);
    double out[6];
    QUANT_CHECK(hum_reference_dequant(w, 0, out) == HUM_ERR_INVALID_ARG, "%s: dequant refuses it", what);
}

static void check_validation(void)
{
    hum_standard_weight w;
    make_group_zp(&w);
    w.weight.shape[1] = 2;
    expect_invalid(&w, "weight", "weight with 2 words per row");
    w.weight.shape[1] = 1;
    w.scale.dtype = HUM_DTYPE_BFLOAT16;
    expect_invalid(&w, "scale", "scale of the wrong dtype");
    w.scale.dtype = HUM_DTYPE_FLOAT16;
    ((int32_t *)w.k_perm.data)[2] = 0;
    expect_invalid(&w, "k_perm[2]", "k_perm with a repeat");
    ((int32_t *)w.k_perm.data)[2] = 1;
    w.group_size = 0;
    expect_invalid(&w, "group_size", "GROUP without a group size");
    w.group_size = 2;
    w.weight_dtype = HUM_DTYPE_FLOAT8_E4M3FN;
    expect_invalid(&w, "zero point", "zero point on an FP weight");
    w.weight_dtype = HUM_DTYPE_UINT4;
    w.param_dtype = HUM_DTYPE_FLOAT32;
    expect_invalid(&w, "param_dtype", "float32 param dtype");
    w.param_dtype = HUM_DTYPE_FLOAT16;
    w.scale_type = HUM_SCALE_GROUP_TENSOR;
    expect_invalid(&w, "global_scale", "GROUP_TENSOR without a global scale");
    w.scale_type = HUM_SCALE_GROUP;
    w.bias.strides[0] = 2;
    expect_invalid(&w, "contiguous", "strided bias");
    w.bias.strides[0] = 0;
    QUANT_CHECK(hum_standard_validate(&w) == HUM_OK, "restored weight validates: %s", hum_last_error());
    QUANT_CHECK(hum_standard_validate(NULL) == HUM_ERR_INVALID_ARG, "NULL");
    hum_standard_free(&w);
}

/* hum_reference_gemm computes rows of A eight and four at a time: every output must be the same
 * bits as A's rows one at a time (M = 1 calls) and as the in-order sum over k of the dequantized
 * weights (hum_reference_dequant) plus the bias, at M = 13 (8 + 4 + 1). */
static void check_rows_blocked(void)
{
    enum { M = 13 };
    hum_layer_spec s;
    hum_standard_weight w;
    quant_rng rng = quant_rng_fresh("test_reference");
    if (!QUANT_CHECK(hum_layer_spec_parse("n=6,k=300,w=uint4,group=32,zp=int,bias=1", &s) == HUM_OK &&
                         hum_layer_spec_weight(&s, quant_rng_next(&rng), &w) == HUM_OK,
                     "%s", hum_last_error()))
        return;
    const int64_t n = w.n, k = w.k;
    double *a = malloc((size_t)(M * k) * sizeof *a), *wd = malloc((size_t)(n * k) * sizeof *wd);
    double c[M * 6], one[6], bias[6], zero[300] = {0};
    const int ok = QUANT_CHECK(a && wd, "out of memory");
    if (ok)
        quant_fill_normal_f64(&rng, a, M * k, 1.0);
    if (ok &&
        QUANT_CHECK(hum_reference_gemm(&w, 0, a, M, c) == HUM_OK && hum_reference_dequant(&w, 0, wd) == HUM_OK &&
                        hum_reference_gemm(&w, 0, zero, 1, bias) == HUM_OK,
                    "%s", hum_last_error())) {
        for (int64_t i = 0; i < M; i++) {
            if (!QUANT_CHECK(hum_reference_gemm(&w, 0, a + i * k, 1, one) == HUM_OK, "%s", hum_last_error()))
                break;
            for (int64_t j = 0; j < n; j++) {
                double sum = 0.0;
                for (int64_t t = 0; t < k; t++)
                    sum += a[i * k + t] * wd[j * k + t];
                QUANT_CHECK(c[i * n + j] == one[j] && c[i * n + j] == sum + bias[j],
                            "row %lld column %lld: %.17g at M = %d, %.17g alone, %.17g summed in order",
                            (long long)i, (long long)j, c[i * n + j], M, one[j], sum + bias[j]);
            }
        }
    }
    free(a);
    free(wd);
    hum_standard_free(&w);
}

int main(void)
{
    check_group_zp();
    check_group_tensor_fp4();
    check_finite_reading();
    check_experts_zp_across_words();
    check_block_tensor_float_zp();
    check_validation();
    check_rows_blocked();
    return quant_test_result("test_reference");
}
