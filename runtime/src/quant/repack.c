/* CPU twins of kernels/prep/repack.cu (see repack.h). Kept line-for-line parallel to the kernels so
 * that a difference between the two is a bug in one of them. */
#include "repack.h"

#include "internal.h"

static int container_bits(int b)
{
    return b <= 1 ? 1 : b <= 2 ? 2 : b <= 4 ? 4 : 8;
}

/* Where word j of lane `lane` sits in its 64-column unit (kernels/numerics/codes.cuh, unit_word):
 * widths 4 and 8 in four planes of b / 4 words, 8-bit codes for 8-bit A in eight planes of one
 * word, the others a lane's b words together. */
static int plane_words(int b, int a8)
{
    return b == 8 && a8 ? 1 : b == 4 || b == 8 ? b / 4 : b;
}

static int64_t unit_word(int b, int a8, int lane, int j)
{
    return (int64_t)(j / plane_words(b, a8) * 32 + lane) * plane_words(b, a8) + j % plane_words(b, a8);
}

int64_t hum_repack_words(int64_t np, int64_t kp, int bits)
{
    return kp / 16 * (np / 64) * 32 * bits;
}

static uint32_t code_at(const uint32_t *src, int64_t row_words, int64_t n, int64_t k, int bits, int64_t n_lim,
                        int64_t k_lim)
{
    if (n >= n_lim || k >= k_lim)
        return 0;
    const int64_t bit = k * bits;
    const uint32_t *row = src + n * row_words + (bit >> 5);
    const int sh = (int)(bit & 31);
    uint32_t v = row[0] >> sh;
    if (sh + bits > 32)
        v |= row[1] << (32 - sh);
    return v & ((1u << bits) - 1u);
}

static uint32_t fp4_table_order(uint32_t w)
{
    uint32_t o = 0;
    for (int J = 0; J < 2; ++J)
        for (int j = 0; j < 4; ++j) {
            const uint32_t q = (w >> 4 * (2 * J + j % 2 + 4 * (j / 2))) & 15u;
            o |= (q & 7u) << (16 * J + 4 * j) | (q >> 3) << (8 * j + 7 - 4 * J);
        }
    return o;
}

static void repack_lane(const uint32_t *src, int64_t row_words, int64_t n, int64_t k, int64_t np, int64_t idx,
                        int bits, int a8, uint32_t *dst)
{
    const int c_bits = container_bits(bits);
    const int pairs = 16 / c_bits;
    const int lane = (int)(idx % 32);
    const int64_t units = np / 64;
    const int64_t u = idx / 32 % units;
    const int64_t r = idx / 32 / units;
    uint32_t o[8] = {0};
    for (int lp = 0; lp < 16; ++lp) {
        const int64_t col = u * 64 + 8 * (lp / 2) + (lane >> 2);
        const int64_t row = a8 ? r * 16 + 4 * (lane & 3) + lp % 2 : r * 16 + 2 * (lane & 3) + 8 * (lp % 2);
        const int odd = a8 ? 2 : 1;
        const int c = lp % pairs;
        o[lp / pairs] |= code_at(src, row_words, col, row, bits, n, k) << (c * c_bits) |
                         code_at(src, row_words, col, row + odd, bits, n, k) << (16 + c * c_bits);
    }
    if (bits == 4 && a8 == 2)
        for (int i = 0; i < c_bits; ++i)
            o[i] = fp4_table_order(o[i]);
    uint32_t w[8];
    for (int i = 0; i < bits; ++i)
        w[i] = o[i];
    if (bits != c_bits) {
        const int spare = c_bits - bits;
        const uint32_t lsb = c_bits == 4 ? 0x11111111u : 0x01010101u;
        for (int e = bits; e < c_bits; ++e)
            for (int p = 0; p < bits; ++p) {
                const int s = (e - bits) * bits + p;
                w[s / spare] |= ((o[e] >> p) & lsb) << (bits + s % spare);
            }
    }
    uint32_t *unit = dst + (idx - lane) * bits;
    for (int i = 0; i < bits; ++i)
        unit[unit_word(bits, a8 != 0, lane, i)] = w[i];
}

hum_status hum_repack_weight_cpu(const uint32_t *src, int64_t row_words, int64_t n, int64_t k, int64_t np,
                                 int64_t kp, int bits, int a8, uint32_t *dst)
{
    if (!src || !dst)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_repack_weight_cpu: NULL src or dst");
    if (bits < 1 || bits > 8)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_repack_weight_cpu: bits %d, expected 1..8", bits);
    if (np % 64 || kp % 16 || np < n || kp < k || n < 1 || k < 1)
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "hum_repack_weight_cpu: padded %lld x %lld for %lld x %lld, expected multiples of 64 x 16 "
                        "at least as large",
                        (long long)np, (long long)kp, (long long)n, (long long)k);
    if (row_words * 32 < k * bits)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_repack_weight_cpu: %lld words per row cannot hold %lld %d-bit codes",
                        (long long)row_words, (long long)k, bits);
    if (a8 < 0 || a8 > 2 || (a8 == 2 && bits != 4))
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_repack_weight_cpu: a8 %d with %d-bit codes, expected 0, 1 or (4-bit) 2",
                        a8, bits);
    const int64_t lanes = kp / 16 * (np / 64) * 32;
    for (int64_t idx = 0; idx < lanes; ++idx)
        repack_lane(src, row_words, n, k, np, idx, bits, a8, dst);
    return HUM_OK;
}

uint16_t hum_round16(uint32_t sign, uint32_t sig, int exp, int bf16)
{
    if (sig == 0)
        return (uint16_t)(sign << 15);
    const int man = bf16 ? 7 : 10, bias = bf16 ? 127 : 15, emax = bf16 ? 254 : 30;
    const int msb = 31 - __builtin_clz(sig);
    const int e = msb + exp;
    const int normal = e + bias >= 1;
    const int quantum = normal ? e - man : 1 - bias - man;
    const int shift = quantum - exp;
    uint32_t m;
    if (shift <= 0) {
        m = sig << -shift;
    } else if (shift > 31) {
        m = 0;
    } else {
        m = sig >> shift;
        const uint32_t rem = sig & ((1u << shift) - 1u), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (m & 1u)))
            ++m;
    }
    uint32_t bits;
    if (normal) {
        int biased = e + bias;
        if (m >> (man + 1)) {
            m >>= 1;
            ++biased;
        }
        bits = biased > emax ? (bf16 ? 0x7F80u : 0x7C00u) : (uint32_t)biased << man | (m - (1u << man));
    } else {
        bits = m;
    }
    return (uint16_t)(sign << 15 | bits);
}

static int scale_dtype_ok(hum_dtype t)
{
    return t == HUM_DTYPE_FLOAT16 || t == HUM_DTYPE_BFLOAT16 || t == HUM_DTYPE_FLOAT32 ||
           t == HUM_DTYPE_FLOAT8_E4M3FN || t == HUM_DTYPE_FLOAT8_E5M2 || t == HUM_DTYPE_FLOAT8_E8M0;
}

static uint16_t convert(const void *src, int64_t i, hum_dtype dtype, int adj, int bf16)
{
    const uint16_t nan = bf16 ? 0x7FC0 : 0x7E00, inf = bf16 ? 0x7F80 : 0x7C00;
    uint32_t bits, e_bits, m_bits, bias;
    int ieee_special;
    if (dtype == HUM_DTYPE_FLOAT16) {
        bits = ((const uint16_t *)src)[i], e_bits = 5, m_bits = 10, bias = 15, ieee_special = 1;
    } else if (dtype == HUM_DTYPE_BFLOAT16) {
        bits = ((const uint16_t *)src)[i], e_bits = 8, m_bits = 7, bias = 127, ieee_special = 1;
    } else if (dtype == HUM_DTYPE_FLOAT32) {
        bits = ((const uint32_t *)src)[i], e_bits = 8, m_bits = 23, bias = 127, ieee_special = 1;
    } else if (dtype == HUM_DTYPE_FLOAT8_E4M3FN) {
        bits = ((const uint8_t *)src)[i], e_bits = 4, m_bits = 3, bias = 7, ieee_special = 0;
        if ((bits & 0x7F) == 0x7F)
            return nan;
    } else if (dtype == HUM_DTYPE_FLOAT8_E5M2) {
        bits = ((const uint8_t *)src)[i], e_bits = 5, m_bits = 2, bias = 15, ieee_special = 1;
    } else {
        const uint32_t code = ((const uint8_t *)src)[i];
        return code == 0xFF ? nan : hum_round16(0, 1, (int)code - 127 + adj, bf16);
    }
    const uint32_t sign = bits >> (e_bits + m_bits);
    const uint32_t e = (bits >> m_bits) & ((1u << e_bits) - 1u);
    const uint32_t f = bits & ((1u << m_bits) - 1u);
    if (ieee_special && e == (1u << e_bits) - 1u)
        return f ? nan : (uint16_t)(sign << 15 | inf);
    const uint32_t sig = e ? (f | 1u << m_bits) : f;
    const int exp = (e ? (int)e : 1) - (int)bias - (int)m_bits;
    return hum_round16(sign, sig, exp + adj, bf16);
}

hum_status hum_prep_params_cpu(const void *src, hum_dtype dtype, int packed_bits, int64_t n, int64_t groups,
                               int64_t n_div, int64_t np, int64_t gp, int bf16, int exp_adjust, uint16_t *dst)
{
    if (!src || !dst)
        return hum_fail(HUM_ERR_INVALID_ARG, "hum_prep_params_cpu: NULL src or dst");
    if (packed_bits < 0 || packed_bits > 8 || (!packed_bits && !scale_dtype_ok(dtype)))
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "hum_prep_params_cpu: dtype 0x%08x / packed bits %d, expected a float16, bfloat16, float32, "
                        "e4m3, e5m2 or e8m0 scale, or 1..8-bit packed zero points",
                        (unsigned)dtype, packed_bits);
    if (np % 64 || np < n || gp < groups || n < 1 || groups < 1 || n_div < 1)
        return hum_fail(HUM_ERR_INVALID_ARG,
                        "hum_prep_params_cpu: bad shape n %lld (padded %lld), groups %lld (padded %lld)", (long long)n,
                        (long long)np, (long long)groups, (long long)gp);
    for (int64_t idx = 0; idx < gp * np; ++idx) {
        const int64_t g = idx / np;
        const int64_t pos = idx % np;
        const int64_t p = pos % 64;
        const int64_t col = pos - p + p / 8 + 8 * (p % 8);
        uint16_t v = 0;
        if (col < n && g < groups) {
            if (packed_bits) {
                const int64_t bit = col * packed_bits;
                const uint32_t *w = src;
                const int sh = (int)(bit & 31);
                uint32_t q = w[(bit >> 5) * groups + g] >> sh;
                if (sh + packed_bits > 32)
                    q |= w[((bit >> 5) + 1) * groups + g] << (32 - sh);
                q &= (1u << packed_bits) - 1u;
                v = hum_round16(0, q, exp_adjust, bf16);
            } else {
                v = convert(src, col / n_div * groups + g, dtype, exp_adjust, bf16);
            }
        }
        dst[idx] = v;
    }
    return HUM_OK;
}
