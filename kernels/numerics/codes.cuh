// The layout of weight codes in the repacked words, shared by the writer (kernels/prep/repack.cu)
// and the decoders (kernels/numerics/decode.cuh).
//
// A b-bit code sits in a container of C bits, the power of two >= b. Odd widths (3, 5, 6, 7) are
// stored compressed: the C-bit containers of b-bit values leave C - b spare bits in each
// container of the first b words, and the b-bit values of the remaining C - b "virtual" words
// are spread over those spare bits, one bit plane at a time: bit plane p of virtual word e (plane
// index s = (e - b) * b + p) lives in spare bit b + s % (C - b) of each container of word
// s / (C - b).
#pragma once
#include "common.cuh"

__host__ __device__ constexpr int container_bits(int b)
{
    return b <= 1 ? 1 : b <= 2 ? 2 : b <= 4 ? 4 : 8;
}

// Where a lane's stored words sit in a 64-column unit of a k16 row (32 lanes x b words): widths 4
// and 8 in four planes of b / 4 words, word j of lane L at (j / (b / 4)) * 32 * (b / 4) + L * (b / 4)
// + j % (b / 4), so that warp w of a wgmma warpgroup reads plane w, its share of every lane
// (kernels/gemm/gemm_wgmma.cu), as one conflict-free row and a stage copies the planes in 16-byte
// chunks as they sit; the other widths keep a lane's b words together (one plane of b words),
// which the wgmma kernel reads whole. 8-bit codes for 8-bit A (a8) take one word a plane, word j
// of the 32 lanes in a row: lane 4g + t's word j holds k 4t..4t+3 of column 8j + g
// (kernels/prep/repack.cu), so the 128 bytes of word j are the 8 columns' 16 bytes of the k16 row
// in order, a core matrix that wgmma reads from shared memory as it sits (weights_ss).
__host__ __device__ constexpr int plane_words(int b, bool a8)
{
    return b == 8 && a8 ? 1 : b == 4 || b == 8 ? b / 4 : b;
}
__host__ __device__ constexpr int unit_word(int b, bool a8, int lane, int j)
{
    return (j / plane_words(b, a8) * 32 + lane) * plane_words(b, a8) + j % plane_words(b, a8);
}

template <int BITS>
struct OddPlanes {
    static constexpr int CONT = container_bits(BITS);
    static constexpr int SPARE = CONT - BITS;
    // bit 0 of every container
    static constexpr u32 LSB = CONT == 4 ? 0x11111111u : 0x01010101u;

    // stored word and container bit of plane p of virtual word e (e >= BITS)
    __host__ __device__ static constexpr int word(int e, int p) { return ((e - BITS) * BITS + p) / SPARE; }
    __host__ __device__ static constexpr int bit(int e, int p) { return BITS + ((e - BITS) * BITS + p) % SPARE; }
};
