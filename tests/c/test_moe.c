/* hum_moe on the CPU: options defaults, hum_moe_from_standard with every check it makes (each
 * refusal names what is wrong), the experts a rank keeps (expert parallelism), and
 * hum_moe_get_info. */
#include "hum/hum.h"
#include "hum/hum_tools.h"
#include "quant_test.h"

#include <stdlib.h>
#include <string.h>

enum { E = 4, H = 64, I = 32 };

/* A random [E, n, k] expert weight, uint4 with group-32 bfloat16 scales. */
static int make(quant_rng *rng, int64_t n, int64_t k, hum_dtype param, hum_standard_weight *w)
{
    float *v = malloc((size_t)(E * n * k) * sizeof *v);
    quant_fill_normal_f32(rng, v, E * n * k, 1.0);
    hum_quant_spec spec = {.num_experts = E, .weight_dtype = HUM_DTYPE_UINT4, .param_dtype = param,
                           .scale_type = HUM_SCALE_GROUP, .group_size = 32};
    const hum_status st = hum_quantize_reference(v, n, k, &spec, w);
    free(v);
    return QUANT_CHECK(st == HUM_OK, "weight [%d, %lld, %lld]: %s", E, (long long)n, (long long)k, hum_last_error());
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
    refuse(rt, NULL, &w2, &o, HUM_ERR_INVALID_ARG, "NULL w13");

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
