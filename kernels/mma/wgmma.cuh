// Hopper warpgroup MMA back end (sm_90a): wgmma.mma_async with the A operand in registers and
// B in shared memory (RS), or 8-bit A in shared memory too (SS), its fences and groups, and the
// shared-memory matrix descriptors.
//
// Fragment ownership (PTX ISA "Register Fragments and Shared Memory Matrix Layouts" of
// wgmma .m64nNk16, 16-bit types), lane l of warp w (0..3) of the warpgroup, g = l/4, t = l%4:
//   A (64x16, registers): a0 = (row 16w+g,   k 2t..2t+1)    a1 = (row 16w+g+8, k 2t..2t+1)
//                         a2 = (row 16w+g,   k 2t+8..2t+9)  a3 = (row 16w+g+8, k 2t+8..2t+9)
//   D (64xN, float):      d[4j+0], d[4j+1] = (row 16w+g,   col 8j+2t, 8j+2t+1)
//                         d[4j+2], d[4j+3] = (row 16w+g+8, col 8j+2t, 8j+2t+1)
// B is N rows of 16 k each ("K-major", no transpose), read through a descriptor.
#pragma once
#include "common.cuh"

// Descriptor of a K-major B operand in the 128-byte swizzle mode: rows of 128 bytes (64
// 16-bit k), eight rows (1024 bytes) per swizzle atom, atoms stacked along N. Field layout
// (PTX ISA "Matrix Descriptor Format"): start address >> 4 in bits 0-13, leading byte offset
// >> 4 in bits 16-29 (unused by swizzled K-major layouts; 1 by convention), stride byte offset
// >> 4 (here 1024: the distance between 8-row groups) in bits 32-45, base offset 0 in bits
// 49-51 (the atoms start 1024-byte aligned), swizzle mode 1 (128 B) in bits 62-63. The
// hardware applies the swizzle to address bits, so the k16 steps inside an atom are start
// addresses 32 bytes apart.
HUM_DEV u64 wgmma_desc_sw128(u32 smem_byte_addr)
{
    return static_cast<u64>((smem_byte_addr & 0x3FFFFu) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}

// Descriptor of a K-major operand without swizzle: 8 x 16-byte core matrices of 128 contiguous
// bytes (row r at byte 16 r), the next core matrix along K `lbo` bytes on (leading byte offset,
// bits 16-29) and the next 8 rows `sbo` bytes on (stride byte offset, bits 32-45), swizzle mode 0
// (PTX ISA "Matrix Descriptor Format"; both offsets multiples of 16 below 2^18).
HUM_DEV u64 wgmma_desc_core(u32 smem_byte_addr, u32 lbo, u32 sbo)
{
    return static_cast<u64>((smem_byte_addr & 0x3FFFFu) >> 4) | static_cast<u64>(lbo >> 4) << 16 |
           static_cast<u64>(sbo >> 4) << 32;
}

// Orders this thread's earlier register writes (A fragments, accumulators) before the
// warpgroup's next wgmma reads them.
HUM_DEV void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

HUM_DEV void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

// Waits until at most PENDING committed wgmma groups of the warpgroup are still running.
template <int PENDING>
HUM_DEV void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(PENDING) : "memory");
}

// Sets the registers per thread of the executing warpgroup to REGS (a multiple of 8 in
// 24..256): a producer warpgroup gives registers back to the pool, math warpgroups take them,
// within what the CTA was launched with.
template <int REGS>
HUM_DEV void warpgroup_regs_dec()
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

template <int REGS>
HUM_DEV void warpgroup_regs_inc()
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS));
}

// Keeps the compiler from moving accesses of `v` across a wgmma fence or wait.
HUM_DEV void wgmma_pin(float &v)
{
    asm volatile("" : "+f"(v)::"memory");
}

HUM_DEV void wgmma_pin(int &v)
{
    asm volatile("" : "+r"(v)::"memory");
}

#define HUM_F4(d, i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define HUM_F8(d, i) HUM_F4(d, i), HUM_F4(d, i + 4)
#define HUM_F16(d, i) HUM_F8(d, i), HUM_F8(d, i + 8)
#define HUM_F32(d, i) HUM_F16(d, i), HUM_F16(d, i + 16)
#define HUM_R4(d, i) "+r"(d[i]), "+r"(d[i + 1]), "+r"(d[i + 2]), "+r"(d[i + 3])
#define HUM_R8(d, i) HUM_R4(d, i), HUM_R4(d, i + 4)
#define HUM_R16(d, i) HUM_R8(d, i), HUM_R8(d, i + 8)
#define HUM_R32(d, i) HUM_R16(d, i), HUM_R16(d, i + 16)
// The instruction of shape and types SHAPE; ONE is the operand number of the scale-d flag
// (scale_d: 1 accumulates, 0 overwrites d), OPERANDS the accumulators, the A registers and the
// descriptor, TAIL the immediates after scale-d (A and B scales 1, and for 16-bit types B not transposed).
#define HUM_WGMMA_ASM(SHAPE, ONE, OPERANDS, TAIL)                                                  \
    "{\n.reg .pred p;\nsetp.ne.b32 p, %" ONE ", 0;\nwgmma.mma_async.sync.aligned." SHAPE " " OPERANDS \
    ", p" TAIL ";\n}\n"
#define HUM_WGMMA_OPS8 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, %8"
#define HUM_WGMMA_OPS16 "{%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12"
#define HUM_WGMMA_OPS32 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20"
#define HUM_WGMMA_OPS64 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36"
#define HUM_WGMMA_OPS48 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23}, {%24, %25, %26, %27}, %28"
#define HUM_WGMMA_OPS80 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39}, {%40, %41, %42, %43}, %44"
#define HUM_WGMMA_OPS96 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47}, {%48, %49, %50, %51}, %52"
#define HUM_WGMMA_OPS112 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, " \
    "%53, %54, %55}, {%56, %57, %58, %59}, %60"
#define HUM_WGMMA_OPS128 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, " \
    "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68"
#define HUM_WGMMA_SS8 "{%0, %1, %2, %3}, %4, %5"
#define HUM_WGMMA_SS16 "{%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9"
#define HUM_WGMMA_SS32 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, %16, %17"
#define HUM_WGMMA_SS48 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23}, %24, %25"
#define HUM_WGMMA_SS64 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33"
#define HUM_WGMMA_SS80 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39}, %40, %41"
#define HUM_WGMMA_SS96 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47}, %48, %49"
#define HUM_WGMMA_SS112 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, " \
    "%53, %54, %55}, %56, %57"
#define HUM_WGMMA_SS128 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, " \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, " \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, " \
    "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65"
#define HUM_WGMMA_IN "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(scale_d)
#define HUM_WGMMA_CASE(N, ONE, ...)                                                                         \
    if constexpr (BF16)                                                                                     \
        asm volatile(HUM_WGMMA_ASM("m64n" #N "k16.f32.bf16.bf16", ONE, HUM_WGMMA_OPS##N, ", 1, 1, 0")       \
                     : __VA_ARGS__ : HUM_WGMMA_IN);                                                         \
    else                                                                                                    \
        asm volatile(HUM_WGMMA_ASM("m64n" #N "k16.f32.f16.f16", ONE, HUM_WGMMA_OPS##N, ", 1, 1, 0")         \
                     : __VA_ARGS__ : HUM_WGMMA_IN);
// 8-bit types, k32: TYPES the accumulator and operand types, TAIL the immediates.
#define HUM_WGMMA8_CASE(N, ONE, TYPES, TAIL, ...) \
    asm volatile(HUM_WGMMA_ASM("m64n" #N "k32." TYPES, ONE, HUM_WGMMA_OPS##N, TAIL) : __VA_ARGS__ : HUM_WGMMA_IN);

// d[0..N/2) += A (64x16, a[4]) * B^T (N x 16 at `desc`), float accumulators, N = 8, 16, 32,
// 48, 64, 80, 96, 112 or 128 (the odd multiples of 16: a block of that many tokens in one
// instruction); scale_d 0: d = A * B^T, so that no instruction but the wgmma need write d.
template <bool BF16, int N>
HUM_DEV void wgmma_rs(float *d, const u32 (&a)[4], u64 desc, int scale_d = 1)
{
    static_assert(N == 8 || N == 16 || N == 32 || N == 48 || N == 64 || N == 80 || N == 96 || N == 112 || N == 128,
                  "wgmma tile of 8, 16, 32, 48, 64, 80, 96, 112 or 128 columns");
    if constexpr (N == 8) {
        HUM_WGMMA_CASE(8, "9", HUM_F4(d, 0))
    } else if constexpr (N == 16) {
        HUM_WGMMA_CASE(16, "13", HUM_F8(d, 0))
    } else if constexpr (N == 32) {
        HUM_WGMMA_CASE(32, "21", HUM_F16(d, 0))
    } else if constexpr (N == 48) {
        HUM_WGMMA_CASE(48, "29", HUM_F16(d, 0), HUM_F8(d, 16))
    } else if constexpr (N == 64) {
        HUM_WGMMA_CASE(64, "37", HUM_F32(d, 0))
    } else if constexpr (N == 80) {
        HUM_WGMMA_CASE(80, "45", HUM_F32(d, 0), HUM_F8(d, 32))
    } else if constexpr (N == 96) {
        HUM_WGMMA_CASE(96, "53", HUM_F32(d, 0), HUM_F16(d, 32))
    } else if constexpr (N == 112) {
        HUM_WGMMA_CASE(112, "61", HUM_F32(d, 0), HUM_F16(d, 32), HUM_F8(d, 48))
    } else {
        HUM_WGMMA_CASE(128, "69", HUM_F32(d, 0), HUM_F32(d, 32))
    }
}

// 8-bit A and B, k32: the A registers hold four 8-bit values each, (row 16w+g, k 4t..4t+3),
// (row 16w+g+8, k 4t..4t+3), then the same rows at k 16+4t..16+4t+3 (PTX ISA, wgmma .m64nNk32
// register fragments); B is N rows of 32 k (32 bytes) in the same descriptor layout. e4m3
// accumulates in float32, int8 (.s8) in int32.
template <int N>
HUM_DEV void wgmma_rs8(float *d, const u32 (&a)[4], u64 desc, int scale_d = 1)
{
    static_assert(N == 8 || N == 16 || N == 32 || N == 48 || N == 64 || N == 80 || N == 96 || N == 112 || N == 128,
                  "wgmma tile of 8, 16, 32, 48, 64, 80, 96, 112 or 128 columns");
    if constexpr (N == 8) {
        HUM_WGMMA8_CASE(8, "9", "f32.e4m3.e4m3", ", 1, 1", HUM_F4(d, 0))
    } else if constexpr (N == 16) {
        HUM_WGMMA8_CASE(16, "13", "f32.e4m3.e4m3", ", 1, 1", HUM_F8(d, 0))
    } else if constexpr (N == 32) {
        HUM_WGMMA8_CASE(32, "21", "f32.e4m3.e4m3", ", 1, 1", HUM_F16(d, 0))
    } else if constexpr (N == 48) {
        HUM_WGMMA8_CASE(48, "29", "f32.e4m3.e4m3", ", 1, 1", HUM_F16(d, 0), HUM_F8(d, 16))
    } else if constexpr (N == 64) {
        HUM_WGMMA8_CASE(64, "37", "f32.e4m3.e4m3", ", 1, 1", HUM_F32(d, 0))
    } else if constexpr (N == 80) {
        HUM_WGMMA8_CASE(80, "45", "f32.e4m3.e4m3", ", 1, 1", HUM_F32(d, 0), HUM_F8(d, 32))
    } else if constexpr (N == 96) {
        HUM_WGMMA8_CASE(96, "53", "f32.e4m3.e4m3", ", 1, 1", HUM_F32(d, 0), HUM_F16(d, 32))
    } else if constexpr (N == 112) {
        HUM_WGMMA8_CASE(112, "61", "f32.e4m3.e4m3", ", 1, 1", HUM_F32(d, 0), HUM_F16(d, 32), HUM_F8(d, 48))
    } else {
        HUM_WGMMA8_CASE(128, "69", "f32.e4m3.e4m3", ", 1, 1", HUM_F32(d, 0), HUM_F32(d, 32))
    }
}

template <int N>
HUM_DEV void wgmma_rs8(int *d, const u32 (&a)[4], u64 desc, int scale_d = 1)
{
    static_assert(N == 8 || N == 16 || N == 32 || N == 48 || N == 64 || N == 80 || N == 96 || N == 112 || N == 128,
                  "wgmma tile of 8, 16, 32, 48, 64, 80, 96, 112 or 128 columns");
    if constexpr (N == 8) {
        HUM_WGMMA8_CASE(8, "9", "s32.s8.s8", "", HUM_R4(d, 0))
    } else if constexpr (N == 16) {
        HUM_WGMMA8_CASE(16, "13", "s32.s8.s8", "", HUM_R8(d, 0))
    } else if constexpr (N == 32) {
        HUM_WGMMA8_CASE(32, "21", "s32.s8.s8", "", HUM_R16(d, 0))
    } else if constexpr (N == 48) {
        HUM_WGMMA8_CASE(48, "29", "s32.s8.s8", "", HUM_R16(d, 0), HUM_R8(d, 16))
    } else if constexpr (N == 64) {
        HUM_WGMMA8_CASE(64, "37", "s32.s8.s8", "", HUM_R32(d, 0))
    } else if constexpr (N == 80) {
        HUM_WGMMA8_CASE(80, "45", "s32.s8.s8", "", HUM_R32(d, 0), HUM_R8(d, 32))
    } else if constexpr (N == 96) {
        HUM_WGMMA8_CASE(96, "53", "s32.s8.s8", "", HUM_R32(d, 0), HUM_R16(d, 32))
    } else if constexpr (N == 112) {
        HUM_WGMMA8_CASE(112, "61", "s32.s8.s8", "", HUM_R32(d, 0), HUM_R16(d, 32), HUM_R8(d, 48))
    } else {
        HUM_WGMMA8_CASE(128, "69", "s32.s8.s8", "", HUM_R32(d, 0), HUM_R32(d, 32))
    }
}

// SS: A (64 x 32 bytes at `adesc`) and B (N x 32 bytes at `bdesc`), both K-major in shared memory.
#define HUM_WGMMA8_SS_CASE(N, ONE, TYPES, TAIL, ...)                                              \
    asm volatile(HUM_WGMMA_ASM("m64n" #N "k32." TYPES, ONE, HUM_WGMMA_SS##N, TAIL) : __VA_ARGS__ \
                 : "l"(adesc), "l"(bdesc), "r"(scale_d));

// d[0..N/2) += A * B^T, both operands e4m3 in shared memory, float32 accumulators (the same N as
// wgmma_rs8). int8 A has no SS case: its weights' uint8 codes become int8 in registers (b8_reg).
template <int N>
HUM_DEV void wgmma_ss8(float *d, u64 adesc, u64 bdesc, int scale_d = 1)
{
    static_assert(N == 8 || N == 16 || N == 32 || N == 48 || N == 64 || N == 80 || N == 96 || N == 112 || N == 128,
                  "wgmma tile of 8, 16, 32, 48, 64, 80, 96, 112 or 128 columns");
    if constexpr (N == 8) {
        HUM_WGMMA8_SS_CASE(8, "6", "f32.e4m3.e4m3", ", 1, 1", HUM_F4(d, 0))
    } else if constexpr (N == 16) {
        HUM_WGMMA8_SS_CASE(16, "10", "f32.e4m3.e4m3", ", 1, 1", HUM_F8(d, 0))
    } else if constexpr (N == 32) {
        HUM_WGMMA8_SS_CASE(32, "18", "f32.e4m3.e4m3", ", 1, 1", HUM_F16(d, 0))
    } else if constexpr (N == 48) {
        HUM_WGMMA8_SS_CASE(48, "26", "f32.e4m3.e4m3", ", 1, 1", HUM_F16(d, 0), HUM_F8(d, 16))
    } else if constexpr (N == 64) {
        HUM_WGMMA8_SS_CASE(64, "34", "f32.e4m3.e4m3", ", 1, 1", HUM_F32(d, 0))
    } else if constexpr (N == 80) {
        HUM_WGMMA8_SS_CASE(80, "42", "f32.e4m3.e4m3", ", 1, 1", HUM_F32(d, 0), HUM_F8(d, 32))
    } else if constexpr (N == 96) {
        HUM_WGMMA8_SS_CASE(96, "50", "f32.e4m3.e4m3", ", 1, 1", HUM_F32(d, 0), HUM_F16(d, 32))
    } else if constexpr (N == 112) {
        HUM_WGMMA8_SS_CASE(112, "58", "f32.e4m3.e4m3", ", 1, 1", HUM_F32(d, 0), HUM_F16(d, 32), HUM_F8(d, 48))
    } else {
        HUM_WGMMA8_SS_CASE(128, "66", "f32.e4m3.e4m3", ", 1, 1", HUM_F32(d, 0), HUM_F32(d, 32))
    }
}

#undef HUM_WGMMA8_SS_CASE
#undef HUM_WGMMA_SS128
#undef HUM_WGMMA_SS112
#undef HUM_WGMMA_SS96
#undef HUM_WGMMA_SS80
#undef HUM_WGMMA_SS64
#undef HUM_WGMMA_SS48
#undef HUM_WGMMA_SS32
#undef HUM_WGMMA_SS16
#undef HUM_WGMMA_SS8
#undef HUM_WGMMA_CASE
#undef HUM_WGMMA8_CASE
#undef HUM_WGMMA_IN
#undef HUM_WGMMA_OPS128
#undef HUM_WGMMA_OPS112
#undef HUM_WGMMA_OPS96
#undef HUM_WGMMA_OPS80
#undef HUM_WGMMA_OPS48
#undef HUM_WGMMA_OPS64
#undef HUM_WGMMA_OPS32
#undef HUM_WGMMA_OPS16
#undef HUM_WGMMA_OPS8
#undef HUM_WGMMA_ASM
#undef HUM_F32
#undef HUM_F16
#undef HUM_F8
#undef HUM_F4
#undef HUM_R32
#undef HUM_R16
#undef HUM_R8
#undef HUM_R4
