/* Layer SPEC strings ("n=8192,k=8192,w=uint4,a=float16,group=128") and the random standard
 * weights they stand for (hum/hum_tools.h, hum_layer_spec). */
#include "internal.h"
#include "layer.h"
#include "threadpool.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plain decimal digits only: strtoll alone would also take " 64", "+64" and "0x40". */
static hum_status parse_int(const char *key, const char *value, int64_t min, int64_t max, int64_t *out)
{
    int64_t v = 0;
    const char *p = value;
    for (; *p >= '0' && *p <= '9' && v <= max; p++)
        v = v * 10 + (*p - '0');
    if (p == value || *p || v < min || v > max)
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: %s=%s: expected an integer from %lld to %lld", key, value,
                        (long long)min, (long long)max);
    *out = v;
    return HUM_OK;
}

static hum_status parse_flag(const char *key, const char *value, int32_t *out)
{
    if (strcmp(value, "0") && strcmp(value, "1"))
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: %s=%s: expected 0 or 1", key, value);
    *out = value[0] == '1';
    return HUM_OK;
}

/* `expected`: what the key takes, for the message (docs/cli.md's SPEC table) */
static hum_status parse_dtype(const char *key, const char *value, const char *expected, hum_dtype *out)
{
    hum_status st = hum_dtype_parse(value, out);
    return st == HUM_OK ? HUM_OK
                        : hum_fail(HUM_ERR_INVALID_ARG, "layer spec: %s=%s: not a dtype name (expected %s)", key, value,
                                   expected);
}

/* N, K and group sizes: what a standard weight holds (hum_standard_validate). */
#define SPEC_MAX_DIM (INT64_C(1) << 31)

/* One key=value pair into the spec being built; `tensor` and `global` collect scale=tensor
 * and global=1 until the scale type is decided. */
static const char *const spec_keys[] = {"n",  "k",    "w",        "a",      "group", "scale", "global",
                                        "zp", "bias", "actorder", "ascale", "out",   "block"};

/* a=mxfp8: e4m3 codes with one e8m0 exponent per 32 columns (OCP MX) */
static int is_mxfp8(const hum_layer_spec *s)
{
    return s->activation_dtype == HUM_DTYPE_FLOAT8_E4M3FN && s->act_scale == HUM_ACT_SCALE_GROUP && s->act_group == 32;
}

static int is_a8(hum_dtype t)
{
    return t == HUM_DTYPE_FLOAT8_E4M3FN || t == HUM_DTYPE_INT8;
}

/* block=NxK: two positive integers. */
static hum_status parse_block(const char *value, hum_layer_spec *s)
{
    char n[24];
    const char *x = strchr(value, 'x');
    if (!x || x == value || (size_t)(x - value) >= sizeof n)
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: block=%s: expected NxK, e.g. 128x128", value);
    memcpy(n, value, (size_t)(x - value));
    n[x - value] = '\0';
    hum_status st = parse_int("block N", n, 1, SPEC_MAX_DIM, &s->group_size_n);
    return st == HUM_OK ? parse_int("block K", x + 1, 1, SPEC_MAX_DIM, &s->group_size) : st;
}

static hum_status parse_pair(char *pair, hum_layer_spec *s, int *have_n, int *have_k, int *tensor, int32_t *global,
                             int *ascale, unsigned *seen)
{
    char *eq = strchr(pair, '=');
    if (!eq || eq == pair)
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: '%s' is not key=value", pair);
    *eq = '\0';
    const char *key = pair, *value = eq + 1;
    /* A key given twice is a typo more often than an intent: refuse it rather than let one win. */
    for (unsigned i = 0; i < sizeof spec_keys / sizeof spec_keys[0]; i++)
        if (!strcmp(key, spec_keys[i])) {
            if (*seen & (1u << i))
                return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: key '%s' given twice", key);
            *seen |= 1u << i;
        }
    if (!strcmp(key, "n")) {
        *have_n = 1;
        return parse_int(key, value, 1, SPEC_MAX_DIM, &s->n);
    }
    if (!strcmp(key, "k")) {
        *have_k = 1;
        return parse_int(key, value, 1, SPEC_MAX_DIM, &s->k);
    }
    if (!strcmp(key, "w"))
        return parse_dtype(key, value, "uint1 .. uint8 or a float of 8 bits or fewer: e4m3, e5m2, e2m1, ...",
                           &s->weight_dtype);
    if (!strcmp(key, "a")) {
        if (!strcmp(value, "mxfp8")) {
            if (*ascale)
                return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: a=mxfp8 with ascale= (its scales are e8m0 per 32 "
                                "columns)");
            s->activation_dtype = HUM_DTYPE_FLOAT8_E4M3FN;
            s->act_scale = HUM_ACT_SCALE_GROUP;
            s->act_group = 32;
            return HUM_OK;
        }
        return parse_dtype(key, value, "float16, bfloat16, e4m3, int8 or mxfp8", &s->activation_dtype);
    }
    if (!strcmp(key, "ascale")) {
        if (s->act_group == 32)
            return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: ascale=%s with a=mxfp8 (its scales are e8m0 per 32 "
                            "columns)", value);
        if (!strcmp(value, "token"))
            s->act_scale = HUM_ACT_SCALE_TOKEN;
        else if (!strcmp(value, "tensor"))
            s->act_scale = HUM_ACT_SCALE_TENSOR;
        else if (!strcmp(value, "group128")) {
            s->act_scale = HUM_ACT_SCALE_GROUP;
            s->act_group = 128;
        } else
            return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: ascale=%s: expected token, tensor or group128", value);
        *ascale = 1;
        return HUM_OK;
    }
    if (!strcmp(key, "out"))
        return parse_dtype(key, value, "float16 or bfloat16", &s->output_dtype);
    if (!strcmp(key, "group"))
        return parse_int(key, value, 0, SPEC_MAX_DIM, &s->group_size);
    if (!strcmp(key, "block"))
        return parse_block(value, s);
    if (!strcmp(key, "scale")) {
        if (!strcmp(value, "tensor")) {
            *tensor = 1;
            return HUM_OK;
        }
        return parse_dtype(key, value, "float16, bfloat16, float32, e4m3, e5m2, e8m0 or tensor", &s->scale_dtype);
    }
    if (!strcmp(key, "global"))
        return parse_flag(key, value, global);
    if (!strcmp(key, "zp")) {
        if (!strcmp(value, "none"))
            s->zero_point = HUM_ZERO_POINT_NONE;
        else if (!strcmp(value, "int"))
            s->zero_point = HUM_ZERO_POINT_INT;
        else if (!strcmp(value, "float"))
            s->zero_point = HUM_ZERO_POINT_FLOAT;
        else
            return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: zp=%s: expected none, int or float", value);
        return HUM_OK;
    }
    if (!strcmp(key, "bias"))
        return parse_flag(key, value, &s->bias);
    if (!strcmp(key, "actorder"))
        return parse_flag(key, value, &s->act_order);
    return hum_fail(HUM_ERR_INVALID_ARG,
                    "layer spec: unknown key '%s' (expected n, k, w, a, group, block, scale, global, zp, bias, "
                    "actorder, ascale, out)", key);
}

hum_status hum_spec_check_text(const char *kind, const char *text)
{
    for (size_t i = 0; text[i]; i++) {
        const unsigned char c = (unsigned char)text[i];
        if (c < 0x20 || c > 0x7e)
            return hum_fail(HUM_ERR_INVALID_ARG, "%s spec: byte 0x%02x at offset %zu is not a printable ASCII "
                            "character (a SPEC is key=value pairs such as n=4096,k=4096,w=uint4)", kind, c, i);
    }
    return HUM_OK;
}

hum_status hum_layer_spec_parse(const char *text, hum_layer_spec *out)
{
    if (!text || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_spec_parse: NULL %s", !text ? "spec" : "out");
    hum_status checked = hum_spec_check_text("layer", text);
    if (checked != HUM_OK)
        return checked;
    hum_layer_spec s;
    memset(&s, 0, sizeof s);
    s.weight_dtype = HUM_DTYPE_UINT4;
    s.activation_dtype = HUM_DTYPE_FLOAT16;
    char *copy = strdup(text);
    if (!copy)
        return hum_fail(HUM_ERR_OUT_OF_MEMORY, "hum_layer_spec_parse");
    int have_n = 0, have_k = 0, tensor = 0, ascale = 0;
    int32_t global = 0;
    unsigned seen = 0;
    hum_status st = HUM_OK;
    /* Split by hand: strtok would skip empty entries ("n=256,,k=512") instead of refusing them. */
    for (char *pair = copy; st == HUM_OK;) {
        char *comma = strchr(pair, ',');
        if (comma)
            *comma = '\0';
        st = *pair ? parse_pair(pair, &s, &have_n, &have_k, &tensor, &global, &ascale, &seen)
                   : hum_fail(HUM_ERR_INVALID_ARG, "layer spec '%s': an empty entry (two commas, or a comma at an end)",
                              text);
        if (!comma)
            break;
        pair = comma + 1;
    }
    free(copy);
    if (st != HUM_OK)
        return st;
    if (!have_n || !have_k)
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec '%s': n and k are required", text);
    const int block = (seen & (1u << 12)) != 0;
    if (block && (seen & (1u << 4 | 1u << 5 | 1u << 6))) /* group, scale, global */
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec '%s': block= takes no group, scale or global (its scales are "
                        "float32)", text);
    if (tensor && (s.group_size || global))
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec '%s': scale=tensor takes no group and no global", text);
    if (global && !s.group_size)
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec '%s': global=1 needs a group size", text);
    s.scale_type = block ? HUM_SCALE_BLOCK
                   : tensor ? HUM_SCALE_TENSOR
                   : s.group_size ? (global ? HUM_SCALE_GROUP_TENSOR : HUM_SCALE_GROUP)
                                  : HUM_SCALE_CHANNEL;
    if (block)
        s.scale_dtype = HUM_DTYPE_FLOAT32;
    if (tensor)
        s.scale_dtype = HUM_DTYPE_INVALID;
    if (ascale && !is_a8(s.activation_dtype))
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec '%s': ascale= is for 8-bit activations (a=e4m3, int8)", text);
    if (!s.output_dtype)
        s.output_dtype = is_a8(s.activation_dtype) ? HUM_DTYPE_BFLOAT16 : s.activation_dtype;
    if ((st = hum_layer_spec_check(&s)) != HUM_OK)
        return st;
    *out = s;
    return HUM_OK;
}

hum_status hum_layer_spec_check(const hum_layer_spec *s)
{
    static const char *const zp[] = {"none", "int", "float"};
    if (s->n < 1 || s->n > SPEC_MAX_DIM || s->k < 1 || s->k > SPEC_MAX_DIM)
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: n=%lld, k=%lld: expected integers from 1 to %lld",
                        (long long)s->n, (long long)s->k, (long long)SPEC_MAX_DIM);
    if (!hum_dtype_is_weight(s->weight_dtype))
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "layer spec: w=%s: expected uint1 .. uint8 or a float of 8 bits or fewer (e4m3, e5m2, "
                        "e2m1, e3m2, e2m3, ...)",
                        hum_dtype_name(s->weight_dtype));
    const int a8 = is_a8(s->activation_dtype);
    if (!hum_dtype_is_activation(s->activation_dtype) && !a8)
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: a=%s: expected float16, bfloat16, e4m3, int8 or mxfp8",
                        hum_dtype_name(s->activation_dtype));
    if (a8 && !hum_dtype_is_activation(s->output_dtype))
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: out=%s with a=%s: expected float16 or bfloat16",
                        hum_dtype_name(s->output_dtype), hum_dtype_name(s->activation_dtype));
    if (!a8 && s->output_dtype != s->activation_dtype)
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "layer spec: out=%s with a=%s: expected out=%s (16-bit A gives C in its own dtype)",
                        hum_dtype_name(s->output_dtype), hum_dtype_name(s->activation_dtype),
                        hum_dtype_name(s->activation_dtype));
    const int act_ok = s->act_scale == HUM_ACT_SCALE_TOKEN || s->act_scale == HUM_ACT_SCALE_TENSOR
                           ? s->act_group == 0
                           : s->act_scale == HUM_ACT_SCALE_GROUP && (s->act_group == 128 || is_mxfp8(s));
    if (!act_ok || (!a8 && (s->act_scale != HUM_ACT_SCALE_TOKEN || s->act_group)))
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: activation scale %d, group %d with a=%s: expected token, "
                        "tensor or group128 for e4m3 and int8 (mxfp8: e4m3 with e8m0 scales per 32), none for 16-bit A",
                        (int)s->act_scale, (int)s->act_group, hum_dtype_name(s->activation_dtype));
    const int block = s->scale_type == HUM_SCALE_BLOCK;
    const int grouped = s->scale_type == HUM_SCALE_GROUP || s->scale_type == HUM_SCALE_GROUP_TENSOR || block;
    if ((s->scale_type != HUM_SCALE_CHANNEL && s->scale_type != HUM_SCALE_TENSOR && !grouped) ||
        (grouped ? s->group_size < 1 : s->group_size != 0) || s->group_size > SPEC_MAX_DIM ||
        (block ? s->group_size_n < 1 || s->group_size_n > SPEC_MAX_DIM || s->scale_dtype != HUM_DTYPE_FLOAT32
               : s->group_size_n != 0))
        return hum_fail(
            HUM_ERR_INVALID_ARG,
            "layer spec: scale type %d with group=%lld, block N %lld (expected CHANNEL or TENSOR with group "
            "0, GROUP or GROUP_TENSOR with a group from 1 to %lld, BLOCK with both from 1 to %lld and "
            "float32 scales)",
            (int)s->scale_type, (long long)s->group_size, (long long)s->group_size_n, (long long)SPEC_MAX_DIM,
            (long long)SPEC_MAX_DIM);
    if (s->scale_type == HUM_SCALE_TENSOR ? s->scale_dtype != HUM_DTYPE_INVALID
                                          : s->scale_dtype != HUM_DTYPE_INVALID && !hum_dtype_is_scale(s->scale_dtype))
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "layer spec: scale=%s: expected tensor, float16, bfloat16, float32, e4m3, e5m2 or e8m0%s",
                        hum_dtype_name(s->scale_dtype),
                        s->scale_type == HUM_SCALE_TENSOR ? " (a TENSOR scale has no scale dtype)" : "");
    if (s->zero_point < HUM_ZERO_POINT_NONE || s->zero_point > HUM_ZERO_POINT_FLOAT)
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: zp=%d: expected none, int or float", (int)s->zero_point);
    if (s->zero_point != HUM_ZERO_POINT_NONE &&
        (((s->weight_dtype >> 24) & 0xF) != HUM_KIND_UINT || s->scale_type == HUM_SCALE_TENSOR))
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "layer spec: zp=%s with w=%s%s: a zero point needs an integer weight (w=uint1 .. uint8) and "
                        "no scale=tensor",
                        zp[s->zero_point], hum_dtype_name(s->weight_dtype),
                        s->scale_type == HUM_SCALE_TENSOR ? ", scale=tensor" : "");
    if ((s->bias != 0 && s->bias != 1) || (s->act_order != 0 && s->act_order != 1))
        return hum_fail(HUM_ERR_INVALID_ARG, "layer spec: bias=%d, actorder=%d: expected 0 or 1", (int)s->bias,
                        (int)s->act_order);
    return HUM_OK;
}

/* The scale dtype a spec stands for: its own, else the activation (param) dtype; TENSOR scales
 * are one float32 (hum_quantize_reference's rule). */
static hum_dtype spec_scale_dtype(const hum_layer_spec *s)
{
    return s->scale_type == HUM_SCALE_TENSOR ? HUM_DTYPE_FLOAT32
           : s->scale_dtype                  ? s->scale_dtype
                                             : s->output_dtype;
}

void hum_layer_spec_config(const hum_layer_spec *s, hum_layer_config *c)
{
    c->n = s->n;
    c->k = s->k;
    c->num_experts = 0;
    c->a_dtype = s->activation_dtype;
    c->c_dtype = s->output_dtype;
    c->a_group = s->act_group;
    c->a_scale = s->act_scale;
    c->a_fixed = 0;
    c->a_round = HUM_A_ROUND_NONE;
    c->weight_dtype = s->weight_dtype;
    c->param_dtype = s->output_dtype;
    c->scale_dtype = spec_scale_dtype(s);
    c->scale_type = s->scale_type;
    c->group_size = s->group_size;
    c->group_size_n = s->group_size_n;
    c->zero_point = s->zero_point;
    c->has_bias = s->bias;
    c->act_order = s->act_order;
    c->has_global_scale = s->scale_type == HUM_SCALE_TENSOR || s->scale_type == HUM_SCALE_GROUP_TENSOR;
    c->fold_window = 0; /* a fact of the weights, which a spec has not: the kernels test the groups */
}

hum_status hum_layer_spec_format(const hum_layer_spec *s, char *out, size_t cap)
{
    if (!s || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_spec_format: NULL %s", !s ? "spec" : "out");
    /* a spec built by hand: what parse would refuse has no text (zp=9 printed "none") */
    const hum_status checked = hum_layer_spec_check(s);
    if (checked != HUM_OK)
        return hum_fail_context(checked, "hum_layer_spec_format");
    static const char *const zp[] = {"none", "int", "float"};
    char scale[48] = "";
    if (s->scale_type == HUM_SCALE_BLOCK)
        snprintf(scale, sizeof scale, ",block=%" PRId64 "x%" PRId64, s->group_size_n, s->group_size);
    else if (s->scale_type == HUM_SCALE_TENSOR)
        snprintf(scale, sizeof scale, ",scale=tensor");
    else if (s->scale_dtype)
        snprintf(scale, sizeof scale, ",scale=%s", hum_dtype_name(s->scale_dtype));
    static const char *const ascale[] = {"token", "tensor", "group128"};
    char act[64];
    if (is_mxfp8(s))
        snprintf(act, sizeof act, "mxfp8,out=%s", hum_dtype_name(s->output_dtype));
    else if (is_a8(s->activation_dtype))
        snprintf(act, sizeof act, "%s,ascale=%s,out=%s", hum_dtype_name(s->activation_dtype),
                 ascale[s->act_scale >= 0 && s->act_scale <= 2 ? s->act_scale : 0], hum_dtype_name(s->output_dtype));
    else
        snprintf(act, sizeof act, "%s", hum_dtype_name(s->activation_dtype));
    char group[32] = "";
    if (s->scale_type != HUM_SCALE_BLOCK)
        snprintf(group, sizeof group, ",group=%" PRId64, s->group_size);
    const int n = snprintf(out, cap, "n=%" PRId64 ",k=%" PRId64 ",w=%s,a=%s%s%s%s,zp=%s,bias=%d,actorder=%d",
                           s->n, s->k, hum_dtype_name(s->weight_dtype), act,
                           group, scale, s->scale_type == HUM_SCALE_GROUP_TENSOR ? ",global=1" : "",
                           zp[s->zero_point < 0 || s->zero_point > 2 ? 0 : s->zero_point], s->bias, s->act_order);
    if (n < 0 || (size_t)n >= cap)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_spec_format: %zu bytes are too few", cap);
    return HUM_OK;
}

/* splitmix64: a seeded stream that is the same on every platform. Its state only counts (draw d
 * of seed s mixes s + d x GOLDEN), so any stretch of it can be drawn on its own (skip). */
#define GOLDEN 0x9E3779B97F4A7C15ull

static uint64_t skip(uint64_t seed, uint64_t draws)
{
    return seed + draws * GOLDEN;
}

static uint64_t next_u64(uint64_t *state)
{
    uint64_t z = (*state += GOLDEN);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double next_uniform(uint64_t *state)
{
    return (double)(next_u64(state) >> 11) * (1.0 / 9007199254740992.0);
}

static float next_normal(uint64_t *state)
{
    const double u = 1.0 - next_uniform(state), v = next_uniform(state);
    return (float)(sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v));
}

/* Weights ~ N(0, 0.02) with a per-row spread, as trained linear layers look: row r draws its
 * spread, then two uniforms a weight, so its draws start after r x (1 + 2K) of the stream. Bands of
 * rows run on threads (an 8192 x 8192 layer's 134 M draws took about 2 s on one) and give the same
 * weights as one thread would. */
typedef struct weight_rows {
    float *w;
    int64_t n, k;
    uint64_t seed;
} weight_rows;

enum { WEIGHT_BAND = 64 }; /* rows a thread draws at a time */

static void draw_band(void *ctx, int32_t band)
{
    const weight_rows *g = ctx;
    const int64_t r0 = (int64_t)band * WEIGHT_BAND, r1 = r0 + WEIGHT_BAND < g->n ? r0 + WEIGHT_BAND : g->n;
    uint64_t state = skip(g->seed, (uint64_t)r0 * (uint64_t)(1 + 2 * g->k));
    for (int64_t r = r0; r < r1; r++) {
        const double row_scale = 0.01 + 0.02 * next_uniform(&state);
        for (int64_t c = 0; c < g->k; c++)
            g->w[r * g->k + c] = (float)(row_scale * next_normal(&state));
    }
}

hum_status hum_layer_spec_weight(const hum_layer_spec *s, uint64_t seed, hum_standard_weight *out)
{
    if (!s || !out)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_spec_weight: NULL %s", !s ? "spec" : "out");
    memset(out, 0, sizeof *out);
    hum_status checked = hum_layer_spec_check(s);
    if (checked != HUM_OK)
        return hum_fail_context(checked, "hum_layer_spec_weight");
    if ((uint64_t)s->n > SIZE_MAX / sizeof(float) / (uint64_t)s->k)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_layer_spec_weight: %lld x %lld weights do not fit in memory",
                        (long long)s->n, (long long)s->k);
    const size_t count = (size_t)s->n * (size_t)s->k;
    float *w = malloc(count * sizeof *w);
    float *bias = s->bias ? malloc((size_t)s->n * sizeof *bias) : NULL;
    int32_t *perm = s->act_order ? malloc((size_t)s->k * sizeof *perm) : NULL;
    if (!w || (s->bias && !bias) || (s->act_order && !perm)) {
        free(w);
        free(bias);
        free(perm);
        return hum_fail(HUM_ERR_OUT_OF_MEMORY,
                        "hum_layer_spec_weight: out of host memory for %lld x %lld float32 weights (%.1f GB)",
                        (long long)s->n, (long long)s->k, (double)count * sizeof(float) / 1e9);
    }
    weight_rows rows = {w, s->n, s->k, seed};
    hum_parallel_for((int32_t)((s->n + WEIGHT_BAND - 1) / WEIGHT_BAND), 0, draw_band, &rows);
    uint64_t state = skip(seed, (uint64_t)s->n * (uint64_t)(1 + 2 * s->k));
    for (int64_t r = 0; bias && r < s->n; r++)
        bias[r] = next_normal(&state);
    for (int64_t c = 0; perm && c < s->k; c++)
        perm[c] = (int32_t)c;
    for (int64_t c = s->k - 1; perm && c > 0; c--) {
        const int64_t j = (int64_t)(next_u64(&state) % (uint64_t)(c + 1));
        const int32_t t = perm[c];
        perm[c] = perm[j];
        perm[j] = t;
    }
    hum_quant_spec q;
    memset(&q, 0, sizeof q);
    q.weight_dtype = s->weight_dtype;
    q.param_dtype = s->output_dtype;
    q.scale_type = s->scale_type;
    q.group_size = s->scale_type == HUM_SCALE_CHANNEL || s->scale_type == HUM_SCALE_TENSOR ? 0 : s->group_size;
    q.group_size_n = s->group_size_n;
    q.scale_dtype = spec_scale_dtype(s);
    q.zero_point = (hum_zero_point_kind)s->zero_point;
    q.bias = bias;
    q.k_perm = perm;
    hum_status st = hum_quantize_reference(w, s->n, s->k, &q, out);
    free(w);
    free(bias);
    free(perm);
    if (st == HUM_OK && is_a8(s->activation_dtype)) {
        /* the checkpoint's scheme is what the spec asks for; a static scale maps |A| = 8 (N(0, 1)
         * activations stay far below) to the largest code */
        out->act_dtype = s->activation_dtype;
        out->act_scale = s->act_scale;
        out->act_group = s->act_group;
        if (s->act_scale == HUM_ACT_SCALE_TENSOR) {
            const int64_t one = 1;
            st = hum_host_tensor_alloc(&out->input_scale, HUM_DTYPE_FLOAT32, 1, &one);
            if (st == HUM_OK)
                *(float *)out->input_scale.data = (float)(8.0 / hum_dtype_max_finite(s->activation_dtype));
            else
                hum_standard_free(out);
        }
    }
    return st == HUM_OK ? HUM_OK : hum_fail_context(st, "hum_layer_spec_weight");
}
