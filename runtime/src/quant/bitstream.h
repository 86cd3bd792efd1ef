/* Element access to LSB-first bit streams, for code that reads a few values at a time (the
 * dequantizer reading zero points). Bulk conversions use hum_pack_bits / hum_unpack_bits. */
#ifndef HUM_BITSTREAM_H
#define HUM_BITSTREAM_H

#include <stdint.h>

/* The `bits`-wide value at bit position `pos` of a dense stream whose consecutive words are
 * `stride` int32 elements apart (1 along a row; the column count along dim -2). */
static inline uint32_t hum_bits_get(const int32_t *words, int64_t stride, int64_t pos, int32_t bits)
{
    const int64_t w = pos >> 5;
    const int32_t off = (int32_t)(pos & 31);
    uint64_t v = (uint32_t)words[w * stride];
    if (off + bits > 32)
        v |= (uint64_t)(uint32_t)words[(w + 1) * stride] << 32;
    return (uint32_t)(v >> off) & ((1u << bits) - 1);
}

#endif
