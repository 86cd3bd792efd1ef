// Weight preprocessing for the dense GEMM (kernels/gemm/), run once per layer at prepare time.
// runtime/src/quant/repack.c is the bit-identical C twin of every kernel here.
//
// hum_repack_weight<b>: standard weight (LSB-first bit stream along K, one row per output channel n)
//   -> padded [Kp/16][Np/64][32 lanes x b words] int32, a lane's words within its unit placed by
//   numerics/codes.cuh (unit_word: 4 and 8 bits in four planes of b / 4 words, 8-bit codes for 8-bit
//   A in eight planes of one word (core matrices of wgmma's shared-memory operand), the other widths a
//   lane's b words together). For k16 row r and 64-column unit u, lane L
//   (g = L/4, t = L%4) holds the 32 codes of its mma B fragments for the 8 n8 blocks i of the unit:
//   column n = 64u + 8i + g, rows k = 16r + 2t + 8h + {0, 1} (h = 0, 1 is the fragment register).
//   Pair index lp = 2i + h selects word lp / (16/C) and container c = lp % (16/C) of the lane's
//   C-bit containers (C = 1, 2, 4, 8: the power of two >= b): the k-even code goes to bits c*C,
//   the k-odd code to bits 16 + c*C. Odd widths are then compressed from C to b words as
//   kernels/numerics/codes.cuh describes. Codes outside N x K are 0.
//   For 8-bit activations (a8) the rows inside each k16 row are reordered so that the four
//   codes (h, e) of a lane's column sit at k = 16r + 4t + 2e + h: in byte (or nibble) order
//   they are the lane's k 4t..4t+3, the B fragment of the 8-bit MMAs (m16n8k32, wgmma k32),
//   whose two registers are the same lane's words of k16 rows 2s and 2s + 1. a8 == 2 (4-bit
//   float codes with e4m3 A) then moves each word's codes into the table order of
//   kernels/gemm/dequant.cuh (fp4_table_order).
// hum_prep_params: scales or zero points ([N][G] of a float dtype, BLOCK rows shared by n_div
//   columns, or integer zero points packed LSB-first along N) -> [Gp][Np] float16/bfloat16,
//   multiplied by 2^exp_adjust and rounded to nearest even, with columns permuted inside each
//   64-column block so that position 8g + i holds column g + 8i (lane group g then reads its 8
//   columns as one 16-byte load). Entries outside N x G are 0.
#include "numerics/codes.cuh"

namespace repack {

HUM_DEV u32 code_at(const u32 *src, i64 row_words, int n, int k, int bits, int n_lim, int k_lim)
{
    if (n >= n_lim || k >= k_lim)
        return 0;
    const i64 bit = static_cast<i64>(k) * bits;
    const u32 *row = src + static_cast<i64>(n) * row_words + (bit >> 5);
    const int sh = static_cast<int>(bit & 31);
    u32 v = row[0] >> sh;
    if (sh + bits > 32)
        v |= row[1] << (32 - sh);
    return v & ((1u << bits) - 1u);
}

// An 8-bit-A word of 4-bit codes in the table order: column J's code j (k 4t + j; containers
// 2J + j % 2 + 4 (j / 2) of the K order above) with its three low bits at 16J + 4j and its sign
// (top) bit at 8j + 7 - 4J, where one prmt selector and one mask per column find them.
HUM_DEV u32 fp4_table_order(u32 w)
{
    u32 o = 0;
#pragma unroll
    for (int J = 0; J < 2; ++J)
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const u32 q = (w >> 4 * (2 * J + j % 2 + 4 * (j / 2))) & 15u;
            o |= (q & 7u) << (16 * J + 4 * j) | (q >> 3) << (8 * j + 7 - 4 * J);
        }
    return o;
}

template <int BITS>
HUM_DEV void repack_lane(const u32 *src, i64 row_words, int n, int k, int np, i64 idx, int a8, u32 *dst)
{
    constexpr int C = container_bits(BITS);
    constexpr int PAIRS = 16 / C;
    const int lane = static_cast<int>(idx % 32);
    const int units = np / 64;
    const int u = static_cast<int>(idx / 32 % units);
    const int r = static_cast<int>(idx / 32 / units);
    u32 o[C];
#pragma unroll
    for (int w = 0; w < C; ++w)
        o[w] = 0;
#pragma unroll
    for (int lp = 0; lp < 16; ++lp) {
        const int col = u * 64 + 8 * (lp / 2) + (lane >> 2);
        const int row = a8 ? r * 16 + 4 * (lane & 3) + lp % 2 : r * 16 + 2 * (lane & 3) + 8 * (lp % 2);
        const int odd = a8 ? 2 : 1;  // k of the code in the high half
        const int c = lp % PAIRS;
        o[lp / PAIRS] |= code_at(src, row_words, col, row, BITS, n, k) << (c * C) |
                         code_at(src, row_words, col, row + odd, BITS, n, k) << (16 + c * C);
    }
    if constexpr (BITS == 4) {
        if (a8 == 2) {
#pragma unroll
            for (int i = 0; i < C; ++i)
                o[i] = fp4_table_order(o[i]);
        }
    }
    u32 w[BITS];
#pragma unroll
    for (int i = 0; i < BITS; ++i)
        w[i] = o[i];
    using P = OddPlanes<BITS>;
#pragma unroll
    for (int e = BITS; e < C; ++e)
#pragma unroll
        for (int p = 0; p < BITS; ++p)
            w[P::word(e, p)] |= ((o[e] >> p) & P::LSB) << P::bit(e, p);
    u32 *unit = dst + (idx - lane) * BITS;
#pragma unroll
    for (int i = 0; i < BITS; ++i)
        unit[unit_word(BITS, a8 != 0, lane, i)] = w[i];
}

// sign * sig * 2^exp (sig < 2^31) as float16 (bf16 == 0) or bfloat16 bits, nearest even,
// overflow to infinity.
HUM_DEV u16 round16(u32 sign, u32 sig, int exp, int bf16)
{
    if (sig == 0)
        return static_cast<u16>(sign << 15);
    const int man = bf16 ? 7 : 10, bias = bf16 ? 127 : 15, emax = bf16 ? 254 : 30;
    const int msb = 31 - __clz(static_cast<int>(sig));
    const int e = msb + exp;  // value = 1.f * 2^e
    const bool normal = e + bias >= 1;
    const int quantum = normal ? e - man : 1 - bias - man;
    const int shift = quantum - exp;
    u32 m;
    if (shift <= 0) {
        m = sig << -shift;
    } else if (shift > 31) {
        m = 0;
    } else {
        m = sig >> shift;
        const u32 rem = sig & ((1u << shift) - 1u), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (m & 1u)))
            ++m;
    }
    u32 bits;
    if (normal) {
        int biased = e + bias;
        if (m >> (man + 1)) {
            m >>= 1;
            ++biased;
        }
        bits = biased > emax ? (bf16 ? 0x7F80u : 0x7C00u)
                             : static_cast<u32>(biased) << man | (m - (1u << man));
    } else {
        bits = m;  // 2^man here is the smallest normal, whose bits are exactly m
    }
    return static_cast<u16>(sign << 15 | bits);
}

// hum_dtype codes of the scale formats (see hum.h): float16, bfloat16, float32,
// float8_e4m3fn, float8_e5m2; anything else is float8_e8m0 (the layer validates the dtype).
constexpr u32 DT_F16 = (3u << 24) | (10u << 16) | (5u << 8) | 16u;
constexpr u32 DT_BF16 = (3u << 24) | (7u << 16) | (8u << 8) | 16u;
constexpr u32 DT_F32 = (3u << 24) | (23u << 16) | (8u << 8) | 32u;
constexpr u32 DT_E4M3 = (1u << 28) | (3u << 24) | (3u << 16) | (4u << 8) | 8u;
constexpr u32 DT_E5M2 = (3u << 24) | (2u << 16) | (5u << 8) | 8u;

// Converts one element of a float dtype to the 16-bit target, times 2^adj. NaN stays NaN,
// infinity stays infinity (scales never hold either in a valid checkpoint).
HUM_DEV u16 convert(const void *src, i64 i, u32 dtype, int adj, int bf16)
{
    const u16 nan = bf16 ? 0x7FC0 : 0x7E00, inf = bf16 ? 0x7F80 : 0x7C00;
    u32 bits, e_bits, m_bits, bias;
    bool ieee_special;
    if (dtype == DT_F16) {
        bits = static_cast<const u16 *>(src)[i], e_bits = 5, m_bits = 10, bias = 15, ieee_special = true;
    } else if (dtype == DT_BF16) {
        bits = static_cast<const u16 *>(src)[i], e_bits = 8, m_bits = 7, bias = 127, ieee_special = true;
    } else if (dtype == DT_F32) {
        bits = static_cast<const u32 *>(src)[i], e_bits = 8, m_bits = 23, bias = 127, ieee_special = true;
    } else if (dtype == DT_E4M3) {
        bits = static_cast<const u8 *>(src)[i], e_bits = 4, m_bits = 3, bias = 7, ieee_special = false;
        if ((bits & 0x7F) == 0x7F)
            return nan;
    } else if (dtype == DT_E5M2) {
        bits = static_cast<const u8 *>(src)[i], e_bits = 5, m_bits = 2, bias = 15, ieee_special = true;
    } else {  // DT_E8M0: 2^(code - 127), 0xFF is NaN
        const u32 code = static_cast<const u8 *>(src)[i];
        return code == 0xFF ? nan : round16(0, 1, static_cast<int>(code) - 127 + adj, bf16);
    }
    const u32 sign = bits >> (e_bits + m_bits);
    const u32 e = (bits >> m_bits) & ((1u << e_bits) - 1u);
    const u32 f = bits & ((1u << m_bits) - 1u);
    if (ieee_special && e == (1u << e_bits) - 1u)
        return f ? nan : static_cast<u16>(sign << 15 | inf);
    const u32 sig = e ? (f | 1u << m_bits) : f;
    const int exp = (e ? static_cast<int>(e) : 1) - static_cast<int>(bias) - static_cast<int>(m_bits);
    return round16(sign, sig, exp + adj, bf16);
}

}  // namespace repack

// One instantiation per width, named by the request (hum_repack_weight<4>): NVRTC then compiles
// only that one, a fraction of the time of all eight behind a run-time switch. a8: the K order
// of 8-bit activations (above).
template <int BITS>
__global__ void hum_repack_weight(const u32 *src, i64 row_words, int n, int k, int np, int kp, int a8, u32 *dst)
{
    const i64 lanes = static_cast<i64>(kp / 16) * (np / 64) * 32;
    for (i64 idx = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; idx < lanes;
         idx += static_cast<i64>(gridDim.x) * blockDim.x)
        repack::repack_lane<BITS>(src, row_words, n, k, np, idx, a8, dst);
}

// packed_bits == 0: src holds [ceil(N / n_div)][groups] elements of `dtype`.
// packed_bits == b: src holds int32 [ceil(N*b/32)][groups], b-bit codes LSB-first along N.
extern "C" __global__ void hum_prep_params(const void *src, u32 dtype, int packed_bits, int n, int groups,
                                           int n_div, int np, int gp, int bf16, int exp_adjust, u16 *dst)
{
    const i64 total = static_cast<i64>(gp) * np;
    for (i64 idx = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; idx < total;
         idx += static_cast<i64>(gridDim.x) * blockDim.x) {
        const int g = static_cast<int>(idx / np);
        const int pos = static_cast<int>(idx % np);
        const int p = pos % 64;
        const int col = pos - p + p / 8 + 8 * (p % 8);
        u16 v = 0;
        if (col < n && g < groups) {
            if (packed_bits) {
                const i64 bit = static_cast<i64>(col) * packed_bits;
                const u32 *w = static_cast<const u32 *>(src);
                const int sh = static_cast<int>(bit & 31);
                u32 q = w[(bit >> 5) * groups + g] >> sh;
                if (sh + packed_bits > 32)
                    q |= w[((bit >> 5) + 1) * groups + g] << (32 - sh);
                q &= (1u << packed_bits) - 1u;
                v = repack::round16(0, q, exp_adjust, bf16);
            } else {
                v = repack::convert(src, static_cast<i64>(col / n_div) * groups + g, dtype, exp_adjust, bf16);
            }
        }
        dst[idx] = v;
    }
}
