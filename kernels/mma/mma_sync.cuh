// Tensor-core primitives of the mma.sync path: ldmatrix for the activation fragments and the
// m16n8k16 product with float accumulators.
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
