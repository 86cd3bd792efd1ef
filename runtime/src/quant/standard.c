/* The standard quantized-weight format: validation against the layout rules in hum.h and
 * release of the tensors it owns. */
#include "standard.h"

#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hum_standard_free(hum_standard_weight *w)
{
    if (w == NULL)
        return;
    hum_host_tensor_free(&w->weight);
    hum_host_tensor_free(&w->scale);
    hum_host_tensor_free(&w->zero_point);
    hum_host_tensor_free(&w->global_scale);
    hum_host_tensor_free(&w->bias);
    hum_host_tensor_free(&w->k_perm);
    hum_host_tensor_free(&w->input_scale);
    memset(w, 0, sizeof *w);
}

void hum_standard_header(const hum_standard_weight *w, hum_standard_weight *out)
{
    *out = *w;
    memset(&out->weight, 0, sizeof out->weight);
    memset(&out->scale, 0, sizeof out->scale);
    memset(&out->zero_point, 0, sizeof out->zero_point);
    memset(&out->global_scale, 0, sizeof out->global_scale);
    memset(&out->bias, 0, sizeof out->bias);
    memset(&out->k_perm, 0, sizeof out->k_perm);
    memset(&out->input_scale, 0, sizeof out->input_scale);
}

static void shape_text(char *buf, size_t cap, int32_t rank, const int64_t *shape)
{
    size_t used = (size_t)snprintf(buf, cap, "[");
    for (int32_t d = 0; d < rank && used < cap; d++)
        used += (size_t)snprintf(buf + used, cap - used, d ? ", %" PRId64 : "%" PRId64, shape[d]);
    if (used < cap)
        snprintf(buf + used, cap - used, "]");
}

/* `t` must be host memory, contiguous, of `dtype` and exactly `shape` (with the expert dim
 * in front when experts > 0). */
static hum_status check_tensor(const char *field, const hum_tensor *t, hum_dtype dtype, int64_t experts, int32_t rank,
                               const int64_t *shape)
{
    int64_t want[HUM_MAX_RANK];
    int32_t want_rank = 0;
    if (experts > 0)
        want[want_rank++] = experts;
    for (int32_t d = 0; d < rank; d++)
        want[want_rank++] = shape[d];
    char ws[96], gs[96];
    shape_text(ws, sizeof ws, want_rank, want);
    if (t->data == NULL)
        return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: %s is missing (expected %s %s)", field,
                        hum_dtype_name(dtype), ws);
    if (t->memory != HUM_MEMORY_HOST)
        return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: %s must be host memory", field);
    int same = t->dtype == dtype && t->rank == want_rank;
    for (int32_t d = 0; same && d < want_rank; d++)
        same = t->shape[d] == want[d];
    if (!same) {
        shape_text(gs, sizeof gs, t->rank < 0 || t->rank > HUM_MAX_RANK ? 0 : t->rank, t->shape);
        return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: %s is %s %s (rank %d), expected %s %s", field,
                        hum_dtype_name(t->dtype), gs, t->rank, hum_dtype_name(dtype), ws);
    }
    int64_t stride = 1;
    for (int32_t d = want_rank - 1; d >= 0; d--) {
        if (t->strides[d] != 0 && t->strides[d] != stride)
            return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: %s must be contiguous (stride[%d] = %" PRId64
                            ", expected %" PRId64 " or 0)", field, d, t->strides[d], stride);
        stride *= want[d];
    }
    return HUM_OK;
}

hum_status hum_check_permutation(const int32_t *p, int64_t k, const char *what)
{
    uint8_t *seen = calloc((size_t)k, 1);
    if (seen == NULL)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "%s: checking a permutation of %" PRId64 " needs that many bytes", what,
                        k);
    for (int64_t j = 0; j < k; j++) {
        if (p[j] < 0 || p[j] >= k || seen[p[j]]) {
            free(seen);
            return hum_fail(HUM_ERR_INVALID_ARG,
                            "%s[%" PRId64 "] = %d is %s (expected a permutation of 0..%" PRId64 ")", what, j, p[j],
                            p[j] < 0 || p[j] >= k ? "out of range" : "a repeat", k - 1);
        }
        seen[p[j]] = 1;
    }
    free(seen);
    return HUM_OK;
}

int64_t hum_standard_stored_k(const hum_standard_weight *w)
{
    const hum_tensor *p = &w->k_perm;
    return p->data && p->rank >= 1 && p->rank <= HUM_MAX_RANK ? p->shape[p->rank - 1] : w->k;
}

/* Each expert's row: every input column 0..input_k-1 once, -1 (padding) elsewhere. */
static hum_status check_k_perm(const hum_tensor *t, int64_t experts, int64_t stored_k, int64_t input_k)
{
    hum_status st = check_tensor("k_perm", t, HUM_DTYPE_INT32, experts, 1, &stored_k);
    if (st != HUM_OK)
        return st;
    if (stored_k < input_k || stored_k > (INT64_C(1) << 31))
        return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: k_perm rows of %" PRId64 " (expected K = %" PRId64
                        " columns and any padding, at most 2^31)", stored_k, input_k);
    uint8_t *seen = malloc((size_t)input_k);
    if (seen == NULL)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "standard weight: checking k_perm needs %" PRId64 " bytes", input_k);
    for (int64_t e = 0; e < (experts > 0 ? experts : 1) && st == HUM_OK; e++) {
        const int32_t *row = (const int32_t *)t->data + e * stored_k;
        memset(seen, 0, (size_t)input_k);
        int64_t found = 0;
        for (int64_t j = 0; j < stored_k && st == HUM_OK; j++) {
            if (row[j] == -1)
                continue;
            if (row[j] < 0 || row[j] >= input_k || seen[row[j]]) {
                char at[48];
                snprintf(at, sizeof at, experts > 0 ? "[%" PRId64 "][%" PRId64 "]" : "[%" PRId64 "]",
                         experts > 0 ? e : j, j);
                st = hum_fail(HUM_ERR_INVALID_ARG, "standard weight: k_perm%s = %d is %s (expected each column 0..%"
                              PRId64 " once and -1 for padding)", at, row[j],
                              row[j] < 0 || row[j] >= input_k ? "out of range" : "a repeat", input_k - 1);
            }
            else
                seen[row[j]] = 1, found++;
        }
        if (st == HUM_OK && found != input_k)
            st = hum_fail(HUM_ERR_INVALID_ARG, "standard weight: k_perm row %" PRId64 " holds %" PRId64 " of the K = %"
                          PRId64 " input columns (expected every one)", e, found, input_k);
    }
    free(seen);
    return st;
}

/* The checkpoint's activation scheme (hum.h, hum_standard_weight.act_dtype). */
static hum_status check_activation(const hum_standard_weight *w, int64_t experts)
{
    const hum_dtype a = w->act_dtype;
    const int32_t g = w->act_group;
    int ok;
    switch (w->act_scale) {
    case HUM_ACT_SCALE_TOKEN:
    case HUM_ACT_SCALE_TENSOR:
        ok = g == 0 && (a == HUM_DTYPE_FLOAT8_E4M3FN || a == HUM_DTYPE_INT8 ||
                        (a == HUM_DTYPE_INVALID && w->act_scale == HUM_ACT_SCALE_TOKEN));
        break;
    case HUM_ACT_SCALE_GROUP:
        ok = (a == HUM_DTYPE_FLOAT8_E4M3FN && (g == 128 || g == 32)) || (a == HUM_DTYPE_INT8 && g == 128) ||
             (a == HUM_DTYPE_FLOAT4_E2M1 && g == 16);
        break;
    default: ok = 0;
    }
    if (!ok)
        return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: activation scheme %s, scale mode %d, group %d (expected "
                        "none, float8_e4m3fn or int8 per token or tensor, float8_e4m3fn / int8 per 128, "
                        "float8_e4m3fn per 32 (MXFP8), float4_e2m1 per 16 (NVFP4))",
                        a ? hum_dtype_name(a) : "none", (int)w->act_scale, (int)g);
    if (w->act_scale != HUM_ACT_SCALE_TENSOR)
        return w->input_scale.data ? hum_fail(HUM_ERR_INVALID_ARG, "standard weight: input_scale is only for a static "
                                              "per-tensor activation scale (act_scale TENSOR)")
                                   : HUM_OK;
    const int64_t len = w->input_scale.rank == 1 && w->input_scale.shape[0] == 1 ? 1 : experts;
    hum_status st = check_tensor("input_scale", &w->input_scale, HUM_DTYPE_FLOAT32, 0, 1, &len);
    if (st != HUM_OK)
        return st;
    for (int64_t i = 0; i < len; i++) {
        const float x = ((const float *)w->input_scale.data)[i];
        if (!(x > 0.0f) || isinf(x))
            return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: input_scale[%" PRId64 "] = %g (expected finite and "
                            "> 0)", i, (double)x);
    }
    return HUM_OK;
}

hum_status hum_standard_view_init(const hum_standard_weight *w, hum_standard_view *v)
{
    memset(v, 0, sizeof *v);
    if (w == NULL)
        return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: NULL");
    if (w->n < 1 || w->k < 1 || w->n > (INT64_C(1) << 31) || w->k > (INT64_C(1) << 31) || w->num_experts < 0 ||
        w->num_experts > (INT64_C(1) << 20))
        return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: N = %" PRId64 ", K = %" PRId64 ", num_experts = %"
                        PRId64 " (expected N, K in 1..2^31, experts in 0..2^20)", w->n, w->k, w->num_experts);
    const hum_dtype wt = w->weight_dtype;
    const hum_dtype_kind kind = (hum_dtype_kind)((wt >> 24) & 0xF);
    v->bits = hum_dtype_bits(wt);
    if (!hum_dtype_is_weight(wt))
        return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: weight_dtype %s (expected uint1..uint8 or a float of "
                        "8 bits or fewer)", hum_dtype_name(wt));
    if (!hum_dtype_is_activation(w->param_dtype))
        return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: param_dtype %s (expected float16 or bfloat16)",
                        hum_dtype_name(w->param_dtype));
    v->experts = w->num_experts > 0 ? w->num_experts : 1;
    v->n = w->n;
    v->input_k = w->k;
    v->k = hum_standard_stored_k(w);
    if (v->k < 1 || v->k > (INT64_C(1) << 31))
        return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: k_perm rows of %" PRId64 " columns (expected K = %"
                        PRId64 " and any padding, at most 2^31)", v->k, w->k);
    v->is_int = kind == HUM_KIND_UINT;
    v->row_words = (v->k * v->bits + 31) / 32;
    hum_codec_init(hum_dtype_finite_reading(wt), &v->weight);
    hum_codec_init(w->param_dtype, &v->param);
    const int64_t E = w->num_experts;
    hum_status st = check_tensor("weight", &w->weight, HUM_DTYPE_INT32, E, 2, (const int64_t[]){w->n, v->row_words});
    if (st != HUM_OK)
        return st;

    const int grouped = w->scale_type == HUM_SCALE_GROUP || w->scale_type == HUM_SCALE_GROUP_TENSOR ||
                        w->scale_type == HUM_SCALE_BLOCK;
    if (w->scale_type < HUM_SCALE_CHANNEL || w->scale_type > HUM_SCALE_GROUP_TENSOR)
        return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: unknown scale_type %d", (int)w->scale_type);
    if (grouped ? w->group_size < 1 : w->group_size != 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: group_size %" PRId64 " (expected %s)", w->group_size,
                        grouped ? ">= 1 for GROUP, GROUP_TENSOR and BLOCK scales" : "0 for CHANNEL and TENSOR scales");
    if (w->scale_type == HUM_SCALE_BLOCK ? w->group_size_n < 1 : w->group_size_n != 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: group_size_n %" PRId64 " (expected %s)",
                        w->group_size_n, w->scale_type == HUM_SCALE_BLOCK ? ">= 1 for BLOCK" : "0 unless BLOCK");
    v->col_group = grouped ? w->group_size : v->k;
    v->row_group = w->scale_type == HUM_SCALE_BLOCK ? w->group_size_n : 1;
    v->scale_cols = hum_ceil_div(v->k, v->col_group);
    v->scale_rows = w->scale_type == HUM_SCALE_TENSOR ? 0 : hum_ceil_div(w->n, v->row_group);
    if (w->scale_type == HUM_SCALE_TENSOR) {
        if (w->scale.data != NULL)
            return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: a TENSOR scale has no scale tensor (data must be "
                            "NULL; the value is global_scale)");
    } else {
        if (!hum_dtype_is_scale(w->scale_dtype) ||
            (w->scale_type == HUM_SCALE_BLOCK && w->scale_dtype != HUM_DTYPE_FLOAT32))
            return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: scale_dtype %s (expected %s)",
                            hum_dtype_name(w->scale_dtype), w->scale_type == HUM_SCALE_BLOCK ? "float32 for BLOCK" :
                            "float16, bfloat16, float32, float8_e4m3fn, float8_e5m2 or float8_e8m0");
        st = check_tensor("scale", &w->scale, w->scale_dtype, E, 2, (const int64_t[]){v->scale_rows, v->scale_cols});
        if (st != HUM_OK)
            return st;
        hum_codec_init(w->scale_dtype, &v->scale);
    }

    if (w->has_zero_point) {
        if (!v->is_int)
            return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: a zero point needs an integer weight, not %s",
                            hum_dtype_name(wt));
        if (w->scale_type == HUM_SCALE_BLOCK)
            return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: BLOCK scales take no zero point");
        v->zp_rows = w->zero_point_is_float ? w->n : (w->n * v->bits + 31) / 32;
        st = check_tensor(w->zero_point_is_float ? "zero_point (float)" : "zero_point (int, packed along N)",
                          &w->zero_point, w->zero_point_is_float ? w->param_dtype : HUM_DTYPE_INT32, E, 2,
                          (const int64_t[]){v->zp_rows, v->scale_cols});
        if (st != HUM_OK)
            return st;
    } else if (w->zero_point_is_float || w->zero_point.data != NULL) {
        return hum_fail(HUM_ERR_INVALID_ARG, "standard weight: zero_point data or zero_point_is_float set while "
                        "has_zero_point is 0");
    }

    const int needs_global = w->scale_type == HUM_SCALE_TENSOR || w->scale_type == HUM_SCALE_GROUP_TENSOR;
    if (w->global_scale.data != NULL || needs_global) {
        const int64_t len = w->global_scale.rank == 1 && w->global_scale.shape[0] == 1 ? 1 : v->experts;
        st = check_tensor("global_scale", &w->global_scale, HUM_DTYPE_FLOAT32, 0, 1, &len);
        if (st != HUM_OK)
            return st;
    }
    if (w->bias.data != NULL && (st = check_tensor("bias", &w->bias, w->param_dtype, E, 1, &w->n)) != HUM_OK)
        return st;
    if (w->k_perm.data != NULL && (st = check_k_perm(&w->k_perm, E, v->k, w->k)) != HUM_OK)
        return st;
    return check_activation(w, v->experts);
}

hum_status hum_standard_validate(const hum_standard_weight *w)
{
    hum_standard_view v;
    return hum_standard_view_init(w, &v);
}
