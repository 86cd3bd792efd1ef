// Dense quantized-weight GEMM on Hopper's warpgroup MMA (sm_90a): C[M, N] = A[M, K] *
// dequant(W)[N, K]^T, computed transposed, C^T = dequant(W) * A^T, so that the weights are
// wgmma's A operand (64 rows of N per instruction): a register fragment, dequantized straight into
// it, or (kSS, e4m3 codes as they sit) read from shared memory; the activations are the
// shared-memory B operand (N of the instruction = block M).
//
// It reads the same prepared weights, scales, zero points, bias and hum_constants.h as the
// mma.sync kernel (kernels/gemm/gemm_mma.cu, kernels/prep/repack.cu), so one layer can dispatch
// either kernel by M. Tile semantics of the tuning: a CTA covers block_m tokens x block_n rows of
// N x block_k; a warp covers all block_m tokens (warp_m = block_m), 16 rows of each of
// warp_n / 16 64-row "slabs" (so a warpgroup owns warp_n * 4 rows), and the whole block K
// (warp_k = block_k).
//
// Pipeline: kStages - 2 stages in flight. Activations arrive by TMA (the contract's tensor map
// of A, box block_m x 64, 128-byte swizzle: the K-major layout the wgmma descriptor reads, rows
// past M and columns past K zero-filled) on one mbarrier per stage; the copy engine writes
// through the async proxy that wgmma reads, so no proxy fence sits in the loop. The repacked
// weights, scales and zero points arrive by cp.async in 16-byte chunks as they sit in global
// memory (4- and 8-bit codes in four planes per unit, one per warp of a warpgroup, 8-bit codes
// for 8-bit A in eight one-word planes, two per warp: numerics/codes.cuh), or the weights by TMA
// (kSS). Per k16 step the warpgroup dequantizes while the
// previous step's wgmmas run (one group in flight, double-buffered fragments). Work follows
// gemm/schedule.cuh (persistent CTAs, data-parallel tiles plus stream-K); each segment drains
// its pipeline, then the epilogue transposes the accumulators through shared memory so that C
// is written in 16-byte row chunks (stream-K slices take turns, or meet in the workspace, through
// gemm/epilogue.cuh).
//
// Warp-specialised (kLoadWarps = 4: the "wgmma_ws" family, runtime/src/layer/gemm_family.c):
// a producer warpgroup after the math warpgroups walks the same work and issues every copy
// into a ring of kStages slots, each slot with a "full" mbarrier (its copies landed: the
// producer threads' cp.async arrivals and the TMA bytes) and an "empty" one (every math warp is
// done with it). The math warpgroups never meet at a CTA barrier in the main loop (FP8
// block-wise's second, where its stages drain one by one, waits once per segment for the first, to
// run half a stage behind: kLag); a slot is
// released once the last group reading it has finished (waited for once the next stage's first
// group is running, or kBatch once all its groups are queued), and the producer runs up to
// kStages stages ahead, across segment ends, since the epilogue stages C in a tile of its own
// after the stages, or (kCInStage) in the A slot of the segment's last stage, which the math warps
// release only after the epilogue. The producer hands most of its
// registers to the math warpgroups (setmaxnreg). Dense A arrives by TMA (thread 0 arms the full
// barrier with its bytes); the MoE types' gathered rows by every producer thread's cp.async, an
// indexed segment's row addresses read at every stage from the producer's table in shared memory
// (gemm/rows.cuh), a grouped one's worked out (its few registers hold none), and the math warps fence the slot for
// wgmma's async proxy once its full barrier has shown them the copies (the plain kernel's
// copying threads fence their own after waiting for them).
//
// 8-bit A (e4m3, int8) runs the k32 wgmma on the 8-bit codes as they are (the lane's words of
// two k16 rows are one fragment, kernels/prep/repack.cu), int8 into int32 accumulators; the
// epilogue multiplies in A's row scales and the weight's channel scales, and scales that change
// along K (FP8 block-wise, MXFP8, W4A8 groups: gemm/kscale.cuh) multiply the accumulators at each promotion,
// read from the stage, which carries them beside the codes.
//
// The argument: kernels/contract/gemm_args.h; A is read through a_map only (a, lda and k_perm
// unused: an act-order A arrives permuted, prep/permute_a.cu). Dynamic shared memory: kSmemBytes plus
// 2048 bytes (alignment of the stages to 1024 bytes, and the stage barriers); warp-specialised,
// the epilogue tile of its own between the two (runtime/src/layer/gemm_wgmma.h).
#include "gemm/dequant.cuh"
#include "gemm/entry.cuh"
#include "gemm/epilogue.cuh"
#include "gemm/kscale.cuh"
#include "gemm/load_a.cuh"
#include "gemm/load_b.cuh"
#include "gemm/quant_a.cuh"
#include "mma/wgmma.cuh"
#include "ptx/smem.cuh"

namespace gemm_wgmma {
using namespace gemm;

constexpr bool kSpecialised = kLoadWarps > 0;
constexpr int kWarpgroups = kMathThreads / 128;
constexpr int kMathWarps = kMathThreads / 32;
constexpr int kSlabs = kWN / 16;           // 64-row slabs per warpgroup
constexpr int kUnits = kBN / 64;           // 64-row units of the block, kWarpgroups * kSlabs
// Block M is the N of the wgmma instructions: one instruction per 128 tokens and one for the
// rest (any multiple of 16: mma/wgmma.cuh), so that a block M fitted to the rows per expert of
// a MoE layer (80, 96, 160 = 128 + 32) pads few rows and still runs one wide instruction per
// 128 tokens; or 8, one n8 instruction, a MoE block of about one row per expert (half the
// padded rows of 16; the swizzle atom is 8 rows). Chunk c covers tokens chunk_start(c) .. +
// chunk_n(c) - 1, whose accumulators start at chunk_start(c) / 2.
__host__ __device__ constexpr int chunk_n_of(int rest)
{
    return rest > 128 ? 128 : rest;
}
__host__ __device__ constexpr int chunk_start(int c)
{
    int t = 0;
    for (int i = 0; i < c; ++i)
        t += chunk_n_of(kBM - t);
    return t;
}
__host__ __device__ constexpr int chunk_n(int c)
{
    return chunk_n_of(kBM - chunk_start(c));
}
__host__ __device__ constexpr int count_chunks()
{
    int c = 0;
    while (chunk_start(c) < kBM)
        ++c;
    return c;
}
constexpr int kChunks = count_chunks();
constexpr int kAcc = kBM / 2;              // accumulators per thread and slab
// 16-bit A over integer codes with one scale per output column (channel scales): the codes
// minus an integer zero point are exact in A's type (a float zero point rounds them once, as
// before) and their products with A in the float32 accumulators, so the column's scale
// multiplies the accumulators once, in the epilogue
// (c_factors), instead of every dequantized pair in the main loop (an HMUL2 per fragment
// register: 16 of the 119 instructions per warp and stage of uint8's 256 x 128 x 64 tile,
// sm_90a), as the mma.sync kernel's kScaleAcc does at the end of each group. The scale rows still
// travel in the stages' layout the host plans, uncopied. Float codes keep their scales in the loop:
// without them their decoded values sit up to 2^120 above the weight (numerics/decode.cuh).
constexpr bool kChannelScaleAcc = !kA8 && kHasScale && !kWeightFloat && kGroup >= kK;
// The warp's share of a lane's codes: pairs 4w..4w+3 of its k16 row (kernels/prep/repack.cu),
// kShare virtual words of kPairsUsed pairs each. At 4 and 8 bits the share is whole stored
// words, plane w of the unit (numerics/codes.cuh: 32 lanes' kShare words in a row; 8-bit codes
// for 8-bit A planes 2w and 2w + 1, one word each), which the warp reads without bank conflicts:
// "share mode". Other widths keep a lane's kWeightBits words
// together: each warp reads them all, rebuilds the virtual words of an odd width and picks its
// share (warp_share).
constexpr bool kShareMode = !kOddWidth && kWeightBits >= 4;
constexpr int kPairsPerWord = 16 / kCont;
constexpr int kPairsUsed = kPairsPerWord < 4 ? kPairsPerWord : 4;
constexpr int kShare = 4 / kPairsUsed;
constexpr int kAtomBytes = kBM * 128;      // one 64-k column block of an activation stage
constexpr int kInFlight = kStages - 2;     // stages loading while one is computed
// The epilogue tile: block M rows of block N 16-bit values, unpadded, the 16-byte chunks of row r
// stored in the order chunk ^ (r % 8) (c_at). stage_c's warp then writes one chunk of each of
// four rows two apart, and write_c's eight threads of a 16-byte access phase eight chunks of one
// row, each without bank conflicts (block N >= 64: eight chunks a row). Warp-specialised it lies
// after the stages (kCTile own), or in the A slot of the segment's last stage, in row splits of
// kCSplitRows (kCTile stage: the slot is held from its last wgmma to the end of the epilogue, so
// the ring has no tile of its own to leave room for); the plain kernel's in the drained stages.
constexpr int kCRow = kBN * 2;             // bytes per row of the epilogue tile
constexpr bool kCInStage = kCTile == 1;
constexpr int kCSplitRows = kCInStage ? (kABytes / kCRow < kBM ? kABytes / kCRow / 8 * 8 : kBM) : kBM;
constexpr int kCSplits = (kBM + kCSplitRows - 1) / kCSplitRows;
constexpr int kCOffset = kSpecialised && !kCInStage ? kSmemBytes : 0;
constexpr int kCBytes = kSpecialised && !kCInStage ? kBM * kCRow : 0;  // the tile of its own
static_assert(!kCInStage || (kSpecialised && !kSmemTotals && kCSplitRows >= 8),
              "C in the last stage: warp-specialised, no totals in the epilogue tile, eight rows a split");
static_assert(kBN >= 64, "the epilogue tile's swizzle: eight 16-byte chunks a row");
// kSmemTotals (hum_constants.h; runtime/src/layer/gemm_wgmma.c, hum_gemm_wgmma_smem_totals): where
// the registers have no room for the float32 totals of promoted e4m3 accumulators beside them (a
// 256-row tile: 128 accumulators a thread), the first half of each slab's stays in registers and
// the second half lives in shared memory where the epilogue tile goes, which stages C only after
// they have been read back (totals_at). All of them there would leave room for two stages only,
// too few to cover the loads (256 x 128 x 128 W4A8: 190.8 us at M = 1024 against 166.1 on
// 128 rows, bench/NOTES.md, session 14).
constexpr int kRegTotals = kSmemTotals ? kAcc / 2 : kAcc;  // per slab, in registers
// 2 x block N x block M bytes: the epilogue tile's size
static_assert(!kSmemTotals || kMathThreads * kSlabs * (kAcc - kRegTotals) * 4 <= kCBytes, "totals beyond the epilogue tile");
// The stage barriers, after the stages (and the epilogue tile): one per slot, warp-specialised
// the full ones then the empty ones.
constexpr int kBarOffset = kSmemBytes + kCBytes;
// Dense: A by TMA (one box per 64 columns, on the slot's barrier); the MoE types gather the
// block's rows by cp.async into the same layout (gemm/load_a.cuh).
constexpr bool kATma = kGemmType == GemmType::kDense;
static_assert(kClusterN == 1 || (kSpecialised && kATma), "A multicast: warp-specialised, dense A by TMA");
static_assert(!kQuantA || (kSpecialised && kATma), "kQuantA: warp-specialised, dense A by TMA");
// kWeightsSS (hum_constants.h; runtime/src/layer/gemm_wgmma.c, the fit of weights_ss): 8-bit codes
// that are the MMA's operand as they sit (e4m3 weights beside e4m3 A; int8 A flips its uint8 codes
// in registers) arrive by TMA, the stage's k16 rows of the block's 64-column units as in global
// memory (gemm/load_b.cuh's layout: args.b_map, box block N x 16 bytes by block K / 16 rows, no
// swizzle), and wgmma reads them from shared memory as its A operand: each 64-column unit's k16 row is eight 8 x 16-byte core
// matrices (numerics/codes.cuh), so the descriptor's next 8 rows are 128 bytes on and the next k16
// row block N x 16 bytes on. No fragments, no LDS, no dequantization: the math warps only issue
// wgmmas (W8A8 at M = 1024: the RS path's producer spent 7.8 M instructions on cp.async and the
// math warps 2.2 M on fragment loads, bench/NOTES.md, session 30).
constexpr bool kSS = kWeightsSS;
static_assert(!kSS || (kSpecialised && kATma && kAFp8 && kWeightFloat && kWeightBits == 8 && !kScalesStaged &&
                       !kZeroPoint && kBN <= 128),
              "weights_ss: wgmma_ws, dense, e4m3 codes beside e4m3 A, block N at most 128 (one TMA box)");
// What the producer's threads copy by cp.async beside the TMAs: nothing with SS weights and no scales
// in the stage, whose copies thread 0 alone issues (the others leave at once).
constexpr bool kProducerCopies = !kATma || !kSS || kSBytes + kZBytes + kKSBytes > 0;
// kBatch: an SS stage with no promotion inside it (promoted every block K or less often) has nothing
// to prepare between its steps, so it issues them all behind one fence and waits once, for the
// previous stage's groups: its own keep the tensor pipe fed while the previous slot is released
// and (kStageSets) the previous set promoted. Waiting at step 1 instead left one group of the
// warpgroup queued there (W8A8 128 x 128 x 128 at M = 1024, H100: tensor pipe 63 % of the cycles,
// bench/NOTES.md, session 32). A promotion between two steps reads the accumulators, so the next
// step would need a fence of its own: such stages keep the per-step schedule.
constexpr bool kBatch = kSS && (!kPromote || kPromoteK >= kBK);
// Warp-specialised: a slot's full barrier waits for the producer threads' cp.async arrivals and,
// dense, thread 0's TMA transaction. Registers per thread after the split
// (setmaxnreg): the producer keeps few, the math warpgroups take the rest of the CTA's pool. A
// kernel with setmaxnreg is compiled to the most registers its launch bounds allow, up to its
// largest setmaxnreg (kLaunchRegs), so the pool is kLaunchRegs * kThreads; a request beyond it
// would wait forever.
constexpr int kFullArrivals = (kProducerCopies ? kCopyThreads : 0) + (kATma ? 1 : 0);
constexpr int kProducerRegs = 40;
// kQuantA: the 16-byte chunks a lane of a quantizing warp holds in flight (gemm/quant_a.cuh):
// a math warp's under kMathRegs, a producer warp's under its kProducerRegs
constexpr int kQuantDepthFirst = 16, kQuantDepthProducer = 4;
constexpr int kBoundRegs = 65536 / kCtasPerSm / kThreads / 8 * 8;
constexpr int kLaunchRegs = kBoundRegs < 240 ? kBoundRegs : 240;
constexpr int kRegsLeft = (kLaunchRegs * kThreads - kProducerThreads * kProducerRegs) / kMathThreads / 8 * 8;
constexpr int kMathRegs = kRegsLeft < 240 ? kRegsLeft : 240;
// Accumulators: float, int32 for int8 products.
template <bool INT>
struct AccType {
    using type = float;
};
template <>
struct AccType<true> {
    using type = int;
};
using Acc = AccType<kAInt8>::type;
// The sums the epilogue takes: the accumulators, or the float32 totals they are promoted into
// (int8's too, with K-group scales).
using Sum = AccType<kAInt8 && !kPromote>::type;
// Promotion periods under 128 of K (A groups of 32, weight groups of 64): waiting for every group
// before each promotion would leave the tensor cores idle while the math warps scale and add, once
// per k32 step at period 32. So period q of a stage accumulates into set q % 2, and set (q - 1) % 2
// is promoted while period q's last group still runs; each stage ends with both sets promoted
// (block K 128 or 256 holds an even number of periods). The fit gives the third set its registers
// (runtime/src/layer/gemm_wgmma.c, hum_gemm_wgmma_acc_regs).
constexpr bool kPingPong = kKScales && kPromoteK < 128;
// kStageSets (hum_constants.h; runtime/src/layer/gemm_wgmma.c, hum_gemm_wgmma_stage_sets): promoted at
// every stage end, the same across stages: consecutive stages alternate between two sets, and a
// stage adds the previous one's to the totals once its own first group is running, so the tensor
// pipe drains once per kStageRun stages instead of at every stage end (W8A8 128 x 128 x 128 at M =
// 1024: the stage-end wait held 10.8 % of the stall samples; 142.7 -> 140.0 us, bench/NOTES.md,
// session 16). K-group scales (FP8 block-wise) multiply a set by its own stage's factors, which
// the promotion reads from that stage's slot as it multiplies (promote_read): held through the
// stage beside three sets, they made the 128-row tile spill (register fragments: 100-116 bytes,
// bench/NOTES.md, session 22), so only SS weights, whose stages hold no fragments, take them;
// and not with A multicast, whose remote releases after the promotion spilled 48 bytes in the
// loop (FP8 block-wise 128 x 128 x 128, sm_90a).
// Accumulator registers a thread may hold (runtime/src/layer/gemm_wgmma.c, hum_gemm_wgmma_acc_budget):
// a warp-specialised math thread alone on its SM has 232 registers (setmaxnreg), room for 192 (two
// promoted sets of a 192-row tile, or three of a 128-row one: kStageSets) without K-group factors
// held beside them.
constexpr int kAccBudget = kSpecialised && kCtasPerSm == 1 && (!kKScales || kStageSets) ? 192 : 128;
constexpr int kSets = kPingPong || kStageSets ? 2 : 1;
constexpr int kStageRun = 4;
// The totals in registers (kPromote; unused words else).
using Totals = Sum[kSlabs][kAcc];  // kSmemTotals: the first kRegTotals of each slab's
// (promoted only at stage ends: `fresh` overwrites the accumulators at a stage's first step alone)
static_assert(!kSmemTotals || (kSpecialised && kPromote && !kKScales && !kPingPong && kAcc % 8 == 0 && kPromoteK >= kBK),
              "totals in shared memory: warp-specialised e4m3 accumulators promoted every block K or more");
static_assert(!kPingPong || (kPromoteStages == 1 && kKK / kPromoteSteps % 2 == 0),
              "ping-pong accumulators: an even number of promotion periods in every stage");
static_assert(!kStageSets || (kSpecialised && kPromote && !kSmemTotals && kPromoteK == kBK &&
                               (!kKScales || (kSS && kClusterN == 1 && !kAScaleE8m0 && kAScaleWords <= 1))),
              "sets by stage: warp-specialised e4m3 accumulators promoted every block K; K-group scales on SS "
              "weights without A multicast, a stage's k-block in one float32 A group");
// kLag: K-group scales promoted once per stage, at its end (FP8 block-wise: 1 x 128 A groups, 128
// x 128 weight blocks; also uint4 or channel-scaled e4m3 weights with 1 x 128 A groups, untimed)
// drain the tensor pipe there and multiply every accumulator by its factors. The two math
// warpgroups then run half a stage apart, so that one's drain and promotion find the other's
// wgmmas queued on the SM's tensor cores instead of both leaving them idle at once: warpgroup 0
// arrives at named barrier kLagBarrier once step kLagStep of its segment's first stage is issued,
// and warpgroup 1 waits there before its first stage (H200, 7168 x 2048, M 1024 / 8192: 63.8 /
// 414.7 -> 57.4 / 360.3 us; n = k = 8192 M 1024 220.5 -> 218.1; bench/results/H200-2026-12-04/
// s22-call5-lag/). Stage sets (kStageSets), which drain once per kStageRun stages, run without it
// (the two were not timed together). Warpgroup 0 cannot arrive twice before warpgroup 1 waits once
// only because every path out of the epilogue passes a barrier of all math threads
// (gemm/epilogue.cuh: the stream-K slice that leaves its sums in the workspace too): a path without
// one could hang the kernel. Where
// promotions drain without K-group factors (W8A8's 192-row tiles, W4A8 every 1024 of K) the lag
// gained nothing or lost 1.6 %; 256-deep k-blocks, which promote twice a stage, were not timed with it.
constexpr bool kLag = kSpecialised && kWarpgroups == 2 && kKScales && !kPingPong && kPromoteK == kBK && !kStageSets;
constexpr int kLagStep = kKK / 2 - 1;
// Named barriers: 0 the CTA's, 1 the math threads' (gemm/epilogue.cuh), 2 the producer's, 3 + wg a
// warpgroup's vote (warpgroup_any), then the lag's.
constexpr int kLagBarrier = 5;
static_assert(!kLag || (kLagStep >= 0 && kLagStep < kKK), "kLag: warpgroup 0 must reach its arrival step");

HUM_DEV void lag_arrive()
{
    asm volatile("bar.arrive %0, %1;\n" ::"n"(kLagBarrier), "n"(kMathThreads) : "memory");
}

HUM_DEV void lag_wait()
{
    asm volatile("bar.sync %0, %1;\n" ::"n"(kLagBarrier), "n"(kMathThreads) : "memory");
}

// Stage regions: all activation stages first (each a multiple of 1024 bytes, as the swizzle
// atoms need), then the weight, scale, zero-point and K-scale stages.
constexpr int kBOffset = kStages * kABytes;
static_assert(kABytes % 16 == 0 && kBBytes % 16 == 0, "stages whole 16-byte units: a slot's descriptors add slot x bytes / 16");
constexpr int kSOffset = kBOffset + kStages * kBBytes;
constexpr int kZOffset = kSOffset + kStages * kSBytes;
constexpr int kKSOffset = kZOffset + kStages * kZBytes;

static_assert(kMathThreads % 128 == 0 && (kBN / kWN) % 4 == 0, "whole warpgroups: block_n / warp_n a multiple of 4");
static_assert(!kSpecialised || (kLoadWarps == 4 && kMathThreads % kProducerThreads == 0),
              "warp-specialised: one producer warpgroup, after the math ones");
static_assert(!kSpecialised || (kProducerRegs <= kLaunchRegs && kMathRegs >= kLaunchRegs),
              "setmaxnreg: the producer gives registers back, the math warpgroups take them");
static_assert(kWarpgroups * kSlabs == kUnits, "warpgroups x slabs must cover block N");
static_assert(!kShareMode || kPlaneWords == kShare || kPlaneWords == 1,
              "share mode: one plane of the repacked unit per warp, or one per word of its share");
static_assert(kWarpgroups <= 2 && kSlabs <= 4 && kSets * kSlabs * kAcc + (kPromote ? kSlabs * kRegTotals : 0) <= kAccBudget,
              "register budget: at most 2 warpgroups, 4 slabs and kAccBudget accumulator registers per thread");
static_assert(kWM == kBM && kWK == kBK, "wgmma tiles: warp_m = block_m and warp_k = block_k");
static_assert(kBM == 8 || (kBM % 16 == 0 && kBM <= 256), "block M (the wgmma N) must be 8 or a multiple of 16 up to 256");
static_assert(kAVec, "activations must be copied 16 bytes at a time (no act-order, K a multiple of 8)");
static_assert(kStages >= (kSpecialised ? 2 : 3), "at least three stages (warp-specialised: two)");
static_assert(kSpecialised || kBM * kCRow <= kSmemBytes, "the epilogue tile must fit in the pipeline's shared memory");

// Byte offset of 16-byte chunk `chunk` of row `row` in the epilogue tile (swizzled: see kCRow).
HUM_DEV u32 c_at(int row, int chunk)
{
    return row * kCRow + ((chunk ^ (row & 7)) << 4);
}

// Warp-specialised: slot `slot`'s full and empty barriers.
HUM_DEV u32 full_bar(u32 base, int slot)
{
    return base + kBarOffset + slot * 8;
}

HUM_DEV u32 empty_bar(u32 base, int slot)
{
    return base + kBarOffset + (kStages + slot) * 8;
}

// A math warp's release of a ring slot (lane 0) at its empty barrier `bar`. With A multicast
// (kClusterN) every CTA's producer copies its share of A into the slot of every CTA of the
// cluster, so the release goes to the same barrier of each: an empty barrier counts every math
// warp of the cluster. WROTE: the warp wrote the slot (the epilogue's C, kCInStage), which the
// other CTAs' copies must find done.
template <bool WROTE = false>
HUM_DEV void release_slot(u32 bar)
{
    mbar_arrive(bar);
    if constexpr (kClusterN > 1) {
        const u32 rank = cluster_ctarank();
#pragma unroll
        for (u32 r = 1; r < kClusterN; ++r) {
            const u32 peer = cluster_peer(bar, (rank + r) % kClusterN);
            if constexpr (WROTE)
                mbar_arrive_remote_release(peer);
            else
                mbar_arrive_remote(peer);
        }
    }
}

// The producer warpgroup's own barrier (warp-specialised; the math warps' is 1: gemm/epilogue.cuh).
HUM_DEV void producer_sync()
{
    asm volatile("bar.sync 2, %0;\n" ::"n"(kCopyThreads) : "memory");
}

// Issues the copies of k-block kb of block blk's rows into ring slot `slot`: the activation
// tile (thread 0's TMA, or every thread's share of the gathered rows: the plain kernel's from the
// rows `a` holds, the producer's as AVec::load_rows finds them), every thread its 16-byte
// chunks of the weights (as they sit: gemm/load_b.cuh; kSS: thread 0's TMA), scales, zero points
// and K-group scales (gemm/kscale.cuh). tid: the copying thread (gemm/config.cuh, kCopyThreads).
HUM_DEV void load_stage(const hum_gemm_args &args, const AVec<true> &a, const Block &blk, u32 base, int slot, int n0,
                        int kb, int tid)
{
    if constexpr (kATma) {
        if (tid == 0) {
            const u32 bar = base + kBarOffset + slot * 8;
            // announced before a_tma's arrival, which could otherwise complete the phase first
            if constexpr (kSS) {
                mbar_expect_tx(bar, kBBytes);
                tma_load_2d(base + kBOffset + slot * kBBytes, args.b_map, n0 * 2, kb * (kBK / 16), bar);
            }
            a_tma(args, base + slot * kABytes, kAtomBytes, static_cast<int>(blk.row0), kb, bar);
        }
    } else if constexpr (kSpecialised) {
        AVec<true>::load_rows(args, blk, source_table(), base + slot * kABytes, kb, tid);
    } else {
        a.load(base + slot * kABytes, kb, tid);
    }
    copy_kscales(args, blk, base + kKSOffset + slot * kKSBytes, n0, kb, tid);
    if constexpr (!kSS)
        copy_codes(base + kBOffset + slot * kBBytes, codes_tile(args, blk.expert, n0), kb, tid);
    copy_params<kScalesStaged && !kChannelScaleAcc>(args, base + kSOffset + slot * kSBytes,
                                                    base + kZOffset + slot * kZBytes, blk.expert, n0, kb, tid);
}

// Lane mode: warp w's share of the lane's stored words, the virtual words holding pairs
// 4w..4w+3 with the first shifted down to them. w is the same for the whole warp, so the
// choice is a select, never an indexed (local-memory) array.
HUM_DEV void warp_share(const u32 (&words)[kWeightBits], int w, u32 (&out)[kShare])
{
    u32 virt[kCont];
    if constexpr (kOddWidth) {
        expand_words<kWeightBits, kCont>(words, virt);
    } else {
#pragma unroll
        for (int i = 0; i < kCont; ++i)
            virt[i] = words[i];
    }
#pragma unroll
    for (int j = 0; j < kShare; ++j) {
        const u32 v0 = virt[j], v1 = virt[4 / kPairsPerWord + j];
        const u32 v2 = virt[8 / kPairsPerWord + j], v3 = virt[12 / kPairsPerWord + j];
        out[j] = (w & 2) ? ((w & 1) ? v3 : v2) : ((w & 1) ? v1 : v0);
    }
    if constexpr (kPairsPerWord > 4)
        out[0] >>= 4 * w % kPairsPerWord * kCont;
}

// The warp's code words of k16 row kr of every slab of its warpgroup. lane_codes: the stage's
// address of the thread's words in k16 row 0 of its warpgroup's first unit (codes_at), to which
// the row and slab add a constant: computed from the thread's indices at every load, the address
// cost three instructions per LDS (the compiler rebuilt tid from wg, w and lane and could not
// fold the constant into the load).
HUM_DEV void load_row(u32 lane_codes, int kr, int w, u32 (&raw)[kSlabs][kShare])
{
#pragma unroll
    for (int s = 0; s < kSlabs; ++s) {
        const u32 addr = lane_codes + code_offset(kr, s, 0, 0);
        if constexpr (kShareMode) {
            if constexpr (kShare == 1) {
                raw[s][0] = lds32(addr);
            } else if constexpr (kPlaneWords == 1) {  // 8-bit codes for 8-bit A: a plane per word
                raw[s][0] = lds32(addr);
                raw[s][1] = lds32(addr + 32 * 4);
            } else {
                lds64(addr, raw[s][0], raw[s][1]);
            }
        } else {
            u32 words[kWeightBits];
            lds_words<kWeightBits, kWeightBits>(addr, words);
            warp_share(words, w, raw[s]);
        }
    }
}

// The address load_row starts from: word 0 of the thread's share (share mode: plane w) in k16 row
// 0 of the warpgroup's first unit of weight stage bstage. code_offset(kr, u, lane, j) is this
// plus code_offset(kr, u - wg * kSlabs, 0, 0).
HUM_DEV u32 codes_at(u32 bstage, int wg, int w, int lane)
{
    return bstage + code_offset(0, wg * kSlabs, lane, kShareMode ? w * kShare : 0);
}

// Scale or zero-point pair of the lane's two rows (16w + g in the low half, 16w + g + 8 in the
// high half) of each slab, from one prepared row: inside a 64-column block, position 8g + i
// holds column g + 8i (kernels/prep/repack.cu), so the pair is one aligned word.
HUM_DEV void load_params(u32 row_addr, int wg, int w, int lane, u32 (&out)[kSlabs])
{
#pragma unroll
    for (int s = 0; s < kSlabs; ++s)
        out[s] = lds32(row_addr + ((wg * kSlabs + s) * 64 + 8 * (lane >> 2) + 2 * w) * 2);
}

// A fragments of every slab: (code - zero) * scale. The warp's share holds pairs q = 0..3 of
// the lane's mma.sync pairs 4w..4w+3 (kernels/prep/repack.cu): q / 2 picks the row (g or g + 8)
// and q % 2 the k half, which is fragment register 2 * (q % 2) + q / 2.
HUM_DEV void dequant(const u32 (&raw)[kSlabs][kShare], const u32 (&sc)[kSlabs], const u32 (&zp)[kSlabs],
                     u32 (&a)[kSlabs][4])
{
#pragma unroll
    for (int s = 0; s < kSlabs; ++s) {
        static_for<0, 4>([&](auto qc) {
            constexpr int q = decltype(qc)::value;
            constexpr int c = q % kPairsUsed;
            a[s][2 * (q % 2) + q / 2] = dequant_pair<c, !kChannelScaleAcc>(
                raw[s][q / kPairsUsed], broadcast16<(q / 2) != 0>(zp[s]), broadcast16<(q / 2) != 0>(sc[s]));
        });
    }
}

// The warp's code words of the kKRows k16 rows of MMA step kk.
HUM_DEV void load_codes(u32 lane_codes, int kk, int w, u32 (&raw)[kKRows][kSlabs][kShare])
{
#pragma unroll
    for (int r = 0; r < kKRows; ++r)
        load_row(lane_codes, kk * kKRows + r, w, raw[r]);
}

// 8-bit A's fragments: the warp's codes of rows 16w+g and 16w+g+8 of the step's two k16 rows,
// each the four codes of k 4t..4t+3 (sc: the folded group scales of the two rows, one word).
// P: e2m1's byte tables (gemm/dequant.cuh).
template <Fp4Path P>
HUM_DEV void frags8(const u32 (&raw)[kKRows][kSlabs][kShare], const u32 (&sc)[kSlabs], u32 (&a)[kSlabs][4])
{
#pragma unroll
    for (int s = 0; s < kSlabs; ++s) {
        if constexpr (kFp4Table) {
            u32 t[4];
            fp4_tables<P>(kScalesStaged ? sc[s] : dup16(bits16(1, 0, false)), t);
            fp4_regs(t, raw[0][s][0], a[s][0], a[s][1]);
            fp4_regs(t, raw[kKRows - 1][s][0], a[s][2], a[s][3]);
        } else {
            a[s][0] = b8_reg<0>(raw[0][s]);
            a[s][1] = b8_reg<1>(raw[0][s]);
            a[s][2] = b8_reg<0>(raw[kKRows - 1][s]);
            a[s][3] = b8_reg<1>(raw[kKRows - 1][s]);
        }
    }
}

// The halfwise unsigned minimum of two words.
HUM_DEV u32 min_u16x2(u32 a, u32 b)
{
    u32 m;
    asm("min.u16x2 %0, %1, %2;\n" : "=r"(m) : "r"(a), "r"(b));
    return m;
}

// Whether p holds in any thread of warpgroup wg, every thread of which calls this: named barrier
// 3 + wg (the math warps share 1, gemm/epilogue.cuh; the producer has 2). The warp's vote on the
// barrier's answer (the same in every lane) tells the compiler that it is uniform: a branch on it
// keeps the wgmma descriptors' arithmetic in uniform registers.
HUM_DEV bool warpgroup_any(bool p, int wg)
{
    u32 any;
    asm volatile("{\n .reg .pred p, q;\n setp.ne.u32 p, %1, 0;\n bar.red.or.pred q, %2, 128, p;\n"
                 " selp.u32 %0, 1, 0, q;\n}\n"
                 : "=r"(any)
                 : "r"(static_cast<u32>(p)), "r"(3 + wg));
    return __any_sync(0xFFFFFFFFu, any);
}

// Keeps the compiler from touching the accumulators before the wgmma wait that precedes this.
HUM_DEV void pin_acc(Acc (&acc)[kSlabs][kAcc])
{
#pragma unroll
    for (int s = 0; s < kSlabs; ++s)
#pragma unroll
        for (int i = 0; i < kAcc; ++i)
            wgmma_pin(acc[s][i]);
}

// Float4 q of math thread tid's totals in shared memory (kSmemTotals): consecutive threads'
// 16-byte words follow each other, so a warp's accesses meet no bank conflict.
HUM_DEV u32 totals_at(u32 base, int q, int tid)
{
    return base + kCOffset + (q * kMathThreads + tid) * 16;
}

// The float4 groups of a thread's totals in shared memory (kSmemTotals): group q holds slab
// q / kSmemGroups's accumulators from kRegTotals + 4 (q % kSmemGroups); at least 1 as a divisor (no
// group where kSmemTotals is false: the loops over kSmemCount run none).
constexpr int kSmemGroups = kSmemTotals ? (kAcc - kRegTotals) / 4 : 1;
constexpr int kSmemCount = kSmemTotals ? kSlabs * kSmemGroups : 0;

// Each float4 group of math thread tid's totals in shared memory read, passed to f(v, a) with a the
// accumulators it sums (4 of a slab's, from acc[s][i]), and written back where f says.
template <typename F>
HUM_DEV void smem_totals(Acc (&acc)[kSlabs][kAcc], u32 base, int tid, F &&f)
{
#pragma unroll
    for (int q = 0; q < kSmemCount; ++q) {
        const int s = q / kSmemGroups, i = kRegTotals + q % kSmemGroups * 4;
        u32 v[4];
        lds128(totals_at(base, q, tid), v[0], v[1], v[2], v[3]);
        if (f(v, &acc[s][i]))
            sts128(totals_at(base, q, tid), v[0], v[1], v[2], v[3]);
    }
}

// total += acc: in registers; kSmemTotals the second half of each slab's in shared memory (tid:
// the math thread). acc stays as it is: the next period's first wgmma overwrites it (compute_stage).
HUM_DEV void promote_totals(Acc (&acc)[kSlabs][kAcc], Totals &total, u32 base, int tid)
{
#pragma unroll
    for (int s = 0; s < kSlabs; ++s)
#pragma unroll
        for (int i = 0; i < kRegTotals; ++i)
            total[s][i] += acc[s][i];
    smem_totals(acc, base, tid, [](u32 (&v)[4], const Acc *a) {
#pragma unroll
        for (int e = 0; e < 4; ++e)
            v[e] = __float_as_uint(__uint_as_float(v[e]) + a[e]);
        return true;
    });
}

// A segment's totals set to 0 (before its first promotion).
HUM_DEV void zero_totals(Totals &total, u32 base, int tid)
{
#pragma unroll
    for (int s = 0; s < kSlabs; ++s)
#pragma unroll
        for (int i = 0; i < kRegTotals; ++i)
            zero_acc(total[s][i]);
#pragma unroll
    for (int q = 0; q < kSmemCount; ++q)
        sts128(totals_at(base, q, tid), 0, 0, 0, 0);
}

// kSmemTotals: the segment's sums for the epilogue in acc, its last period's products (which stay
// there, not promoted: kPromoteLast) plus its totals, every math thread past its reads before the
// epilogue tile overwrites the ones in shared memory.
HUM_DEV void add_totals(Acc (&acc)[kSlabs][kAcc], const Totals &total, u32 base, int tid)
{
#pragma unroll
    for (int s = 0; s < kSlabs; ++s)
#pragma unroll
        for (int i = 0; i < kRegTotals; ++i)
            acc[s][i] += total[s][i];
    smem_totals(acc, base, tid, [](u32 (&v)[4], Acc *a) {
#pragma unroll
        for (int e = 0; e < 4; ++e)
            a[e] += __uint_as_float(v[e]);
        return false;
    });
    math_sync();
}

// Whether a segment's last stage promotes its accumulators: not with kSmemTotals, whose totals are
// added to them instead (add_totals).
constexpr bool kPromoteLast = !kSmemTotals;

// A segment's sums for the epilogue: its totals where its accumulators were promoted into
// registers, else its accumulators (kSmemTotals: with the totals added, add_totals). (a template:
// the branch not taken names a type Sum may not be)
template <typename T>
HUM_DEV auto &segment_sums(Totals &total, T (&acc)[kSlabs][kAcc])
{
    if constexpr (kPromote && !kSmemTotals)
        return total;
    else
        return acc;
}

// One wgmma of the A type: 16-bit A's k16 on dequantized fragments, 8-bit A's k32 on the codes
// (scale_d 0: d overwritten, mma/wgmma.cuh).
template <int N>
HUM_DEV void wgmma_step(float *d, const u32 (&a)[4], u64 desc, int scale_d)
{
    if constexpr (kA8)
        wgmma_rs8<N>(d, a, desc, scale_d);
    else
        wgmma_rs<kBF16, N>(d, a, desc, scale_d);
}

template <int N>
HUM_DEV void wgmma_step(int *d, const u32 (&a)[4], u64 desc, int scale_d)
{
    wgmma_rs8<N>(d, a, desc, scale_d);
}

// The K-group scales of the thread's tokens and rows of N (c = 2 s + h: fb[c]) times the
// accumulators, added to the totals (gemm/kscale.cuh); fa(j, f0, f1) gives the factors of tokens
// 8 j + 2 t and 8 j + 2 t + 1 (registers 4 j + 2 h + e hold token 8 j + 2 t + e), asked once per j.
// The accumulators stay as they are, the next period's first wgmma overwriting them (compute_stage's
// `overwrite`). (a template: float accumulators, or int32 ones of int8 products)
template <typename T, typename U, typename FA>
HUM_DEV void promote_scaled(const T (&acc)[kSlabs][kAcc], U &total, FA &&fa, const float (&fb)[2 * kSlabs])
{
#pragma unroll
    for (int j = 0; j < kAcc / 4; ++j) {
        float f[2];
        fa(j, f[0], f[1]);
#pragma unroll
        for (int s = 0; s < kSlabs; ++s)
#pragma unroll
            for (int i = 4 * j; i < 4 * j + 4; ++i)
                total[s][i] = fmaf(acc[s][i], f[i % 2] * fb[2 * s + i / 2 % 2], total[s][i]);
    }
}

// kSS: the descriptor of unit u's 64 rows of weight stage bstage at k32 step 0 (its k16 rows 0 and 1):
// core matrices 8 rows x 16 bytes of 128 bytes each, a unit's eight one after the other, a k16 row
// of the stage kWeightRow bytes long (numerics/codes.cuh). Slab s at step kk lies weight_step(s, kk)
// on, added to the descriptor's address field as A's K offsets are: one descriptor a stage, the
// others constants.
constexpr u32 kWeightRow = kBN * 16;
HUM_DEV u64 weight_desc(u32 bstage, int u)
{
    return wgmma_desc_core(bstage + u * 1024, kWeightRow, 128);
}

HUM_DEV u64 weight_step(int s, int kk)
{
    return (s * 1024 + 2 * kk * kWeightRow) >> 4;
}

// All MMA steps of one stage. Step kk dequantizes into fragment buffer kk % 2 once the group
// that read it (step kk - 2) has finished, so one group computes while the next is prepared.
// K-group scales: blk the tile's, k0 the stage's first column of K. The accumulators (acc[SET],
// or both ping-pong sets) are promoted at the stage's end when `promote_end` (promote_at).
// Warp-specialised, once the previous stage's groups have all finished (waited at step 1, or
// kBatch after the last step is issued), lane 0 releases that stage's slot (empty barrier
// `release`) when `released` is set. Promoted accumulators: `fresh`, the previous stage promoted
// them (or the segment starts), so the first step's wgmmas overwrite them. kStageSets: the stage
// accumulates into acc[SET], and PREV adds acc[SET ^ 1] (the previous stage's) to the totals at
// that same point, while this stage's groups run; with K-group scales times the previous stage's
// factors, read from its slot, which is released after them. kLag: `lead`, warpgroup 0's first
// stage of a segment, arrives at the lag's barrier after step kLagStep.
template <int SET = 0, bool PREV = false>
HUM_DEV void compute_stage(const hum_gemm_args &args, const Block &blk, int k0, u32 base, int slot, int wg, int w,
                           int lane, Acc (&acc)[kSets][kSlabs][kAcc], Totals &total,
                           bool promote_end, bool released = false, u32 release = 0, bool fresh = false,
                           bool lead = false)
{
    const u32 bstage = base + kBOffset + slot * kBBytes;
    // Warp-specialised, the slot's descriptors as slot 0's plus its offset (shared addresses stay
    // below 2^18, so the 14-bit address field never carries into the others): no masking and
    // shifting at every stage. The plain kernel keeps them built from the address: so it held 112
    // registers, 142 the other way (the MoE 32 x 128 x 256 tile, sm_90a).
    const u64 desc0 = kSpecialised ? wgmma_desc_sw128(base) + static_cast<u32>(slot * (kABytes >> 4))
                                   : wgmma_desc_sw128(base + slot * kABytes);
    u32 raw[2][kKRows][kSlabs][kShare];
    u32 frag[2][kSlabs][4];
    u32 sc[kSlabs] = {}, zp[kSlabs] = {};  // zero where the configuration loads neither: dequant passes both
    float fa[kBM / 4], fb[2 * kSlabs];  // kKScales: the period's factors
    const int g = lane >> 2, t = lane & 3;
    // the thread's token i = 2 j + e of the block and row c = 2 s + h of the tile's N
    auto row_of = [&](int i) { return 8 * (i / 2) + 2 * t + i % 2; };
    auto col_of = [&](int c) { return (wg * kSlabs + c / 2) * 64 + 16 * w + g + 8 * (c % 2); };
    const u32 ks = base + kKSOffset + slot * kKSBytes;
    // A thread's columns lie in its warpgroup's kSlabs x 64 of the tile, whose origin is a multiple
    // of kBN = kWarpgroups x that: an aligned run of the weight's columns (kscale_b_cols). Not at
    // two CTAs an SM, whose 128 registers the repeated products' longer lives spilled further (MoE
    // 96 x 128 x 128 tiles, e4m3 A over block weights: 160 -> 180 bytes, sm_90a).
    constexpr int kColSpan = kCtasPerSm == 1 ? kSlabs * 64 : 0;
    // the factors of the period starting at column k (of the stage: k0 + ...)
    auto factors = [&](int k) { kscale_factors<kColSpan>(args, blk, row_table(), k, ks, row_of, col_of, fa, fb); };
    auto held = [&](int j, float &f0, float &f1) {
        f0 = fa[2 * j];
        f1 = fa[2 * j + 1];
    };
    // kStageSets: `set` times the factors of the stage whose K-scale region is `region`, promoted;
    // two tokens' A factors read by one LDS.64 right before they multiply, so that none are held
    // beside the three sets
    auto promote_read = [&](auto &set, u32 region) {
        float fr[2 * kSlabs];
        kscale_b_cols<kColSpan>(region, 0, col_of, fr);
        promote_scaled(
            set, total, [&](int j, float &f0, float &f1) { kscale_a_pair(region, row_of(2 * j), f0, f1); }, fr);
    };
    // PREV's promotion reads the previous stage's slot, which it releases after that
    constexpr bool kPrevReads = PREV && kKScales;
    const u32 lane_codes = codes_at(bstage, wg, w, lane);
    const u64 wdesc0 = kSS ? weight_desc(base + kBOffset, wg * kSlabs) + static_cast<u32>(slot * (kBBytes >> 4)) : 0;
    // the previous stage's slot, once its every group has finished: lane 0's arrive releases its
    // own reads only, so the warp's come first
    auto release_prev = [&] {
        __syncwarp();
        if (released && lane == 0)
            release_slot(release);
    };
    if constexpr (!kSS)
        load_codes(lane_codes, 0, w, raw[0]);
    // MXFP4's folded group scales, unless the layer's all lie in the byte tables' window
    // (kFoldWindow: every step on the IMADs, the rows read where each group starts): the stage's
    // rows read once, and one path of byte tables for all its steps (gemm/dequant.cuh,
    // fp4_tables): the IMADs when every group of the warpgroup's columns lies in their window,
    // else the float16 products (exact for every group), with no test or branch between steps.
    // The four warps must agree (wgmma runs the warpgroup on one path): or-reduced at named
    // barrier 3 + wg.
    constexpr bool kStageScales = kFp4Table && kScalesStaged && !kFoldWindow;
    u32 scs[kStageScales ? kScaleRows : 1][kSlabs];
    bool window = true;
    if constexpr (kStageScales) {
        u32 m = 0xFFFFFFFFu;
#pragma unroll
        for (int r = 0; r < kScaleRows; ++r) {
            load_params(base + kSOffset + slot * kSBytes + r * kBN * 2, wg, w, lane, scs[r]);
#pragma unroll
            for (int s = 0; s < kSlabs; ++s)
                m = min_u16x2(m, scs[r][s]);
        }
        window = !warpgroup_any(!fp4_window(m), wg);
    }
    // the stage's steps on the byte tables' path (an fp4_path_c; kFp4Path for other weights)
    auto steps = [&](auto path) {
        static_for<0, kKK>([&](auto kc) {
            constexpr int kk = decltype(kc)::value;
            constexpr int buf = kk & 1;
            if constexpr (kk + 1 < kKK && !kSS)
                load_codes(lane_codes, kk + 1, w, raw[buf ^ 1]);
            if constexpr (kk == 0 || (kGroup < kBK && (kk * kKStep) % kGroup == 0)) {
                [[maybe_unused]] constexpr int row = kGroup >= kBK ? 0 : kk * kKStep / kGroup;
                if constexpr (kStageScales) {
#pragma unroll
                    for (int s = 0; s < kSlabs; ++s)
                        sc[s] = scs[row][s];
                } else if constexpr (kScalesStaged && !kChannelScaleAcc) {
                    load_params(base + kSOffset + slot * kSBytes + row * kBN * 2, wg, w, lane, sc);
                }
                if constexpr (kZeroPoint)
                    load_params(base + kZOffset + slot * kZBytes + row * kBN * 2, wg, w, lane, zp);
            }
            // ping-pong: loaded where the period is promoted, so that one set of factors suffices;
            // stage sets: read where they multiply (promote_read)
            if constexpr (kKScales && !kPingPong && !kStageSets && kk % kPromoteSteps == 0)
                factors(k0 + kk * kKStep);
            // the fragments' buffer free again (SS: only where the previous stage's slot is released)
            if constexpr (!kSS || (kk == 1 && !kBatch))
                wgmma_wait<1>();
            if constexpr (kSpecialised && kk == 1 && !kBatch)
                release_prev();
            if constexpr (kA8 && !kSS)
                frags8<decltype(path)::value>(raw[buf], sc, frag[buf]);
            else if constexpr (!kA8)
                dequant(raw[buf][0], sc, zp, frag[buf]);
            if constexpr (!kBatch || kk == 0)
                wgmma_fence();
            // The step starts a promotion period: a segment's first, or after a promotion (at the
            // previous stage's end when `fresh`, or within this stage). Promotions leave the
            // accumulators as they are and this step's wgmmas overwrite them (scale-d 0): zeroing
            // them cost a MOV per accumulator between the stage-end drain and the next stage's first
            // wgmmas wherever ptxas did not fold the zeros into the instruction (W8A8's 192-row tile:
            // 32 of its 199 instructions a stage, sm_90a), and an instruction other than a wgmma
            // writing accumulators while a wgmma of another set may run makes ptxas serialize every
            // wgmma (C7514: sets by stage, totals in shared memory promoted on one path only).
            const bool overwrite = kPromote && kk % kPromoteSteps == 0 && (kk > 0 || kPingPong || fresh);
#pragma unroll
            for (int s = 0; s < kSlabs; ++s)
                static_for<0, kChunks>([&](auto cc) {
                    constexpr int c = decltype(cc)::value;
                    // step kk's 32 bytes of each 128-byte row of an atom (k16 of 16-bit A, k32 of 8-bit)
                    constexpr u32 K_OFF = (kk / 4) * kAtomBytes + (kk % 4) * 32;
                    const u64 desc = desc0 + ((K_OFF + chunk_start(c) * 128) >> 4);
                    Acc *d = &acc[kPingPong ? kk / kPromoteSteps % 2 : SET][s][chunk_start(c) / 2];
                    if constexpr (kSS)
                        wgmma_ss8<chunk_n(c)>(d, wdesc0 + weight_step(s, kk), desc, overwrite ? 0 : 1);
                    else
                        wgmma_step<chunk_n(c)>(d, frag[buf][s], desc, overwrite ? 0 : 1);
                });
            wgmma_commit();
            if constexpr (kLag && kk == kLagStep) {
                if (lead)
                    lag_arrive();
            }
            if constexpr (kBatch && kk + 1 == kKK) {
                // every group of the previous stage finished, this stage's all queued (wait_group
                // counts to 7: a stage of more steps, block K 256 never promoted inside, also waits
                // for its first ones)
                wgmma_wait<(kKK < 7 ? kKK : 7)>();
                if constexpr (!kPrevReads)
                    release_prev();
            }
            if constexpr (PREV && (kBatch ? kk + 1 == kKK : kk == 0)) {
                static_assert(!kPrevReads || kBatch, "the previous slot released once, after its factors are read");
                if constexpr (!kBatch)
                    wgmma_wait<1>();
                pin_acc(acc[SET ^ 1]);
                if constexpr (kPrevReads) {
                    promote_read(acc[SET ^ 1], base + kKSOffset + (slot == 0 ? kStages - 1 : slot - 1) * kKSBytes);
                    release_prev();
                } else {
                    promote_totals(acc[SET ^ 1], total, base, 128 * wg + 32 * w + lane);
                }
            }
            if constexpr (kPingPong && promote_after<kk>) {
                constexpr int q = kk / kPromoteSteps;
                if constexpr (q > 0) {
                    factors(k0 + (q - 1) * kPromoteK);
                    wgmma_wait<1>();
                    pin_acc(acc[(q - 1) % 2]);
                    promote_scaled(acc[(q - 1) % 2], total, held, fb);
                }
                if constexpr (kk + 1 == kKK) {
                    factors(k0 + q * kPromoteK);
                    wgmma_wait<0>();
                    pin_acc(acc[q % 2]);
                    promote_scaled(acc[q % 2], total, held, fb);
                }
            } else if constexpr (promote_after<kk>) {
                if (kk + 1 < kKK || promote_end) {
                    wgmma_wait<0>();
                    pin_acc(acc[SET]);
                    if constexpr (kKScales && kStageSets)
                        promote_read(acc[SET], ks);
                    else if constexpr (kKScales)
                        promote_scaled(acc[SET], total, held, fb);
                    else
                        promote_totals(acc[SET], total, base, 128 * wg + 32 * w + lane);
                }
            }
        });
    };
    if constexpr (kStageScales) {
        if (window)
            steps(fp4_path_c<Fp4Path::kWindow>{});
        else
            steps(fp4_path_c<Fp4Path::kProducts>{});
    } else {
        steps(fp4_path_c<kFp4Path>{});
    }
}

// k-blocks kb0 .. kb0 + len - 1 of one tile (block blk, columns n0..) into acc, then every copy
// and product finished. g0 counts the stages this CTA loaded before: stage g sits in slot
// g % kStages and completes phase g / kStages of that slot's barrier.
HUM_DEV void mainloop(const hum_gemm_args &args, u32 base, int g0, const Block &blk, const BlockIds<kMathThreads> &ah,
                      int n0, int kb0, int len, int tid, int wg, int w, int lane, Acc (&acc)[kSets][kSlabs][kAcc],
                      Totals &total)
{
    AVec<true> a;
    if constexpr (!kATma)
        a.set_tile(args, blk, tid);
    // every thread has passed the previous segment's epilogue, the table's last reader
    if constexpr (kMathRows)
        fill_rows(args, blk, ah, row_table(), tid);
    // The slots were last written by the previous epilogue through the generic proxy; the
    // copy engine writes them next (and the table is read from the barrier on).
    fence_proxy_async_smem();
    __syncthreads();
#pragma unroll
    for (int s = 0; s < kInFlight; ++s) {
        if (s < len)
            load_stage(args, a, blk, base, (g0 + s) % kStages, n0, kb0 + s, tid);
        cp_async_commit();
    }
    for (int i = 0; i < len; ++i) {
        const int g = g0 + i, slot = g % kStages;
        cp_async_wait<kInFlight - 1>();
        if constexpr (kATma) {
            mbar_wait(base + kBarOffset + slot * 8, (g / kStages) & 1);
        } else {
            // this thread's cp.async rows of A, written through the generic proxy, become
            // visible to wgmma's reads through the async proxy
            fence_proxy_async_smem();
        }
        __syncthreads();
        // The slot refilled here last held stage g - 2, whose products every warpgroup
        // finished before the barrier (at most the previous stage's last group is running).
        if (i + kInFlight < len)
            load_stage(args, a, blk, base, (g + kInFlight) % kStages, n0, kb0 + i + kInFlight, tid);
        cp_async_commit();
        compute_stage(args, blk, (kb0 + i) * kBK, base, slot, wg, w, lane, acc, total,
                      promote_at(kb0 + i, i + 1 == len), false, 0, i == 0 || promote_at(kb0 + i - 1, false));
    }
    wgmma_wait<0>();
    pin_acc(acc[0]);
    cp_async_wait<0>();
    __syncthreads();
}

// Warp-specialised, the math warps' k-blocks of one segment: stages g0 .. g0 + len - 1 of the
// ring into acc, each slot waited full and released empty; at the end every product has
// finished. g0 counts the stages this CTA computed before: stage g sits in slot g % kStages and
// is fill g / kStages of that slot.
HUM_DEV void mainloop_ws(const hum_gemm_args &args, u32 base, int g0, const Block &blk, int kb0, int len,
                         int wg, int w, int lane, Acc (&acc)[kSets][kSlabs][kAcc], Totals &total)
{
    // The ring position of stage g0 + i, counted along instead of g % kStages and g / kStages at
    // every stage (a division by a constant each: W8A8's 128 x 128 x 128 tile, six stages); `last`
    // the previous stage's slot, which the stage releases.
    int slot = g0 % kStages, last = slot == 0 ? kStages - 1 : slot - 1;
    u32 phase = (g0 / kStages) & 1;
    // stage i into acc[SET]; PREV: the previous stage's sums in acc[SET ^ 1] promoted (kStageSets)
    auto stage = [&](int i, auto set, auto prev, bool promote_end) {
        if constexpr (kLag) {
            if (i == 0 && wg == 1)
                lag_wait();
        }
        mbar_wait(full_bar(base, slot), phase);
        // gathered rows: the producer's cp.async wrote them through the generic proxy
        if constexpr (!kATma)
            fence_proxy_async_smem();
        compute_stage<decltype(set)::value, decltype(prev)::value != 0>(
            args, blk, (kb0 + i) * kBK, base, slot, wg, w, lane, acc, total, promote_end, i > 0, empty_bar(base, last),
            i == 0 || promote_at(kb0 + i - 1, false), i == 0 && wg == 0);
        last = slot;
        if (++slot == kStages) {
            slot = 0;
            phase ^= 1;
        }
    };
    int i = 0;
    if constexpr (kStageSets) {
        // Runs of kStageRun stages alternating between the sets, each stage promoting the one
        // before; the run's last drains the pipe and promotes itself. A set read across the
        // loop's back edge, while the previous run's last wgmmas might still write it, made ptxas
        // serialize every wgmma (C7514): it follows wgmma groups through straight code only.
        for (; i + kStageRun <= len; i += kStageRun)
            static_for<0, kStageRun>([&](auto uc) {
                constexpr int u = decltype(uc)::value;
                stage(i + u, int_c<u % 2>{}, int_c<(u > 0)>{}, u + 1 == kStageRun);
            });
    }
    for (; i < len; ++i)
        stage(i, int_c<0>{}, int_c<0>{},
              kStageSets || (promote_at(kb0 + i, i + 1 == len) && (kPromoteLast || i + 1 < len)));
    wgmma_wait<0>();
    pin_acc(acc[0]);
    // kCInStage: the epilogue stages C in the last stage's slot and releases it (release_c_slot)
    if constexpr (!kCInStage) {
        __syncwarp();
        if (lane == 0)
            release_slot(empty_bar(base, last));
    }
}

// kCInStage, once the epilogue has read the tile for the last time (on every path through it, the
// stream-K slice that leaves its sums in the workspace included: its `done`): the warp is done
// with slot `slot`, which it wrote and read through the generic proxy; the producer's next copies
// into it (TMA: the async proxy) come after.
HUM_DEV void release_c_slot(u32 base, int slot, int lane)
{
    fence_proxy_async_smem();
    __syncwarp();
    if (lane == 0)
        release_slot<true>(empty_bar(base, slot));
}

// The producer warpgroup (copying thread ct): the same walk of the CTA's work as the math
// warps, one stage of copies per k-block into the ring, each slot once every math warp has
// released its previous fill. The next segment's block facts (gemm/rows.cuh, BlockIds) load
// while this segment's stages are issued: at a segment's start only the shared-memory writes of
// its source table remain (the producer is only kStages stages ahead of the math warps, and a
// tile of a short K has few).
HUM_DEV void produce(const hum_gemm_args &args, const Rows &rows, const Schedule &sch, u32 base, int ct)
{
    Work wk = sch.step(Work{0, 0}, 0);
    int mb, nb;
    tile_coords(wk.tile, rows.blocks, mb, nb);
    BlockIds<kCopyThreads> ah = rows.fetch<kCopyThreads>(args, mb, ct);
    int g = 0;
    for (int j = 0; j < sch.total;) {
        const int len = kKB - wk.kb < sch.total - j ? kKB - wk.kb : sch.total - j;
        tile_coords(wk.tile, rows.blocks, mb, nb);
        const int n0 = nb * kBN;
        const Block blk = rows.block(args, ah);
        // A quantized by the kernel (gemm/quant_a.cuh): its rows of the block are all made before
        // the first of the segment's copies reads them
        if (quantizes_a(args) && ct == 0)
            wait_rows(args, mb);
        // the next segment's work, and its block's facts on their way (this block's again after
        // the last segment)
        Work next{wk.tile, wk.kb + len - 1};
        if (j + len < sch.total) {
            next = sch.step(next, j + len);
            tile_coords(next.tile, rows.blocks, mb, nb);
        }
        const BlockIds<kCopyThreads> next_ah = rows.fetch<kCopyThreads>(args, mb, ct);
        if constexpr (kRowTable) {
            // every producer thread has issued the previous segment's copies (their sources read
            // from the table); the new ones are all written before any is read
            producer_sync();
            fill_sources(args, blk, ah, source_table(), ct);
            producer_sync();
        }
        const AVec<true> a{};  // unused: A arrives by TMA or from the source table (load_stage)
        for (int i = 0; i < len; ++i, ++g) {
            const int slot = g % kStages;
            mbar_wait(empty_bar(base, slot), ((g / kStages) & 1) ^ 1);
            load_stage(args, a, blk, base, slot, n0, wk.kb + i, ct);
            if constexpr (kProducerCopies)
                cp_async_mbar_arrive(full_bar(base, slot));
        }
        wk = next;
        ah = next_ah;
        j += len;
    }
    cp_async_wait<0>();  // no copy of this thread outlives it
}

// The epilogue's float factors of a thread: out_factor, or 8-bit A's row factors, lane l holding those of tokens
// 32 q + l (shuffled to the thread's tokens in stage_c: the compiler hoisted the kBM / 4 loads of
// each thread's own, and a 256-row tile spilled them), and the bias and weight scale of each of its
// columns c = 2 s + h. Loaded once a tile, all at once, before the C splits: loaded split by split,
// each split waited for its loads from L2 again (W8A8 128 x 128 x 128 at M = 1024: two such waits
// in each of an SM's four tiles).
constexpr bool kRowLoads = kA8 && !kAGroupScales;
struct CFactors {
    float rf[kRowLoads ? (kBM + 31) / 32 : 1];
    float bias[2 * kSlabs], cs[2 * kSlabs];
};

// kChannelScaleAcc: the factor of `expert`'s output column `col` (< padded N): its scale, row 0
// of the staged rows in global memory (in A's type: inside each 64-column block, position
// 8 g + i holds column g + 8 i, as load_params reads them), times the decode's kUnscaledFactor.
HUM_DEV float channel_scale(const hum_gemm_args &args, int expert, int col)
{
    const int c = col % 64;
    const u16 *s = static_cast<const u16 *>(args.b_scale) + expert * kParamStride + (col - c) + 8 * (c % 8) + c / 8;
    return to_float<kBF16>(__ldg(s)) * kUnscaledFactor;
}

HUM_DEV CFactors c_factors(const hum_gemm_args &args, const Block &blk, int n0, bool first, int wg, int w, int lane)
{
    CFactors f;
    f.rf[0] = args.out_factor;  // every token's without 8-bit A's row scales
    // A quantized by this launch: its row scales, written by other CTAs' warps, are read after the
    // block's count is seen complete (it is already: the block's copies waited for it)
    if (quantizes_a(args))
        wait_rows(args, static_cast<int>(blk.row0 / kBM));
#pragma unroll
    for (int q = 0; q < (kRowLoads ? (kBM + 31) / 32 : 0); ++q)
        f.rf[q] = 32 * q + lane < kBM ? block_row_factor(args, blk, row_table(), 32 * q + lane) : 0.f;
#pragma unroll
    for (int c = 0; c < 2 * kSlabs; ++c) {
        const int n = n0 + (wg * kSlabs + c / 2) * 64 + 16 * w + (lane >> 2) + 8 * (c % 2);
        f.bias[c] = n < kNReal ? bias_of(args, blk.expert, n, first) : 0.f;
        f.cs[c] = kChannelScaleAcc ? channel_scale(args, blk.expert, n) : col_scale(args, blk.expert, n);
    }
    return f;
}

// Accumulators of tokens R0 .. R1 - 1 -> rows 0 .. R1 - R0 - 1 of the shared tile (c_at) in the
// output type, with the float factors f (out_factor, and for 8-bit A the scales of the token's row
// of A and of the output column) and (first slice only) the bias applied. R0 and R1: multiples of 8.
// The warp's accumulators of an n8 block j of tokens and a slab are two 8 x 8 matrices (h: rows g
// and g + 8 of the slab's 16), each lane's pair of tokens 2 t, 2 t + 1 of one of their columns:
// stored transposed, each matrix becomes eight 16-byte chunks, one per token, of eight columns of
// N. One stmatrix stores what four 16-bit stores a thread did (a 128 x 128 tile: 64 -> 16 a thread;
// W4A8 MXFP4's 256-row epilogues spill 16-24 bytes with it, outside their main loops).
template <int R0, int R1>
HUM_DEV void stage_c(u32 cbase, const CFactors &f, int wg, int w, int lane, const Sum (&acc)[kSlabs][kAcc])
{
    const int t = lane & 3;
    // lane 8 h + r (lanes 16..31 repeat 0..15): token r of the block, the chunk of columns
    // 16 w + 8 h .. + 7 of the slab, at row r of the tile's rows from R0 (swizzled: c_at)
    const int r = lane & 7, h = (lane >> 3) & 1;
    const u32 at = cbase + r * kCRow + ((8 * wg * kSlabs + ((2 * w + h) ^ r)) << 4);
#pragma unroll
    for (int j = R0 / 8; j < R1 / 8; ++j) {  // n8 block j of the D fragments: registers 4j..4j+3
        float rf[2];
#pragma unroll
        for (int e = 0; e < 2; ++e)
            rf[e] = kRowLoads ? __shfl_sync(0xFFFFFFFFu, f.rf[j / 4], 8 * (j % 4) + 2 * t + e) : f.rf[0];
#pragma unroll
        for (int s = 0; s < kSlabs; ++s) {
            u32 m[2];
#pragma unroll
            for (int hh = 0; hh < 2; ++hh) {
                const int c = 2 * s + hh;
                const float v0 = static_cast<float>(acc[s][4 * j + 2 * hh]);
                const float v1 = static_cast<float>(acc[s][4 * j + 2 * hh + 1]);
                m[hh] = pack2<kBF16>(v0 * rf[0] * f.cs[c] + f.bias[c], v1 * rf[1] * f.cs[c] + f.bias[c]);
            }
            stmatrix_x2_trans(at + (8 * j - R0) * kCRow + s * 128, m[0], m[1]);
        }
    }
}

// Rows 0 .. R1 - R0 - 1 of the shared tile -> the rows of C of block blk's tokens R0 .. R1 - 1
// (gemm/rows.cuh) in 16-byte row chunks; later stream-K slices add to what C holds. `reads_done`
// runs once the thread has read all its chunks, before the last group of them is written: a
// release of the tile there (kCInStage) no longer waits for that group's stores, nor, with one
// split of four chunks a thread or fewer, for any store to C. The cluster's release is a membar of
// the GPU, which after the stores waited for them: 114 of the math warps' 539 stall samples in the
// epilogue (W8A8 at M = 1024, two splits, H100, bench/results/H100-2026-12-05/s34-a-974b04e-patched/;
// bench/NOTES.md, "Session 47 (lead)").
template <int R0, int R1, typename Reads>
HUM_DEV void write_c(const hum_gemm_args &args, u32 cbase, const Block &blk, int n0, bool first, int tid,
                     Reads &&reads_done)
{
    constexpr int CPR = kBN / 8;
    constexpr int COUNT = (R1 - R0) * CPR;
    constexpr int ITERS = (COUNT + kMathThreads - 1) / kMathThreads;
    // chunks in groups of at most four, each read whole before it is written (more held at once
    // spilled the 192-row tiles' epilogue)
    constexpr int GROUP = ITERS < 4 ? ITERS : 4;
#pragma unroll 1
    for (int i0 = 0; i0 < ITERS; i0 += GROUP) {
        u32 v[GROUP][4];
#pragma unroll
        for (int q = 0; q < GROUP; ++q) {
            const int ch = tid + (i0 + q) * kMathThreads;
            if (i0 + q < ITERS && (COUNT % kMathThreads == 0 || ch < COUNT))
                lds128(cbase + c_at(ch / CPR, ch % CPR), v[q][0], v[q][1], v[q][2], v[q][3]);
        }
        if (i0 + GROUP >= ITERS)
            reads_done();
#pragma unroll
        for (int q = 0; q < GROUP; ++q) {
            const int ch = tid + (i0 + q) * kMathThreads;
            if (i0 + q >= ITERS || (COUNT % kMathThreads != 0 && ch >= COUNT))
                continue;
            const int r = ch / CPR, gn = n0 + ch % CPR * 8;
            const i64 gm = gn < kNReal ? table_c_row(args, blk, c_table(), R0 + r) : -1;
            if (gm < 0)
                continue;
            u16 *dst = static_cast<u16 *>(args.c) + gm * args.ldc + gn;
            const bool whole = gn + 8 <= kNReal && (reinterpret_cast<unsigned long long>(dst) & 15) == 0;
            if (!first) {
                u32 old[4] = {0, 0, 0, 0};
                if (whole) {
                    ld_l2_128(dst, old);
                } else {
                    for (int e = 0; e < 8 && gn + e < kNReal; ++e)
                        old[e / 2] |= static_cast<u32>(ld_l2_16(dst + e)) << (16 * (e % 2));
                }
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const float lo = to_float<kBF16>(static_cast<u16>(v[q][e])) + to_float<kBF16>(static_cast<u16>(old[e]));
                    const float hi =
                        to_float<kBF16>(static_cast<u16>(v[q][e] >> 16)) + to_float<kBF16>(static_cast<u16>(old[e] >> 16));
                    v[q][e] = pack2<kBF16>(lo, hi);
                }
            }
            if (whole) {
                st_global_128(dst, v[q]);
            } else {
#pragma unroll
                for (int e = 0; e < 8; ++e)
                    if (gn + e < kNReal)
                        dst[e] = static_cast<u16>(v[q][e / 2] >> (16 * (e % 2)));
            }
        }
    }
}

// After a segment of `tile` (math threads): its stream-K slice order (slices summed in the
// workspace: the fix-up, after which only the slice holding k-block 0 goes on), the shared
// tile, the write to C, split by split (kCSplits); the tile is free again after the last barrier.
// cslot: the slot of the segment's last stage (kCInStage: the tile's place). `done` runs once on
// every path, once the thread has read the tile for the last time (kCInStage: its release).
template <typename Done>
HUM_DEV void epilogue(const hum_gemm_args &args, const Schedule &sch, const Block &blk, int tile, int n0, u32 base,
                      int cslot, int tid, int wg, int w, int lane, Sum (&acc)[kSlabs][kAcc], Done &&done)
{
    const Slice sl = sch.slice_of(tile);
    if constexpr (kSumInWorkspace) {
        if (!streamk_fixup<kMathThreads>(args, sch, sl, tid, tid, reinterpret_cast<Sum(&)[kSlabs * kAcc]>(acc))) {
            done();
            return;
        }
    }
    const bool first = kSumInWorkspace || sl.slice == 0;
    // in flight while the barrier below runs (before the fix-up, a 256-row tile's spilled)
    const CFactors cf = c_factors(args, blk, n0, first, wg, w, lane);
    // C in the last stage's slot: every warpgroup's wgmmas have finished reading it
    if constexpr (kCInStage)
        math_sync();
    const u32 cbase = kCInStage ? base + cslot * kABytes : base + kCOffset;
    static_for<0, kCSplits>([&](auto sc) {
        constexpr int r0 = decltype(sc)::value * kCSplitRows;
        constexpr int r1 = r0 + kCSplitRows < kBM ? r0 + kCSplitRows : kBM;
        stage_c<r0, r1>(cbase, cf, wg, w, lane, acc);
        if constexpr (!kSumInWorkspace && r0 == 0)
            streamk_wait(args, sl, tid);
        math_sync();
        write_c<r0, r1>(args, cbase, blk, n0, first, tid, [&] {
            if constexpr (r1 == kBM)
                done();
        });
        math_sync();
    });
    if constexpr (!kSumInWorkspace)
        streamk_pass(args, sl, tid);
}

}  // namespace gemm_wgmma

HUM_GEMM_KERNEL(hum_gemm_wgmma)
{
    using namespace gemm_wgmma;
    extern __shared__ __align__(1024) u8 smem[];
    const auto [rows, sch, tid, lane, warp] = kernel_entry(args);
    if (sch.total == 0) {
        if (quantizes_a(args))
            quant_finish(args, rows.blocks, tid);
        return;
    }
    // The swizzle atoms (and the descriptors and TMA boxes that address them) start 1024-byte
    // aligned; the launch's 2048 spare bytes cover the alignment and the barriers.
    const u32 base = (smem_addr(smem) + 1023u) & ~1023u;
    if constexpr (kSpecialised) {
        if (tid == 0) {
            for (int s = 0; s < kStages; ++s) {
                mbar_init(full_bar(base, s), kFullArrivals);
                mbar_init(empty_bar(base, s), kMathWarps * kClusterN);
            }
            mbar_init_fence();
        }
        // A multicast: every CTA of the cluster has its barriers before any copy or release
        // reaches them (the CTAs of a cluster walk one schedule: sch.total is theirs alike)
        if constexpr (kClusterN > 1)
            cluster_sync();
        else
            __syncthreads();
        // A quantized here (gemm/quant_a.cuh): every warp takes rows, in order, until those of
        // the CTA's first m-block are all taken (the rows before them too: the first tiles of
        // the grid cover the first m-blocks), each role after its setmaxnreg, at its own depth;
        // taken before it, with the launch's registers, the kernel spilled in its per-tile code
        // and ran slower where it quantizes nothing (bench/NOTES.md, sessions 42 and 45)
        const int first_rows = quantizes_a(args) ? first_block_end(args, rows, sch) : 0;
        if (warp >= kMathWarps) {
            warpgroup_regs_dec<kProducerRegs>();
            quantize_rows<kQuantDepthProducer>(args, first_rows, lane);
            // tid - kMathThreads, written so that the compiler sees it below kCopyThreads: each
            // chunk's place in a stage (for_chunks) is then a constant plus this thread's offset
            const int ct = tid & (kCopyThreads - 1);
            // kQuantA: the first warps copy, the others quantize the rows left
            if (!kQuantA || warp < kMathWarps + kCopyThreads / 32) {
                if (kProducerCopies || ct == 0)
                    produce(args, rows, sch, base, ct);
            } else {
                quantize_rows<kQuantDepthProducer>(args, args.m, lane);
            }
            // no CTA leaves while another's copies or releases may still reach its shared memory
            // (the warp converged again after its lanes' spin loops, as the aligned barrier needs)
            if constexpr (kClusterN > 1) {
                __syncwarp();
                cluster_sync();
            }
            if (quantizes_a(args))
                quant_finish(args, rows.blocks, tid);
            return;
        }
        warpgroup_regs_inc<kMathRegs>();
        quantize_rows<kQuantDepthFirst>(args, first_rows, lane);
    } else if (kATma && tid == 0) {
        for (int s = 0; s < kStages; ++s)
            mbar_init(base + kBarOffset + s * 8, 1);
        mbar_init_fence();
    }
    // lane 0's, which the compiler then knows the same across the warp: what is built from them
    // (descriptors, the warp's offsets in the stages) stays in uniform registers instead of being
    // built in vector ones at every use. sm_90a, instructions a stage: W8A8 128 x 128 x 128 SS
    // 140 -> 119 (its descriptors were built and moved over at every wgmma), uint4 g128 fp16 at
    // M > 64 209, 221 -> 187, 201, uint8 x int8 165 -> 130; the W4A8 MXFP4 256-row kernels' spills
    // (48 bytes inside the main loop of one) now lie outside their loops, and W8A8's 192-row
    // stream-K tile gains a 4-byte one, outside its loop too (bench/NOTES.md, "Session 32 (lead)")
    const int wg = __shfl_sync(0xFFFFFFFFu, warp >> 2, 0), w = __shfl_sync(0xFFFFFFFFu, warp & 3, 0);

    Acc acc[kSets][kSlabs][kAcc];
    Totals total;  // kPromote only
    Work wk{0, 0};
    int g0 = 0;
    for (int j = 0; j < sch.total;) {
        wk = sch.step(wk, j);
        const int len = kKB - wk.kb < sch.total - j ? kKB - wk.kb : sch.total - j;
        int mb, nb;
        tile_coords(wk.tile, rows.blocks, mb, nb);
        // the block's ids, in flight through the main loop for the rows of C (8-bit A's rows of A
        // are needed at once)
        const BlockIds<kMathThreads> ah = rows.fetch<kMathThreads>(args, mb, tid);
        const Block blk = rows.block(args, ah);
        zero_acc(acc);
        zero_totals(total, base, tid);
        if constexpr (kSpecialised && kMathRows) {
            // the math warps' row table, read by the promotions and the epilogue (gemm/rows.cuh):
            // the previous segment's last promotion and epilogue have read it before the first barrier
            math_sync();
            fill_rows(args, blk, ah, row_table(), tid);
            math_sync();
        }
        if constexpr (kSpecialised)
            mainloop_ws(args, base, g0, blk, wk.kb, len, wg, w, lane, acc, total);
        else
            mainloop(args, base, g0, blk, ah, nb * kBN, wk.kb, len, tid, wg, w, lane, acc, total);
        // the rows of C for write_c, read after the epilogue's first barrier: their previous
        // readers, the last segment's write_c, finished before its last barrier
        fill_c_rows(args, blk, ah, c_table(), tid);
        if constexpr (kSmemTotals)
            add_totals(acc[0], total, base, tid);
        const int cslot = (g0 + len - 1) % kStages;
        epilogue(args, sch, blk, wk.tile, nb * kBN, base, cslot, tid, wg, w, lane, segment_sums(total, acc[0]),
                 [&, l = lane] {
                     if constexpr (kCInStage)
                         release_c_slot(base, cslot, l);
                 });
        wk.kb += len - 1;  // the work of the segment's last iteration, for the next step()
        j += len;
        g0 += len;
    }
    if constexpr (kClusterN > 1) {
        __syncwarp();
        cluster_sync();
    }
    if (quantizes_a(args))
        quant_finish(args, rows.blocks, tid);
}
