/* hum_moe on the CPU: options defaults, hum_moe_from_standard with every check it makes (each
 * refusal names what is wrong), the experts a rank keeps (expert parallelism), hum_moe_get_info,
 * and the float64 MoE reference (hum_moe_reference) against the layer computed here from the
 * dequantized experts, for every activation and gate/up layout, with an expert map, dropped
 * ids and unnormalised weights; MoE SPEC strings and their random expert weights. */
#include "hum/hum.h"
#include "hum/hum_tools.h"
#include "quant_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { E = 4, H = 64, I = 32 };

/* A random [E, n, k] expert weight, uint4 with group-32 scales and a bias per expert. */
static int make(quant_rng *rng, int64_t n, int64_t k, hum_dtype param, hum_standard_weight *w)
{
    float *v = malloc((size_t)(E * n * k) * sizeof *v), *b = malloc((size_t)(E * n) * sizeof *b);
    quant_fill_normal_f32(rng, v, E * n * k, 1.0);
    quant_fill_normal_f32(rng, b, E * n, 1.0);
    hum_quant_spec spec = {.num_experts = E, .weight_dtype = HUM_DTYPE_UINT4, .param_dtype = param,
                           .scale_type = HUM_SCALE_GROUP, .group_size = 32, .bias = b};
    const hum_status st = hum_quantize_reference(v, n, k, &spec, w);
    free(v);
    free(b);
    return QUANT_CHECK(st == HUM_OK, "weight [%d, %lld, %lld]: %s", E, (long long)n, (long long)k, hum_last_error());
}


/* out[t] computed here from the dequantized experts (hum_reference_dequant), slot by slot. */
static void by_hand(const hum_standard_weight *w13, const hum_standard_weight *w2, const hum_moe_options *o,
                    const double *x, const int32_t *ids, const float *wt, const int32_t *map, int64_t m, double *out)
{
    const int64_t n13 = w13->n, h = w2->n, in = w2->k;
    double *d13 = malloc((size_t)(n13 * h) * sizeof *d13), *d2 = malloc((size_t)(h * in) * sizeof *d2);
    double *mid = malloc((size_t)n13 * sizeof *mid), *a = malloc((size_t)in * sizeof *a);
    const uint16_t *b13 = w13->bias.data, *b2 = w2->bias.data;
    for (int64_t i = 0; i < m * h; i++)
        out[i] = 0;
    for (int64_t t = 0; t < m; t++)
        for (int32_t j = 0; j < o->top_k; j++) {
            const int32_t g = ids[t * o->top_k + j];
            const int32_t e = g < 0 || g >= o->global_experts ? -1 : map[g];
            if (e < 0)
                continue;
            hum_reference_dequant(w13, e, d13);
            hum_reference_dequant(w2, e, d2);
            for (int64_t n = 0; n < n13; n++) {
                double bias = 0;
                if (b13)
                    hum_dtype_decode(w13->param_dtype, &b13[e * n13 + n], 1, &bias);
                mid[n] = bias;
                for (int64_t k = 0; k < h; k++)
                    mid[n] += d13[n * h + k] * x[t * h + k];
            }
            for (int64_t i = 0; i < in; i++) {
                const int inter = o->gate_up == HUM_MOE_GATE_UP_INTERLEAVED;
                double g1 = mid[o->activation == HUM_MOE_RELU2 ? i : inter ? 2 * i : i];
                double u = o->activation == HUM_MOE_RELU2 ? 0 : mid[inter ? 2 * i + 1 : in + i];
                if (o->activation == HUM_MOE_SILU) {
                    a[i] = g1 * u / (1 + exp(-g1));
                } else if (o->activation == HUM_MOE_SWIGLU_OAI) {
                    g1 = g1 > o->limit ? o->limit : g1;
                    u = u > o->limit ? o->limit : u < -o->limit ? -o->limit : u;
                    a[i] = g1 / (1 + exp(-o->alpha * g1)) * (u + o->beta);
                } else if (o->activation == HUM_MOE_RELU2) {
                    a[i] = g1 > 0 ? g1 * g1 : 0;
                } else {
                    a[i] = 0.5 * g1 * (1 + erf(g1 / sqrt(2))) * u;
                }
            }
            for (int64_t n = 0; n < h; n++) {
                double y = 0;
                if (b2)
                    hum_dtype_decode(w2->param_dtype, &b2[e * h + n], 1, &y);
                for (int64_t i = 0; i < in; i++)
                    y += d2[n * in + i] * a[i];
                out[t * h + n] += wt[t * o->top_k + j] * y;
            }
        }
    free(d13);
    free(d2);
    free(mid);
    free(a);
}

static void check_reference(quant_rng *rng, hum_standard_weight *w13, hum_standard_weight *w2,
                            hum_standard_weight *w1)
{
    enum { M = 5, TOP_K = 2, GLOBAL = 6 };
    /* global experts 2..5 are this rank's 0..3 (reversed); 0 and 1 are elsewhere */
    const int32_t map[GLOBAL] = {-1, -1, 3, 2, 1, 0};
    const int32_t ids[M * TOP_K] = {2, 5, 0, 1, 3, -1, 4, 9, 5, 2};
    float wt[M * TOP_K];
    double x[M * H], got[M * H], want[M * H];
    for (int i = 0; i < M * TOP_K; i++)
        wt[i] = (float)(0.1 + quant_rng_uniform(rng)); /* not normalised */
    quant_fill_normal_f64(rng, x, M * H, 3.0); /* large enough to pass swiglu_oai's clamp */
    const hum_tensor t = {.data = (void *)ids, .dtype = HUM_DTYPE_INT32, .rank = 2, .shape = {M, TOP_K},
                          .memory = HUM_MEMORY_HOST};
    for (int act = HUM_MOE_SILU; act <= HUM_MOE_GELU; act++)
        for (int inter = 0; inter <= 1; inter++) {
            hum_moe_options o;
            hum_moe_options_init(&o);
            o.activation = act;
            o.gate_up = inter;
            o.top_k = TOP_K;
            o.global_experts = GLOBAL;
            const hum_standard_weight *up = act == HUM_MOE_RELU2 ? w1 : w13;
            if (!QUANT_CHECK(hum_moe_reference(up, w2, &o, x, &t, wt, map, NULL, got) == HUM_OK, "%s",
                             hum_last_error()))
                continue;
            by_hand(up, w2, &o, x, ids, wt, map, M, want);
            double worst = 0;
            for (int i = 0; i < M * H; i++)
                worst = fmax(worst, fabs(got[i] - want[i]) / (1 + fabs(want[i])));
            /* the same float64 formulas summed in another order: sums over H and the experts that
             * cancel left 1.1e-12 (seed 1796391499398166662, GELU); a wrong formula is off by far more */
            QUANT_CHECK(worst < 1e-10, "activation %d, interleaved %d: reference off by %.3e", act, inter, worst);
            /* token 1 has only experts elsewhere: exactly 0 */
            for (int i = H; i < 2 * H; i++)
                if (!QUANT_CHECK(got[i] == 0.0, "activation %d: token 1 out[%d] = %g", act, i - H, got[i]))
                    break;
        }
}


static void check_spec(void)
{
    hum_moe_spec s;
    char text[256];
    if (QUANT_CHECK(hum_moe_spec_parse("e=128,topk=8,n=1536,k=2048,w=uint4,a=bfloat16,group=128", &s) == HUM_OK,
                    "%s", hum_last_error())) {
        QUANT_CHECK(s.experts == 128 && s.top_k == 8 && s.activation == HUM_MOE_SILU &&
                        s.gate_up_layout == HUM_MOE_GATE_UP_SPLIT && s.gemm_type == HUM_GEMM_MOE_INDEXED &&
                        s.gate_up.n == 1536 && s.gate_up.k == 2048 && s.gate_up.group_size == 128 &&
                        s.gate_up.activation_dtype == HUM_DTYPE_BFLOAT16,
                    "parsed fields");
        hum_layer_spec down;
        hum_moe_spec_down(&s, &down);
        QUANT_CHECK(down.n == 2048 && down.k == 768 && down.group_size == 128, "down %lld x %lld", (long long)down.n,
                    (long long)down.k);
        hum_moe_spec back;
        QUANT_CHECK(hum_moe_spec_format(&s, text, sizeof text) == HUM_OK && hum_moe_spec_parse(text, &back) == HUM_OK &&
                        !memcmp(&back, &s, sizeof s),
                    "round trip through '%s': %s", text, hum_last_error());
    }
    if (QUANT_CHECK(hum_moe_spec_parse("n=64,k=128,e=3,topk=2,act=relu2,gate_up=split,gemm=masked,bias=1,zp=int,"
                                       "group=32",
                                       &s) == HUM_OK,
                    "%s", hum_last_error())) {
        hum_layer_spec down;
        hum_moe_spec_down(&s, &down);
        QUANT_CHECK(s.activation == HUM_MOE_RELU2 && s.gate_up_layout == HUM_MOE_GATE_UP_SPLIT &&
                        s.gemm_type == HUM_GEMM_MOE_GROUPED_MASKED && down.n == 128 && down.k == 64,
                    "relu2 spec");
        hum_standard_weight w13, w2;
        if (QUANT_CHECK(hum_moe_spec_weights(&s, 7, &w13, &w2) == HUM_OK, "%s", hum_last_error())) {
            QUANT_CHECK(w13.num_experts == 3 && w13.n == 64 && w13.k == 128 && w2.num_experts == 3 && w2.n == 128 &&
                            w2.k == 64 && w13.weight.shape[0] == 3 && w13.bias.shape[0] == 3 &&
                            w13.zero_point.shape[0] == 3 && hum_standard_validate(&w13) == HUM_OK &&
                            hum_standard_validate(&w2) == HUM_OK,
                        "spec weights: %s", hum_last_error());
            /* expert 1 of the stack is the dense weight of seed 8 */
            hum_standard_weight one;
            double *a = malloc(64 * 128 * sizeof *a), *b = malloc(64 * 128 * sizeof *b);
            QUANT_CHECK(hum_layer_spec_weight(&s.gate_up, 8, &one) == HUM_OK &&
                            hum_reference_dequant(&w13, 1, a) == HUM_OK &&
                            hum_reference_dequant(&one, 0, b) == HUM_OK && !memcmp(a, b, 64 * 128 * sizeof *a),
                        "expert 1 is not the weight of seed 8: %s", hum_last_error());
            hum_standard_free(&one);
            free(a);
            free(b);
            hum_standard_free(&w13);
            hum_standard_free(&w2);
        }
    }
    static const struct {
        const char *spec, *needle;
    } bad[] = {
        {"n=64,k=128,topk=2", "e is required"},
        {"e=8,n=64,k=128", "topk is required"},
        {"n=64,k=128", "e and topk are required"},
        {"e=4,topk=5,n=64,k=128", "topk=5 is more than e=4"},
        {"e=4,topk=2,n=64,k=128,act=swish", "act=swish"},
        {"e=4,topk=2,n=64,k=128,gemm=dense", "gemm=dense"},
        {"e=4,topk=2,n=64,k=128,gate_up=mixed", "gate_up=mixed"},
        {"e=0,topk=2,n=64,k=128", "e=0"},
        /* named once: "moe spec '...': moe spec '...': e=0" doubled the key's own prefix */
        {"e=0,topk=2,n=64,k=128", "moe spec 'e=0,topk=2,n=64,k=128': e=0"},
        {"e=4,topk=2,n=63,k=128", "n=63 is odd"},
        {"e=4,topk=2,n=64,k=128,w=uint9", "w"},
        {"e=4,topk=2,n=64,k=128,actorder=1", "actorder=1"},
        /* relu2 has no gate to interleave with its up rows */
        {"e=4,topk=2,n=64,k=128,act=relu2,gate_up=interleaved", "gate_up=interleaved with act=relu2"},
        /* bytes a message would print raw */
        {"e=4,topk=2,n=64,k=128,w=uint4\nfoo", "byte 0x0a at offset 29"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        QUANT_CHECK(hum_moe_spec_parse(bad[i].spec, &s) != HUM_OK && strstr(hum_last_error(), bad[i].needle),
                    "'%s': '%s' should name '%s'", bad[i].spec, hum_last_error(), bad[i].needle);

    /* a spec built by hand gets parse's rules: E = 0 overran the stacked weights' buffers, and an
     * enum out of range indexed the name tables */
    if (QUANT_CHECK(hum_moe_spec_parse("e=4,topk=2,n=64,k=128,w=uint4,a=float16,group=64", &s) == HUM_OK, "%s",
                    hum_last_error())) {
        static const struct {
            int32_t experts, top_k, activation, layout, gemm;
            const char *needle;
        } built[] = {
            {0, 2, HUM_MOE_SILU, 0, HUM_GEMM_MOE_INDEXED, "e=0, topk=2 (expected integers 1..4096)"},
            {5000, 2, HUM_MOE_SILU, 0, HUM_GEMM_MOE_INDEXED, "e=5000"},
            {4, 9, HUM_MOE_SILU, 0, HUM_GEMM_MOE_INDEXED, "topk=9 is more than e=4"},
            {4, 2, 99, 0, HUM_GEMM_MOE_INDEXED, "activation 99 (expected a hum_moe_activation"},
            {4, 2, HUM_MOE_SILU, -7, HUM_GEMM_MOE_INDEXED, "gate_up layout -7"},
            {4, 2, HUM_MOE_SILU, 0, -1, "gemm type -1 (expected indexed, grouped or masked)"},
            {4, 2, HUM_MOE_SILU, 0, HUM_GEMM_DENSE, "gemm type 0"},
        };
        for (size_t i = 0; i < sizeof built / sizeof built[0]; i++) {
            hum_moe_spec h = s;
            h.experts = built[i].experts, h.top_k = built[i].top_k, h.activation = built[i].activation;
            h.gate_up_layout = built[i].layout, h.gemm_type = built[i].gemm;
            hum_standard_weight w13, w2;
            char text[512];
            QUANT_CHECK(hum_moe_spec_weights(&h, 1, &w13, &w2) == HUM_ERR_INVALID_ARG && w13.weight.data == NULL &&
                            strstr(hum_last_error(), built[i].needle),
                        "hand-built spec %zu: weights '%s' should name '%s'", i, hum_last_error(), built[i].needle);
            QUANT_CHECK(hum_moe_spec_format(&h, text, sizeof text) == HUM_ERR_INVALID_ARG &&
                            strstr(hum_last_error(), built[i].needle),
                        "hand-built spec %zu: format '%s' should name '%s'", i, hum_last_error(), built[i].needle);
        }
        hum_moe_spec_down(NULL, NULL); /* no error channel: a NULL is no crash */
    }
    /* the size helpers: -1 where no layout or launch has that many rows */
    QUANT_CHECK(hum_expert_gemm_rows(NULL, HUM_GEMM_MOE_INDEXED, 8, 2) == -1 &&
                    hum_expert_gemm_rows(&(hum_layer_config){.num_experts = 4}, HUM_GEMM_MOE_INDEXED, INT64_MAX, 8) ==
                        -1 &&
                    hum_expert_gemm_rows(&(hum_layer_config){.num_experts = 4}, (hum_gemm_type)99, 8, 2) == -1 &&
                    hum_expert_gemm_rows(&(hum_layer_config){.num_experts = 4}, HUM_GEMM_MOE_INDEXED, 8, 2) == 4 &&
                    /* a grouped routing's top_k is 0: not its business */
                    hum_expert_gemm_rows(&(hum_layer_config){.num_experts = 4}, HUM_GEMM_MOE_GROUPED_CONTIGUOUS, 100,
                                         0) == 25 &&
                    hum_expert_gemm_rows(&(hum_layer_config){.num_experts = 4}, HUM_GEMM_MOE_GROUPED_MASKED, 100, 0) ==
                        100,
                "hum_expert_gemm_rows: %s", hum_last_error());
}

static void refuse(hum_runtime *rt, const hum_standard_weight *w13, const hum_standard_weight *w2,
                   const hum_moe_options *o, hum_status want, const char *needle)
{
    hum_moe *moe = (hum_moe *)1;
    const hum_status st = hum_moe_from_standard(rt, w13, w2, o, &moe);
    QUANT_CHECK(st == want && moe == NULL && strstr(hum_last_error(), needle),
                "expected %s naming '%s'; got %s '%s'", hum_status_name(want), needle, hum_status_name(st),
                hum_last_error());
}

int main(void)
{
    quant_rng rng = quant_rng_fresh("test_moe");
    hum_runtime *rt = NULL;
    hum_standard_weight w13, w2, w1, w2f;
    memset(&w13, 0, sizeof w13);
    memset(&w2, 0, sizeof w2);
    memset(&w1, 0, sizeof w1);
    memset(&w2f, 0, sizeof w2f);
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK, "%s", hum_last_error()) ||
        !make(&rng, 2 * I, H, HUM_DTYPE_BFLOAT16, &w13) || !make(&rng, H, I, HUM_DTYPE_BFLOAT16, &w2) ||
        !make(&rng, I, H, HUM_DTYPE_BFLOAT16, &w1) || !make(&rng, H, I, HUM_DTYPE_FLOAT16, &w2f))
        goto done;

    hum_moe_options o;
    hum_moe_options_init(&o);
    QUANT_CHECK(o.activation == HUM_MOE_SILU && o.gate_up == HUM_MOE_GATE_UP_SPLIT && o.top_k == 0 &&
                    o.alpha == 1.702f && o.beta == 1.0f && o.limit == 7.0f && !o.experts && !o.activation_dtype,
                "defaults");
    refuse(rt, &w13, &w2, &o, HUM_ERR_INVALID_ARG, "top_k 0");
    o.top_k = 2;
    hum_moe *moe = NULL;
    if (QUANT_CHECK(hum_moe_from_standard(rt, &w13, &w2, &o, &moe) == HUM_OK, "%s", hum_last_error())) {
        hum_moe_info info;
        QUANT_CHECK(hum_moe_get_info(moe, &info) == HUM_OK && info.experts == E && info.global_experts == E &&
                        info.hidden == H && info.intermediate == I && info.top_k == 2 &&
                        info.activation_dtype == HUM_DTYPE_BFLOAT16,
                    "info: E %lld of %lld, H %lld, I %lld, top_k %d", (long long)info.experts,
                    (long long)info.global_experts, (long long)info.hidden, (long long)info.intermediate, info.top_k);
        hum_moe_destroy(moe);
    }

    /* expert parallelism: experts 3 and 1 of 4 kept, ids still run over the 4 */
    const int32_t keep[2] = {3, 1};
    hum_moe_options ep = o;
    ep.experts = keep;
    ep.expert_count = 2;
    if (QUANT_CHECK(hum_moe_from_standard(rt, &w13, &w2, &ep, &moe) == HUM_OK, "%s", hum_last_error())) {
        hum_moe_info info;
        hum_moe_get_info(moe, &info);
        QUANT_CHECK(info.experts == 2 && info.global_experts == E, "EP: %lld of %lld experts", (long long)info.experts,
                    (long long)info.global_experts);
        hum_moe_destroy(moe);
    }
    const int32_t repeat[2] = {1, 1};
    ep.experts = repeat;
    refuse(rt, &w13, &w2, &ep, HUM_ERR_INVALID_ARG, "repeat");

    /* relu2 takes w13 of I rows, the gated activations 2I */
    hum_moe_options relu = o;
    relu.activation = HUM_MOE_RELU2;
    if (QUANT_CHECK(hum_moe_from_standard(rt, &w1, &w2, &relu, &moe) == HUM_OK, "relu2: %s", hum_last_error()))
        hum_moe_destroy(moe);
    refuse(rt, &w13, &w2, &relu, HUM_ERR_INVALID_ARG, "relu2 is not gated");
    refuse(rt, &w1, &w2, &o, HUM_ERR_INVALID_ARG, "do not chain");
    refuse(rt, &w13, &w13, &o, HUM_ERR_INVALID_ARG, "do not chain");
    refuse(rt, &w13, &w2f, &o, HUM_ERR_INVALID_ARG, "param dtype");

    hum_moe_options bad = o;
    bad.activation = 9;
    refuse(rt, &w13, &w2, &bad, HUM_ERR_INVALID_ARG, "activation 9");
    bad = o;
    bad.gate_up = 2;
    refuse(rt, &w13, &w2, &bad, HUM_ERR_INVALID_ARG, "gate_up 2");
    bad = o;
    bad.gemm_type = HUM_GEMM_MOE_GROUPED_MASKED + 1;
    refuse(rt, &w13, &w2, &bad, HUM_ERR_INVALID_ARG, "gemm_type 4");
    bad.gemm_type = HUM_GEMM_MOE_GROUPED_CONTIGUOUS; /* a grouped layer is made as an indexed one is */
    if (QUANT_CHECK(hum_moe_from_standard(rt, &w13, &w2, &bad, &moe) == HUM_OK, "%s", hum_last_error())) {
        QUANT_CHECK(hum_moe_forward_grouped(moe, (hum_workspace *)1, NULL, &(hum_tensor){0}, &(hum_tensor){0},
                                            &(hum_tensor){0}) == HUM_ERR_INVALID_ARG &&
                        strstr(hum_last_error(), "not prepared"),
                    "an unprepared grouped layer: %s", hum_last_error());
        hum_moe_destroy(moe);
    }
    bad = o;
    bad.top_k = E + 1;
    refuse(rt, &w13, &w2, &bad, HUM_ERR_INVALID_ARG, "top_k 5");
    bad.global_experts = 8; /* more global experts allow a larger top_k */
    if (QUANT_CHECK(hum_moe_from_standard(rt, &w13, &w2, &bad, &moe) == HUM_OK, "%s", hum_last_error()))
        hum_moe_destroy(moe);
    bad.global_experts = 3;
    refuse(rt, &w13, &w2, &bad, HUM_ERR_INVALID_ARG, "global_experts 3");
    bad = o;
    bad.activation_dtype = HUM_DTYPE_FLOAT32;
    refuse(rt, &w13, &w2, &bad, HUM_ERR_INVALID_ARG, "activation dtype float32");
    /* hidden the host quantizes: e4m3 or int8 codes, their scales per token, e4m3's also per
     * group of 128 or 32 (MXFP8), on indexed layers */
    static const struct {
        hum_dtype dtype;
        int32_t group, gemm;
        const char *needle; /* NULL: taken */
    } hidden[] = {
        {HUM_DTYPE_FLOAT8_E4M3FN, 0, HUM_GEMM_MOE_INDEXED, NULL},
        {HUM_DTYPE_FLOAT8_E4M3FN, 128, HUM_GEMM_MOE_INDEXED, NULL},
        {HUM_DTYPE_FLOAT8_E4M3FN, 32, HUM_GEMM_MOE_INDEXED, NULL},
        {HUM_DTYPE_INT8, 0, HUM_GEMM_MOE_INDEXED, NULL},
        {HUM_DTYPE_BFLOAT16, 0, HUM_GEMM_MOE_INDEXED, "hidden dtype bfloat16 (expected 0: 16-bit hidden"},
        {HUM_DTYPE_FLOAT8_E5M2, 0, HUM_GEMM_MOE_INDEXED, "hidden dtype float8_e5m2"},
        {HUM_DTYPE_INT8, 128, HUM_GEMM_MOE_INDEXED, "hidden group 128 with int8 hidden (expected 0: one scale per "
                                                    "token)"},
        {HUM_DTYPE_INT8, 32, HUM_GEMM_MOE_INDEXED, "hidden group 32 with int8 hidden"},
        {HUM_DTYPE_FLOAT8_E4M3FN, 64, HUM_GEMM_MOE_INDEXED, "hidden group 64 with float8_e4m3fn hidden (expected 0, "
                                                            "128 or 32 (MXFP8))"},
        {HUM_DTYPE_INVALID, 128, HUM_GEMM_MOE_INDEXED, "hidden group 128 with 16-bit hidden (expected 0: 16-bit A has no"},
        {HUM_DTYPE_FLOAT8_E4M3FN, 0, HUM_GEMM_MOE_GROUPED_MASKED, "on a grouped layer (gemm_type 3)"},
    };
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++) {
        bad = o;
        bad.hidden_dtype = hidden[i].dtype;
        bad.hidden_group = hidden[i].group;
        bad.gemm_type = hidden[i].gemm;
        if (hidden[i].needle) {
            refuse(rt, &w13, &w2, &bad, HUM_ERR_INVALID_ARG, hidden[i].needle);
        } else if (QUANT_CHECK(hum_moe_from_standard(rt, &w13, &w2, &bad, &moe) == HUM_OK, "hidden %s group %d: %s",
                               hum_dtype_name(hidden[i].dtype), hidden[i].group, hum_last_error())) {
            /* the forward of 16-bit hidden refuses it before anything else */
            QUANT_CHECK(hum_moe_forward(moe, (hum_workspace *)1, NULL, &(hum_tensor){0}, &(hum_tensor){0},
                                        &(hum_tensor){0}, NULL, &(hum_tensor){0}, 0) == HUM_ERR_INVALID_ARG &&
                            strstr(hum_last_error(), "(hum_moe_forward_quantized)"),
                        "hum_moe_forward of a quantized-hidden layer: %s", hum_last_error());
            hum_moe_destroy(moe);
        }
    }
    refuse(rt, NULL, &w2, &o, HUM_ERR_INVALID_ARG, "NULL w13");

    check_reference(&rng, &w13, &w2, &w1);
    check_spec();

    /* a dense weight is no expert weight */
    hum_standard_weight dense = w13;
    dense.num_experts = 0;
    refuse(rt, &dense, &w2, &o, HUM_ERR_INVALID_ARG, "w13");
done:
    hum_standard_free(&w13);
    hum_standard_free(&w2);
    hum_standard_free(&w1);
    hum_standard_free(&w2f);
    hum_runtime_destroy(rt);
    return quant_test_result("test_moe");
}
