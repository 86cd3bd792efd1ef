/* hum_moe: options, creation from two expert weights (or the experts a rank keeps), info,
 * destruction. */
#include "moe.h"

#include "internal.h"
#include "layer.h"
#include "standard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hum_moe_options_init(hum_moe_options *opts)
{
    if (!opts)
        return;
    memset(opts, 0, sizeof *opts);
    opts->activation = HUM_MOE_SILU;
    opts->gate_up = HUM_MOE_GATE_UP_SPLIT;
    opts->alpha = 1.702f;
    opts->beta = 1.0f;
    opts->limit = 7.0f;
    opts->gemm_type = HUM_GEMM_MOE_INDEXED;
}

int64_t hum_moe_gated(int32_t activation) { return activation == HUM_MOE_RELU2 ? 1 : 2; }

/* The checks of hum_moe_from_standard on the whole weights and the options. */
static hum_status check(const hum_standard_weight *w13, const hum_standard_weight *w2, const hum_moe_options *o)
{
    hum_status st = hum_standard_validate(w13);
    if (st != HUM_OK)
        return hum_fail_context(st, "w13");
    if ((st = hum_standard_validate(w2)) != HUM_OK)
        return hum_fail_context(st, "w2");
    if (w13->num_experts < 1 || w2->num_experts != w13->num_experts)
        return hum_fail(HUM_ERR_INVALID_ARG, "w13 has %lld experts and w2 %lld (expected the same number, >= 1)",
                        (long long)w13->num_experts, (long long)w2->num_experts);
    if (o->activation < HUM_MOE_SILU || o->activation > HUM_MOE_GELU)
        return hum_fail(HUM_ERR_INVALID_ARG, "activation %d (expected a hum_moe_activation, 0..3)", o->activation);
    if (o->gate_up != HUM_MOE_GATE_UP_SPLIT && o->gate_up != HUM_MOE_GATE_UP_INTERLEAVED)
        return hum_fail(HUM_ERR_INVALID_ARG, "gate_up %d (expected 0 split or 1 interleaved)", o->gate_up);
    if (o->gemm_type != HUM_GEMM_DENSE && o->gemm_type != HUM_GEMM_MOE_INDEXED &&
        o->gemm_type != HUM_GEMM_MOE_GROUPED_CONTIGUOUS && o->gemm_type != HUM_GEMM_MOE_GROUPED_MASKED)
        return hum_fail(HUM_ERR_INVALID_ARG, "gemm_type %d (expected 1 indexed, 2 grouped contiguous or 3 grouped "
                        "masked)", o->gemm_type);
    const int64_t gated = hum_moe_gated(o->activation);
    if (w13->k != w2->n || w13->n != gated * w2->k)
        return hum_fail(HUM_ERR_INVALID_ARG, "w13 [%lld, %lld] and w2 [%lld, %lld] per expert do not chain: expected "
                        "w13 [%s, H] and w2 [H, I]", (long long)w13->n, (long long)w13->k, (long long)w2->n,
                        (long long)w2->k, gated == 2 ? "2 I" : "I (relu2 is not gated)");
    if (w13->param_dtype != w2->param_dtype)
        return hum_fail(HUM_ERR_INVALID_ARG, "w13's param dtype is %s and w2's %s (expected one)",
                        hum_dtype_name(w13->param_dtype), hum_dtype_name(w2->param_dtype));
    const int64_t global = o->global_experts ? o->global_experts : w13->num_experts;
    if (global < w13->num_experts || global > INT32_MAX)
        return hum_fail(HUM_ERR_INVALID_ARG, "global_experts %d: expected 0 or %lld .. 2^31 - 1 (the weights hold "
                        "%lld experts)", o->global_experts, (long long)w13->num_experts, (long long)w13->num_experts);
    if (o->top_k < 1 || o->top_k > global)
        return hum_fail(HUM_ERR_INVALID_ARG, "top_k %d (expected 1 .. %lld, the global experts)", o->top_k,
                        (long long)global);
    const hum_dtype act = o->activation_dtype ? o->activation_dtype : w13->param_dtype;
    if (!hum_dtype_is_activation(act))
        return hum_fail(HUM_ERR_INVALID_ARG, "activation dtype %s (expected float16 or bfloat16)", hum_dtype_name(act));
    const hum_dtype h = o->hidden_dtype;
    if (h != HUM_DTYPE_INVALID && h != HUM_DTYPE_FLOAT8_E4M3FN && h != HUM_DTYPE_INT8)
        return hum_fail(HUM_ERR_INVALID_ARG, "hidden dtype %s (expected 0: 16-bit hidden in the activation dtype; or "
                        "float8_e4m3fn or int8 codes the host quantized)", hum_dtype_name(h));
    const char *expected;
    if (!hum_layer_a_group_ok(h, o->hidden_group, &expected))
        return hum_fail(HUM_ERR_INVALID_ARG, "hidden group %d with %s hidden (expected %s)", o->hidden_group,
                        h ? hum_dtype_name(h) : "16-bit", expected);
    if (h && o->gemm_type != HUM_GEMM_DENSE && o->gemm_type != HUM_GEMM_MOE_INDEXED)
        return hum_fail(HUM_ERR_INVALID_ARG, "hidden dtype %s on a grouped layer (gemm_type %d): the grouped forward "
                        "takes 16-bit hidden, which its layer quantizes where the gate/up GEMM runs 8-bit A",
                        hum_dtype_name(h), o->gemm_type);
    return HUM_OK;
}

hum_layer_options hum_moe_gemm_options(const hum_moe *moe, int gate_up)
{
    if (!gate_up || !moe->opts.hidden_dtype)
        return (hum_layer_options){.activation_dtype = moe->activation_dtype};
    return (hum_layer_options){.activation_dtype = moe->opts.hidden_dtype, .output_dtype = moe->activation_dtype,
                               .activation_group = moe->opts.hidden_group};
}

/* The expert GEMMs apply no factor per expert: a weight's global scales go into its scales
 * (hum_standard_fold_global) before anything plans them. */
static hum_status fold_global(hum_standard_weight *w)
{
    if (!w->global_scale.data)
        return HUM_OK;
    hum_standard_weight folded;
    const hum_status st = hum_standard_fold_global(w, &folded);
    if (st == HUM_OK) {
        hum_standard_free(w);
        *w = folded;
    }
    return st;
}

hum_status hum_moe_from_standard(hum_runtime *rt, const hum_standard_weight *w13, const hum_standard_weight *w2,
                                 const hum_moe_options *opts, hum_moe **out)
{
    if (out)
        *out = NULL;
    if (!rt || !w13 || !w2 || !opts || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_from_standard: NULL %s",
                        !rt ? "runtime" : !w13 ? "w13" : !w2 ? "w2" : !opts ? "options" : "out");
    hum_status st = check(w13, w2, opts);
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_moe_from_standard");
    const hum_shard shard = {.dim = HUM_SHARD_NONE, .experts = opts->experts, .expert_count = opts->expert_count};
    const int64_t kept = opts->experts ? opts->expert_count : w13->num_experts;
    if (kept > HUM_MOE_MAX_LOCAL_EXPERTS)
        return hum_fail(HUM_ERR_UNSUPPORTED, "hum_moe_from_standard: %lld experts on one rank (at most %d)",
                        (long long)kept, HUM_MOE_MAX_LOCAL_EXPERTS);
    hum_moe *moe = calloc(1, sizeof *moe);
    if (!moe)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_moe_from_standard: layer object");
    /* a shard of every expert is a copy, so one call takes both cases */
    st = hum_standard_shard(w13, &shard, &moe->w13);
    if (st == HUM_OK)
        st = hum_standard_shard(w2, &shard, &moe->w2);
    if (st == HUM_OK && (st = fold_global(&moe->w13)) == HUM_OK)
        st = fold_global(&moe->w2);
    if (st != HUM_OK) {
        hum_standard_free(&moe->w13);
        hum_standard_free(&moe->w2);
        free(moe);
        return hum_fail_context(st, "hum_moe_from_standard");
    }
    moe->rt = rt;
    moe->opts = *opts;
    moe->opts.experts = NULL;
    moe->opts.expert_count = 0;
    moe->opts.global_experts = (int32_t)(opts->global_experts ? opts->global_experts : w13->num_experts);
    if (moe->opts.gemm_type == HUM_GEMM_DENSE)
        moe->opts.gemm_type = HUM_GEMM_MOE_INDEXED;
    moe->activation_dtype = opts->activation_dtype ? opts->activation_dtype : w13->param_dtype;
    moe->experts = moe->w13.num_experts;
    moe->hidden = w2->n;
    moe->intermediate = w2->k;
    *out = moe;
    return HUM_OK;
}

void hum_moe_destroy(hum_moe *moe)
{
    if (!moe)
        return;
    hum_layer_destroy(moe->gate_up);
    hum_layer_destroy(moe->down);
    hum_moe_align_unload(&moe->align);
    hum_kernel_destroy(moe->act);
    hum_kernel_destroy(moe->combine);
    hum_standard_free(&moe->w13);
    hum_standard_free(&moe->w2);
    free(moe);
}

hum_status hum_moe_get_info(const hum_moe *moe, hum_moe_info *out)
{
    if (!moe || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_moe_get_info: NULL %s", !moe ? "layer" : "out");
    memset(out, 0, sizeof *out);
    out->experts = moe->experts;
    out->global_experts = moe->opts.global_experts;
    out->hidden = moe->hidden;
    out->intermediate = moe->intermediate;
    out->top_k = moe->opts.top_k;
    out->activation = moe->opts.activation;
    out->gate_up = moe->opts.gate_up;
    out->activation_dtype = moe->activation_dtype;
    out->hidden_dtype = moe->opts.hidden_dtype;
    out->hidden_group = moe->opts.hidden_group;
    out->prepared = moe->prepared;
    out->prepare_ms = moe->prepare_ms;
    hum_status st = HUM_OK;
    if (moe->prepared && (st = hum_layer_get_info(moe->gate_up, &out->gate_up_gemm)) == HUM_OK)
        st = hum_layer_get_info(moe->down, &out->down_gemm);
    hum_layer_dispatch d;
    if (st == HUM_OK && moe->prepared && (st = hum_layer_describe(moe->gate_up, &d)) == HUM_OK) {
        snprintf(out->gate_up_activation, sizeof out->gate_up_activation, "%s", d.activation);
        if ((st = hum_layer_describe(moe->down, &d)) == HUM_OK)
            snprintf(out->down_activation, sizeof out->down_activation, "%s", d.activation);
    }
    return st;
}
