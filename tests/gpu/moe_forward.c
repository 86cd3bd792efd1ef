/* MoE layers on a GPU against the float64 per-expert reference (hum_moe_reference), the output
 * poisoned (NaN) before every forward: M = 0 (nothing written); M = 1 with top-8 of 128; random
 * routings whose experts get no token; every token on one expert; an expert map of a rank other
 * than 0 (experts on other ranks, -1 and out-of-range ids in topk_ids: tokens with no local
 * expert exactly 0); unnormalised weights and top-1 with weight 0.5 (applied once); relu2;
 * swiglu_oai past its clamp, interleaved and split; gelu; per-expert biases; int64 ids; float16
 * and bfloat16; a workspace smaller than M (chunks); accumulating into out; M * top_k past
 * 65,535; a CUDA graph replayed with new routings; and a token's output bit-identical alone and
 * inside a batch. 8-bit activations (the weights' scheme: e4m3 x e4m3, W4A8 uint4 x e4m3, int8 x
 * uint8, channel scales): the hidden rows quantized per token, the activation's output
 * quantized per token in the same kernel; the reference follows the layer's numerics
 * (hum_moe_numerics: the same per-token codes, the 16-bit rows between the GEMMs), so the bar
 * stays that of 16-bit A; the error against the unquantized float64 layer is printed beside it.
 * MXFP8 (the deployment's moe.activation = mxfp8): the hidden rows and the activation's output
 * rounded to mxfp8's values (e4m3 codes times e8m0 scales per 32 columns) in the 16-bit type,
 * the activation rounding its own, both GEMMs 16-bit (a_round); the reference rounds the same
 * way (hum_moe_numerics' rounds), its 16-bit GEMMs' e4m3 weights times scales rounded to
 * bfloat16 as the layer holds them (without that, the reference's exact weights alone put it
 * 1.1e-2 .. 2.2e-2 from the layer: the tolerance's edge). Layers whose GEMMs differ in what
 * they take, on one block_m per range of rows per expert (issue 10): an intermediate size that
 * is not a multiple of 8 (wgmma takes the gate/up GEMM's K, not the down GEMM's), a hidden size
 * that is not (the other way round), and W4A8 whose down GEMM falls back to 16-bit A (its K
 * not a multiple of 16). Scales along K as the checkpoint's own scheme, by default: FP8 block-wise
 * experts (e4m3 weights in 128 x 128 blocks, A quantized per 1 x 128 group by the layer) and W4A8
 * with group-128 weight scales under e4m3 or int8 A, applied where the accumulators are promoted. Hidden the host
 * quantized itself (hum_moe_options.hidden_dtype, hum_moe_forward_quantized: e4m3 per token, per
 * 1 x 128 group and MXFP8's e8m0 per 32, int8 per token; rows of codes and of group scales
 * packed, and a stride apart past their length under chunking), the codes and scales from the
 * layers' CPU twin, against the same reference; the forwards' refusals of the wrong hidden, hidden_scale or entry point.
 * Policy reloads of a prepared layer (case "silu reload bf16"): a site policy giving its GEMMs
 * another block_m than the tables in force, or different block_m to each, refused with the old
 * tables kept and forwards right; one that changes only the stages taken.
 * HUM_TEST_CASES=A,B runs only the cases whose name contains A or B (e.g. mxfp8). Skipped (77)
 * without a GPU. */
#include "cuda_driver.h"
#include "gemm_test.h"
#include "graph_test.h"
#include "hum/hum.h"
#include "hum/hum_tools.h"
#include "rt_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct layer_case {
    const char *name;
    int32_t e, e_global, top_k;
    int64_t h, i;
    int32_t activation, interleaved, bias, bf16;
    int32_t rank; /* > 0: this rank of e_global / e experts keeps experts rank*e .. rank*e + e - 1 */
    double x_scale; /* hidden ~ N(0, x_scale^2), so gate/up values ~ N(0, x_scale^2) */
    hum_dtype a8, weight; /* 8-bit A (the weights' scheme) on weights of that type with channel scales, or 0 */
    int32_t a_group;      /* 32: mxfp8 (the deployment's moe.activation = mxfp8: rounded; host_q: the
                           * host's e8m0 groups); 128: e4m3 per 1 x 128 group (FP8 block-wise: the
                           * checkpoint's, or the host's); else per token */
    hum_dtype down_a;     /* the down GEMM's A where it falls back from a8 (its K), else 0: a8 */
    int32_t w_group;      /* 8-bit A's weight scales along K instead of per channel: e4m3 weights'
                           * float32 blocks of w_group x w_group (FP8 block-wise), uint4's groups */
    int32_t host_q;       /* the host quantizes hidden (a8, a_group: hum_moe_options.hidden_dtype),
                           * hum_moe_forward_quantized */
} layer_case;

typedef struct fixture {
    const layer_case *c;
    hum_runtime *rt;
    hum_moe *moe;
    hum_moe_options opts;
    hum_standard_weight w13, w2;   /* the experts this rank keeps (the reference's weights) */
    hum_moe_numerics as_run;       /* what the prepared layer's GEMMs multiply */
    int32_t map[1024];             /* global -> local, -1 elsewhere */
    void *d_map;
} fixture;

static hum_dtype act_dtype(const layer_case *c) { return c->bf16 ? HUM_DTYPE_BFLOAT16 : HUM_DTYPE_FLOAT16; }

static int make_weight(quant_rng *rng, const layer_case *c, int64_t e, int64_t n, int64_t k, hum_standard_weight *w)
{
    float *v = malloc((size_t)(e * n * k) * sizeof *v), *b = malloc((size_t)(e * n) * sizeof *b);
    /* N(0, 1/K): each projection keeps its input's range */
    quant_fill_normal_f32(rng, v, e * n * k, 1.0 / sqrt((double)k));
    quant_fill_normal_f32(rng, b, e * n, 0.5);
    hum_quant_spec spec = {.num_experts = e, .weight_dtype = HUM_DTYPE_UINT4, .param_dtype = act_dtype(c),
                           .scale_type = HUM_SCALE_GROUP, .group_size = 32, .zero_point = HUM_ZERO_POINT_INT,
                           .bias = c->bias ? b : NULL};
    if (c->a8) { /* 8-bit A runs weight scales per channel or along K, without zero point */
        spec.weight_dtype = c->weight;
        spec.scale_type = !c->w_group                             ? HUM_SCALE_CHANNEL
                          : c->weight == HUM_DTYPE_FLOAT8_E4M3FN ? HUM_SCALE_BLOCK
                                                                  : HUM_SCALE_GROUP;
        spec.group_size = c->w_group;
        spec.group_size_n = spec.scale_type == HUM_SCALE_BLOCK ? c->w_group : 0;
        spec.zero_point = HUM_ZERO_POINT_NONE;
    }
    const hum_status st = hum_quantize_reference(v, n, k, &spec, w);
    /* the checkpoint's scheme: per token, or FP8 block-wise's e4m3 per 1 x 128 group */
    w->act_dtype = c->a8;
    if (c->a8 && c->a_group == 128) {
        w->act_scale = HUM_ACT_SCALE_GROUP;
        w->act_group = 128;
    }
    free(v);
    free(b);
    return QUANT_CHECK(st == HUM_OK, "%s: weight: %s", c->name, hum_last_error());
}

static int setup(fixture *f, hum_runtime *rt, quant_rng *rng, const layer_case *c)
{
    memset(f, 0, sizeof *f);
    f->c = c;
    f->rt = rt;
    const int64_t n13 = c->activation == HUM_MOE_RELU2 ? c->i : 2 * c->i;
    if (!make_weight(rng, c, c->e, n13, c->h, &f->w13) || !make_weight(rng, c, c->e, c->h, c->i, &f->w2))
        return 0;
    hum_moe_options_init(&f->opts);
    f->opts.activation = c->activation;
    f->opts.gate_up = c->interleaved ? HUM_MOE_GATE_UP_INTERLEAVED : HUM_MOE_GATE_UP_SPLIT;
    f->opts.top_k = c->top_k;
    f->opts.global_experts = c->e_global;
    if (c->host_q) {
        f->opts.hidden_dtype = c->a8;
        f->opts.hidden_group = c->a_group;
    }
    for (int32_t g = 0; g < c->e_global; g++)
        f->map[g] = c->rank > 0 ? (g >= c->rank * c->e && g < (c->rank + 1) * c->e ? g - c->rank * c->e : -1) : g;
    /* the weights stand for this rank's experts: the layer keeps them all */
    hum_moe_info info;
    if (!QUANT_CHECK(hum_moe_from_standard(rt, &f->w13, &f->w2, &f->opts, &f->moe) == HUM_OK &&
                         hum_moe_prepare(f->moe) == HUM_OK && hum_moe_get_info(f->moe, &info) == HUM_OK &&
                         hum_device_alloc(0, (size_t)c->e_global * 4, &f->d_map) == HUM_OK &&
                         hum_memcpy_htod(f->d_map, f->map, (size_t)c->e_global * 4) == HUM_OK,
                     "%s: layer: %s", c->name, hum_last_error()))
        return 0;
    f->as_run = (hum_moe_numerics){act_dtype(c),
                                   info.gate_up_gemm.config.a_dtype,
                                   info.down_gemm.config.a_dtype,
                                   (int32_t)info.gate_up_gemm.config.a_group,
                                   (int32_t)info.down_gemm.config.a_group,
                                   info.gate_up_gemm.config.a_round,
                                   info.down_gemm.config.a_round};
    /* mxfp8 is rounded into the 16-bit type: both GEMMs 16-bit, no groups; the host's MXFP8
     * codes run as they are, the down GEMM's A per token (the weights' scheme) */
    const int32_t round = c->a_group == 32 && !c->host_q ? HUM_A_ROUND_MXFP8 : HUM_A_ROUND_NONE;
    const int32_t group = round ? 0 : c->a_group, down_group = c->host_q && c->a_group == 32 ? 0 : group;
    const hum_dtype want = c->a8 && !round ? c->a8 : act_dtype(c), want_down = c->down_a ? c->down_a : want;
    printf("  %s: activations gate/up %s; down %s\n", c->name, info.gate_up_activation, info.down_activation);
    return QUANT_CHECK(f->as_run.gate_up_a == want && f->as_run.down_a == want_down &&
                           f->as_run.gate_up_group == group && f->as_run.down_group == down_group &&
                           f->as_run.gate_up_round == round && f->as_run.down_round == round,
                       "%s: the GEMMs run %s and %s in groups of %d and %d (a_round %d, %d), expected %s and %s in "
                       "groups of %d and %d (a_round %d)",
                       c->name, hum_dtype_name(f->as_run.gate_up_a), hum_dtype_name(f->as_run.down_a),
                       f->as_run.gate_up_group, f->as_run.down_group, f->as_run.gate_up_round, f->as_run.down_round,
                       hum_dtype_name(want), hum_dtype_name(want_down), group, down_group, round);
}

static void teardown(fixture *f)
{
    hum_moe_destroy(f->moe);
    hum_standard_free(&f->w13);
    hum_standard_free(&f->w2);
    hum_device_free(f->d_map);
}

/* One routing of m tokens: ids (int32), weights and hidden (codes and values). */
typedef struct batch {
    int64_t m;
    int32_t *ids;
    float *w;
    uint16_t *x_codes;
    double *x;
} batch;

enum { ROUTE_RANDOM, ROUTE_ONE_EXPERT, ROUTE_WITH_DROPS };

static void make_batch(quant_rng *rng, const fixture *f, int64_t m, int route, batch *b)
{
    const layer_case *c = f->c;
    b->m = m;
    b->ids = malloc((size_t)(m * c->top_k + 1) * 4);
    b->w = malloc((size_t)(m * c->top_k + 1) * 4);
    b->x_codes = malloc((size_t)(m * c->h + 1) * 2);
    b->x = malloc((size_t)(m * c->h + 1) * sizeof *b->x);
    for (int64_t t = 0; t < m; t++)
        for (int32_t j = 0; j < c->top_k; j++) {
            int32_t id;
            int repeat;
            do { /* distinct experts per token, as a router picks them */
                id = route == ROUTE_ONE_EXPERT ? (j == 0 ? c->rank * c->e : (int32_t)quant_rng_below(rng, c->e_global))
                                               : (int32_t)quant_rng_below(rng, c->e_global);
                repeat = 0;
                for (int32_t q = 0; q < j; q++)
                    repeat |= b->ids[t * c->top_k + q] == id;
            } while (repeat);
            if (route == ROUTE_WITH_DROPS && quant_rng_below(rng, 6) == 0)
                id = quant_rng_below(rng, 2) ? -1 : c->e_global + 5;
            b->ids[t * c->top_k + j] = id;
            b->w[t * c->top_k + j] = c->top_k == 1 ? 0.5f : (float)(0.25 + quant_rng_uniform(rng)); /* unnormalised */
        }
    quant_fill_activations(rng, act_dtype(c), m * c->h, c->x_scale,
                           b->x_codes, b->x);
}

static void free_batch(batch *b)
{
    free(b->ids);
    free(b->w);
    free(b->x_codes);
    free(b->x);
}

static hum_tensor dev(void *p, hum_dtype t, int rank, int64_t r, int64_t c)
{
    hum_tensor x = {.data = p, .dtype = t, .rank = rank, .shape = {r, c}, .memory = HUM_MEMORY_DEVICE};
    return x;
}

/* Device copies of a batch; ids64: as int64. */
typedef struct dbatch {
    void *x, *ids, *w, *out;
    void *xs; /* the host-quantized hidden's scales (hum_moe_options.hidden_dtype), else NULL */
    int64_t ldq, lds; /* their row strides in elements: codes, and scales in groups */
    int32_t ids64;
} dbatch;

/* Scales per hidden row: one, or one per group of a_group columns. */
static int64_t hidden_groups(const layer_case *c) { return c->a_group ? (c->h + c->a_group - 1) / c->a_group : 1; }

/* The host-quantized hidden's scales: e8m0 bytes for MXFP8's groups of 32, else float32. */
static hum_dtype hidden_scale_dtype(const layer_case *c)
{
    return c->a_group == 32 ? HUM_DTYPE_FLOAT8_E8M0 : HUM_DTYPE_FLOAT32;
}

static size_t hidden_scale_bytes(const layer_case *c, int64_t m)
{
    return (size_t)(m * hidden_groups(c)) * (c->a_group == 32 ? 1 : 4);
}

/* The host's quantization of a batch's hidden rows (hum_moe_options.hidden_dtype): the layers'
 * CPU twin, per token or per group, into codes q [m, H] and scales s (hidden_scale_dtype). The
 * reference quantizes the 16-bit rows the same way (hum_moe_numerics), so the layer must match
 * it. */
static int quantize_hidden(const fixture *f, const batch *b, uint8_t *q, void *s)
{
    const layer_case *c = f->c;
    const hum_tensor th = {.data = b->x_codes, .dtype = act_dtype(c), .rank = 2, .shape = {b->m, c->h},
                           .memory = HUM_MEMORY_HOST};
    const hum_tensor tq = {.data = q, .dtype = c->a8, .rank = 2, .shape = {b->m, c->h}, .memory = HUM_MEMORY_HOST};
    const hum_tensor ts = {.data = s, .dtype = hidden_scale_dtype(c), .rank = c->a_group ? 2 : 1,
                           .shape = {b->m, c->a_group ? hidden_groups(c) : 0}, .memory = HUM_MEMORY_HOST};
    const hum_act_quant how = {c->a8, c->a_group ? HUM_ACT_SCALE_GROUP : HUM_ACT_SCALE_TOKEN, c->a_group,
                               hidden_scale_dtype(c)};
    return QUANT_CHECK(hum_quantize_activations(&th, &how, 0.0f, &tq, &ts) == HUM_OK, "%s: the host's quantization: "
                       "%s", c->name, hum_last_error());
}

static int upload(const fixture *f, const batch *b, int32_t ids64, dbatch *d)
{
    const int64_t m = b->m, k = f->c->top_k, h = f->c->h;
    memset(d, 0, sizeof *d);
    d->ids64 = ids64;
    int64_t *ids = malloc((size_t)(m * k + 1) * 8);
    for (int64_t i = 0; i < m * k; i++)
        ids[i] = b->ids[i];
    int ok = hum_device_alloc(0, (size_t)(m * h + 8) * 2, &d->x) == HUM_OK &&
             hum_device_alloc(0, (size_t)(m * k + 1) * 8, &d->ids) == HUM_OK &&
             hum_device_alloc(0, (size_t)(m * k + 1) * 4, &d->w) == HUM_OK &&
             hum_device_alloc(0, (size_t)(m * h + 8) * 2, &d->out) == HUM_OK &&
             hum_memcpy_htod(d->x, b->x_codes, (size_t)(m * h) * 2) == HUM_OK &&
             hum_memcpy_htod(d->ids, ids64 ? (void *)ids : (void *)b->ids, (size_t)(m * k) * (ids64 ? 8 : 4)) ==
                 HUM_OK &&
             hum_memcpy_htod(d->w, b->w, (size_t)(m * k) * 4) == HUM_OK;
    free(ids);
    if (ok && f->opts.hidden_dtype) {
        /* the codes over the 16-bit rows' allocation (half of it), their scales beside; for M a
         * multiple of 3 (150, 300: chunks of 70) rows 16 codes and, in groups, 3 scales apart
         * from their length */
        const int strided = m % 3 == 0;
        const int64_t groups = hidden_groups(f->c), sb = f->c->a_group == 32 ? 1 : 4;
        d->ldq = strided ? h + 16 : h;
        d->lds = f->c->a_group && strided ? groups + 3 : groups;
        const size_t scales = hidden_scale_bytes(f->c, m);
        uint8_t *q = malloc((size_t)(m * h) + 1), *qs = calloc((size_t)(m * d->ldq) + 1, 1);
        char *sc = malloc(scales + 4), *ss = calloc((size_t)(m * d->lds * sb) + 4, 1);
        ok = q && qs && sc && ss && quantize_hidden(f, b, q, sc);
        for (int64_t r = 0; ok && r < m; r++) {
            memcpy(qs + r * d->ldq, q + r * h, (size_t)h);
            memcpy(ss + r * d->lds * sb, sc + r * groups * sb, (size_t)(groups * sb));
        }
        ok = ok && hum_device_alloc(0, (size_t)(m * d->lds * sb) + 4, &d->xs) == HUM_OK &&
             hum_memcpy_htod(d->x, qs, (size_t)(m * d->ldq)) == HUM_OK &&
             hum_memcpy_htod(d->xs, ss, (size_t)(m * d->lds * sb)) == HUM_OK;
        free(q);
        free(qs);
        free(sc);
        free(ss);
    }
    return QUANT_CHECK(ok, "upload M %lld: %s", (long long)m, hum_last_error());
}

static void free_dbatch(dbatch *d)
{
    hum_device_free(d->x);
    hum_device_free(d->ids);
    hum_device_free(d->w);
    hum_device_free(d->out);
    hum_device_free(d->xs);
}

static hum_status forward(const fixture *f, hum_workspace *ws, CUstream stream, const batch *b, const dbatch *d,
                          int use_map, int accumulate)
{
    const int64_t m = b->m, k = f->c->top_k, h = f->c->h;
    const hum_tensor x = dev(d->x, act_dtype(f->c), 2, m, h), out = dev(d->out, act_dtype(f->c), 2, m, h);
    const hum_tensor ids = dev(d->ids, d->ids64 ? HUM_DTYPE_INT64 : HUM_DTYPE_INT32, 2, m, k);
    const hum_tensor w = dev(d->w, HUM_DTYPE_FLOAT32, 2, m, k);
    const hum_tensor map = dev(f->d_map, HUM_DTYPE_INT32, 1, f->c->e_global, 0);
    if (f->opts.hidden_dtype) {
        hum_tensor q = dev(d->x, f->opts.hidden_dtype, 2, m, h);
        q.strides[0] = d->ldq;
        const hum_dtype sd = hidden_scale_dtype(f->c);
        hum_tensor s = f->c->a_group ? dev(d->xs, sd, 2, m, hidden_groups(f->c)) : dev(d->xs, sd, 1, m, 0);
        if (f->c->a_group)
            s.strides[0] = d->lds;
        return hum_moe_forward_quantized(f->moe, ws, stream, &q, &s, &ids, &w, use_map ? &map : NULL, &out,
                                         accumulate);
    }
    return hum_moe_forward(f->moe, ws, stream, &x, &ids, &w, use_map ? &map : NULL, &out, accumulate);
}

/* The reference of a batch (through the map when use_map), plus `base` when not NULL: as the
 * layer runs (8-bit A), or float64 throughout (exact). */
static int reference_of(const fixture *f, const batch *b, int use_map, const double *base, int exact, double *ref)
{
    const hum_tensor ids = {.data = b->ids, .dtype = HUM_DTYPE_INT32, .rank = 2, .shape = {b->m, f->c->top_k},
                            .memory = HUM_MEMORY_HOST};
    const hum_moe_numerics *as_run = f->c->a8 && !exact ? &f->as_run : NULL;
    if (!QUANT_CHECK(hum_moe_reference(&f->w13, &f->w2, &f->opts, b->x, &ids, b->w, use_map ? f->map : NULL, as_run,
                                       ref) == HUM_OK,
                     "reference: %s", hum_last_error()))
        return 0;
    for (int64_t i = 0; base && i < b->m * f->c->h; i++)
        ref[i] += base[i];
    return 1;
}

static int reference(const fixture *f, const batch *b, int use_map, const double *base, double *ref)
{
    return reference_of(f, b, use_map, base, 0, ref);
}

/* The output of a finished forward, decoded; NULL after a failed copy. */
static double *download(const fixture *f, const dbatch *d, int64_t m, uint16_t *codes)
{
    const int64_t n = m * f->c->h;
    double *got = malloc((size_t)(n + 1) * sizeof *got);
    if (!QUANT_CHECK(hum_memcpy_dtoh(codes, d->out, (size_t)n * 2) == HUM_OK, "%s", hum_last_error())) {
        free(got);
        return NULL;
    }
    hum_dtype_decode(act_dtype(f->c), codes, n, got);
    return got;
}

/* got against ref: every element finite, relative error in tolerance, and the tokens with no
 * local expert exactly `base` (0 without accumulation). */
static void compare(const fixture *f, const batch *b, int use_map, const double *got, const double *ref,
                    const char *what)
{
    const layer_case *c = f->c;
    const int64_t n = b->m * c->h;
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++)
        if (!isfinite(got[i]))
            bad = i;
    if (!QUANT_CHECK(bad < 0, "%s %s M %lld: element %lld is %g", c->name, what, (long long)b->m, (long long)bad,
                     bad < 0 ? 0.0 : got[bad]))
        return;
    const double err = quant_rel_error(got, ref, n), tol = c->bf16 ? 2e-2 : 1e-2;
    QUANT_CHECK(err < tol, "%s %s M %lld: relative error %.3e (tolerance %.0e)", c->name, what, (long long)b->m, err,
                tol);
    int64_t empty = 0;
    for (int64_t t = 0; t < b->m; t++) {
        int local = 0;
        for (int32_t j = 0; j < c->top_k; j++) {
            const int32_t g = b->ids[t * c->top_k + j];
            local |= g >= 0 && g < c->e_global && (!use_map || f->map[g] >= 0);
        }
        if (local)
            continue;
        empty++;
        for (int64_t h = 0; h < c->h; h++)
            if (!QUANT_CHECK(got[t * c->h + h] == ref[t * c->h + h], "%s %s: token %lld has no local expert but "
                             "out[%lld] = %g (expected %g)", c->name, what, (long long)t, (long long)h,
                             got[t * c->h + h], ref[t * c->h + h]))
                break;
    }
    /* 8-bit A: what quantizing A costs, against the layer in float64 throughout */
    double exact_err = -1;
    double *exact = c->a8 ? malloc((size_t)n * sizeof *exact) : NULL;
    if (exact && reference_of(f, b, use_map, NULL, 1, exact))
        exact_err = quant_rel_error(got, exact, n);
    free(exact);
    char beside[96] = "";
    if (exact_err >= 0)
        snprintf(beside, sizeof beside, " (%.2e against unquantized A)", exact_err);
    printf("  %s %s M %lld: relative error %.2e%s%s\n", c->name, what, (long long)b->m, err, beside,
           empty ? " (tokens with no local expert exact)" : "");
}

/* The tokens [0, SAMPLE) and [m - SAMPLE, m) of a batch and of its output, when m is large
 * enough that the float64 reference of every token would dominate the test. */
enum { SAMPLE = 64 };
static void sample(const fixture *f, const batch *b, const double *got, batch *s, double *s_got)
{
    const int64_t k = f->c->top_k, h = f->c->h, m = b->m;
    *s = *b;
    s->m = 2 * SAMPLE;
    for (int half = 0; half < 2; half++) {
        const int64_t from = half ? m - SAMPLE : 0, to = half * SAMPLE;
        memmove(s->ids + to * k, b->ids + from * k, (size_t)(SAMPLE * k) * sizeof *s->ids);
        memmove(s->w + to * k, b->w + from * k, (size_t)(SAMPLE * k) * sizeof *s->w);
        memmove(s->x + to * h, b->x + from * h, (size_t)(SAMPLE * h) * sizeof *s->x);
        memmove(s_got + to * h, got + from * h, (size_t)(SAMPLE * h) * sizeof *s_got);
    }
}

/* One forward of a fresh batch of m tokens, poisoned output, checked (sampled tokens past
 * 4 * SAMPLE). */
static void run_case(const fixture *f, quant_rng *rng, int64_t m, int route, int use_map, int ids64,
                     int64_t ws_tokens, const char *what)
{
    batch b;
    dbatch d;
    make_batch(rng, f, m, route, &b);
    const int64_t n = m * f->c->h;
    double *ref = malloc((size_t)(n + 1) * sizeof *ref), *got = NULL;
    uint16_t *codes = malloc((size_t)(n + 1) * 2);
    int64_t bytes = 0;
    hum_workspace *ws = NULL;
    if (!upload(f, &b, ids64, &d) ||
        !QUANT_CHECK(hum_moe_workspace_size(f->moe, ws_tokens, &bytes) == HUM_OK &&
                         hum_workspace_create(f->rt, NULL, bytes, &ws) == HUM_OK &&
                         hum_memset_d8(d.out, 0xFF, (size_t)n * 2) == HUM_OK,
                     "%s: workspace: %s", what, hum_last_error()))
        goto done;
    if (!QUANT_CHECK(forward(f, ws, NULL, &b, &d, use_map, 0) == HUM_OK && hum_stream_synchronize(NULL) == HUM_OK,
                     "%s %s M %lld: %s", f->c->name, what, (long long)m, hum_last_error()))
        goto done;
    if ((got = download(f, &d, m, codes)) != NULL) {
        if (m > 4 * SAMPLE) /* the batch's arrays are rewritten in place: it is not used after */
            sample(f, &b, got, &b, got);
        if (reference(f, &b, use_map, NULL, ref))
            compare(f, &b, use_map, got, ref, what);
    }
done:
    hum_workspace_destroy(ws);
    free_dbatch(&d);
    free_batch(&b);
    free(ref);
    free(got);
    free(codes);
}

/* A layer of host-quantized hidden: hum_moe_forward refused naming hum_moe_forward_quantized;
 * hidden_scale missing, of the other shape, or of e8m0 refused naming it; 16-bit hidden refused;
 * and a layer of 16-bit hidden refused by hum_moe_forward_quantized. Nothing runs. */
static void check_quantized_edges(const fixture *f, quant_rng *rng)
{
    batch b;
    dbatch d;
    make_batch(rng, f, 4, ROUTE_RANDOM, &b);
    int64_t bytes = 0;
    hum_workspace *ws = NULL;
    const layer_case *c = f->c;
    if (upload(f, &b, 0, &d) && QUANT_CHECK(hum_moe_workspace_size(f->moe, 4, &bytes) == HUM_OK &&
                                                hum_workspace_create(f->rt, NULL, bytes, &ws) == HUM_OK,
                                            "%s", hum_last_error())) {
        const hum_tensor q = dev(d.x, c->a8, 2, 4, c->h), x16 = dev(d.x, act_dtype(c), 2, 4, c->h);
        const hum_tensor out = dev(d.out, act_dtype(c), 2, 4, c->h);
        const hum_tensor ids = dev(d.ids, HUM_DTYPE_INT32, 2, 4, c->top_k);
        const hum_tensor w = dev(d.w, HUM_DTYPE_FLOAT32, 2, 4, c->top_k);
        /* per token where the layer takes groups, groups where it takes one per token */
        const hum_tensor other = c->a_group ? dev(d.xs, hidden_scale_dtype(c), 1, 4, 0)
                                            : dev(d.xs, HUM_DTYPE_FLOAT32, 2, 4, 2);
        /* the scale dtype the layer does not take */
        const hum_dtype wrong = hidden_scale_dtype(c) == HUM_DTYPE_FLOAT32 ? HUM_DTYPE_FLOAT8_E8M0 : HUM_DTYPE_FLOAT32;
        const hum_tensor e8 = c->a_group ? dev(d.xs, wrong, 2, 4, hidden_groups(c)) : dev(d.xs, wrong, 1, 4, 0);
        QUANT_CHECK(hum_moe_forward(f->moe, ws, NULL, &x16, &ids, &w, NULL, &out, 0) == HUM_ERR_INVALID_ARG &&
                        strstr(hum_last_error(), "hum_moe_forward_quantized"),
                    "%s: hum_moe_forward: %s", c->name, hum_last_error());
        const struct {
            const hum_tensor *x, *s;
            const char *what, *needle;
        } bad[] = {{&q, NULL, "no hidden_scale", "hidden_scale"},
                   {&q, &other, "hidden_scale of the other shape", "hidden_scale"},
                   {&q, &e8, "hidden_scale of the other dtype", "hidden_scale"},
                   {&x16, &other, "16-bit hidden", "hidden is"}};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            QUANT_CHECK(hum_moe_forward_quantized(f->moe, ws, NULL, bad[i].x, bad[i].s, &ids, &w, NULL, &out, 0) ==
                                HUM_ERR_INVALID_ARG &&
                            strstr(hum_last_error(), bad[i].needle),
                        "%s: %s: %s", c->name, bad[i].what, hum_last_error());
    }
    hum_workspace_destroy(ws);
    free_dbatch(&d);
    free_batch(&b);
}

/* M = 0 succeeds and writes nothing; bad tensors are refused naming them. */
static void check_edges(const fixture *f, quant_rng *rng)
{
    batch b;
    dbatch d;
    make_batch(rng, f, 4, ROUTE_RANDOM, &b);
    int64_t bytes = 0;
    hum_workspace *ws = NULL;
    uint16_t poison[8];
    if (upload(f, &b, 0, &d) &&
        QUANT_CHECK(hum_moe_workspace_size(f->moe, 4, &bytes) == HUM_OK &&
                        hum_workspace_create(f->rt, NULL, bytes, &ws) == HUM_OK &&
                        hum_memset_d8(d.out, 0xAB, 16) == HUM_OK,
                    "%s", hum_last_error())) {
        batch none = b;
        none.m = 0;
        QUANT_CHECK(forward(f, ws, NULL, &none, &d, 0, 0) == HUM_OK && hum_stream_synchronize(NULL) == HUM_OK &&
                        hum_memcpy_dtoh(poison, d.out, 16) == HUM_OK && poison[0] == 0xABAB && poison[7] == 0xABAB,
                    "M = 0: %s", hum_last_error());
        const hum_tensor x = dev(d.x, act_dtype(f->c), 2, 4, f->c->h), out = dev(d.out, act_dtype(f->c), 2, 4, f->c->h);
        const hum_tensor ids = dev(d.ids, HUM_DTYPE_INT32, 2, 4, f->c->top_k);
        const hum_tensor w = dev(d.w, HUM_DTYPE_FLOAT32, 2, 4, f->c->top_k);
        const hum_tensor bad_w = dev(d.w, HUM_DTYPE_FLOAT16, 2, 4, f->c->top_k);
        const hum_tensor short_ids = dev(d.ids, HUM_DTYPE_INT32, 2, 3, f->c->top_k);
        const hum_tensor bad_map = dev(f->d_map, HUM_DTYPE_INT32, 1, f->c->e_global - 1, 0);
        QUANT_CHECK(hum_moe_forward(f->moe, ws, NULL, &x, &ids, &bad_w, NULL, &out, 0) == HUM_ERR_INVALID_ARG &&
                        strstr(hum_last_error(), "topk_weights is float16"),
                    "float16 weights: %s", hum_last_error());
        QUANT_CHECK(hum_moe_forward(f->moe, ws, NULL, &x, &short_ids, &w, NULL, &out, 0) == HUM_ERR_INVALID_ARG &&
                        strstr(hum_last_error(), "topk_ids"),
                    "3 rows of ids for 4 tokens: %s", hum_last_error());
        QUANT_CHECK(hum_moe_forward(f->moe, ws, NULL, &x, &ids, &w, &bad_map, &out, 0) == HUM_ERR_INVALID_ARG &&
                        strstr(hum_last_error(), "expert_map"),
                    "short map: %s", hum_last_error());
        QUANT_CHECK(hum_moe_forward_quantized(f->moe, ws, NULL, &x, NULL, &ids, &w, NULL, &out, 0) ==
                            HUM_ERR_INVALID_ARG &&
                        strstr(hum_last_error(), "(hum_moe_forward;"),
                    "hum_moe_forward_quantized of 16-bit hidden: %s", hum_last_error());
    }
    hum_workspace_destroy(ws);
    free_dbatch(&d);
    free_batch(&b);
}

/* accumulate: out holds a shared expert's output first, the layer adds to it. */
static void check_accumulate(const fixture *f, quant_rng *rng)
{
    const int64_t m = 33, n = m * f->c->h;
    batch b;
    dbatch d;
    make_batch(rng, f, m, ROUTE_WITH_DROPS, &b);
    double *base = malloc((size_t)n * sizeof *base), *ref = malloc((size_t)n * sizeof *ref), *got = NULL;
    uint16_t *codes = malloc((size_t)n * 2);
    int64_t bytes = 0;
    hum_workspace *ws = NULL;
    quant_fill_activations(rng, act_dtype(f->c), n, 1.0, codes, base);
    if (upload(f, &b, 0, &d) && reference(f, &b, 1, base, ref) &&
        QUANT_CHECK(hum_moe_workspace_size(f->moe, m, &bytes) == HUM_OK &&
                        hum_workspace_create(f->rt, NULL, bytes, &ws) == HUM_OK &&
                        hum_memcpy_htod(d.out, codes, (size_t)n * 2) == HUM_OK &&
                        forward(f, ws, NULL, &b, &d, 1, 1) == HUM_OK && hum_stream_synchronize(NULL) == HUM_OK,
                    "accumulate: %s", hum_last_error()) &&
        (got = download(f, &d, m, codes)) != NULL)
        compare(f, &b, 1, got, ref, "accumulating");
    hum_workspace_destroy(ws);
    free_dbatch(&d);
    free_batch(&b);
    free(base);
    free(ref);
    free(got);
    free(codes);
}

/* The forward check_graph_and_batch_invariance captures. */
typedef struct {
    const fixture *f;
    hum_workspace *ws;
    const batch *b;
    const dbatch *d;
} graph_forward;

static hum_status record_forward(void *ctx, CUstream stream)
{
    const graph_forward *g = ctx;
    return forward(g->f, g->ws, stream, g->b, g->d, 1, 0);
}

/* A graph captured once and replayed with new routings, weights and hidden written into the
 * captured buffers; then token 0 alone gives the bits it gave inside the batch. */
static void check_graph_and_batch_invariance(const fixture *f, quant_rng *rng)
{
    const hum_cuda_api *cu = hum_cuda();
    const int64_t m = 48, n = m * f->c->h;
    batch b;
    dbatch d;
    make_batch(rng, f, m, ROUTE_RANDOM, &b);
    double *ref = malloc((size_t)n * sizeof *ref), *got = NULL;
    uint16_t *codes = malloc((size_t)n * 2), *alone = malloc((size_t)f->c->h * 2);
    int64_t bytes = 0;
    hum_workspace *ws = NULL;
    CUstream stream = NULL;
    CUgraphExec exec = NULL;
    if (!upload(f, &b, 0, &d) ||
        !QUANT_CHECK(hum_moe_workspace_size(f->moe, m, &bytes) == HUM_OK &&
                         hum_workspace_create(f->rt, NULL, bytes, &ws) == HUM_OK &&
                         cu && hum_cuda_result(cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                                               "cuStreamCreate") == HUM_OK,
                     "graph setup: %s", hum_last_error()))
        goto done;
    graph_forward g = {f, ws, &b, &d};
    QUANT_CHECK(graph_test_capture(stream, record_forward, &g, &exec, NULL) == HUM_OK, "capture: %s",
                hum_last_error());
    for (int rep = 0; exec && rep < 3; rep++) {
        batch nb;
        make_batch(rng, f, m, rep == 1 ? ROUTE_ONE_EXPERT : ROUTE_WITH_DROPS, &nb);
        int ok = reference(f, &nb, 1, NULL, ref) &&
                 QUANT_CHECK(hum_memcpy_htod(d.ids, nb.ids, (size_t)(m * f->c->top_k) * 4) == HUM_OK &&
                                 hum_memcpy_htod(d.w, nb.w, (size_t)(m * f->c->top_k) * 4) == HUM_OK &&
                                 hum_memcpy_htod(d.x, nb.x_codes, (size_t)n * 2) == HUM_OK &&
                                 hum_memset_d8(d.out, 0xFF, (size_t)n * 2) == HUM_OK &&
                                 hum_cuda_result(cu->cuGraphLaunch(exec, stream), "cuGraphLaunch") == HUM_OK &&
                                 hum_cuda_result(cu->cuStreamSynchronize(stream), "cuStreamSynchronize") ==
                                     HUM_OK,
                             "graph replay %d: %s", rep, hum_last_error());
        if (ok && (got = download(f, &d, m, codes)) != NULL)
            compare(f, &nb, 1, got, ref, rep == 1 ? "graph replay (one expert)" : "graph replay");
        free(got);
        got = NULL;
        if (rep == 2 && ok) {
            /* token 0 alone, through the same layer: the same bits as in the batch of 48 */
            batch one = nb;
            one.m = 1;
            QUANT_CHECK(hum_memset_d8(d.out, 0xFF, (size_t)f->c->h * 2) == HUM_OK &&
                            forward(f, ws, NULL, &one, &d, 1, 0) == HUM_OK && hum_stream_synchronize(NULL) == HUM_OK &&
                            hum_memcpy_dtoh(alone, d.out, (size_t)f->c->h * 2) == HUM_OK,
                        "token alone: %s", hum_last_error());
            QUANT_CHECK(!memcmp(alone, codes, (size_t)f->c->h * 2),
                        "%s: token 0 alone differs from token 0 in a batch of %lld", f->c->name, (long long)m);
        }
        free_batch(&nb);
    }
done:
    if (exec)
        cu->cuGraphExecDestroy(exec);
    if (stream)
        cu->cuStreamDestroy(stream);
    hum_workspace_destroy(ws);
    free_dbatch(&d);
    free_batch(&b);
    free(ref);
    free(codes);
    free(alone);
}

/* A site policy giving both expert GEMMs one tile of `stages` stages, block M `bm` (0: 64 for a
 * GEMM of K = 64, the down GEMM of the reload case's layer, 32 for the other: GEMMs that
 * disagree), named moe-site-BM (moe-site-mixed) and -sS for other than 3 stages. */
static void write_site_policy(const char *dir, int bm, int stages)
{
    char text[1024], name[64];
    char pick[64] = "(layer.k == 64 and 64 or 32)";
    if (bm)
        snprintf(pick, sizeof pick, "%d", bm);
    snprintf(name, sizeof name, "moe-site-%s", bm ? pick : "mixed");
    if (stages != 3)
        snprintf(name + strlen(name), sizeof name - strlen(name), "-s%d", stages);
    snprintf(text, sizeof text,
             "local policy = require('hum.policy')\n"
             "return {\n"
             "  name = '%s',\n"
             "  applies = function(device) return true end,\n"
             "  tunings = function(device, layer, compute)\n"
             "    local bm = %s\n"
             "    return policy.ranges({ { math.huge, policy.mma_tuning(bm, 64, 64, bm >= 64 and 32 or bm, 32, 64, %d) } })\n"
             "  end,\n"
             "}\n",
             name, pick, stages);
    rt_write(dir, "site.lua", text);
}

/* The tables in force of both GEMMs: the site policy's, block M bm, at this generation. */
static int tables_are(const fixture *f, const char *policy, int32_t bm, uint64_t generation, const char *what)
{
    hum_moe_info info;
    if (!QUANT_CHECK(hum_moe_get_info(f->moe, &info) == HUM_OK, "%s: %s", what, hum_last_error()))
        return 0;
    const hum_layer_info *g[2] = {&info.gate_up_gemm, &info.down_gemm};
    int ok = 1;
    for (int i = 0; i < 2; i++)
        ok &= QUANT_CHECK(!strcmp(g[i]->policy_name, policy) && g[i]->generation == generation &&
                              g[i]->entry_count == 1 && g[i]->entries[0].block_m == bm,
                          "%s: GEMM %d has policy %s, generation %llu, %d entries, block_m %d; expected %s, %llu, 1, %d",
                          what, i, g[i]->policy_name, (unsigned long long)g[i]->generation, g[i]->entry_count,
                          g[i]->entries[0].block_m, policy, (unsigned long long)generation, bm);
    return ok;
}

/* A policy reload re-plans a prepared MoE layer's two GEMMs together (layer_reload.c): a site
 * policy giving them another block_m than the tables in force (larger or smaller: forwards
 * during the swap may pair an old table with a new one), or different block_m to each, is
 * refused as a whole (the old tables stay, forwards stay right); one that keeps block_m and
 * changes the stages is taken. */
static void check_reload(quant_rng *rng)
{
    char dir[4096];
    rt_tmpdir("moe-reload", dir, sizeof dir);
    write_site_policy(dir, 64, 3);
    hum_runtime *rt = NULL;
    static const layer_case c = {"silu reload bf16", 8, 8, 2, 128, 64, HUM_MOE_SILU, 0, 0, 1, 0, 1.0, 0, 0, 0, 0, 0, 0};
    fixture f;
    memset(&f, 0, sizeof f);
    if (QUANT_CHECK(rt_runtime_with_config(dir, "policy_paths: [site.lua]\n", &rt) == HUM_OK, "%s",
                    hum_last_error()) &&
        setup(&f, rt, rng, &c) && tables_are(&f, "moe-site-64", 64, 0, "prepared")) {
        run_case(&f, rng, 37, ROUTE_RANDOM, 0, 0, 64, "before the reloads");
        static const struct {
            int bm;
            const char *what, *why;
        } refused[] = {{128, "to block_m 128", "the one in force 64"},
                       {32, "to block_m 32", "the one in force 64"},
                       {0, "of mixed block_m", "the gate/up GEMM has block_m 32 and the down GEMM 64"}};
        for (int r = 0; r < 3; r++) {
            write_site_policy(dir, refused[r].bm, 3);
            const hum_status st = hum_runtime_reload_policies(rt);
            const char *msg = hum_last_error();
            printf("  reload %s refused: %s\n", refused[r].what, msg);
            QUANT_CHECK(st == HUM_ERR_POLICY && strstr(msg, refused[r].why) && strstr(msg, "MoE layer"),
                        "reload %s: status %d, '%s'", refused[r].what, (int)st, msg);
            tables_are(&f, "moe-site-64", 64, 0, "after a refused reload");
            run_case(&f, rng, 150, ROUTE_RANDOM, 0, 0, 150, "after a refused reload");
        }
        /* with an activation override added: prepared layers keep the A types they were
         * prepared for (a_fixed; the activation kernel writes the down GEMM's), which the
         * forwards below check against the bfloat16 reference */
        write_site_policy(dir, 64, 4);
        rt_write(dir, "hum.yaml", "policy_paths: [site.lua]\noverrides:\n  moe:\n    activation: e4m3\n");
        QUANT_CHECK(hum_runtime_reload_policies(rt) == HUM_OK, "reload to 4 stages: %s", hum_last_error());
        tables_are(&f, "moe-site-64-s4", 64, 1, "after the reload to 4 stages");
        run_case(&f, rng, 150, ROUTE_RANDOM, 0, 0, 150, "after the reload to 4 stages");
        run_case(&f, rng, 200, ROUTE_ONE_EXPERT, 0, 0, 200, "one expert, after the reload to 4 stages");
    }
    teardown(&f);
    hum_runtime_destroy(rt);
    rt_rmtree(dir);
}

int main(void)
{
    if (!gemm_test_have_gpu())
        return 77;
    quant_rng rng = quant_rng_fresh("moe_forward");
    /* mxfp8 runs where the deployment asks for it (lua/hum/activation.lua) */
    char dir[4096];
    rt_tmpdir("moe-forward", dir, sizeof dir);
    hum_runtime *rt = NULL, *rt_mx = NULL;
    if (!QUANT_CHECK(hum_runtime_create(NULL, &rt) == HUM_OK &&
                         rt_runtime_with_config(dir, RT_MOE_MXFP8_YAML, &rt_mx) == HUM_OK, "%s",
                     hum_last_error()))
        return quant_test_result("moe_forward");
    static const layer_case cases[] = {
        /* name                 E  Eglob topk  H    I   activation          inter bias bf16 rank x */
        {"silu e128 top8 bf16", 128, 128, 8, 256, 128, HUM_MOE_SILU, 0, 0, 1, 0, 1.0, 0, 0, 0, 0, 0, 0},
        {"silu ep rank2 fp16", 16, 64, 4, 256, 96, HUM_MOE_SILU, 0, 1, 0, 2, 1.0, 0, 0, 0, 0, 0, 0},
        {"swiglu_oai inter bias", 8, 8, 2, 128, 64, HUM_MOE_SWIGLU_OAI, 1, 1, 1, 0, 12.0, 0, 0, 0, 0, 0, 0},
        {"swiglu_oai split", 8, 8, 2, 128, 64, HUM_MOE_SWIGLU_OAI, 0, 0, 1, 0, 12.0, 0, 0, 0, 0, 0, 0},
        {"relu2 top1 fp16", 8, 8, 1, 128, 64, HUM_MOE_RELU2, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 0, 0},
        {"gelu e33 fp16", 33, 33, 3, 96, 40, HUM_MOE_GELU, 0, 1, 0, 0, 1.0, 0, 0, 0, 0, 0, 0},
        {"silu e4m3 x e4m3 bf16", 32, 32, 4, 256, 128, HUM_MOE_SILU, 0, 0, 1, 0, 1.0, HUM_DTYPE_FLOAT8_E4M3FN,
         HUM_DTYPE_FLOAT8_E4M3FN, 0, 0, 0, 0},
        {"swiglu_oai w4a8 e4m3 fp16", 16, 16, 2, 128, 64, HUM_MOE_SWIGLU_OAI, 1, 0, 0, 0, 12.0,
         HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_UINT4, 0, 0, 0, 0},
        {"silu int8 x uint8 bf16", 32, 32, 4, 256, 128, HUM_MOE_SILU, 0, 0, 1, 0, 1.0, HUM_DTYPE_INT8,
         HUM_DTYPE_UINT8, 0, 0, 0, 0},
        /* mxfp8: the hidden rows and the activation's output rounded to mxfp8's values in the
         * 16-bit type (I = 80: a last group of 16) */
        {"silu mxfp8 x e4m3 bf16", 32, 32, 4, 256, 128, HUM_MOE_SILU, 0, 0, 1, 0, 1.0, HUM_DTYPE_FLOAT8_E4M3FN,
         HUM_DTYPE_FLOAT8_E4M3FN, 32, 0, 0, 0},
        {"swiglu_oai w4a8 mxfp8 fp16", 16, 16, 2, 128, 80, HUM_MOE_SWIGLU_OAI, 1, 0, 0, 0, 12.0,
         HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_UINT4, 32, 0, 0, 0},
        /* one block_m for GEMMs that take different families: issue 10's layer (I = 100), H = 100,
         * and W4A8 whose down GEMM (I = 104) runs 16-bit A */
        {"silu e33 i100 bf16", 33, 33, 4, 96, 100, HUM_MOE_SILU, 0, 0, 1, 0, 1.0, 0, 0, 0, 0, 0, 0},
        {"silu e7 h100 i104 fp16", 7, 7, 2, 100, 104, HUM_MOE_SILU, 0, 1, 0, 0, 1.0, 0, 0, 0, 0, 0, 0},
        {"silu w4a8 e4m3 i104 fp16", 16, 16, 2, 128, 104, HUM_MOE_SILU, 0, 0, 0, 0, 1.0, HUM_DTYPE_FLOAT8_E4M3FN,
         HUM_DTYPE_UINT4, 0, HUM_DTYPE_FLOAT16, 0, 0},
        /* scales along K as the checkpoint's scheme: FP8 block-wise (e4m3 weights in float32
         * 128 x 128 blocks, A e4m3 per 1 x 128 group: the hidden rows quantized by the layer, the
         * activation's output by its kernel; I = 160 ends on a group of 32, 2I = 320 on a block
         * of 64 rows), and W4A8 with group-128 weight scales (A per token) */
        {"silu fp8 block bf16", 16, 16, 4, 256, 160, HUM_MOE_SILU, 0, 0, 1, 0, 1.0, HUM_DTYPE_FLOAT8_E4M3FN,
         HUM_DTYPE_FLOAT8_E4M3FN, 128, 0, 128, 0},
        {"swiglu_oai fp8 block inter fp16", 8, 8, 2, 384, 128, HUM_MOE_SWIGLU_OAI, 1, 1, 0, 0, 12.0,
         HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT8_E4M3FN, 128, 0, 128, 0},
        {"silu w4a8 g128 bf16", 16, 16, 2, 256, 128, HUM_MOE_SILU, 0, 0, 1, 0, 1.0, HUM_DTYPE_FLOAT8_E4M3FN,
         HUM_DTYPE_UINT4, 0, 0, 128, 0},
        /* W4A8 int: the same weights under int8 per token, the int32 sums promoted per group */
        {"silu w4a8 int g128 fp16", 16, 16, 2, 256, 128, HUM_MOE_SILU, 0, 0, 0, 0, 1.0, HUM_DTYPE_INT8,
         HUM_DTYPE_UINT4, 0, 0, 128, 0},
        /* the host quantizes hidden itself (hum_moe_forward_quantized): codes and scales per
         * token, and FP8 block-wise's per 1 x 128 group */
        {"silu e4m3 x e4m3 host-quantized bf16", 32, 32, 4, 256, 128, HUM_MOE_SILU, 0, 0, 1, 0, 1.0,
         HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT8_E4M3FN, 0, 0, 0, 1},
        {"silu fp8 block host-quantized fp16", 16, 16, 4, 384, 160, HUM_MOE_SILU, 0, 0, 0, 0, 1.0,
         HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT8_E4M3FN, 128, 0, 128, 1},
        {"silu int8 x uint8 host-quantized bf16", 16, 16, 2, 256, 128, HUM_MOE_SILU, 0, 0, 1, 0, 1.0, HUM_DTYPE_INT8,
         HUM_DTYPE_UINT8, 0, 0, 0, 1},
        {"silu mxfp8 host-quantized bf16", 16, 16, 4, 256, 128, HUM_MOE_SILU, 0, 0, 1, 0, 1.0,
         HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT8_E4M3FN, 32, 0, 0, 1},
    };
    hum_device_info dev;
    const int sm = hum_runtime_device(rt, &dev) == HUM_OK ? dev.sm_major * 10 + dev.sm_minor : 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (!quant_test_selected(cases[i].name))
            continue;
        /* mxfp8's rounding runs where 16-bit A does */
        const int need = cases[i].a_group == 32 && !cases[i].host_q ? (cases[i].bf16 ? 80 : 0)
                         : cases[i].a8 == HUM_DTYPE_INT8 ? 80
                         : cases[i].a8                   ? 89
                                                         : 0;
        if (sm < need) {
            printf("  %s: skipped on sm_%d (needs sm_%d)\n", cases[i].name, sm, need);
            continue;
        }
        fixture f;
        if (setup(&f, cases[i].a_group == 32 && !cases[i].host_q ? rt_mx : rt, &rng, &cases[i])) {
            const int map = cases[i].rank > 0;
            run_case(&f, &rng, 1, ROUTE_RANDOM, map, 0, 1, "random");
            run_case(&f, &rng, 37, ROUTE_RANDOM, map, 1, 64, "random, int64 ids");
            run_case(&f, &rng, 200, ROUTE_ONE_EXPERT, map, 0, 200, "one expert");
            run_case(&f, &rng, 150, ROUTE_WITH_DROPS, 1, 0, 150, "-1 and out-of-range ids");
            run_case(&f, &rng, 300, ROUTE_RANDOM, map, 0, 70, "chunks of 70 tokens");
            if (cases[i].host_q) {
                check_quantized_edges(&f, &rng);
                check_accumulate(&f, &rng);
            } else if (i == 0 || cases[i].a8 == HUM_DTYPE_FLOAT8_E4M3FN) {
                check_edges(&f, &rng);
                check_accumulate(&f, &rng);
                check_graph_and_batch_invariance(&f, &rng);
            }
            if (i == 0)
                run_case(&f, &rng, 8500, ROUTE_RANDOM, 0, 0, 8500, "M*top_k > 65535");
        }
        teardown(&f);
    }
    if (quant_test_selected("silu reload bf16"))
        check_reload(&rng);
    hum_runtime_destroy(rt);
    hum_runtime_destroy(rt_mx);
    rt_rmtree(dir);
    return quant_test_result("moe_forward");
}
