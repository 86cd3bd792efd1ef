/* Bit streams: pack / unpack of every width 1..8, along both dims, both layouts, on shapes
 * whose line lengths are not multiples of 32, against a naive bit-by-bit packer written here;
 * known words for GPTQ 3-bit and AutoAWQ; FP4 nibble order; bad input. */
#include "hum/hum_tools.h"
#include "quant_test.h"

#include <stdlib.h>
#include <string.h>

/* Bit-by-bit reference: value i of a line has its bit t at stream bit pos(i) + t. */
static void naive_pack(const uint8_t *v, int64_t B, int64_t R, int64_t C, int bits, int along_rows, int aligned,
                       uint32_t *out, int64_t *nwords)
{
    const int64_t len = along_rows ? R : C;
    const int per = 32 / bits;
    const int64_t lw = aligned ? (len + per - 1) / per : (len * bits + 31) / 32;
    const int64_t other = along_rows ? C : R;
    *nwords = B * lw * other;
    memset(out, 0, (size_t)*nwords * 4);
    for (int64_t b = 0; b < B; b++)
        for (int64_t r = 0; r < R; r++)
            for (int64_t c = 0; c < C; c++) {
                const uint8_t x = v[(b * R + r) * C + c];
                const int64_t i = along_rows ? r : c;
                const int64_t base = aligned ? (i / per) * 32 + (i % per) * bits : i * bits;
                for (int t = 0; t < bits; t++) {
                    const int64_t p = base + t;
                    const int64_t w = p / 32;
                    /* word index in the packed array */
                    const int64_t idx = along_rows ? (b * lw + w) * C + c : (b * R + r) * lw + w;
                    if ((x >> t) & 1)
                        out[idx] |= 1u << (p % 32);
                }
            }
}

static void check_roundtrips(quant_rng *rng)
{
    static const int64_t shapes[][3] = {{1, 1, 1}, {1, 3, 31}, {2, 37, 45}, {1, 33, 7}, {3, 5, 64}, {1, 96, 3},
                                        {1, 0, 5}, {2, 65, 1}};
    enum { MAXN = 3 * 96 * 64 + 64 };
    uint8_t *v = malloc(MAXN), *back = malloc(MAXN);
    uint32_t *want = malloc(MAXN * 4), *got = malloc(MAXN * 4);
    for (int bits = 1; bits <= 8; bits++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int along_rows = 0; along_rows < 2; along_rows++)
                for (int aligned = 0; aligned < 2; aligned++) {
                    const int64_t *sh = shapes[s];
                    const int64_t n = sh[0] * sh[1] * sh[2];
                    for (int64_t i = 0; i < n; i++)
                        v[i] = (uint8_t)quant_rng_below(rng, 1 << bits);
                    int64_t nw;
                    naive_pack(v, sh[0], sh[1], sh[2], bits, along_rows, aligned, want, &nw);
                    const hum_pack_dim dim = along_rows ? HUM_PACK_ALONG_ROWS : HUM_PACK_ALONG_COLS;
                    const hum_pack_layout lay = aligned ? HUM_PACK_WORD_ALIGNED : HUM_PACK_DENSE;
                    const int64_t lw = hum_packed_words(along_rows ? sh[1] : sh[2], bits, lay);
                    QUANT_CHECK(lw * sh[0] * (along_rows ? sh[2] : sh[1]) == nw, "word count b=%d", bits);
                    memset(got, 0xA5, MAXN * 4); /* poison: every word must be written */
                    QUANT_CHECK(hum_pack_bits(v, sh, bits, dim, lay, (int32_t *)got) == HUM_OK, "%s",
                                hum_last_error());
                    QUANT_CHECK(memcmp(got, want, (size_t)nw * 4) == 0,
                                "pack b=%d shape %lldx%lldx%lld rows=%d aligned=%d differs from bit-by-bit", bits,
                                (long long)sh[0], (long long)sh[1], (long long)sh[2], along_rows, aligned);
                    memset(back, 0xEE, MAXN);
                    QUANT_CHECK(hum_unpack_bits((const int32_t *)want, sh, bits, dim, lay, back) == HUM_OK, "%s",
                                hum_last_error());
                    QUANT_CHECK(memcmp(back, v, (size_t)n) == 0, "unpack b=%d shape %zu rows=%d aligned=%d", bits, s,
                                along_rows, aligned);
                }
    free(v);
    free(back);
    free(want);
    free(got);
}

static void check_known_words(void)
{
    /* GPTQ 3-bit (checkpoint-formats.md 1.3): value 10 straddles word0 bits 30-31 and word1
     * bit 0; value 21 straddles word1 bit 31 and word2 bits 0-1. */
    uint8_t v[32] = {0};
    v[10] = 0x5; /* 101: bits 30, 32 */
    v[21] = 0x6; /* 110: bits 64, 65 -> word2 bits 0, 1; bit 63 (word1 bit 31) = 0 */
    v[31] = 0x7; /* bits 93..95 */
    uint32_t w[3];
    QUANT_CHECK(hum_pack_bits(v, (const int64_t[3]){1, 1, 32}, 3, HUM_PACK_ALONG_COLS, HUM_PACK_DENSE, (int32_t *)w) ==
                    HUM_OK,
                "%s", hum_last_error());
    QUANT_CHECK(w[0] == 0x40000000u && w[1] == 0x00000001u && w[2] == 0xE0000003u, "3-bit words %08x %08x %08x", w[0],
                w[1], w[2]);
    /* compressed-tensors <= 0.17, 3-bit: 10 values per word, bits 30-31 zero. */
    uint8_t ten[11] = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 1};
    uint32_t t[2];
    QUANT_CHECK(hum_pack_bits(ten, (const int64_t[3]){1, 1, 11}, 3, HUM_PACK_ALONG_COLS, HUM_PACK_WORD_ALIGNED,
                              (int32_t *)t) == HUM_OK,
                "%s", hum_last_error());
    QUANT_CHECK(t[0] == 0x3FFFFFFFu && t[1] == 1u, "word-aligned 3-bit %08x %08x", t[0], t[1]);
    QUANT_CHECK(hum_packed_words(4096, 3, HUM_PACK_WORD_ALIGNED) == 410 &&
                    hum_packed_words(4096, 3, HUM_PACK_DENSE) == 384,
                "K=4096 3-bit word counts (checkpoint-formats.md 3.4)");
    /* AutoAWQ: logical columns 0..7 with value j packed as slot i <- column order[i]:
     * nibbles from bit 0: 0,2,4,6,1,3,5,7 -> 0x75316420. */
    uint8_t logical[8] = {0, 1, 2, 3, 4, 5, 6, 7}, slots[8];
    QUANT_CHECK(hum_awq_interleave(logical, 8, slots) == HUM_OK, "%s", hum_last_error());
    uint32_t aw;
    QUANT_CHECK(hum_pack_bits(slots, (const int64_t[3]){1, 1, 8}, 4, HUM_PACK_ALONG_COLS, HUM_PACK_DENSE,
                              (int32_t *)&aw) == HUM_OK && aw == 0x75316420u,
                "AWQ word 0x%08x", aw);
    uint8_t un[8];
    QUANT_CHECK(hum_unpack_bits((const int32_t *)&(uint32_t){0x75316420u}, (const int64_t[3]){1, 1, 8}, 4,
                                HUM_PACK_ALONG_COLS, HUM_PACK_DENSE, un) == HUM_OK,
                "unpack");
    QUANT_CHECK(hum_awq_deinterleave(un, 8, un) == HUM_OK && memcmp(un, logical, 8) == 0, "AWQ in-place deinterleave");
    QUANT_CHECK(hum_awq_deinterleave(un, 12, un) == HUM_ERR_INVALID_ARG, "AWQ count 12 refused");
    /* Nibbles: {1, 2, 3} low first -> 0x21 0x03; high first -> 0x12 0x30. */
    uint8_t nib[3] = {1, 2, 3}, bytes[2], back[3];
    QUANT_CHECK(hum_nibbles_pack(nib, 3, HUM_NIBBLE_LOW_FIRST, bytes) == HUM_OK && bytes[0] == 0x21 &&
                    bytes[1] == 0x03,
                "low first %02x %02x", bytes[0], bytes[1]);
    QUANT_CHECK(hum_nibbles_unpack(bytes, 3, HUM_NIBBLE_LOW_FIRST, back) == HUM_OK && memcmp(back, nib, 3) == 0,
                "low first unpack");
    QUANT_CHECK(hum_nibbles_pack(nib, 3, HUM_NIBBLE_HIGH_FIRST, bytes) == HUM_OK && bytes[0] == 0x12 &&
                    bytes[1] == 0x30,
                "high first %02x %02x", bytes[0], bytes[1]);
    QUANT_CHECK(hum_nibbles_unpack(bytes, 3, HUM_NIBBLE_HIGH_FIRST, back) == HUM_OK && memcmp(back, nib, 3) == 0,
                "high first unpack");
    /* LOW_FIRST bytes are the dense 4-bit int32 stream byte for byte (little-endian words). */
    uint8_t eight[8] = {1, 2, 3, 4, 5, 6, 7, 8}, eb[4];
    uint32_t ew;
    hum_nibbles_pack(eight, 8, HUM_NIBBLE_LOW_FIRST, eb);
    hum_pack_bits(eight, (const int64_t[3]){1, 1, 8}, 4, HUM_PACK_ALONG_COLS, HUM_PACK_DENSE, (int32_t *)&ew);
    QUANT_CHECK(ew == ((uint32_t)eb[0] | (uint32_t)eb[1] << 8 | (uint32_t)eb[2] << 16 | (uint32_t)eb[3] << 24),
                "nibbles vs stream");
}

static void check_errors(void)
{
    uint8_t v[4] = {1, 2, 8, 3};
    uint32_t w[2] = {0xDEADBEEF, 0xDEADBEEF};
    QUANT_CHECK(hum_pack_bits(v, (const int64_t[3]){1, 1, 4}, 3, HUM_PACK_ALONG_COLS, HUM_PACK_DENSE, (int32_t *)w) ==
                    HUM_ERR_INVALID_ARG,
                "value 8 in 3 bits refused");
    QUANT_CHECK(strstr(hum_last_error(), "index 2") != NULL, "message: %s", hum_last_error());
    QUANT_CHECK(w[0] == 0xDEADBEEF, "nothing written on error");
    QUANT_CHECK(hum_pack_bits(v, (const int64_t[3]){1, 1, 4}, 9, HUM_PACK_ALONG_COLS, HUM_PACK_DENSE, (int32_t *)w) ==
                    HUM_ERR_INVALID_ARG,
                "bits 9 refused");
    QUANT_CHECK(hum_pack_bits(v, (const int64_t[3]){1, -1, 4}, 4, HUM_PACK_ALONG_COLS, HUM_PACK_DENSE, (int32_t *)w) ==
                    HUM_ERR_INVALID_ARG,
                "negative shape refused");
    QUANT_CHECK(hum_unpack_bits(NULL, (const int64_t[3]){1, 1, 4}, 4, HUM_PACK_ALONG_COLS, HUM_PACK_DENSE, v) ==
                    HUM_ERR_INVALID_ARG,
                "NULL refused");
    QUANT_CHECK(hum_packed_words(10, 0, HUM_PACK_DENSE) == -1, "packed_words bits 0");
    /* a shape whose product passes INT64_MAX, each dimension within bounds: refused, not wrapped */
    QUANT_CHECK(hum_pack_bits(v, (const int64_t[3]){INT64_C(1) << 31, INT64_C(1) << 31, 4}, 8, HUM_PACK_ALONG_COLS,
                              HUM_PACK_DENSE, (int32_t *)w) == HUM_ERR_INVALID_ARG &&
                    strstr(hum_last_error(), "values is too many") &&
                    hum_unpack_bits((const int32_t *)w, (const int64_t[3]){INT64_C(1) << 24, INT64_C(1) << 40, 1}, 8,
                                    HUM_PACK_ALONG_ROWS, HUM_PACK_DENSE, v) == HUM_ERR_INVALID_ARG,
                "a shape whose product overflows: %s", hum_last_error());
    /* bits past INT64_MAX: a checkpoint's K of 2^62 + 1024 at 4 bits wrapped to 128 words */
    QUANT_CHECK(hum_packed_words((INT64_C(1) << 62) + 1024, 4, HUM_PACK_DENSE) == -1 &&
                    hum_packed_words((INT64_MAX - 31) / 8, 8, HUM_PACK_DENSE) == ((INT64_MAX - 31) / 8 * 8 + 31) / 32,
                "packed_words past INT64_MAX refused, up to it counted");
    QUANT_CHECK(hum_nibbles_pack(v, 4, HUM_NIBBLE_LOW_FIRST, (uint8_t *)w) == HUM_OK, "nibbles of < 16");
    uint8_t big[2] = {1, 16};
    QUANT_CHECK(hum_nibbles_pack(big, 2, HUM_NIBBLE_LOW_FIRST, (uint8_t *)w) == HUM_ERR_INVALID_ARG, "16 refused");
}

int main(void)
{
    quant_rng rng = quant_rng_fresh("test_bitstream");
    check_roundtrips(&rng);
    check_known_words();
    check_errors();
    return quant_test_result("test_bitstream");
}
