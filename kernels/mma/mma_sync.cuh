// Tensor-core primitives of the mma.sync path: ldmatrix for the activation fragments and the
// m16n8k16 (16-bit) and m16n8k32 (8-bit) products with float accumulators.
//
// Fragment ownership (PTX ISA, "mma.m16n8k16" for .f16/.bf16), with g = lane / 4, t = lane % 4:
//   A (16x16, row-major): a0 = (row g,   k 2t..2t+1)   a1 = (row g+8, k 2t..2t+1)
//                         a2 = (row g,   k 2t+8..2t+9) a3 = (row g+8, k 2t+8..2t+9)
//   B (16x8, "col"):      b0 = (k 2t..2t+1,   col g)   b1 = (k 2t+8..2t+9, col g)
//   C (16x8, float):      c0,c1 = (row g, col 2t, 2t+1)  c2,c3 = (row g+8, col 2t, 2t+1)
// sm_75 has no m16n8k16 for 16-bit types; there the same product is two m16n8k8 steps, which
// take exactly the k 0..7 half (a0, a1, b0) and then the k 8..15 half (a2, a3, b1).
#pragma once
#include "common.cuh"

// Four 8x8 16-bit matrices; lane l supplies the address of row l % 8 of matrix l / 8, and
// register i receives matrix i in the C-fragment-like layout (row g, elements 2t, 2t+1).
HUM_DEV void ldmatrix_x4(u32 (&r)[4], u32 addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// Two 8x8 16-bit matrices; lanes 0..15 supply the addresses (row l % 8 of matrix l / 8).
HUM_DEV void ldmatrix_x2(u32 &r0, u32 &r1, u32 addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r0), "=r"(r1) : "r"(addr));
}

template <bool BF16>
HUM_DEV void mma_16816(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1)
{
#if __CUDA_ARCH__ >= 800
    if constexpr (BF16) {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
            "{%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    } else {
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
            "{%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
#else
    static_assert(!BF16, "bfloat16 tensor-core products need sm_80 or newer");
    asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b0));
    asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[2]), "r"(a[3]), "r"(b1));
#endif
}

// e4m3 codes, four per register (bytes 0..3), as two float16 pairs (bytes 0, 1) and (bytes 2, 3);
// exact: every e4m3 value is a float16. (These three are templates on the register type only so
// that targets before sm_89 compile them unused.)
template <typename T>
HUM_DEV void e4m3x4_f16(T x, u32 &lo, u32 &hi)
{
#if __CUDA_ARCH__ >= 890
    asm("{\n .reg .b16 l, h;\n mov.b32 {l, h}, %2;\n cvt.rn.f16x2.e4m3x2 %0, l;\n cvt.rn.f16x2.e4m3x2 %1, h;\n}\n"
        : "=r"(lo), "=r"(hi)
        : "r"(x));
#else
    static_assert(sizeof(T) == 0, "e4m3 conversions need sm_89 or newer");
#endif
}

// sm_90 has no e4m3 mma.sync: ptxas runs each m16n8k32.e4m3 as two float16 HMMA.16816 on
// converted operands into a fresh accumulator and adds that to the float32 one with four FADD
// (bench/NOTES.md, session 9). kE4m3AsF16: the kernel converts the operands itself and chains the
// two float16 products on its own accumulator (float32 accumulation either way), without those
// adds: mma_16832_f16 below. Other targets with e4m3 keep mma_16832.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1000
constexpr bool kE4m3AsF16 = true;
#else
constexpr bool kE4m3AsF16 = false;
#endif

// An e4m3 A fragment of m16n8k32 (a0..a3 below) as the float16 A fragments of two m16n8k16
// products, one per k16 half: within a half, k 4t + i (i = 0, 1) is taken as k 2t + i and
// k 4t + 2 + i as 2t + 8 + i, the B side the same (mma_16832_f16), so each product pairs the
// terms m16n8k32 pairs.
template <typename T>
HUM_DEV void e4m3_a_f16(const T (&a)[4], u32 (&h)[2][4])
{
#pragma unroll
    for (int half = 0; half < 2; ++half) {
        e4m3x4_f16(a[2 * half], h[half][0], h[half][2]);      // row g
        e4m3x4_f16(a[2 * half + 1], h[half][1], h[half][3]);  // row g + 8
    }
}

// d += A B for e4m3 A (e4m3_a_f16 of its fragment) and B (b0, b1 as for mma_16832), as two
// float16 products with float32 accumulation.
template <typename T>
HUM_DEV void mma_16832_f16(float (&d)[4], const u32 (&a)[2][4], T b0, T b1)
{
    u32 b[2][2];
    e4m3x4_f16(b0, b[0][0], b[0][1]);
    e4m3x4_f16(b1, b[1][0], b[1][1]);
    mma_16816<false>(d, a[0], b[0][0], b[0][1]);
    mma_16816<false>(d, a[1], b[1][0], b[1][1]);
}

// 8-bit A and B (m16n8k32), the fragments four 8-bit values per register (PTX ISA
// "mma.m16n8k32"): a0 = (row g, k 4t..4t+3), a1 = (row g+8, k 4t..4t+3), a2 and a3 the same
// rows at k 16+4t..16+4t+3, b0 = (k 4t..4t+3, col g), b1 = (k 16+4t..16+4t+3, col g); an
// ldmatrix of 32-byte rows gives A's. e4m3 accumulates in float32 (sm_89 and newer), int8 in
// int32 (sm_80 and newer), whose bits the float registers hold until the epilogue converts them.
template <bool FP8>
HUM_DEV void mma_16832(float (&d)[4], const u32 (&a)[4], u32 b0, u32 b1)
{
    if constexpr (FP8) {
#if __CUDA_ARCH__ >= 890
        asm("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
            "{%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
        static_assert(!FP8, "e4m3 tensor-core products need sm_89 or newer");
#endif
    } else {
#if __CUDA_ARCH__ >= 800
        int c[4] = {__float_as_int(d[0]), __float_as_int(d[1]), __float_as_int(d[2]), __float_as_int(d[3])};
        asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
            "{%8,%9}, {%0,%1,%2,%3};\n"
            : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#pragma unroll
        for (int i = 0; i < 4; ++i)
            d[i] = __int_as_float(c[i]);
#else
        static_assert(FP8, "int8 tensor-core products of m16n8k32 need sm_80 or newer");
#endif
    }
}
