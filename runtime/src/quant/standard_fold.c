/* Copies of standard weights, and the global scale folded into the scales (standard.h): what
 * lets the MoE expert GEMMs, whose kernels apply no per-expert factor, and w13 weights, whose
 * gate and up rows may carry different global scales (ModelOpt NVFP4 experts; vLLM issue 54974),
 * run such weights. */
#include "standard.h"

#include "internal.h"

#include <stdlib.h>
#include <string.h>

static hum_status copy_tensor(const hum_tensor *src, hum_tensor *dst, const char *what)
{
    memset(dst, 0, sizeof *dst);
    if (!src->data)
        return HUM_OK;
    hum_status st = hum_host_tensor_alloc(dst, src->dtype, src->rank, src->shape);
    if (st != HUM_OK)
        return hum_fail_context(st, "copying the %s", what);
    int64_t count = 1;
    for (int32_t i = 0; i < src->rank; i++)
        count *= src->shape[i];
    memcpy(dst->data, src->data, (size_t)(count * hum_dtype_code_size(src->dtype)));
    return HUM_OK;
}

hum_status hum_standard_copy(const hum_standard_weight *w, hum_standard_weight *out)
{
    hum_standard_header(w, out);
    hum_status st = copy_tensor(&w->weight, &out->weight, "weight");
    if (st == HUM_OK)
        st = copy_tensor(&w->scale, &out->scale, "scale");
    if (st == HUM_OK)
        st = copy_tensor(&w->zero_point, &out->zero_point, "zero point");
    if (st == HUM_OK)
        st = copy_tensor(&w->global_scale, &out->global_scale, "global scale");
    if (st == HUM_OK)
        st = copy_tensor(&w->bias, &out->bias, "bias");
    if (st == HUM_OK)
        st = copy_tensor(&w->k_perm, &out->k_perm, "k_perm");
    if (st == HUM_OK)
        st = copy_tensor(&w->input_scale, &out->input_scale, "input scale");
    if (st != HUM_OK)
        hum_standard_free(out);
    return st;
}

hum_scale_type hum_standard_folded_scale_type(hum_scale_type t)
{
    return t == HUM_SCALE_TENSOR ? HUM_SCALE_CHANNEL : t == HUM_SCALE_GROUP_TENSOR ? HUM_SCALE_GROUP : t;
}

hum_status hum_standard_fold_global(const hum_standard_weight *w, hum_standard_weight *out)
{
    hum_standard_view v;
    hum_status st = hum_standard_view_init(w, &v);
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_standard_fold_global");
    st = hum_standard_copy(w, out);
    if (st != HUM_OK || !w->global_scale.data)
        return st;
    const int tensor = w->scale_type == HUM_SCALE_TENSOR;
    const int64_t rows = tensor ? w->n : v.scale_rows, cols = tensor ? 1 : v.scale_cols, per = rows * cols;
    const int64_t shape[3] = {v.experts, rows, cols};
    hum_tensor scale = {0}; /* freed below even when the allocation fails */
    st = hum_host_tensor_alloc(&scale, HUM_DTYPE_FLOAT32, w->num_experts > 0 ? 3 : 2, shape + (w->num_experts == 0));
    const float *global = w->global_scale.data;
    const size_t code = tensor ? 0 : (size_t)hum_dtype_code_size(w->scale_dtype);
    for (int64_t e = 0; st == HUM_OK && e < v.experts; e++) {
        float *s = (float *)scale.data + e * per;
        const double g = global[w->global_scale.shape[0] == 1 ? 0 : e];
        if (!tensor)
            st = hum_dtype_to_float(w->scale_dtype, (const char *)w->scale.data + (size_t)(e * per) * code, per, s);
        for (int64_t i = 0; st == HUM_OK && i < per; i++)
            s[i] = (float)((tensor ? 1.0 : (double)s[i]) * g);
    }
    if (st != HUM_OK) {
        hum_host_tensor_free(&scale);
        hum_standard_free(out);
        return hum_fail_context(st, "hum_standard_fold_global");
    }
    hum_host_tensor_free(&out->scale);
    hum_host_tensor_free(&out->global_scale);
    out->scale = scale;
    out->scale_type = hum_standard_folded_scale_type(w->scale_type);
    out->scale_dtype = HUM_DTYPE_FLOAT32;
    return HUM_OK;
}
