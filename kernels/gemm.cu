// Dense quantized-weight GEMM on the mma.sync path: C[M, N] = A[M, K] * dequant(W)[N, K]^T.
//
// A is float16 or bfloat16 (row-major, row stride lda); W comes repacked by kernels/repack.cu so
// that each lane's B fragments of one k16 step are one contiguous run of words; the dequantized
// B is scaled by its group (or channel) scale and zero point before the product ("B side"), the
// float accumulators are multiplied by `out_factor` (global scale and exponent bookkeeping) and
// the bias is added in the epilogue. A multi-stage cp.async pipeline streams A, B, scales and
// zero points; persistent CTAs follow gemm_schedule.cuh.
//
// Arguments (launch order): A, lda, B (repacked), scales [groups][N] permuted, zero points
// (same layout), bias float32 [N], k_perm int32 [K] (act-order), C, ldc, M, locks int32
// [grid], out_factor. Unused pointers may be null.
#include "dequant.cuh"
#include "gemm_config.cuh"
#include "gemm_schedule.cuh"
#include "mma.cuh"
#include "pipeline.cuh"

namespace gemm {

struct Params {
    const u16 *a;
    i64 lda;
    const u32 *b;
    const u16 *scale;
    const u16 *zero;
    const float *bias;
    const int *k_perm;
    u16 *c;
    i64 ldc;
    int m;
    int *locks;
    float out_factor;
};

// Shared-memory address of row `row`, 16-byte chunk `chunk` of an A stage. Chunks are XOR-swizzled
// by row so that the 8 rows one ldmatrix phase reads fall in 8 different bank groups.
HUM_DEV u32 a_offset(int row, int chunk)
{
    return static_cast<u32>(row * kBK * 2 + ((chunk ^ (row & 7)) << 4));
}

// Issues the cp.async copies of one stage: A tile, B tile and the scale/zero-point rows.
// This thread's share of the cp.async copies of one stage. Which 16-byte chunks a thread moves
// is fixed for the whole kernel, so their offsets are worked out once; the tile's base addresses
// change with the tile (set_tile) and only the k-block changes from one stage to the next.
struct Loader {
    static constexpr int A_CPR = kBK / 8;            // activation chunks per row
    static constexpr int A_COUNT = kAVec ? kBM * A_CPR : 0;
    static constexpr int B_CPR = kBRowWords / 4;     // weight chunks per k16 row of the tile
    static constexpr int B_COUNT = kBK / 16 * B_CPR;
    static constexpr i64 B_ROW = static_cast<i64>(kN) / 64 * 32 * kWeightBits;  // words per k16 row
    static constexpr int S_CPR = kBN / 8;
    static constexpr int S_COUNT = (kHasScale || kZeroPoint) ? kScaleRows * S_CPR : 0;
    static constexpr int A_IT = (A_COUNT + kThreads - 1) / kThreads;  // chunks per thread
    static constexpr int B_IT = (B_COUNT + kThreads - 1) / kThreads;
    static constexpr int S_IT = (S_COUNT + kThreads - 1) / kThreads;

    int tile = -1;
    int m0 = 0;
    const u16 *a_row[A_IT > 0 ? A_IT : 1];  // this chunk's row and column
    bool a_ok[A_IT > 0 ? A_IT : 1];         // row inside M
    const u32 *b_tile;                                              // the tile's first weight column
    i64 s_tile;                                                     // the tile's first scale column

    HUM_DEV static bool mine(int ch, int count)
    {
        return count % kThreads == 0 || ch < count;
    }

    // Moves to the tile of `w` when it changed (the only place with divisions by M).
    HUM_DEV void set_tile(const Params &p, Work w, int tid)
    {
        if (w.tile == tile)
            return;
        tile = w.tile;
        int mb, nb;
        tile_coords(w.tile, p.m, mb, nb);
        m0 = mb * kBM;
        const int n0 = nb * kBN;
#pragma unroll
        for (int i = 0; i < A_IT; ++i) {
            const int ch = tid + i * kThreads;
            const int gm = m0 + ch / A_CPR;
            a_ok[i] = mine(ch, A_COUNT) && gm < p.m;
            a_row[i] = p.a + (a_ok[i] ? gm * p.lda : 0) + ch % A_CPR * 8;
        }
        b_tile = p.b + static_cast<i64>(n0 / 64) * 32 * kWeightBits;
        s_tile = n0;
    }

    HUM_DEV void load(const Params &p, u32 stage, int kb, int tid) const
    {
        const int k0 = kb * kBK;
#pragma unroll
        for (int i = 0; i < A_IT; ++i) {
            const int ch = tid + i * kThreads;
            if (!mine(ch, A_COUNT))
                break;
            const int cc = ch % A_CPR;
            const bool ok = a_ok[i] && (kKReal == kK || k0 + cc * 8 < kKReal);
            cp_async16(stage + a_offset(ch / A_CPR, cc), ok ? a_row[i] + k0 : a_row[i], ok);
        }
        const u32 *b = b_tile + static_cast<i64>(kb) * (kBK / 16) * B_ROW;
#pragma unroll
        for (int i = 0; i < B_IT; ++i) {
            const int ch = tid + i * kThreads;
            if (!mine(ch, B_COUNT))
                break;
            cp_async16(stage + kABytes + ch * 16, b + ch / B_CPR * B_ROW + ch % B_CPR * 4, true);
        }
        const i64 s = s_tile + static_cast<i64>(k0 / kGroup) * kN;
#pragma unroll
        for (int i = 0; i < S_IT; ++i) {
            const int ch = tid + i * kThreads;
            if (!mine(ch, S_COUNT))
                break;
            const i64 off = s + static_cast<i64>(ch / S_CPR) * kN + ch % S_CPR * 8;
            if constexpr (kHasScale)
                cp_async16(stage + kABytes + kBBytes + ch * 16, p.scale + off, true);
            if constexpr (kZeroPoint)
                cp_async16(stage + kABytes + kBBytes + kSBytes + ch * 16, p.zero + off, true);
        }
    }
};

// Gather mode (act-order, or rows that are not 16-byte multiples): element loads into registers,
// stored to the stage after the current stage's math so that the loads overlap it.
struct AGather {
    u16 v[kAVec ? 1 : kAElems];

    HUM_DEV void load(const Params &p, int m0, int kb, int tid)
    {
        const int k0 = kb * kBK;
#pragma unroll
        for (int i = 0; i < kAElems; ++i) {
            const int e = tid + i * kThreads;
            const int gm = m0 + e / kBK, gk = k0 + e % kBK;
            u16 x = 0;
            if (gm < p.m && gk < kKReal) {
                const int col = kActOrder ? __ldg(p.k_perm + gk) : gk;
                x = __ldg(p.a + gm * p.lda + col);
            }
            v[i] = x;
        }
    }

    HUM_DEV void store(u32 stage, int tid) const
    {
#pragma unroll
        for (int i = 0; i < kAElems; ++i) {
            const int e = tid + i * kThreads;
            const int row = e / kBK, col = e % kBK;
            sts16(stage + a_offset(row, col / 8) + (col % 8) * 2, v[i]);
        }
    }
};

// Scale or zero-point values of the warp's kNJ column fragments from one smem row, each
// broadcast to both halves of a pair (both values of a B register share the column).
HUM_DEV void load_col_params(u32 row_addr, int wn, int lane, u32 (&out)[kNJ])
{
    constexpr int PER_UNIT = kWN >= 64 ? 4 : kWN / 16;  // words per 64-column unit
    u32 w[kUnitsW * PER_UNIT];
    const int g = lane >> 2;
#pragma unroll
    for (int u = 0; u < kUnitsW; ++u) {
        const int unit = wn * kWN / 64 + u;
        const int sub = kWN >= 64 ? 0 : (wn * kWN % 64) / 8;
        lds_words<PER_UNIT, PER_UNIT>(row_addr + (unit * 64 + g * 8 + sub) * 2, w + u * PER_UNIT);
    }
    static_for<0, kNJ>([&](auto jc) {
        constexpr int j = decltype(jc)::value;
        out[j] = broadcast16<(j & 1) != 0>(w[j / 2]);
    });
}

// ldmatrix of the warp's A fragments and the lane's repacked B words for k16 step kk.
HUM_DEV void load_frags(u32 stage, int kk, int wm, int wn, int wk, int lane, u32 (&a)[kMI][4],
                        u32 (&raw)[kUnitsW * kRawPerUnit])
{
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi) {
        const int row = wm * kWM + mi * 16 + (lane & 15);
        const int chunk = (wk * kWK + kk * 16) / 8 + (lane >> 4);
        ldmatrix_x4(a[mi], stage + a_offset(row, chunk));
    }
    const int kr = wk * (kWK / 16) + kk;
    const int sub = kWN >= 64 ? 0 : (wn * kWN % 64) / kWN * kRawPerUnit;
#pragma unroll
    for (int u = 0; u < kUnitsW; ++u) {
        const int unit = wn * kWN / 64 + u;
        const u32 addr = stage + kABytes + ((kr * (kBN / 64) + unit) * 32 + lane) * kWeightBits * 4 + sub * 4;
        lds_words<kRawPerUnit, kRawAlign>(addr, raw + u * kRawPerUnit);
    }
}

// Dequantizes the lane's B fragments: (code - zero) * scale for each register.
HUM_DEV void dequant(const u32 (&raw)[kUnitsW * kRawPerUnit], const u32 (&s2)[kNJ], const u32 (&z2)[kNJ],
                     u32 (&bf)[kNJ][2])
{
    u32 virt[kUnitsW * kVirtPerUnit];
    if constexpr (kOddWidth) {
#pragma unroll
        for (int u = 0; u < kUnitsW; ++u)
            expand_words<kWeightBits, kCont>(raw + u * kWeightBits, virt + u * kCont);
    } else {
#pragma unroll
        for (int i = 0; i < kUnitsW * kRawPerUnit; ++i)
            virt[i] = raw[i];
    }
    static_for<0, kNJ * 2>([&](auto lc) {
        constexpr int lp = decltype(lc)::value;  // pair index: fragment j = lp / 2, register h = lp % 2
        constexpr int PAIRS = 16 / kCont;       // pairs per word
        constexpr int reg = lp / PAIRS, c = lp % PAIRS;
        u32 v;
        if constexpr (kWeightFloat)
            v = float_pair<kBF16, kWeightBits, kWeightExp, kCont, c>(virt[reg]);
        else
            v = int_pair<kBF16, kWeightBits, kCont, kZeroConst, c>(virt[reg]);
        if constexpr (kZeroPoint)
            v = sub2<kBF16>(v, z2[lp / 2]);
        if constexpr (kHasScale)
            v = mul2<kBF16>(v, s2[lp / 2]);
        else if constexpr (kConstScaleExp != 0)
            v = mul2<kBF16>(v, dup16(bits16(1, kConstScaleExp, kBF16)));
        bf[lp / 2][lp % 2] = v;
    });
}

HUM_DEV void compute_stage(u32 stage, int wm, int wn, int wk, int lane, float (&acc)[kMI][kNJ][4])
{
    u32 a[2][kMI][4];
    u32 raw[2][kUnitsW * kRawPerUnit];
    u32 s2[kNJ], z2[kNJ];
    load_frags(stage, 0, wm, wn, wk, lane, a[0], raw[0]);
    static_for<0, kKK>([&](auto kc) {
        constexpr int kk = decltype(kc)::value;
        constexpr int buf = kk & 1;
        if constexpr (kk + 1 < kKK)
            load_frags(stage, kk + 1, wm, wn, wk, lane, a[buf ^ 1], raw[buf ^ 1]);
        if constexpr (kk == 0 || (kGroup < kBK && (kk * 16) % kGroup == 0)) {
            const int row = kGroup >= kBK ? 0 : (wk * kWK + kk * 16) / kGroup;
            if constexpr (kHasScale)
                load_col_params(stage + kABytes + kBBytes + row * kBN * 2, wn, lane, s2);
            if constexpr (kZeroPoint)
                load_col_params(stage + kABytes + kBBytes + kSBytes + row * kBN * 2, wn, lane, z2);
        }
        u32 bf[kNJ][2];
        dequant(raw[buf], s2, z2, bf);
#pragma unroll
        for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
            for (int nj = 0; nj < kNJ; ++nj)
                mma_16816<kBF16>(acc[mi][nj], a[buf][mi], bf[nj][0], bf[nj][1]);
    });
}

HUM_DEV int ld_acquire(const int *p)
{
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}

HUM_DEV void st_release(int *p, int v)
{
    asm volatile("st.release.gpu.global.b32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}

HUM_DEV u32 ld_l2(const u16 *p)
{
    u32 v;
    asm volatile("ld.global.cg.b32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}

HUM_DEV u16 ld_l2_16(const u16 *p)
{
    u16 v;
    asm volatile("ld.global.cg.b16 %0, [%1];\n" : "=h"(v) : "l"(p) : "memory");
    return v;
}

// Writes (first slice) or adds (later stream-K slices) the warp's accumulators to C.
HUM_DEV void write_c(const Params &p, int m0, int n0, int wm, int wn, int lane, bool first,
                     const float (&acc)[kMI][kNJ][4])
{
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
        for (int nj = 0; nj < kNJ; ++nj)
#pragma unroll
            for (int half = 0; half < 2; ++half) {
                const int row = m0 + wm * kWM + mi * 16 + g + 8 * half;
                const int col = n0 + wn * kWN + nj * 8 + 2 * t;
                if (row >= p.m || col >= kNReal)
                    continue;
                float v0 = acc[mi][nj][2 * half] * p.out_factor;
                float v1 = acc[mi][nj][2 * half + 1] * p.out_factor;
                if (kBias && first) {
                    v0 += __ldg(p.bias + col);
                    v1 += __ldg(p.bias + col + 1);
                }
                u16 *dst = p.c + row * p.ldc + col;
                if constexpr (kNReal % 2 == 0) {
                    if (!first) {
                        const u32 old = ld_l2(dst);
                        v0 += to_float<kBF16>(static_cast<u16>(old & 0xFFFFu));
                        v1 += to_float<kBF16>(static_cast<u16>(old >> 16));
                    }
                    *reinterpret_cast<u32 *>(dst) = pack2<kBF16>(v0, v1);
                } else {
                    const bool two = col + 1 < kNReal;
                    if (!first) {
                        v0 += to_float<kBF16>(ld_l2_16(dst));
                        if (two)
                            v1 += to_float<kBF16>(ld_l2_16(dst + 1));
                    }
                    dst[0] = pack1<kBF16>(v0);
                    if (two)
                        dst[1] = pack1<kBF16>(v1);
                }
            }
}

HUM_DEV void epilogue(const Params &p, const Schedule &sch, int tile, u8 *smem, int tid, int wm, int wn,
                      int wk, int wmn, int lane, float (&acc)[kMI][kNJ][4])
{
    if constexpr (kWarpsK > 1) {
        constexpr int E = kMI * kNJ * 4;
        float *red = reinterpret_cast<float *>(smem + kStages * kStageBytes);
        float *flat = &acc[0][0][0];
        if (wk > 0) {
#pragma unroll
            for (int e = 0; e < E; ++e)
                red[((wk - 1) * kWarpsMN + wmn) * E * 32 + e * 32 + lane] = flat[e];
        }
        __syncthreads();
        if (wk == 0) {
#pragma unroll
            for (int w = 1; w < kWarpsK; ++w)
#pragma unroll
                for (int e = 0; e < E; ++e)
                    flat[e] += red[((w - 1) * kWarpsMN + wmn) * E * 32 + e * 32 + lane];
        }
    }

    int slice = 0, lock = 0;
    bool split = false, last = true;
    if (tile >= sch.dp_tiles) {
        lock = tile - sch.dp_tiles;
        const i64 it0 = static_cast<i64>(lock) * kKB;
        const int c_first = sch.owner(it0), c_last = sch.owner(it0 + kKB - 1);
        if (c_first != c_last) {
            split = true;
            slice = c_last - sch.cta;
            last = sch.cta == c_first;
        }
    }
    if (split) {
        if (tid == 0)
            while (ld_acquire(p.locks + lock) != slice) {
            }
        __syncthreads();
    }
    if (wk == 0) {
        int mb, nb;
        tile_coords(tile, p.m, mb, nb);
        write_c(p, mb * kBM, nb * kBN, wm, wn, lane, slice == 0, acc);
    }
    if (split) {
        __syncthreads();
        if (tid == 0) {
            __threadfence();
            st_release(p.locks + lock, last ? 0 : slice + 1);
        }
    }
}

}  // namespace gemm

extern "C" __global__ void __launch_bounds__(hum_cfg::kThreads, hum_cfg::kCtasPerSm)
hum_gemm(const u16 *__restrict__ a, i64 lda, const u32 *__restrict__ b, const u16 *__restrict__ scale,
         const u16 *__restrict__ zero, const float *__restrict__ bias, const int *__restrict__ k_perm,
         u16 *__restrict__ c, i64 ldc, int m, int *locks, float out_factor)
{
    using namespace gemm;
    extern __shared__ __align__(128) u8 smem[];
    const Params p{a, lda, b, scale, zero, bias, k_perm, c, ldc, m, locks, out_factor};
    const Schedule sch(m);
    if (sch.total == 0)
        return;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wk = warp / kWarpsMN, wmn = warp % kWarpsMN;
    const int wm = wmn / kWarpsN, wn = wmn % kWarpsN;
    const u32 base = smem_addr(smem);

    float acc[kMI][kNJ][4];
#pragma unroll
    for (int i = 0; i < kMI * kNJ * 4; ++i)
        (&acc[0][0][0])[i] = 0.f;

    AGather gather;
    Loader loader;
    Work lw{0, 0};  // work of the next iteration to load
#pragma unroll
    for (int s = 0; s < kStages - 1; ++s) {
        if (s < sch.total) {
            lw = sch.step(lw, s);
            loader.set_tile(p, lw, tid);
            loader.load(p, base + s * kStageBytes, lw.kb, tid);
            if constexpr (!kAVec) {
                gather.load(p, loader.m0, lw.kb, tid);
                gather.store(base + s * kStageBytes, tid);
            }
        }
        cp_async_commit();
    }

    Work w{0, 0};  // work of the iteration being computed
    for (int j = 0; j < sch.total; ++j) {
        cp_async_wait<kStages - 2>();
        __syncthreads();
        const int jn = j + kStages - 1;
        const u32 next = base + (jn % kStages) * kStageBytes;
        if (jn < sch.total) {
            lw = sch.step(lw, jn);
            loader.set_tile(p, lw, tid);
            loader.load(p, next, lw.kb, tid);
            if constexpr (!kAVec)
                gather.load(p, loader.m0, lw.kb, tid);
        }
        cp_async_commit();

        w = sch.step(w, j);
        compute_stage(base + (j % kStages) * kStageBytes, wm, wn, wk, lane, acc);
        if constexpr (!kAVec) {
            if (jn < sch.total)
                gather.store(next, tid);
        }
        if (w.kb == kKB - 1 || j == sch.total - 1) {
            epilogue(p, sch, w.tile, smem, tid, wm, wn, wk, wmn, lane, acc);
#pragma unroll
            for (int i = 0; i < kMI * kNJ * 4; ++i)
                (&acc[0][0][0])[i] = 0.f;
        }
    }
    cp_async_wait<0>();
}
