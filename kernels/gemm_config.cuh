// Everything the dense GEMM derives from the generated "hum_constants.h" (namespace hum_cfg,
// written by the layer for one dispatch entry; runtime/src/layer/gemm_variant.c is its writer and
// documents each field). Only M, the pointers and the strides are run-time values.
#pragma once
#include "common.cuh"
#include "hum_constants.h"

namespace gemm {
using namespace hum_cfg;

constexpr int kWarpsM = kBM / kWM, kWarpsN = kBN / kWN, kWarpsK = kBK / kWK;
constexpr int kWarpsMN = kWarpsM * kWarpsN;
constexpr int kThreadsDerived = 32 * kWarpsM * kWarpsN * kWarpsK;
static_assert(kThreadsDerived == kThreads, "hum_constants.h: kThreads disagrees with the tile shapes");

// Container width of one code in the repacked words (the power of two >= the width).
constexpr int kCont = kWeightBits <= 1 ? 1 : kWeightBits <= 2 ? 2 : kWeightBits <= 4 ? 4 : 8;
constexpr bool kOddWidth = kCont != kWeightBits;
// Zero point folded into the integer dequant: the implicit midpoint of symmetric codes.
constexpr int kZeroConst = (kWeightFloat || kZeroPoint) ? 0 : 1 << (kWeightBits - 1);

constexpr int kMI = kWM / 16;  // m16 fragments per warp
constexpr int kNJ = kWN / 8;   // n8 fragments per warp
constexpr int kKK = kWK / 16;  // k16 steps per warp and stage
// Repacked words one lane reads per k16 step: whole 64-column units (b words each), or the
// lane's share of one unit when the warp covers less than 64 columns.
constexpr int kUnitsW = kWN >= 64 ? kWN / 64 : 1;
constexpr int kRawPerUnit = kWN >= 64 ? kWeightBits : kWeightBits * kWN / 64;
constexpr int kRawAlign = kWN >= 64 ? kWeightBits : kRawPerUnit;
constexpr int kVirtPerUnit = kWN >= 64 ? kCont : kRawPerUnit;

static_assert(kBM % kWM == 0 && kBN % kWN == 0 && kBK % kWK == 0, "block shape must be a multiple of the warp shape");
static_assert(kWM % 16 == 0 && kWN % 16 == 0 && kWK % 16 == 0, "warp tile must be a multiple of 16 in M, N and K");
static_assert(kBN % 64 == 0 && (kBK == 64 || kBK == 128 || kBK == 256), "block N must be a multiple of 64, block K 64, 128 or 256");
static_assert(kN % kBN == 0 && kK % kBK == 0, "padded N and K must be multiples of the block shape");
static_assert(kWN * kCont >= 64, "a warp must cover whole repacked words (warp N * container bits >= 64)");
static_assert(!kOddWidth || kWN % 64 == 0, "odd weight widths need warp N to be a multiple of 64");
static_assert(kGroup % kBK == 0 || (kBK % kGroup == 0 && kGroup % 16 == 0), "scale group and block K must nest");
static_assert(kWarpsK == 1 || kWarpsK == 2 || kWarpsK == 4, "1, 2 or 4 warps along K");
static_assert(kStages >= 2, "at least two pipeline stages");

constexpr int kKB = kK / kBK;  // k-blocks per tile
constexpr int kNB = kN / kBN;  // n-blocks
constexpr int kGroupRows = (kK + kGroup - 1) / kGroup;
constexpr int kScaleRows = kGroup >= kBK ? 1 : kBK / kGroup;  // scale rows per stage

constexpr int kABytes = kBM * kBK * 2;
constexpr int kBRowWords = kBN / 64 * 32 * kWeightBits;  // one k16 row of the tile
constexpr int kBBytes = kBK / 16 * kBRowWords * 4;
constexpr int kSBytes = kHasScale ? kScaleRows * kBN * 2 : 0;
constexpr int kZBytes = kZeroPoint ? kScaleRows * kBN * 2 : 0;
constexpr int kStageBytes = kABytes + kBBytes + kSBytes + kZBytes;
constexpr int kRedBytes = (kWarpsK - 1) * kBM * kBN * 4;
static_assert(kStageBytes % 16 == 0, "stage buffers must stay 16-byte aligned");
static_assert(kStages * kStageBytes + kRedBytes == kSmemBytes, "hum_constants.h: kSmemBytes disagrees with the tile shapes");

// Activations are copied 16 bytes at a time unless columns must be gathered (act-order) or rows
// are not 16-byte multiples.
constexpr bool kAVec = !kActOrder && kKReal % 8 == 0;
constexpr int kAElems = kBM * kBK / kThreads;  // per thread, gather mode
static_assert(kAVec || kBM * kBK % kThreads == 0, "gathered activation tile must split evenly over threads");

constexpr int kGroupM = 8;  // m-blocks visited together, so that concurrent tiles share A and B in L2
}  // namespace gemm
