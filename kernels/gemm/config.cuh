// Everything the GEMM kernels derive from the generated "hum_constants.h" (namespace hum_cfg,
// written for one dispatch entry by runtime/src/layer/gemm_variant.c, which documents each field).
// Only M, the pointers and the strides are run-time values (kernels/contract/gemm_args.h).
#pragma once
#include "common.cuh"
#include "contract/gemm_args.h"
#include "hum_constants.h"
#include "numerics/codes.cuh"

namespace gemm {
using namespace hum_cfg;

// How rows of A and C map to blocks of rows and experts (kernels/contract/gemm_args.h), in the
// order of hum_gemm_type; gemm/rows.cuh resolves it for the scheduler, loaders and epilogues.
enum class GemmType { kDense, kIndexed, kGroupedContiguous, kGroupedMasked };
constexpr GemmType kGemmType = static_cast<GemmType>(kGemmTypeId);
static_assert(kGemmTypeId >= 0 && kGemmTypeId <= 3, "hum_constants.h: unknown GEMM type");
static_assert((kGemmType == GemmType::kDense) == (kExperts == 0), "MoE GEMM types, and only they, have experts");

constexpr int kWarpsM = kBM / kWM, kWarpsN = kBN / kWN, kWarpsK = kBK / kWK;
constexpr int kWarpsMN = kWarpsM * kWarpsN;
// The tile's warps compute; kLoadWarps more (a producer: the wgmma kernel) only issue the
// stage copies, which otherwise every thread shares (kCopyThreads: the threads that copy). A
// producer that quantizes A as well (kQuantA, gemm/quant_a.cuh) copies with its first warps and
// quantizes with the others: one warp where thread 0's TMAs are all the copies (weights_ss), two
// where the weights' codes come by cp.async.
constexpr int kMathThreads = 32 * kWarpsM * kWarpsN * kWarpsK;
constexpr int kProducerThreads = 32 * kLoadWarps;
static_assert(kMathThreads + kProducerThreads == kThreads, "hum_constants.h: kThreads disagrees with the tile shapes");
constexpr int kCopyThreads = kLoadWarps > 0 ? (kQuantA ? (kWeightsSS ? 32 : 64) : kProducerThreads) : kThreads;

// Container width of one code in the repacked words (the power of two >= the width).
constexpr int kCont = container_bits(kWeightBits);
constexpr bool kOddWidth = kCont != kWeightBits;
// Zero point folded into the integer dequant: the implicit midpoint of symmetric codes.
constexpr int kZeroConst = (kWeightFloat || kZeroPoint) ? 0 : 1 << (kWeightBits - 1);
// Integer zero points (hum_zero_point_kind 1) fold into the decode's fma (numerics/decode.cuh);
// float ones, not integers, are subtracted from the decoded codes, rounded once.
constexpr bool kZeroInt = kZeroPoint && !kWeightFloat && kZeroPointKind == 1;

// The activation type. 16-bit A multiplies B dequantized into its own type (kBF16) with k16
// MMAs. 8-bit A (kAFp8: e4m3, kAInt8: int8; hum_constants.h) multiplies the weight's 8-bit codes
// as they are with k32 MMAs (the codes come in that K order: kernels/prep/repack.cu), and the
// weight's channel scales and A's row scales multiply the float accumulators in the epilogue.
constexpr bool kA8 = kAFp8 || kAInt8;
constexpr int kAElem = kA8 ? 1 : 2;    // bytes of one A element
constexpr int kKStep = kA8 ? 32 : 16;  // K of one MMA
constexpr int kKRows = kKStep / 16;    // k16 rows of repacked codes per MMA step
// Scale rows stream through the pipeline in the activation type (16-bit A). 8-bit A takes the
// weight's scales as a float32 factor per output column in the epilogue (col_scale), and e4m3
// A with float codes and power-of-two group scales (MXFP4: e2m1 with e8m0 per 32 of K) has the
// group scales relative to that factor folded into the decoded codes: float16 rows, staged.
constexpr bool kFoldScales = kAFp8 && kWeightFloat && kWeightBits == 4 && kHasScale && kGroup < kK;
// e2m1 codes with e4m3 A become e4m3 bytes by table (gemm/dequant.cuh, fp4_tables), the table of
// 2^0 without folded scales; their repacked words are in the table order (kernels/prep/repack.cu).
constexpr bool kFp4Table = kAFp8 && kWeightFloat && kWeightBits == 4;
constexpr bool kScalesStaged = kHasScale && (!kA8 || kFoldScales);
// kFoldWindow (hum_constants.h): every folded group lies in the byte tables' window, as the host
// read the layer's scales (gemm/dequant.cuh, kFp4Path).
static_assert(!kFoldWindow || kFoldScales, "hum_constants.h: kFoldWindow without folded scales");
// K-group scales (gemm/kscale.cuh): e4m3 A with a scale per row and group of kAGroup columns
// (1 x 128 FP8 block-wise; 1 x 32 e8m0 MXFP8), and weights under 8-bit A with float32 scales
// per group of kGroup along K (FP8 block-wise 128 x 128; W4A8's uint4 and int8 A's uint8 groups),
// as float32 rows [K groups][N]. They change along K, so they multiply the accumulators where
// those are promoted, not in the epilogue; the epilogue keeps what does not change along K (A's
// per-token scale, channel factors). int8 products promote their exact int32 sums into float32
// totals (a group of 128 sums at most 128 x 127 x 128 < 2^24: exact as a float).
constexpr bool kAGroupScales = kAFp8 && kAGroup > 0;
constexpr bool kBlockScales = kA8 && kHasScale && kGroup < kK && !kFoldScales;
constexpr bool kKScales = kAGroupScales || kBlockScales;
constexpr bool kEpilogueScale = kA8 && kHasScale && !kBlockScales;

constexpr int kKK = kWK / kKStep;  // MMA steps per warp and stage
// e4m3 products accumulate in the tensor cores with fewer bits than float32 carries: every
// kPromoteK of K (the tuning's promote_k, by default 128, or the smaller K group of K-group
// scales; and at the end of each stage, or of every kPromoteStages stages when the period spans
// several) the accumulators are added to float32 totals, times the period's K-group scales, and
// reset. A period at or above K (kPromoteEvery = kK) is none: one accumulator set. int8's exact
// sums are promoted only where K-group scales change, in the same periods.
constexpr int kPromoteEveryK = kPromoteEvery > 0 ? kPromoteEvery : 128;
constexpr bool kPromote = kKScales || (kAFp8 && kPromoteEveryK < kK);
constexpr int kAGroupK = kAGroupScales && kAGroup < kPromoteEveryK ? kAGroup : kPromoteEveryK;
constexpr int kBGroupK = kBlockScales && kGroup < kPromoteEveryK ? kGroup : kPromoteEveryK;
constexpr int kPromoteK = kAGroupK < kBGroupK ? kAGroupK : kBGroupK;
constexpr int kPromoteSteps = kPromoteK / kKStep;
constexpr int kPromoteStages = kPromoteK > kBK ? kPromoteK / kBK : 1;
static_assert(!kKScales || (kPromoteK % kKStep == 0 && kWK % kPromoteK == 0 &&
                            (!kAGroupScales || kAGroup % kPromoteK == 0) && (!kBlockScales || kGroup % kPromoteK == 0)),
              "K-group scales: the groups must be multiples of 32 that nest with each other and with warp K");
static_assert(kPromoteEvery == 0 || (kAFp8 && !kKScales && (kPromoteEvery % kBK == 0 || kBK % kPromoteEvery == 0)),
              "promote_k: e4m3 A without K-group scales, nesting with block K");

// After MMA step KK of a stage: whether the accumulators may be promoted now (at the stage's
// last step only if promote_at says so).
template <int KK>
constexpr bool promote_after = kPromote && ((KK + 1) % kPromoteSteps == 0 || KK + 1 == kKK);

// Whether the accumulators are promoted at the end of k-block kb: at every period's end, and at
// the last k-block of a segment (`last`), whose totals the epilogue takes.
HUM_DEV bool promote_at(int kb, bool last)
{
    return kPromoteStages == 1 || last || (kb + 1) % kPromoteStages == 0;
}

static_assert(kBM % kWM == 0 && kBN % kWN == 0 && kBK % kWK == 0, "block shape must be a multiple of the warp shape");
static_assert(kWN % 16 == 0 && kWK % 16 == 0, "warp tile must be a multiple of 16 in N and K (M: each kernel's)");
static_assert(kBN % 64 == 0 && (kBK == 64 || kBK == 128 || kBK == 256), "block N must be a multiple of 64, block K 64, 128 or 256");
static_assert(kN % kBN == 0 && kK % kBK == 0, "padded N and K must be multiples of the block shape");
static_assert(kGroup % kBK == 0 || (kBK % kGroup == 0 && kGroup % 16 == 0), "scale group and block K must nest");
static_assert(kWarpsK == 1 || kWarpsK == 2 || kWarpsK == 4 || (kDirectB && kWarpsK == 8),
              "1, 2 or 4 warps along K (8 on mma_direct)");
static_assert(kStages >= 2, "at least two pipeline stages");
static_assert(!kA8 || (kBK >= 128 && kWK % 32 == 0), "8-bit A: block K at least 128, warp K a multiple of 32");
static_assert(!kA8 || ((kWeightBits == 8 || kWeightBits == 4) && !kZeroPoint && (kGroup >= kK || kFoldScales || kBlockScales)),
              "8-bit A: 8-bit or 4-bit weights without zero point, scales per channel or tensor, folded or K groups");

// Where the slices of a stream-K tile meet (gemm/schedule.cuh): in C, each adding its part
// rounded to the output type (kStreamKSum 0, "output"), or as 32-bit partial tiles in the
// workspace, C rounded once (1, "workspace"; gemm/epilogue.cuh).
constexpr bool kSumInWorkspace = kStreamK && kStreamKSum == 1;
// Slices meeting in C round the tile's running sum to 16 bits once per slice: a few tiles of a
// long K shared by every SM (n = 72, k = 33024 at M = 1024: 33 slices per tile) came out with
// 6x one rounding's error in bfloat16. At most this many slices per tile keep it near 2x.
constexpr int kMaxSlicesInC = 4;

constexpr int kKB = kK / kBK;  // k-blocks per tile
constexpr int kNB = kN / kBN;  // n-blocks
// CTAs of a thread-block cluster side by side along N, which load their shared tile of A once
// (kMulticastA: each copies 1 / kClusterN of its rows into every CTA of the cluster by TMA
// multicast, gemm/load_a.cuh); they walk the same schedule over pairs of n-blocks, stream-K included
// (gemm/schedule.cuh).
constexpr int kClusterN = kMulticastA ? 2 : 1;
static_assert(kClusterN == 1 || (kNB % kClusterN == 0 && kBM % (8 * kClusterN) == 0),
              "A multicast: n-blocks in whole clusters, each CTA's share of A's rows whole swizzle atoms");
constexpr int kGroupRows = (kK + kGroup - 1) / kGroup;
constexpr int kScaleRows = kGroup >= kBK ? 1 : kBK / kGroup;  // scale rows per stage

constexpr int kABytes = kBM * kBK * kAElem;
constexpr int kBRowWords = kBN / 64 * 32 * kWeightBits;  // one k16 row of the tile
constexpr int kBBytes = kBK / 16 * kBRowWords * 4;
// A weight stage holds the tile's codes as they sit in global memory (gemm/load_b.cuh,
// copy_codes): byte offset of word j of lane `lane` in k16 row kr and 64-column unit u of the
// tile, a lane's words in planes of kPlaneWords (numerics/codes.cuh, unit_word).
constexpr int kPlaneWords = plane_words(kWeightBits, kA8);
HUM_DEV u32 code_offset(int kr, int u, int lane, int j)
{
    return static_cast<u32>(((kr * (kBN / 64) + u) * 32 * kWeightBits + unit_word(kWeightBits, kA8, lane, j)) * 4);
}
constexpr int kSBytes = kScalesStaged ? kScaleRows * kBN * 2 : 0;
constexpr int kZBytes = kZeroPoint ? kScaleRows * kBN * 2 : 0;
// K-group scales travel in the stages (gemm/kscale.cuh, copy_kscales): per row of the block
// kAScaleWords words of A's scales of the k-block (float32: its groups' scales; e8m0 bytes: the
// 4-byte-aligned window holding them, which starts up to 3 bytes before them), then the weight's
// kScaleRows float32 rows of kBN.
constexpr int kAStageGroups = !kAGroupScales ? 0 : kBK >= kAGroup ? kBK / kAGroup : 1;
constexpr int kAScaleWords = kAScaleE8m0 ? (kAStageGroups + 6) / 4 : kAStageGroups;
constexpr int kKSBOffset = kBM * kAScaleWords * 4;  // the weight's rows in the region
constexpr int kKSBytes = !kKScales ? 0 : (kKSBOffset + (kBlockScales ? kScaleRows * kBN * 4 : 0) + 15) / 16 * 16;
static_assert(!kAGroupScales || kAGroup % kBK == 0 || kBK % kAGroup == 0, "A's scale groups and block K must nest");
constexpr int kStageBytes = kABytes + kBBytes + kSBytes + kZBytes + kKSBytes;
constexpr int kRedBytes = (kWarpsK - 1) * kBM * kBN * 4;
static_assert(kStageBytes % 16 == 0, "stage buffers must stay 16-byte aligned");
// The stages in shared memory, none where the weights go straight to registers (kDirectB: the
// mma_direct family, gemm/gemm_mma.cu), then the buffer where warps along K meet.
constexpr int kRingBytes = kDirectB ? 0 : kStages * kStageBytes;
static_assert(kRingBytes + kRedBytes == kSmemBytes, "hum_constants.h: kSmemBytes disagrees with the tile shapes");

// Act-order: a dense layer's A arrives permuted into the weights' K order (prep/permute_a.cu);
// act-order experts each have their own order, so the A loader gathers the columns of each
// block's expert (k_perm [kExperts][kKReal], -1: a padding column, read as 0).
constexpr bool kGatherK = kActOrder && kGemmType != GemmType::kDense;
// Activations are copied 16 bytes at a time unless rows are not 16-byte multiples or their
// columns are gathered.
constexpr int kAChunk = 16 / kAElem;  // A elements per 16-byte chunk
constexpr bool kAVec = kKReal % kAChunk == 0 && !kGatherK;
static_assert(kAVec || !kA8, "8-bit A is copied 16 bytes at a time");
constexpr int kAElems = kBM * kBK / kCopyThreads;  // per thread, gather mode
static_assert(kAVec || kBM * kBK % kCopyThreads == 0, "gathered activation tile must split evenly over threads");

// m-blocks the tile order visits together (the tuning's group_m), so that concurrent tiles share A
// and B in L2
constexpr int kTileGroupM = kGroupM > 0 ? kGroupM : 8;

// Deals COUNT copy chunks over the kCopyThreads threads that copy: calls f(i, ch) for the i-th
// chunk ch of copying thread `tid` (0 .. kCopyThreads - 1). UNROLL: the loop unrolled that many
// times (0: whole), for a caller whose per-chunk loads the compiler would otherwise all hoist,
// holding more registers than it has.
template <int COUNT, int UNROLL = 0, typename F>
HUM_DEV void for_chunks(int tid, F &&f)
{
    constexpr int N = (COUNT + kCopyThreads - 1) / kCopyThreads;
    // false once the thread's chunks run out
    const auto chunk = [&](int i) {
        const int ch = tid + i * kCopyThreads;
        if (COUNT % kCopyThreads != 0 && ch >= COUNT)
            return false;
        f(i, ch);
        return true;
    };
    if constexpr (UNROLL == 0) {
#pragma unroll
        for (int i = 0; i < N; ++i)
            if (!chunk(i))
                break;
    } else {
#pragma unroll UNROLL
        for (int i = 0; i < N; ++i)
            if (!chunk(i))
                break;
    }
}
}  // namespace gemm

// The signature of every GEMM kernel: the launch bounds of its tuning and the one argument.
#define HUM_GEMM_KERNEL(name)                                                                    \
    extern "C" __global__ void __launch_bounds__(hum_cfg::kThreads, hum_cfg::kCtasPerSm) name( \
        const __grid_constant__ hum_gemm_args args)
