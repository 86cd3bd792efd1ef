/* Tensor- and expert-parallel shards of a standard weight (hum.h, hum_standard_shard): the rows,
 * columns and experts a rank keeps, cut from the converted weight so that every checkpoint
 * format shards by the same rules. */
#include "standard.h"

#include "internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* What the shard keeps of `w`. Per-expert arrays hold one row per kept expert. */
typedef struct shard_cut {
    int64_t n0, n;          /* output rows kept: [n0, n0 + n) */
    int64_t k0, k;          /* checkpoint input columns kept: [k0, k0 + k) */
    int64_t ks;             /* the shard's stored columns K' (k plus padding) */
    int32_t *cols;          /* [e][ks] source stored column of each stored column, -1 padding; NULL: all */
    int32_t *groups;        /* [e][g] source scale column of each scale column; NULL: all */
    int64_t g;              /* scale columns */
    int64_t group_size;     /* the shard's group_size (the weight's unless padded runs) */
    int32_t *k_perm;        /* [e][ks] the shard's k_perm; NULL: none (identity, no padding) */
    const int32_t *experts; /* source expert of each kept expert (e of them) */
    int32_t *all_experts;   /* experts when the shard keeps every one */
    int64_t e;
    int keep_bias;
} shard_cut;

static void cut_free(shard_cut *c)
{
    free(c->cols);
    free(c->groups);
    free(c->k_perm);
    free(c->all_experts);
}

static hum_status no_memory(void) { return hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_standard_shard: out of memory"); }

/* dst[r][j] = src[row0 + r][cols ? cols[j] : j] for r < rows, j < dst_cols; elements of `elem`
 * bytes, src rows of src_cols elements. */
static void select_block(const void *src, int64_t src_cols, int64_t row0, int64_t rows, const int32_t *cols,
                         int64_t dst_cols, size_t elem, void *dst)
{
    const char *s = (const char *)src + (size_t)(row0 * src_cols) * elem;
    char *d = dst;
    for (int64_t r = 0; r < rows; r++, s += (size_t)src_cols * elem, d += (size_t)dst_cols * elem) {
        if (!cols) {
            memcpy(d, s, (size_t)dst_cols * elem);
            continue;
        }
        for (int64_t j = 0; j < dst_cols; j++)
            memcpy(d + (size_t)j * elem, s + (size_t)cols[j] * elem, elem);
    }
}

static hum_status alloc_like(hum_tensor *t, hum_dtype dtype, int64_t experts, int64_t rows, int64_t cols, int rank)
{
    int64_t shape[3];
    int32_t r = 0;
    if (experts > 0)
        shape[r++] = experts;
    shape[r++] = rows;
    if (rank == 2)
        shape[r++] = cols;
    return hum_host_tensor_alloc(t, dtype, r, shape);
}

static hum_status check_experts(const hum_standard_weight *w, const hum_shard *s, shard_cut *c)
{
    const int64_t total = w->num_experts > 0 ? w->num_experts : 1;
    if (!s->experts) {
        c->all_experts = malloc(sizeof(int32_t) * (size_t)total);
        if (!c->all_experts)
            return no_memory();
        for (int64_t x = 0; x < total; x++)
            c->all_experts[x] = (int32_t)x;
        c->experts = c->all_experts;
        c->e = total;
        return HUM_OK;
    }
    if (w->num_experts == 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_standard_shard: experts given for a dense weight (num_experts 0)");
    if (s->expert_count < 1 || s->expert_count > w->num_experts)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_standard_shard: expert_count %" PRId64 " (expected 1..%" PRId64 ")",
                        s->expert_count, w->num_experts);
    uint8_t *seen = calloc((size_t)w->num_experts, 1);
    if (!seen)
        return no_memory();
    for (int64_t i = 0; i < s->expert_count; i++) {
        int32_t x = s->experts[i];
        if (x < 0 || x >= w->num_experts || seen[x]) {
            free(seen);
            return hum_fail(HUM_ERR_INVALID_ARG, "hum_standard_shard: experts[%" PRId64 "] = %d is %s (the weight has "
                            "experts 0..%" PRId64 ")", i, x, x < 0 || x >= w->num_experts ? "out of range" : "a repeat",
                            w->num_experts - 1);
        }
        seen[x] = 1;
    }
    free(seen);
    c->experts = s->experts;
    c->e = s->expert_count;
    return HUM_OK;
}

static hum_status check_split(const char *what, int64_t extent, const hum_shard *s, int64_t *start, int64_t *size)
{
    if (extent % s->world != 0)
        return hum_fail(HUM_ERR_UNSUPPORTED, "hum_standard_shard: %s = %" PRId64 " is not a multiple of world %d "
                        "(tensor-parallel shards are equal)", what, extent, s->world);
    *size = extent / s->world;
    *start = *size * s->rank;
    return HUM_OK;
}

/* Source expert x's act-order row (NULL without k_perm). */
static const int32_t *perm_row(const hum_standard_weight *w, const hum_standard_view *v, int64_t x)
{
    return w->k_perm.data ? (const int32_t *)w->k_perm.data + x * v->k : NULL;
}

/* ROW: for each kept expert, the stored columns whose checkpoint column lies in [k0, k0 + k) in
 * stored order, and the scale columns they use. Whole groups keep the layout; act-order groups a
 * rank holds in part become runs padded to `unit` columns, each unit using its group's scale
 * column (hum.h, hum_shard). */
static hum_status cut_columns(const hum_standard_weight *w, const hum_standard_view *v, const hum_shard *s,
                              shard_cut *c)
{
    const int grouped = w->scale_type == HUM_SCALE_GROUP || w->scale_type == HUM_SCALE_GROUP_TENSOR ||
                        w->scale_type == HUM_SCALE_BLOCK;
    const int64_t G = v->scale_cols, gs = v->col_group;
    int64_t *filled = calloc((size_t)(c->e * G), sizeof(int64_t));
    if (!filled)
        return no_memory();
    int64_t partial = -1, partial_x = 0; /* a group some rank holds only part of */
    for (int64_t x = 0; x < c->e; x++) {
        const int32_t *perm = perm_row(w, v, c->experts[x]);
        for (int64_t j = 0; j < v->k; j++) {
            const int64_t col = perm ? perm[j] : j;
            if (col >= c->k0 && col < c->k0 + c->k)
                filled[x * G + j / gs]++;
        }
        for (int64_t g = 0; grouped && partial < 0 && g < G; g++) {
            const int64_t size = v->k - g * gs < gs ? v->k - g * gs : gs, f = filled[x * G + g];
            if (f != 0 && f != size)
                partial = g, partial_x = x;
        }
    }
    if (partial >= 0 && !w->k_perm.data) {
        const int64_t size = v->k - partial * gs < gs ? v->k - partial * gs : gs,
                      held = filled[partial_x * G + partial];
        free(filled);
        return hum_fail(HUM_ERR_UNSUPPORTED, "hum_standard_shard: row shard %d of %d (input columns [%" PRId64 ", %"
                        PRId64 ")) holds %" PRId64 " of the %" PRId64 " columns of scale group %" PRId64 "; a row "
                        "shard of a weight without act-order must hold whole groups (K / world a multiple of "
                        "group_size %" PRId64 ")", s->rank, s->world, c->k0, c->k0 + c->k,
                        held, size, partial, gs);
    }
    /* The unit a run is padded to: none when every group is whole, else 16 columns (what the
     * kernels take as a group) when the group size allows. */
    const int64_t unit = partial < 0 ? 0 : gs % 16 == 0 ? 16 : gs;
    int64_t ks = c->k;
    for (int64_t x = 0; unit && x < c->e; x++) {
        int64_t total = 0;
        for (int64_t g = 0; g < G; g++)
            total += (filled[x * G + g] + unit - 1) / unit * unit;
        ks = total > ks ? total : ks;
    }
    c->ks = ks;
    c->group_size = unit ? unit : w->group_size;
    c->g = !grouped ? v->scale_cols : unit ? ks / unit : (c->k + gs - 1) / gs;
    c->cols = malloc(sizeof(int32_t) * (size_t)(c->e * ks));
    c->groups = grouped ? malloc(sizeof(int32_t) * (size_t)(c->e * c->g)) : NULL;
    c->k_perm = w->k_perm.data ? malloc(sizeof(int32_t) * (size_t)(c->e * ks)) : NULL;
    if (!c->cols || (grouped && !c->groups) || (w->k_perm.data && !c->k_perm)) {
        free(filled);
        return no_memory();
    }
    int identity = !unit;
    for (int64_t x = 0; x < c->e; x++) {
        const int32_t *perm = perm_row(w, v, c->experts[x]);
        int32_t *cols = c->cols + x * ks, *groups = grouped ? c->groups + x * c->g : NULL;
        int64_t at = 0, scale_at = 0, last = 0;
        for (int64_t g = 0; g < G; g++) {
            if (filled[x * G + g] == 0)
                continue;
            const int64_t run = at;
            for (int64_t j = g * gs; j < (g + 1) * gs && j < v->k; j++) {
                const int64_t col = perm ? perm[j] : j;
                if (col >= c->k0 && col < c->k0 + c->k)
                    cols[at++] = (int32_t)j;
            }
            const int64_t end = unit ? (at + unit - 1) / unit * unit : at;
            while (at < end)
                cols[at++] = -1;
            for (int64_t u = run; groups && u < at; u += unit ? unit : gs)
                groups[scale_at++] = (int32_t)g;
            last = g;
        }
        for (; at < ks; at++) /* pad to the widest expert */
            cols[at] = -1;
        while (groups && scale_at < c->g)
            groups[scale_at++] = (int32_t)last;
        for (int64_t j = 0; c->k_perm && j < ks; j++) {
            const int32_t src = cols[j];
            c->k_perm[x * ks + j] = src < 0 ? -1 : (int32_t)((perm ? perm[src] : src) - c->k0);
            identity = identity && c->k_perm[x * ks + j] == j;
        }
    }
    free(filled);
    if (identity) {
        free(c->k_perm);
        c->k_perm = NULL;
    }
    return HUM_OK;
}

static hum_status plan_cut(const hum_standard_weight *w, const hum_standard_view *v, const hum_shard *s, shard_cut *c)
{
    c->n = w->n;
    c->k = w->k;
    c->ks = v->k;
    c->g = v->scale_cols;
    c->group_size = w->group_size;
    c->keep_bias = 1;
    hum_status st = check_experts(w, s, c);
    if (st != HUM_OK || s->dim == HUM_SHARD_NONE)
        return st;
    if (s->dim != HUM_SHARD_COLUMN && s->dim != HUM_SHARD_ROW)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_standard_shard: dim %d (expected HUM_SHARD_NONE, _COLUMN or _ROW)",
                        s->dim);
    if (s->world < 1 || s->rank < 0 || s->rank >= s->world)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_standard_shard: rank %d of world %d (expected world >= 1 and "
                        "0 <= rank < world)", s->rank, s->world);
    if (s->dim == HUM_SHARD_COLUMN) {
        if ((st = check_split("N", w->n, s, &c->n0, &c->n)) != HUM_OK)
            return st;
        if (w->scale_type == HUM_SCALE_BLOCK && s->world > 1 && c->n % w->group_size_n != 0)
            return hum_fail(HUM_ERR_UNSUPPORTED, "hum_standard_shard: column shards of %" PRId64 " rows (N %" PRId64
                            " / world %d) cut %" PRId64 "-row scale blocks in two (expected N / world a multiple of "
                            "group_size_n)", c->n, w->n, s->world, w->group_size_n);
        return HUM_OK;
    }
    if ((st = check_split("K", w->k, s, &c->k0, &c->k)) != HUM_OK)
        return st;
    c->keep_bias = s->rank == 0;
    return s->world == 1 ? HUM_OK : cut_columns(w, v, s, c);
}

/* Zero-point codes [N][G] of source expert x (int zero points, packed along N). */
static hum_status zero_codes(const hum_standard_weight *w, const hum_standard_view *v, int64_t x, uint8_t *values)
{
    return hum_unpack_bits((const int32_t *)w->zero_point.data + (size_t)(x * v->zp_rows * v->scale_cols),
                           (const int64_t[]){1, w->n, v->scale_cols}, v->bits, HUM_PACK_ALONG_ROWS, HUM_PACK_DENSE,
                           values);
}

/* The weight: rows of words copied, or (ROW) unpacked, the kept columns gathered, repacked; a
 * padding column gets the code that dequantizes to 0 (its group's zero point, the midpoint, or
 * the float code 0). */
static hum_status cut_weight(const hum_standard_weight *w, const hum_standard_view *v, const shard_cut *c,
                             hum_standard_weight *out)
{
    const int64_t out_words = (c->ks * v->bits + 31) / 32;
    hum_status st = alloc_like(&out->weight, HUM_DTYPE_INT32, out->num_experts, c->n, out_words, 2);
    if (st != HUM_OK)
        return st;
    const size_t src_expert = (size_t)(w->n * v->row_words), dst_expert = (size_t)(c->n * out_words);
    const int int_zero = w->has_zero_point && !w->zero_point_is_float;
    uint8_t *codes = NULL, *kept = NULL, *zeros = NULL;
    if (c->cols) {
        codes = malloc((size_t)(c->n * v->k));
        kept = malloc((size_t)(c->n * c->ks));
        zeros = int_zero ? malloc((size_t)(w->n * v->scale_cols)) : NULL;
        if (!codes || !kept || (int_zero && !zeros)) {
            free(codes);
            free(kept);
            free(zeros);
            return no_memory();
        }
    }
    const uint8_t blank = v->is_int ? (uint8_t)(1u << (v->bits - 1)) : 0;
    for (int64_t x = 0; x < c->e && st == HUM_OK; x++) {
        const int32_t *src = (const int32_t *)w->weight.data + (size_t)c->experts[x] * src_expert;
        int32_t *dst = (int32_t *)out->weight.data + (size_t)x * dst_expert;
        if (!c->cols) {
            select_block(src, v->row_words, c->n0, c->n, NULL, v->row_words, 4, dst);
            continue;
        }
        st = hum_unpack_bits(src + c->n0 * v->row_words, (const int64_t[]){1, c->n, v->k}, v->bits,
                             HUM_PACK_ALONG_COLS, HUM_PACK_DENSE, codes);
        if (st == HUM_OK && int_zero)
            st = zero_codes(w, v, c->experts[x], zeros);
        const int32_t *cols = c->cols + x * c->ks, *groups = c->groups ? c->groups + x * c->g : NULL;
        for (int64_t r = 0; st == HUM_OK && r < c->n; r++)
            for (int64_t j = 0; j < c->ks; j++)
                kept[r * c->ks + j] =
                    cols[j] >= 0 ? codes[r * v->k + cols[j]]
                    : int_zero   ? zeros[(c->n0 + r) * v->scale_cols + (groups ? groups[j / c->group_size] : 0)]
                                 : blank;
        if (st == HUM_OK)
            st = hum_pack_bits(kept, (const int64_t[]){1, c->n, c->ks}, v->bits, HUM_PACK_ALONG_COLS, HUM_PACK_DENSE,
                               dst);
    }
    free(codes);
    free(kept);
    free(zeros);
    return st;
}

static hum_status cut_scale(const hum_standard_weight *w, const hum_standard_view *v, const shard_cut *c,
                            hum_standard_weight *out)
{
    if (w->scale_type == HUM_SCALE_TENSOR)
        return HUM_OK;
    const int64_t r0 = c->n0 / v->row_group, rows = hum_ceil_div(c->n, v->row_group);
    hum_status st = alloc_like(&out->scale, w->scale_dtype, out->num_experts, rows, c->g, 2);
    if (st != HUM_OK)
        return st;
    const size_t elem = (size_t)hum_dtype_code_size(w->scale_dtype);
    for (int64_t x = 0; x < c->e; x++)
        select_block((const char *)w->scale.data + (size_t)(c->experts[x] * v->scale_rows * v->scale_cols) * elem,
                     v->scale_cols, r0, rows, c->groups ? c->groups + x * c->g : NULL, c->g,
                     elem, (char *)out->scale.data + (size_t)(x * rows * c->g) * elem);
    return HUM_OK;
}

/* Zero points: float ones are cut like scales; int ones (packed along N) unpacked, cut, repacked. */
static hum_status cut_zero_point(const hum_standard_weight *w, const hum_standard_view *v, const shard_cut *c,
                                 hum_standard_weight *out)
{
    if (!w->has_zero_point)
        return HUM_OK;
    const int64_t G = v->scale_cols;
    if (w->zero_point_is_float) {
        hum_status st = alloc_like(&out->zero_point, w->param_dtype, out->num_experts, c->n, c->g, 2);
        const size_t elem = (size_t)hum_dtype_code_size(w->param_dtype);
        for (int64_t x = 0; st == HUM_OK && x < c->e; x++)
            select_block((const char *)w->zero_point.data + (size_t)(c->experts[x] * w->n * G) * elem, G, c->n0,
                         c->n, c->groups ? c->groups + x * c->g : NULL, c->g, elem,
                         (char *)out->zero_point.data + (size_t)(x * c->n * c->g) * elem);
        return st;
    }
    const int64_t out_rows = (c->n * v->bits + 31) / 32;
    hum_status st = alloc_like(&out->zero_point, HUM_DTYPE_INT32, out->num_experts, out_rows, c->g, 2);
    if (st != HUM_OK)
        return st;
    uint8_t *values = malloc((size_t)(w->n * G)), *kept = malloc((size_t)(c->n * c->g));
    if (!values || !kept) {
        free(values);
        free(kept);
        return no_memory();
    }
    for (int64_t x = 0; x < c->e && st == HUM_OK; x++) {
        st = zero_codes(w, v, c->experts[x], values);
        if (st != HUM_OK)
            break;
        select_block(values, G, c->n0, c->n, c->groups ? c->groups + x * c->g : NULL, c->g, 1, kept);
        st = hum_pack_bits(kept, (const int64_t[]){1, c->n, c->g}, v->bits, HUM_PACK_ALONG_ROWS, HUM_PACK_DENSE,
                           (int32_t *)out->zero_point.data + (size_t)(x * out_rows * c->g));
    }
    free(values);
    free(kept);
    return st;
}

static hum_status cut_vectors(const hum_standard_weight *w, const hum_standard_view *v, const shard_cut *c,
                              hum_standard_weight *out)
{
    hum_status st = HUM_OK;
    if (w->global_scale.data) {
        const int per_expert = !(w->global_scale.rank == 1 && w->global_scale.shape[0] == 1);
        const int64_t len = per_expert ? c->e : 1;
        if ((st = hum_host_tensor_alloc(&out->global_scale, HUM_DTYPE_FLOAT32, 1, &len)) != HUM_OK)
            return st;
        for (int64_t x = 0; x < len; x++)
            ((float *)out->global_scale.data)[x] =
                ((const float *)w->global_scale.data)[per_expert ? c->experts[x] : 0];
    }
    if (w->bias.data && c->keep_bias) {
        if ((st = alloc_like(&out->bias, w->param_dtype, out->num_experts, c->n, 1, 1)) != HUM_OK)
            return st;
        const size_t elem = (size_t)hum_dtype_code_size(w->param_dtype);
        for (int64_t x = 0; x < c->e; x++)
            select_block((const char *)w->bias.data + (size_t)(c->experts[x] * w->n) * elem, 1, c->n0, c->n, NULL, 1,
                         elem, (char *)out->bias.data + (size_t)(x * c->n) * elem);
    }
    if (w->input_scale.data) {
        const int per_expert = !(w->input_scale.rank == 1 && w->input_scale.shape[0] == 1);
        const int64_t len = per_expert ? c->e : 1;
        if ((st = hum_host_tensor_alloc(&out->input_scale, HUM_DTYPE_FLOAT32, 1, &len)) != HUM_OK)
            return st;
        for (int64_t x = 0; x < len; x++)
            ((float *)out->input_scale.data)[x] = ((const float *)w->input_scale.data)[per_expert ? c->experts[x] : 0];
    }
    /* ROW cuts made their own rows; otherwise each kept expert keeps its row */
    if (c->cols ? c->k_perm != NULL : w->k_perm.data != NULL) {
        if ((st = alloc_like(&out->k_perm, HUM_DTYPE_INT32, out->num_experts, c->ks, 1, 1)) != HUM_OK)
            return st;
        for (int64_t x = 0; x < c->e; x++)
            memcpy((int32_t *)out->k_perm.data + x * c->ks,
                   c->cols ? c->k_perm + x * c->ks : perm_row(w, v, c->experts[x]), sizeof(int32_t) * (size_t)c->ks);
    }
    return HUM_OK;
}

hum_status hum_standard_shard(const hum_standard_weight *w, const hum_shard *shard, hum_standard_weight *out)
{
    if (out)
        memset(out, 0, sizeof *out);
    if (!w || !shard || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_standard_shard: NULL %s", !w ? "weight" : !shard ? "shard" : "out");
    hum_standard_view v;
    hum_status st = hum_standard_view_init(w, &v);
    if (st != HUM_OK)
        return hum_fail_context(st, "hum_standard_shard");
    shard_cut c;
    memset(&c, 0, sizeof c);
    st = plan_cut(w, &v, shard, &c);
    if (st == HUM_OK) {
        hum_standard_header(w, out);
        out->num_experts = w->num_experts > 0 ? c.e : 0;
        out->n = c.n;
        out->k = c.k;
        out->group_size = c.group_size;
        st = cut_weight(w, &v, &c, out);
        if (st == HUM_OK)
            st = cut_scale(w, &v, &c, out);
        if (st == HUM_OK)
            st = cut_zero_point(w, &v, &c, out);
        if (st == HUM_OK)
            st = cut_vectors(w, &v, &c, out);
        /* Every cut above follows the rules hum_standard_validate checks; a failure here is a bug. */
        if (st == HUM_OK && hum_standard_validate(out) != HUM_OK)
            st = hum_fail_context(HUM_ERR_INTERNAL, "hum_standard_shard produced an invalid weight");
    }
    cut_free(&c);
    if (st != HUM_OK)
        hum_standard_free(out);
    return st;
}
