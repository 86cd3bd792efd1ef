/* CPU twins of the GEMM preprocessing kernels (runtime/src/quant/repack.c), against definitions
 * written here from the layout's specification (kernels/prep/repack.cu header and the PTX ISA's
 * mma.m16n8k16 B fragment): every code of every width 1..8 on padded and unpadded shapes is
 * found where the fragment definition says, bit by bit; 16-bit rounding against the
 * quantization core's encoder; scale and zero-point preparation for every scale dtype. */
#include "hum/hum_tools.h"
#include "quant_test.h"
#include "repack.h"

#include <stdlib.h>
#include <string.h>

static int cbits(int b)
{
    int c = 1;
    while (c < b)
        c *= 2;
    return c;
}

/* Bit `pos` of virtual (uncompressed) word `vw` of a lane whose b stored words start at w. */
static uint32_t virtual_bit(const uint32_t *w, int b, int vw, int pos)
{
    const int c = cbits(b);
    if (vw < b)
        return (w[vw] >> pos) & 1u;
    /* bit plane s of the extra words sits in the spare bits (b .. c-1) of each container */
    const int container = pos / c, t = pos % c;
    const int s = (vw - b) * b + t;
    const int word = s / (c - b), spare = b + s % (c - b);
    return (w[word] >> (container * c + spare)) & 1u;
}

/* Stored word j of lane `lane` in k16 row r, 64-column unit u: widths 4 and 8 in four planes of
 * b / 4 words per lane (plane j / (b / 4), 32 lanes each), the other widths a lane's b words
 * together (8-bit codes for 8-bit A: naive_code reads their core matrices directly). */
static uint32_t stored_word(const uint32_t *rep, int64_t np, int b, int64_t r, int64_t u, int lane, int j)
{
    const int per = b == 4 || b == 8 ? b / 4 : b;
    return rep[(r * (np / 64) + u) * 32 * b + (j / per) * 32 * per + lane * per + j % per];
}

/* The code at (n, k) per the mma B-fragment definition: lane 4*(n%8) + (k%8)/2 of the unit
 * holds column n of n8 block i = (n%64)/8 in register h = (k%16)/8, element e = k%2 of the
 * pair. a8 (m16n8k32 with 8-bit A: register k/16 % 2 of lane 4*(n%8) + (k%16)/4 holds k%4 as
 * its byte, kept in the 16-bit pair order as h = k%2, e = (k%4)/2): that lane, h and e. */
static uint32_t naive_code(const uint32_t *rep, int64_t np, int b, int a8, int64_t n, int64_t k)
{
    if (b == 8 && a8 == 1) { /* row-major core matrices: 8 columns x the k16 row's 16 bytes, in 128
                              * bytes, n8 block after n8 block (wgmma's no-swizzle K-major operand) */
        const uint8_t *bytes = (const uint8_t *)rep + ((k / 16) * (np / 64) + n / 64) * 32 * 8 * 4;
        return bytes[(n % 64) / 8 * 128 + (n % 8) * 16 + k % 16];
    }
    if (a8 == 2) { /* table order: the word of n8 blocks 2q, 2q + 1; block J = (n%16)/8's code j = k%4
                    * has its low three bits at 16J + 4j and its top bit at 8j + 7 - 4J */
        const int lane = (int)(4 * (n % 8) + (k % 16) / 4), J = (int)((n % 16) / 8), j = (int)(k % 4);
        const uint32_t w = stored_word(rep, np, 4, k / 16, n / 64, lane, (int)((n % 64) / 16));
        return ((w >> (16 * J + 4 * j)) & 7u) | ((w >> (8 * j + 7 - 4 * J)) & 1u) << 3;
    }
    const int c = cbits(b), pairs_per_word = 16 / c;
    const int64_t r = k / 16, u = n / 64;
    const int lane = (int)(4 * (n % 8) + (a8 ? (k % 16) / 4 : (k % 8) / 2));
    const int h = (int)(a8 ? k % 2 : (k % 16) / 8), e = (int)(a8 ? (k % 4) / 2 : k % 2);
    const int pair = (int)(2 * ((n % 64) / 8) + h);
    uint32_t w[8];
    for (int j = 0; j < b; ++j)
        w[j] = stored_word(rep, np, b, r, u, lane, j);
    const int vw = pair / pairs_per_word;
    const int pos = e * 16 + (pair % pairs_per_word) * c;
    uint32_t v = 0;
    for (int t = 0; t < b; ++t)
        v |= virtual_bit(w, b, vw, pos + t) << t;
    return v;
}

static void pack_rows(const uint8_t *codes, int64_t n, int64_t k, int b, int64_t row_words, uint32_t *out)
{
    memset(out, 0, (size_t)(n * row_words) * 4);
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < k; ++j)
            for (int t = 0; t < b; ++t)
                if ((codes[i * k + j] >> t) & 1u) {
                    const int64_t bit = j * b + t;
                    out[i * row_words + bit / 32] |= 1u << (bit % 32);
                }
}

static void check_weight_repack(quant_rng *rng)
{
    static const int64_t shapes[][2] = {{64, 16}, {100, 40}, {128, 256}, {65, 33}, {192, 128}};
    for (int a8 = 0; a8 <= 2; ++a8)
    for (int b = a8 == 2 ? 4 : 1; b <= (a8 == 2 ? 4 : 8); ++b)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
            const int64_t n = shapes[s][0], k = shapes[s][1];
            const int64_t np = (n + 63) / 64 * 64, kp = (k + 127) / 128 * 128;
            const int64_t row_words = (k * b + 31) / 32;
            uint8_t *codes = malloc((size_t)(n * k));
            uint32_t *rows = malloc((size_t)(n * row_words) * 4);
            uint32_t *rep = malloc((size_t)hum_repack_words(np, kp, b) * 4);
            for (int64_t i = 0; i < n * k; ++i)
                codes[i] = (uint8_t)quant_rng_below(rng, 1 << b);
            pack_rows(codes, n, k, b, row_words, rows);
            memset(rep, 0xA5, (size_t)hum_repack_words(np, kp, b) * 4);
            QUANT_CHECK(hum_repack_weight_cpu(rows, row_words, n, k, np, kp, b, a8, rep) == HUM_OK, "%s",
                        hum_last_error());
            int64_t bad = 0;
            for (int64_t i = 0; i < np; ++i)
                for (int64_t j = 0; j < kp; ++j) {
                    const uint32_t want = i < n && j < k ? codes[i * k + j] : 0;
                    if (naive_code(rep, np, b, a8, i, j) != want && bad++ < 3)
                        QUANT_CHECK(0, "uint%d%s %lldx%lld: code (%lld, %lld) is %u, expected %u", b,
                                    a8 == 2 ? " a8 table" : a8 ? " a8" : "",
                                    (long long)n, (long long)k, (long long)i, (long long)j,
                                    naive_code(rep, np, b, a8, i, j), want);
                }
            QUANT_CHECK(bad == 0, "uint%d%s %lldx%lld: %lld codes misplaced", b, a8 == 2 ? " a8 table" : a8 ? " a8" : "",
                        (long long)n,
                        (long long)k, (long long)bad);
            free(codes);
            free(rows);
            free(rep);
        }
}

static void check_round16(quant_rng *rng)
{
    for (int bf16 = 0; bf16 <= 1; ++bf16) {
        const hum_dtype t = bf16 ? HUM_DTYPE_BFLOAT16 : HUM_DTYPE_FLOAT16;
        int64_t bad = 0;
        for (int i = 0; i < 200000; ++i) {
            const int width = 1 + (int)quant_rng_below(rng, 31);
            uint32_t sig = (uint32_t)quant_rng_below(rng, (int64_t)1 << width);
            if (i % 7 == 0) /* exact ties: one bit below the kept ones */
                sig = (sig | 1u) << 3 | 4u;
            sig &= 0x7FFFFFFFu;
            const int exp = (int)quant_rng_below(rng, bf16 ? 300 : 70) - (bf16 ? 160 : 50);
            const uint32_t sign = (uint32_t)quant_rng_below(rng, 2);
            double v = (double)sig * quant_pow2(exp);
            if (sign)
                v = -v;
            uint16_t want;
            if (hum_dtype_encode(t, &v, 1, &want) != HUM_OK) {
                QUANT_CHECK(0, "encoder refused %g: %s", v, hum_last_error());
                return;
            }
            const uint16_t got = hum_round16(sign, sig, exp, bf16);
            if (got != want && bad++ < 3)
                QUANT_CHECK(0, "%s: %u * 2^%d (sign %u) rounds to 0x%04x, expected 0x%04x", hum_dtype_name(t), sig, exp,
                            sign, got, want);
        }
        QUANT_CHECK(bad == 0, "%s: %lld roundings differ", hum_dtype_name(t), (long long)bad);
    }
}

/* Column held at position `pos` of a prepared row. */
static int64_t column_at(int64_t pos)
{
    const int64_t p = pos % 64;
    return pos - p + p / 8 + 8 * (p % 8);
}

static void check_params(quant_rng *rng)
{
    static const hum_dtype dtypes[] = {HUM_DTYPE_FLOAT16, HUM_DTYPE_BFLOAT16, HUM_DTYPE_FLOAT32,
                                       HUM_DTYPE_FLOAT8_E4M3FN, HUM_DTYPE_FLOAT8_E5M2, HUM_DTYPE_FLOAT8_E8M0};
    const int64_t n = 100, groups = 3, np = 128, gp = 4;
    uint16_t *out = malloc((size_t)(gp * np) * 2);
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; ++d)
        for (int bf16 = 0; bf16 <= 1; ++bf16)
            for (int n_div = 1; n_div <= 64; n_div *= 64) {
                const hum_dtype dt = dtypes[d];
                const int size = hum_dtype_code_size(dt);
                const int64_t rows = (n + n_div - 1) / n_div;
                uint8_t raw[100 * 3 * 4];
                double val[100 * 3];
                for (int64_t i = 0; i < rows * groups; ++i) {
                    /* finite, nonzero-ish codes of the dtype: encode a random value */
                    double x = (quant_rng_uniform(rng) + 0.1) * quant_pow2((int)quant_rng_below(rng, 12) - 8);
                    if (dt != HUM_DTYPE_FLOAT8_E8M0 && quant_rng_below(rng, 2))
                        x = -x;
                    QUANT_CHECK(hum_dtype_encode(dt, &x, 1, raw + i * size) == HUM_OK, "%s", hum_last_error());
                    QUANT_CHECK(hum_dtype_decode(dt, raw + i * size, 1, &val[i]) == HUM_OK, "%s", hum_last_error());
                }
                const int adj = (int)quant_rng_below(rng, 9) - 4;
                QUANT_CHECK(hum_prep_params_cpu(raw, dt, 0, n, groups, n_div, np, gp, bf16, adj, out) == HUM_OK, "%s",
                            hum_last_error());
                int64_t bad = 0;
                for (int64_t g = 0; g < gp; ++g)
                    for (int64_t pos = 0; pos < np; ++pos) {
                        const int64_t col = column_at(pos);
                        double want_v = 0;
                        if (col < n && g < groups)
                            want_v = val[col / n_div * groups + g] * quant_pow2(adj);
                        uint16_t want;
                        hum_dtype_encode(bf16 ? HUM_DTYPE_BFLOAT16 : HUM_DTYPE_FLOAT16, &want_v, 1, &want);
                        if (out[g * np + pos] != want && bad++ < 3)
                            QUANT_CHECK(0, "%s -> %s, n_div %d: [%lld][%lld] 0x%04x, expected 0x%04x",
                                        hum_dtype_name(dt), bf16 ? "bfloat16" : "float16", n_div, (long long)g,
                                        (long long)pos, out[g * np + pos], want);
                    }
                QUANT_CHECK(bad == 0, "%s: %lld prepared values differ", hum_dtype_name(dt), (long long)bad);
            }

    /* integer zero points packed along N */
    for (int b = 1; b <= 8; ++b) {
        const int64_t words = (n * b + 31) / 32;
        uint32_t packed[25 * 3];
        uint8_t z[100 * 3];
        memset(packed, 0, sizeof packed);
        for (int64_t i = 0; i < n; ++i)
            for (int64_t g = 0; g < groups; ++g) {
                z[i * groups + g] = (uint8_t)quant_rng_below(rng, 1 << b);
                for (int t = 0; t < b; ++t)
                    if ((z[i * groups + g] >> t) & 1u) {
                        const int64_t bit = i * b + t;
                        packed[bit / 32 * groups + g] |= 1u << (bit % 32);
                    }
            }
        QUANT_CHECK(words <= 25, "buffer");
        for (int bf16 = 0; bf16 <= 1; ++bf16) {
            QUANT_CHECK(hum_prep_params_cpu(packed, HUM_DTYPE_INT32, b, n, groups, 1, np, gp, bf16, 0, out) == HUM_OK,
                        "%s", hum_last_error());
            int64_t bad = 0;
            for (int64_t g = 0; g < gp; ++g)
                for (int64_t pos = 0; pos < np; ++pos) {
                    const int64_t col = column_at(pos);
                    const double want_v = col < n && g < groups ? z[col * groups + g] : 0;
                    uint16_t want;
                    hum_dtype_encode(bf16 ? HUM_DTYPE_BFLOAT16 : HUM_DTYPE_FLOAT16, &want_v, 1, &want);
                    if (out[g * np + pos] != want)
                        ++bad;
                }
            QUANT_CHECK(bad == 0, "uint%d zero points -> %s: %lld values differ", b, bf16 ? "bfloat16" : "float16",
                        (long long)bad);
        }
    }
    free(out);
}

static void check_bad_input(void)
{
    uint32_t w[4] = {0};
    uint16_t o[64];
    QUANT_CHECK(hum_repack_weight_cpu(w, 1, 64, 16, 64, 16, 9, 0, w) == HUM_ERR_INVALID_ARG, "9-bit weights refused");
    QUANT_CHECK(hum_repack_weight_cpu(w, 1, 64, 16, 60, 16, 4, 0, w) == HUM_ERR_INVALID_ARG, "N padding refused");
    QUANT_CHECK(hum_repack_weight_cpu(w, 1, 64, 16, 64, 16, 4, 0, w) == HUM_ERR_INVALID_ARG, "short rows refused");
    QUANT_CHECK(strstr(hum_last_error(), "words per row") != NULL, "message names the rows: %s", hum_last_error());
    QUANT_CHECK(hum_repack_weight_cpu(w, 4, 1, 16, 64, 16, 8, 2, w) == HUM_ERR_INVALID_ARG,
                "table order of 8-bit codes refused");
    QUANT_CHECK(hum_repack_weight_cpu(w, 2, 1, 16, 64, 16, 4, 3, w) == HUM_ERR_INVALID_ARG, "unknown order refused");
    QUANT_CHECK(hum_prep_params_cpu(w, HUM_DTYPE_UINT4, 0, 1, 1, 1, 64, 1, 0, 0, o) == HUM_ERR_INVALID_ARG,
                "uint4 is no scale dtype");
}

int main(void)
{
    quant_rng rng = quant_rng_fresh("test_repack");
    check_weight_repack(&rng);
    check_round16(&rng);
    check_params(&rng);
    check_bad_input();
    return quant_test_result("test_repack");
}
