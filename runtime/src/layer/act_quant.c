/* See act_quant.h. */
#include "act_quant.h"

#include "gemm_variant.h"
#include "internal.h"

void hum_act_quant_of(const hum_layer_config *c, hum_act_quant *how, int *round)
{
    *round = c->a_round == HUM_A_ROUND_MXFP8;
    if (*round) {
        *how = (hum_act_quant){HUM_DTYPE_FLOAT8_E4M3FN, HUM_ACT_SCALE_GROUP, 32, HUM_DTYPE_FLOAT8_E8M0};
        return;
    }
    const int group = c->a_scale == HUM_ACT_SCALE_GROUP;
    *how = (hum_act_quant){c->a_dtype, (hum_act_scale)c->a_scale, group ? (int32_t)c->a_group : 0,
                           hum_gemm_a_scale_dtype(c)};
}

const char *hum_act_quant_kernel(const hum_layer_config *c)
{
    return c->a_round != HUM_A_ROUND_NONE ? "hum_quantize_a_round" : "hum_quantize_a";
}

hum_status hum_act_quant_args(const hum_act_quant *how, const void *a, hum_dtype a_dtype, int64_t lda, int64_t m,
                              int64_t k, const hum_act_quant_out *out, hum_quantize_args *args)
{
    if (!how || !a || !out || !out->q || !args)
        return hum_fail(HUM_ERR_INVALID_ARG, "activation quantize: NULL argument");
    if (a_dtype != HUM_DTYPE_FLOAT16 && a_dtype != HUM_DTYPE_BFLOAT16)
        return hum_fail(HUM_ERR_INVALID_ARG, "activation quantize: A is %s (expected float16 or bfloat16)",
                        hum_dtype_name(a_dtype));
    if (how->dtype != HUM_DTYPE_FLOAT8_E4M3FN && how->dtype != HUM_DTYPE_INT8)
        return hum_fail(HUM_ERR_INVALID_ARG, "activation quantize: codes %s (expected float8_e4m3fn or int8)",
                        hum_dtype_name(how->dtype));
    if (m < 0 || m > INT32_MAX || k < 1 || k > INT32_MAX || out->kq < k || out->kq > INT32_MAX || lda < k ||
        out->ldq < out->kq)
        return hum_fail(HUM_ERR_INVALID_ARG, "activation quantize: M %lld, K %lld, Kq %lld, strides %lld / %lld "
                        "(expected K <= Kq < 2^31, strides at least K and Kq)", (long long)m, (long long)k,
                        (long long)out->kq, (long long)lda, (long long)out->ldq);
    const int e8m0 = how->scale_dtype == HUM_DTYPE_FLOAT8_E8M0;
    int group = 0;
    switch (how->scale) {
    case HUM_ACT_SCALE_TOKEN: break;
    case HUM_ACT_SCALE_TENSOR: group = -1; break;
    case HUM_ACT_SCALE_GROUP:
        group = how->group;
        if (group < 8 || group > 256 || (group & (group - 1)))
            return hum_fail(HUM_ERR_INVALID_ARG, "activation quantize: group %d (expected a power of two in 8..256)",
                            group);
        break;
    default: return hum_fail(HUM_ERR_INVALID_ARG, "activation quantize: unknown scale mode %d", (int)how->scale);
    }
    if ((how->scale_dtype != HUM_DTYPE_FLOAT32 && !e8m0) ||
        (e8m0 && (group <= 0 || how->dtype != HUM_DTYPE_FLOAT8_E4M3FN)))
        return hum_fail(HUM_ERR_INVALID_ARG, "activation quantize: scale dtype %s (expected float32, or float8_e8m0 "
                        "for group scales of e4m3fn codes)", hum_dtype_name(how->scale_dtype));
    if (out->round && (group != 32 || !e8m0 || out->scale))
        return hum_fail(HUM_ERR_INVALID_ARG, "activation quantize: rounding takes mxfp8 (e4m3fn codes, e8m0 scales "
                        "per group of 32) and no scale (group %d, %s, scale %p)", group,
                        hum_dtype_name(how->scale_dtype), out->scale);
    if (!out->round && (group < 0 ? !out->input_scale : !out->scale))
        return hum_fail(HUM_ERR_INVALID_ARG, "activation quantize: NULL %s", group < 0 ? "input_scale" : "scale");
    *args = (hum_quantize_args){.a = a, .lda = lda, .q = out->q, .ldq = out->ldq, .scale = out->scale,
                                .scale_row = out->scale_row, .scale_group = out->scale_group,
                                .input_scale = out->input_scale, .m = (int)m, .k = (int)k, .kq = (int)out->kq,
                                .bf16 = a_dtype == HUM_DTYPE_BFLOAT16, .int8 = how->dtype == HUM_DTYPE_INT8,
                                .group = group, .e8m0 = e8m0};
    return HUM_OK;
}

hum_status hum_act_quant_launch(const hum_kernel *kernel, const hum_quantize_args *args, int32_t sm_count,
                                struct CUstream_st *stream, int overlap)
{
    if (args->m == 0)
        return HUM_OK;
    /* per token one CTA walks a row; where the rows outnumber a wave of the largest CTAs, with
     * the fewest threads (64, 128, 256) that hold it in registers: smaller CTAs put more rows on
     * an SM (kernels/prep/quantize_a.cu); otherwise the largest CTAs, each a pass of a row
     * (contract/quantize_args.h), one wave of them where the passes outnumber it: each CTA's
     * rows HUM_QUANTIZE_ROWS_HELD at a time (a CTA a row: FP8 block-wise at n = 7168, k = 2048,
     * M = 8192 took 321..328 µs against 291 with A quantized outside the call, H100,
     * bench/results/H100-2026-12-06/s37-b-40ac19931b02/sbs-fp8blk.txt) */
    const int64_t wave = (int64_t)HUM_QUANTIZE_CTAS * sm_count;
    uint32_t threads = HUM_QUANTIZE_MAX_THREADS;
    if (args->group == 0 && (int64_t)args->m > wave)
        while (threads > 64 && (int64_t)(threads / 2) * 8 * HUM_QUANTIZE_HELD >= args->kq)
            threads /= 2;
    const uint32_t span = threads * 8;
    const uint32_t x = args->group == 0 ? 1u : (uint32_t)((args->kq + span - 1) / span);
    int64_t rows = args->m;
    if (args->group != 0 && (int64_t)x * rows > wave)
        rows = wave / x > 1 ? wave / x : 1;
    const uint32_t y = (uint32_t)(rows < 65535 ? rows : 65535);
    void *params[] = {(void *)args};
    hum_launch_config launch = {.grid = {x, y, 1}, .block = {threads, 1, 1}, .stream = stream,
                                .overlap_previous = overlap};
    return hum_kernel_launch(kernel, &launch, params);
}
