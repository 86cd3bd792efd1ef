/* Grouped MoE layers (hum_moe_forward_grouped) on a GPU against the float64 per-expert reference
 * (hum_moe_reference with each row its expert's top-1 of weight 1), the output poisoned (NaN)
 * first: grouped contiguous (rows already permuted, int64 expert offsets, rows before the first
 * expert and after the last that no expert owns) and grouped masked (DeepEP low-latency [E, T, H]
 * with int32 counts); experts with no rows, expert row counts of 16 and 17 (a block and one
 * more), an expert of every row; silu split bfloat16 and swiglu_oai interleaved with biases in
 * float16; every owned row must match, every other row keep its poison. Also: T = 0 does
 * nothing, a workspace short of T and hum_moe_forward on a grouped layer are refused naming
 * why. mxfp8 (moe.activation = mxfp8: the hidden rows and the activation's output rounded to
 * mxfp8's values in the 16-bit type, both GEMMs 16-bit) on both layouts, uint4 weights with
 * group-128 scales, against the reference rounding the same way. HUM_TEST_CASES=A,B
 * runs only the cases whose name contains A or B (e.g. mxfp8). Skipped (77) without a GPU. */
#include "gemm_test.h"
#include "hum/hum.h"
#include "hum/hum_tools.h"
#include "rt_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { E = 8, H = 256, I = 128 };

typedef struct grouped_case {
    const char *name;
    int32_t gemm_type, activation, interleaved, bias;
    hum_dtype dtype;
    int32_t counts[E];
    int64_t lead, tail; /* contiguous: rows before the first expert and after the last */
    int32_t mxfp8;      /* run under moe.activation = mxfp8: rounded into 16-bit A (a_round) */
} grouped_case;

static int make_weight(quant_rng *rng, const grouped_case *c, int64_t n, int64_t k, hum_standard_weight *w)
{
    float *v = malloc((size_t)(E * n * k) * sizeof *v), *b = malloc((size_t)(E * n) * sizeof *b);
    quant_fill_normal_f32(rng, v, E * n * k, 1.0 / sqrt((double)k));
    quant_fill_normal_f32(rng, b, E * n, 0.5);
    const hum_quant_spec spec = {.num_experts = E, .weight_dtype = HUM_DTYPE_UINT4, .param_dtype = c->dtype,
                                 .scale_type = HUM_SCALE_GROUP, .group_size = 128, .bias = c->bias ? b : NULL};
    const hum_status st = hum_quantize_reference(v, n, k, &spec, w);
    free(v);
    free(b);
    return QUANT_CHECK(st == HUM_OK, "%s: weight: %s", c->name, hum_last_error());
}

static void run_case(hum_runtime *rt, quant_rng *rng, const grouped_case *c)
{
    if (!quant_test_selected(c->name))
        return;
    const int masked = c->gemm_type == HUM_GEMM_MOE_GROUPED_MASKED;
    int64_t T = 0, owned = 0;
    for (int e = 0; e < E; e++) {
        owned += c->counts[e];
        T = masked && c->counts[e] > T ? c->counts[e] : T;
    }
    if (!masked)
        T = c->lead + owned + c->tail;
    const int64_t rows = masked ? E * T : T;
    hum_standard_weight w13 = {0}, w2 = {0};
    hum_moe_options o;
    hum_moe_options_init(&o);
    o.activation = c->activation;
    o.gate_up = c->interleaved ? HUM_MOE_GATE_UP_INTERLEAVED : HUM_MOE_GATE_UP_SPLIT;
    o.top_k = 1;
    o.gemm_type = c->gemm_type;
    hum_moe *moe = NULL;
    hum_workspace *ws = NULL, *small = NULL;
    void *d_x = NULL, *d_out = NULL, *d_layout = NULL;
    uint16_t *x_codes = malloc((size_t)rows * H * 2), *out_codes = malloc((size_t)rows * H * 2);
    double *x = malloc((size_t)rows * H * sizeof *x), *got = malloc((size_t)rows * H * sizeof *got);
    int64_t bytes = 0, small_bytes = 0;
    if (!make_weight(rng, c, 2 * I, H, &w13) || !make_weight(rng, c, H, I, &w2) ||
        !QUANT_CHECK(hum_moe_from_standard(rt, &w13, &w2, &o, &moe) == HUM_OK && hum_moe_prepare(moe) == HUM_OK &&
                         hum_moe_workspace_size(moe, T, &bytes) == HUM_OK &&
                         hum_workspace_create(rt, NULL, bytes, &ws) == HUM_OK &&
                         hum_moe_workspace_size(moe, 1, &small_bytes) == HUM_OK &&
                         hum_workspace_create(rt, NULL, small_bytes, &small) == HUM_OK,
                     "%s: layer: %s", c->name, hum_last_error()))
        goto done;
    /* mxfp8: the reference follows the layer's numerics (the rows rounded the same way) */
    hum_moe_info info;
    memset(&info, 0, sizeof info);
    const hum_moe_numerics mx = {c->dtype, c->dtype, c->dtype, 0, 0, HUM_A_ROUND_MXFP8, HUM_A_ROUND_MXFP8};
    if (c->mxfp8 && !QUANT_CHECK(hum_moe_get_info(moe, &info) == HUM_OK &&
                                     info.gate_up_gemm.config.a_round == HUM_A_ROUND_MXFP8 &&
                                     info.down_gemm.config.a_round == HUM_A_ROUND_MXFP8 &&
                                     info.gate_up_gemm.config.a_dtype == c->dtype &&
                                     info.down_gemm.config.a_dtype == c->dtype,
                                 "%s: the GEMMs run %s and %s", c->name, info.gate_up_activation,
                                 info.down_activation))
        goto done;

    /* the layout, and each row's expert (-1: none) */
    int32_t *expert_of = malloc((size_t)rows * 4);
    int64_t offsets[E + 1];
    offsets[0] = c->lead;
    for (int64_t r = 0; r < rows; r++)
        expert_of[r] = -1;
    for (int e = 0; e < E; e++) {
        offsets[e + 1] = offsets[e] + c->counts[e];
        for (int64_t i = 0; i < c->counts[e]; i++)
            expert_of[masked ? e * T + i : offsets[e] + i] = e;
    }
    quant_fill_activations(rng, c->dtype, rows * H, 1.0, x_codes, x);
    const hum_dtype ldt = masked ? HUM_DTYPE_INT32 : HUM_DTYPE_INT64;
    const hum_tensor layout = {.data = NULL, .dtype = ldt, .rank = 1, .shape = {masked ? E : E + 1},
                               .memory = HUM_MEMORY_DEVICE};
    if (!QUANT_CHECK(hum_device_alloc(0, (size_t)rows * H * 2, &d_x) == HUM_OK &&
                         hum_device_alloc(0, (size_t)rows * H * 2, &d_out) == HUM_OK &&
                         hum_device_alloc(0, (E + 1) * 8, &d_layout) == HUM_OK &&
                         hum_memcpy_htod(d_x, x_codes, (size_t)rows * H * 2) == HUM_OK &&
                         hum_memcpy_htod(d_layout, masked ? (void *)c->counts : (void *)offsets,
                                         masked ? E * 4 : (E + 1) * 8) == HUM_OK &&
                         hum_memset_d8(d_out, 0xFF, (size_t)rows * H * 2) == HUM_OK,
                     "%s: buffers: %s", c->name, hum_last_error())) {
        free(expert_of);
        goto done;
    }
    hum_tensor lt = layout, hidden, out;
    lt.data = d_layout;
    if (masked) {
        hidden = (hum_tensor){.data = d_x, .dtype = c->dtype, .rank = 3, .shape = {E, T, H},
                              .memory = HUM_MEMORY_DEVICE};
    } else {
        hidden = quant_matrix(d_x, c->dtype, T, H, HUM_MEMORY_DEVICE);
    }
    out = hidden;
    out.data = d_out;

    if (QUANT_CHECK(hum_moe_forward_grouped(moe, ws, NULL, &hidden, &lt, &out) == HUM_OK &&
                        hum_stream_synchronize(NULL) == HUM_OK &&
                        hum_memcpy_dtoh(out_codes, d_out, (size_t)rows * H * 2) == HUM_OK,
                    "%s: forward: %s", c->name, hum_last_error())) {
        /* the owned rows against the reference, every other row still poisoned */
        double *own_x = malloc((size_t)(owned + 1) * H * sizeof *own_x);
        double *own_got = malloc((size_t)(owned + 1) * H * sizeof *own_got);
        double *ref = malloc((size_t)(owned + 1) * H * sizeof *ref);
        int32_t *ids = malloc((size_t)(owned + 1) * 4);
        float *weights = malloc((size_t)(owned + 1) * 4);
        int64_t n = 0, touched = 0;
        hum_dtype_decode(c->dtype, out_codes, rows * H, got);
        for (int64_t r = 0; r < rows; r++) {
            if (expert_of[r] < 0) {
                for (int64_t j = 0; j < H; j++)
                    touched += out_codes[r * H + j] != 0xFFFF;
                continue;
            }
            memcpy(own_x + n * H, x + r * H, H * sizeof *x);
            memcpy(own_got + n * H, got + r * H, H * sizeof *got);
            ids[n] = expert_of[r];
            weights[n++] = 1.0f;
        }
        QUANT_CHECK(touched == 0, "%s: %lld elements of rows no expert owns were written", c->name, (long long)touched);
        const hum_tensor tids = quant_matrix(ids, HUM_DTYPE_INT32, n, 1, HUM_MEMORY_HOST);
        if (QUANT_CHECK(hum_moe_reference(&w13, &w2, &o, own_x, &tids, weights, NULL, c->mxfp8 ? &mx : NULL, ref) ==
                            HUM_OK,
                        "%s: reference: %s", c->name, hum_last_error())) {
            int64_t bad = 0;
            for (int64_t i = 0; i < n * H; i++)
                bad += !isfinite(own_got[i]);
            const double err = quant_rel_error(own_got, ref, n * H);
            const double tol = c->dtype == HUM_DTYPE_BFLOAT16 ? 2e-2 : 1e-2;
            QUANT_CHECK(bad == 0 && err < tol, "%s: %lld rows: relative error %.3e (tolerance %.0e), %lld not finite",
                        c->name, (long long)n, err, tol, (long long)bad);
            printf("  %s: %lld of %lld rows, relative error %.2e\n", c->name, (long long)n, (long long)rows, err);
        }
        free(own_x);
        free(own_got);
        free(ref);
        free(ids);
        free(weights);
    }
    /* T = 0: nothing; a workspace short of T; the routed forward on a grouped layer */
    hum_tensor none = hidden, none_out = out;
    none.shape[masked ? 1 : 0] = 0;
    none_out.shape[masked ? 1 : 0] = 0;
    QUANT_CHECK(hum_moe_forward_grouped(moe, ws, NULL, &none, &lt, &none_out) == HUM_OK, "%s: T = 0: %s", c->name,
                hum_last_error());
    QUANT_CHECK(T == 1 || (hum_moe_forward_grouped(moe, small, NULL, &hidden, &lt, &out) == HUM_ERR_INVALID_ARG &&
                           strstr(hum_last_error(), "hum_moe_workspace_size")),
                "%s: a workspace of 1 row: %s", c->name, hum_last_error());
    const hum_tensor ids = quant_matrix(d_layout, HUM_DTYPE_INT32, 1, 1, HUM_MEMORY_DEVICE);
    const hum_tensor one = quant_matrix(d_x, c->dtype, 1, H, HUM_MEMORY_DEVICE);
    QUANT_CHECK(hum_moe_forward(moe, ws, NULL, &one, &ids, &ids, NULL, &one, 0) == HUM_ERR_INVALID_ARG &&
                    strstr(hum_last_error(), "hum_moe_forward_grouped"),
                "%s: hum_moe_forward on a grouped layer: %s", c->name, hum_last_error());
    free(expert_of);
done:
    hum_device_free(d_x);
    hum_device_free(d_out);
    hum_device_free(d_layout);
    hum_workspace_destroy(ws);
    hum_workspace_destroy(small);
    hum_moe_destroy(moe);
    hum_standard_free(&w13);
    hum_standard_free(&w2);
    free(x_codes);
    free(out_codes);
    free(x);
    free(got);
}

int main(void)
{
    if (!gemm_test_have_gpu()) {
        printf("moe_grouped: skipped (no GPU: %s)\n", hum_last_error());
        return 77;
    }
    quant_rng rng = quant_rng_fresh("moe_grouped");
    char dir[4096];
    rt_tmpdir("moe-grouped", dir, sizeof dir);
    hum_runtime *rt = NULL, *rt_mx = NULL;
    hum_device_info dev;
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK &&
                         rt_runtime_with_config(dir, RT_MOE_MXFP8_YAML, &rt_mx) == HUM_OK &&
                         hum_runtime_device(rt, &dev) == HUM_OK,
                     "runtime: %s", hum_last_error()))
        return quant_test_result("moe_grouped");
    static const grouped_case cases[] = {
        {"contiguous silu bf16", HUM_GEMM_MOE_GROUPED_CONTIGUOUS, HUM_MOE_SILU, 0, 0, HUM_DTYPE_BFLOAT16,
         {0, 5, 16, 17, 1, 0, 33, 2}, 3, 2, 0},
        {"contiguous swiglu_oai interleaved bias fp16", HUM_GEMM_MOE_GROUPED_CONTIGUOUS, HUM_MOE_SWIGLU_OAI, 1, 1,
         HUM_DTYPE_FLOAT16, {70, 0, 0, 1, 0, 0, 0, 129}, 0, 0, 0},
        {"masked silu bf16", HUM_GEMM_MOE_GROUPED_MASKED, HUM_MOE_SILU, 0, 0, HUM_DTYPE_BFLOAT16,
         {0, 5, 16, 17, 1, 40, 33, 2}, 0, 0, 0},
        {"masked swiglu_oai interleaved bias fp16", HUM_GEMM_MOE_GROUPED_MASKED, HUM_MOE_SWIGLU_OAI, 1, 1,
         HUM_DTYPE_FLOAT16, {3, 0, 0, 0, 0, 0, 0, 0}, 0, 0, 0},
        {"contiguous silu mxfp8 bf16", HUM_GEMM_MOE_GROUPED_CONTIGUOUS, HUM_MOE_SILU, 0, 0, HUM_DTYPE_BFLOAT16,
         {0, 5, 16, 17, 1, 0, 33, 70}, 3, 2, 1},
        {"masked swiglu_oai interleaved bias mxfp8 fp16", HUM_GEMM_MOE_GROUPED_MASKED, HUM_MOE_SWIGLU_OAI, 1, 1,
         HUM_DTYPE_FLOAT16, {0, 5, 16, 17, 1, 40, 33, 2}, 0, 0, 1},
    };
    const int sm = dev.sm_major * 10 + dev.sm_minor;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].mxfp8 && cases[i].dtype == HUM_DTYPE_BFLOAT16 && sm < 80) {
            printf("  %s: skipped on sm_%d (bfloat16 needs sm_80)\n", cases[i].name, sm);
            continue;
        }
        run_case(cases[i].mxfp8 ? rt_mx : rt, &rng, &cases[i]);
    }
    hum_runtime_destroy(rt);
    hum_runtime_destroy(rt_mx);
    rt_rmtree(dir);
    return quant_test_result("moe_grouped");
}
