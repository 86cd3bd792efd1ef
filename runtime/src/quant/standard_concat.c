/* Standard weights stacked along N (hum.h, hum_standard_concat): the gate and up projections of
 * a MoE checkpoint that stores them as two modules per expert become the one w13 weight a MoE
 * layer takes, gate rows first. The inverse of a column shard. */
#include "standard.h"

#include "internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static hum_status no_memory(void) { return hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_standard_concat: out of memory"); }

static size_t elems(const hum_tensor *t)
{
    size_t count = 1;
    for (int32_t d = 0; d < t->rank; d++)
        count *= (size_t)t->shape[d];
    return count;
}

/* Both absent, or the same float32 values. */
static int same_scalars(const hum_tensor *a, const hum_tensor *b)
{
    if (!a->data || !b->data)
        return !a->data && !b->data;
    return elems(a) == elems(b) && !memcmp(a->data, b->data, elems(a) * 4);
}

/* HUM_ERR_UNSUPPORTED naming the first field in which part p differs from part 0. */
static hum_status check_alike(const hum_standard_weight *a, const hum_standard_weight *b, const hum_standard_view *va,
                              const hum_standard_view *vb, int32_t p)
{
#define SAME(field)                                                                                                 \
    if (a->field != b->field)                                                                                       \
        return hum_fail(HUM_ERR_UNSUPPORTED, "hum_standard_concat: part %d differs from part 0 in " #field " (%lld " \
                        "vs %lld): parts stack along N only when quantized alike over the same K", p,              \
                        (long long)b->field, (long long)a->field);
    SAME(num_experts)
    SAME(k)
    SAME(weight_dtype)
    SAME(param_dtype)
    SAME(scale_type)
    SAME(group_size)
    SAME(group_size_n)
    SAME(scale_dtype)
    SAME(has_zero_point)
    SAME(zero_point_is_float)
    SAME(act_dtype)
    SAME(act_scale)
    SAME(act_group)
#undef SAME
    if (va->k != vb->k || (a->k_perm.data == NULL) != (b->k_perm.data == NULL) ||
        (a->k_perm.data && memcmp(a->k_perm.data, b->k_perm.data, elems(&a->k_perm) * 4) != 0))
        return hum_fail(HUM_ERR_UNSUPPORTED, "hum_standard_concat: part %d has another act-order k_perm than part 0 "
                        "(the rows of one weight share their K order)", p);
    if ((a->bias.data == NULL) != (b->bias.data == NULL))
        return hum_fail(HUM_ERR_UNSUPPORTED, "hum_standard_concat: part %d %s a bias and part 0 %s", p,
                        b->bias.data ? "has" : "has no", a->bias.data ? "has" : "has none");
    if (!same_scalars(&a->input_scale, &b->input_scale))
        return hum_fail(HUM_ERR_UNSUPPORTED, "hum_standard_concat: part %d has another static input_scale than part 0 "
                        "(the parts read one A, quantized with one scale)", p);
    return HUM_OK;
}

/* Parts of different global scales: one weight has one global scale per expert, so each part's
 * goes into its own scales (hum_standard_fold_global), and the folded parts are stacked. */
static hum_status concat_folded(const hum_standard_weight *parts, int32_t count, hum_standard_weight *out)
{
    hum_standard_weight *folded = calloc((size_t)count, sizeof *folded);
    if (!folded)
        return no_memory();
    hum_status st = HUM_OK;
    for (int32_t p = 0; p < count && st == HUM_OK; p++)
        if ((st = hum_standard_fold_global(&parts[p], &folded[p])) != HUM_OK)
            st = hum_fail_context(st, "hum_standard_concat: part %d", p);
    if (st == HUM_OK)
        st = hum_standard_concat(folded, count, out);
    for (int32_t p = 0; p < count; p++)
        hum_standard_free(&folded[p]);
    free(folded);
    return st;
}

hum_status hum_standard_concat(const hum_standard_weight *parts, int32_t count, hum_standard_weight *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!parts || !out || count < 1)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_standard_concat: %s", !out ? "NULL out" : !parts ? "NULL parts" :
                        "count < 1");
    for (int32_t p = 1; p < count; p++)
        if (!same_scalars(&parts[0].global_scale, &parts[p].global_scale))
            return concat_folded(parts, count, out);
    hum_standard_view *v = calloc((size_t)count, sizeof *v);
    if (!v)
        return no_memory();
    hum_status st = HUM_OK;
    int64_t n = 0;
    for (int32_t p = 0; p < count && st == HUM_OK; p++) {
        if ((st = hum_standard_view_init(&parts[p], &v[p])) != HUM_OK)
            st = hum_fail_context(st, "hum_standard_concat: part %d", p);
        else if (p > 0)
            st = check_alike(&parts[0], &parts[p], &v[0], &v[p], p);
        if (st == HUM_OK && p > 0 && parts[0].scale_type == HUM_SCALE_BLOCK && parts[p - 1].n % parts[0].group_size_n)
            st = hum_fail(HUM_ERR_UNSUPPORTED, "hum_standard_concat: part %d starts inside a %" PRId64 "-row scale "
                          "block (part %d's N %" PRId64 " is not a multiple of group_size_n)", p,
                          parts[0].group_size_n, p - 1, parts[p - 1].n);
        n += parts[p].n;
    }
    if (st == HUM_OK && n > (INT64_C(1) << 31))
        st = hum_fail(HUM_ERR_INVALID_ARG, "hum_standard_concat: N = %" PRId64 " in all exceeds 2^31", n);
    if (st != HUM_OK) {
        free(v);
        return st;
    }
    const hum_standard_weight *w0 = &parts[0];
    const hum_standard_view *v0 = &v[0];
    const int64_t E = v0->experts, lead = w0->num_experts > 0, G = v0->scale_cols;
    hum_standard_header(w0, out);
    out->n = n;
    hum_standard_view vo;
    memset(&vo, 0, sizeof vo);
    vo.row_words = v0->row_words;
    vo.scale_rows = w0->scale_type == HUM_SCALE_TENSOR ? 0 : hum_ceil_div(n, v0->row_group);
    vo.zp_rows = w0->zero_point_is_float ? n : (n * v0->bits + 31) / 32;
    /* Rows of each tensor per expert, in part order; the int zero points are repacked. */
    int64_t shape[3] = {E, n, v0->row_words};
    st = hum_host_tensor_alloc(&out->weight, HUM_DTYPE_INT32, 3 - !lead, shape + !lead);
    if (st == HUM_OK && w0->scale_type != HUM_SCALE_TENSOR) {
        int64_t s[3] = {E, vo.scale_rows, G};
        st = hum_host_tensor_alloc(&out->scale, w0->scale_dtype, 3 - !lead, s + !lead);
    }
    if (st == HUM_OK && w0->has_zero_point) {
        int64_t s[3] = {E, vo.zp_rows, G};
        st = hum_host_tensor_alloc(&out->zero_point, w0->zero_point_is_float ? w0->param_dtype : HUM_DTYPE_INT32,
                                   3 - !lead, s + !lead);
    }
    if (st == HUM_OK && w0->bias.data) {
        int64_t s[2] = {E, n};
        st = hum_host_tensor_alloc(&out->bias, w0->param_dtype, 2 - !lead, s + !lead);
    }
    if (st == HUM_OK && w0->global_scale.data)
        st = hum_host_tensor_alloc(&out->global_scale, HUM_DTYPE_FLOAT32, 1, w0->global_scale.shape);
    if (st == HUM_OK && w0->input_scale.data)
        st = hum_host_tensor_alloc(&out->input_scale, HUM_DTYPE_FLOAT32, 1, w0->input_scale.shape);
    if (st == HUM_OK && w0->k_perm.data)
        st = hum_host_tensor_alloc(&out->k_perm, HUM_DTYPE_INT32, w0->k_perm.rank, w0->k_perm.shape);
    uint8_t *zeros = NULL, *zp_part = NULL;
    if (st == HUM_OK && w0->has_zero_point && !w0->zero_point_is_float) {
        zeros = malloc((size_t)(n * G));
        zp_part = malloc((size_t)(n * G));
        if (!zeros || !zp_part)
            st = no_memory();
    }
    const size_t scale_elem = w0->scale.data ? (size_t)hum_dtype_code_size(w0->scale_dtype) : 0;
    const size_t param_elem = (size_t)hum_dtype_code_size(w0->param_dtype);
    for (int64_t x = 0; x < E && st == HUM_OK; x++) {
        int64_t row = 0;
        for (int32_t p = 0; p < count && st == HUM_OK; p++) {
            const hum_standard_weight *w = &parts[p];
            const hum_standard_view *vp = &v[p];
            memcpy((int32_t *)out->weight.data + (x * n + row) * vo.row_words,
                   (const int32_t *)w->weight.data + x * w->n * vp->row_words,
                   sizeof(int32_t) * (size_t)(w->n * vp->row_words));
            if (scale_elem) {
                const int64_t r0 = row / vp->row_group;
                memcpy((char *)out->scale.data + (size_t)((x * vo.scale_rows + r0) * G) * scale_elem,
                       (const char *)w->scale.data + (size_t)(x * vp->scale_rows * G) * scale_elem,
                       (size_t)(vp->scale_rows * G) * scale_elem);
            }
            if (w->has_zero_point && w->zero_point_is_float)
                memcpy((char *)out->zero_point.data + (size_t)((x * n + row) * G) * param_elem,
                       (const char *)w->zero_point.data + (size_t)(x * w->n * G) * param_elem,
                       (size_t)(w->n * G) * param_elem);
            else if (w->has_zero_point) {
                st = hum_unpack_bits((const int32_t *)w->zero_point.data + x * vp->zp_rows * G,
                                     (const int64_t[]){1, w->n, G}, vp->bits, HUM_PACK_ALONG_ROWS, HUM_PACK_DENSE,
                                     zp_part);
                memcpy(zeros + row * G, zp_part, (size_t)(w->n * G));
            }
            if (w->bias.data)
                memcpy((char *)out->bias.data + (size_t)(x * n + row) * param_elem,
                       (const char *)w->bias.data + (size_t)(x * w->n) * param_elem, (size_t)w->n * param_elem);
            row += w->n;
        }
        if (st == HUM_OK && zeros)
            st = hum_pack_bits(zeros, (const int64_t[]){1, n, G}, v0->bits, HUM_PACK_ALONG_ROWS, HUM_PACK_DENSE,
                               (int32_t *)out->zero_point.data + x * vo.zp_rows * G);
    }
    if (st == HUM_OK && w0->global_scale.data)
        memcpy(out->global_scale.data, w0->global_scale.data, elems(&w0->global_scale) * 4);
    if (st == HUM_OK && w0->input_scale.data)
        memcpy(out->input_scale.data, w0->input_scale.data, elems(&w0->input_scale) * 4);
    if (st == HUM_OK && w0->k_perm.data)
        memcpy(out->k_perm.data, w0->k_perm.data, elems(&w0->k_perm) * 4);
    free(zeros);
    free(zp_part);
    free(v);
    /* Every piece above follows the rules hum_standard_validate checks; a failure here is a bug. */
    if (st == HUM_OK && hum_standard_validate(out) != HUM_OK)
        st = hum_fail_context(HUM_ERR_INTERNAL, "hum_standard_concat produced an invalid weight");
    if (st != HUM_OK)
        hum_standard_free(out);
    return st;
}
