/* The e2m1 -> e4m3 byte table of e4m3 activations (kernels/gemm/dequant.cuh: fp4_tables,
 * fp4_regs), twinned here step for step (the IMAD tables, prmt with its sign-mode bit, the masks;
 * the float16 products and their e4m3 conversion below d = 1), against the e4m3 code of each
 * e2m1 value times its group's 2^r, nearest even, from the quantization core's encoder: what the
 * float16 path before it computed (its float16 product is exact down to 2^-14, and what it rounds
 * below lies under e4m3's half subnormal). Bit for bit, for all 16 codes in each of a word's 8
 * places (two columns x k 4t..4t+3, table order of kernels/prep/repack.cu) and every staged scale
 * hum_prep_params gives a folded MXFP4 group (float16 2^r, r = 6 down to below float16's
 * subnormals, where it is 0), each column's scale on its own; on each of fp4_tables' paths
 * (Fp4Path): the test per call (kEither), and the products alone (kProducts, which the wgmma
 * kernels take for a whole stage once any group of a warpgroup's columns lies below the
 * window: in the window too, where they must give the IMADs' bytes). */
#include "hum/hum_tools.h"
#include "quant_test.h"

#include <math.h>

static const double e2m1[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};

/* PTX prmt.b32 in its default mode: byte i of the result is byte (c >> 4i) & 7 of {b, a}, or
 * that byte's top bit replicated when bit 3 of the selector nibble is set. */
static uint32_t prmt(uint32_t a, uint32_t b, uint32_t c)
{
    const uint64_t ab = (uint64_t)b << 32 | a;
    uint32_t d = 0;
    for (int i = 0; i < 4; ++i) {
        const uint32_t n = (c >> 4 * i) & 15u;
        uint32_t v = (uint32_t)(ab >> 8 * (n & 7u)) & 0xFFu;
        if (n & 8u)
            v = v & 0x80u ? 0xFFu : 0u;
        d |= v << 8 * i;
    }
    return d;
}

static uint8_t e4m3_of(double x)
{
    uint8_t b = 0;
    QUANT_CHECK(hum_dtype_encode(HUM_DTYPE_FLOAT8_E4M3FN, &x, 1, &b) == HUM_OK, "%s", hum_last_error());
    return b;
}

static double f16_round(double x)
{
    uint16_t h = 0;
    float f = 0;
    QUANT_CHECK(hum_dtype_encode(HUM_DTYPE_FLOAT16, &x, 1, &h) == HUM_OK, "%s", hum_last_error());
    hum_dtype_to_float(HUM_DTYPE_FLOAT16, &h, 1, &f);
    return f;
}

/* fp4_tables: sc the float16 2^r of the two columns (low half J = 0); products: kProducts, else
 * kEither. Returns whether the IMAD tables stood. */
static int tables(uint32_t sc, int products, uint32_t t[4])
{
    const uint32_t LO = 0x08080800u, HI = 0x08080808u;
    const uint32_t LO0 = 0x0C080000u - 9u * LO, HI0 = 0x1C181410u - 9u * HI;
    const uint32_t e0 = (sc >> 10) & 31u, e1 = sc >> 26;
    t[0] = e0 * LO + LO0;
    t[1] = e0 * HI + HI0;
    t[2] = e1 * LO + LO0;
    t[3] = e1 * HI + HI0;
    if (!products && e0 >= 10u && e1 >= 10u)
        return 1;
    for (int J = 0; J < 2; ++J) {
        const uint16_t h = (uint16_t)(sc >> 16 * J);
        float s = 0;
        hum_dtype_to_float(HUM_DTYPE_FLOAT16, &h, 1, &s);
        for (int w = 0; w < 2; ++w) {
            uint32_t v = 0;
            for (int i = 0; i < 4; ++i)
                v |= (uint32_t)e4m3_of(f16_round(e2m1[4 * w + i] * s)) << 8 * i;
            t[2 * J + w] = v;
        }
    }
    return 0;
}

/* fp4_regs */
static void regs(const uint32_t t[4], uint32_t w, uint32_t *r0, uint32_t *r1)
{
    const uint32_t m = w & 0x77777777u;
    *r0 = prmt(t[0], t[1], m) | (w & 0x80808080u);
    *r1 = prmt(t[2], t[3], m >> 16) | ((w << 4) & 0x80808080u);
}

/* The table-order word of codes[J][j]. */
static uint32_t word_of(const uint8_t codes[2][4])
{
    uint32_t w = 0;
    for (int J = 0; J < 2; ++J)
        for (int j = 0; j < 4; ++j)
            w |= (uint32_t)(codes[J][j] & 7u) << (16 * J + 4 * j) | (uint32_t)(codes[J][j] >> 3) << (8 * j + 7 - 4 * J);
    return w;
}

int main(void)
{
    quant_rng rng = quant_rng_fresh("test_fp4_table");
    enum { R_MIN = -30, R_MAX = 6 };
    uint16_t staged[R_MAX - R_MIN + 1];
    double scale[R_MAX - R_MIN + 1];
    for (int r = R_MIN; r <= R_MAX; ++r) {
        const double x = ldexp(1.0, r);
        float f = 0;
        QUANT_CHECK(hum_dtype_encode(HUM_DTYPE_FLOAT16, &x, 1, &staged[r - R_MIN]) == HUM_OK, "%s", hum_last_error());
        hum_dtype_to_float(HUM_DTYPE_FLOAT16, &staged[r - R_MIN], 1, &f);
        scale[r - R_MIN] = f;
    }
    QUANT_CHECK(staged[0] == 0 && staged[R_MAX - R_MIN] == 0x5400, "2^-30 stages as 0, 2^6 as 0x5400");
    int64_t bad = 0, fast = 0, words = 0;
    for (int products = 0; products < 2; ++products) {
        for (int r0 = R_MIN; r0 <= R_MAX; ++r0)
            for (int r1 = R_MIN; r1 <= R_MAX; ++r1) {
                const uint32_t sc = staged[r0 - R_MIN] | (uint32_t)staged[r1 - R_MIN] << 16;
                const double s[2] = {scale[r0 - R_MIN], scale[r1 - R_MIN]};
                uint32_t t[4];
                const int imad = tables(sc, products, t);
                fast += imad;
                QUANT_CHECK(imad == (!products && r0 >= -5 && r1 >= -5), "r %d, %d, products %d: IMAD tables %d", r0,
                            r1, products, imad);
                /* every code in every place: 16 words of one code, 16 words of random ones */
                for (int i = 0; i < 32; ++i) {
                    uint8_t codes[2][4];
                    for (int J = 0; J < 2; ++J)
                        for (int j = 0; j < 4; ++j)
                            codes[J][j] = (uint8_t)(i < 16 ? i : quant_rng_below(&rng, 16));
                    const uint32_t w = word_of(codes);
                    uint32_t r[2];
                    regs(t, w, &r[0], &r[1]);
                    ++words;
                    for (int J = 0; J < 2; ++J)
                        for (int j = 0; j < 4; ++j) {
                            const int c = codes[J][j];
                            const double v = (c & 8 ? -1.0 : 1.0) * e2m1[c & 7] * s[J];
                            const uint8_t want = e4m3_of(v), got = (uint8_t)(r[J] >> 8 * j);
                            if (got != want && bad++ < 5)
                                QUANT_CHECK(0, "code 0x%x at column %d, k %d, r %d, products %d: 0x%02x, expected "
                                            "0x%02x (%g)", c, J, j, J ? r1 : r0, products, got, want, v);
                        }
                }
            }
    }
    QUANT_CHECK(bad == 0, "%lld of %lld bytes differ", (long long)bad, (long long)(words * 8));
    QUANT_CHECK(fast == 12 * 12, "%lld scale pairs took the IMAD tables, expected 144", (long long)fast);
    return quant_test_result("test_fp4_table");
}
