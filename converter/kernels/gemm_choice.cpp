// SPDX-License-Identifier: Apache-2.0
// chooseGemm: how a GEMM-shaped operator runs on a target. One pure function over the
// Target and the GEMM's shape, so every choice is testable without a GPU
// (tests/converter/gemm_choice_test.cpp) and every family decides the same way. Each step reads
// the target's parts in one order: what the device can (Target::caps), what the numerics allow
// (Target::precision), then which is fastest (Target::tuning). The cores, first that applies:
//   1. workgroup-scope cooperative matrices (VK_NV_cooperative_matrix2): the device has them,
//      the operands are plain fp16 matrices of whole tiles, and the tuning has a tile for them;
//   2. subgroup cooperative matrices: the device has them, the precision lets the operand types
//      onto fragments (fp16, int8 without zero points, fp32 rounded to fp16/bf16 or split into
//      fp16 pairs under --precision), on the first tuning tile whose grid the GEMM fills
//      (subgroupTile has that order) and the largest fragment of the device's that tiles it;
//   3. the scalar core (include/gemm.glsl) on the tuning's tile for M x N, with packed int8 dot
//      products where the device has them;
// then, for the chosen tile, the split over K that brings the grid to the tuning's size.
#include <algorithm>
#include <utility>
#include <vector>

#include "converter/kernels/bf16_split.h"
#include "converter/kernels/gemm_common.h"
#include "converter/kernels/int_division.h"

namespace openvgf::converter {

using tosa::DType;

namespace {

std::int64_t ceilTo(std::int64_t v, std::int64_t step) { return (v + step - 1) / step * step; }

// Tile for an M x N problem on the scalar core (M or N <= 16: the small tile, transposed when
// N is the small one; at least tuning.gemmLargeMinGroups large tiles, and a convolution only
// where tuning.gemmLargeConvolutions: the large one). With run-time shapes on the core without
// shared memory (CPU devices) every GEMM takes the large tile: a small tile is a module of its
// own, and on lavapipe compiling it cost a cold run more than its padding costs a warm one
// (MobileNetV2's classifier and 16-channel projection: a truly cold fp32 run 2.6-2.8 against
// 3.2-3.5 s, the int8 GRAPH VGF 3.0 against 4.2 s; per-inference time within noise).
GemmTile chooseTile(const Tuning& tuning, std::int64_t m, std::int64_t n, GemmKind kind, bool runtimeShapes) {
  if (runtimeShapes && tuning.gemmLarge.stages == 0 && tuning.gemmLargeMinGroups > 0) {
    // A GEMM at most half the tile wide (MobileNetV2's 16- to 32-channel projections and its
    // stem) takes the tile at half width, with the same lanes (TN halved): the wide tile left
    // 50-75 % of its columns idle there. One module more per model, where the narrow GEMMs share
    // an epilogue (benchmarks/results/lavapipe-final-2026-11-29.md).
    GemmTile t = tuning.gemmLarge;
    if (n <= t.bn / 2 && t.tn % 8 == 0) {
      t.bn /= 2;
      t.tn /= 2;
    }
    return t;
  }
  if (m <= 16 || n <= 16) {
    // The small tile is flat (few rows, many columns); a GEMM with few columns gets it
    // transposed so that its columns are not mostly padding.
    GemmTile t = tuning.gemmSmall;
    if (n <= 16 && m > 16 && t.bn > t.bm) {
      std::swap(t.bm, t.bn);
      std::swap(t.tm, t.tn);
    }
    return t;
  }
  if (tuning.gemmLargeMinGroups > 0 && (kind == GemmKind::Matmul || tuning.gemmLargeConvolutions)) {
    const GemmTile& large = tuning.gemmLarge;
    auto padded = [&](const GemmTile& t) { return ceilTo(m, t.bm) * ceilTo(n, t.bn); };
    const std::int64_t groups = (ceilTo(m, large.bm) / large.bm) * (ceilTo(n, large.bn) / large.bn);
    // A large tile on a narrow GEMM (N = 64 under a 128-wide tile) would mostly multiply padding.
    if (groups >= tuning.gemmLargeMinGroups && 8 * padded(large) <= 9 * padded(tuning.gemm)) return large;
  }
  return tuning.gemm;
}

// Slices for `batches` M x N x K GEMMs on `tile`: as many as bring the grid to
// tuning.gemmSplitKGroups workgroups while every slice stays at least
// tuning.gemmSplitKMinDepth deep; none when that is fewer than tuning.gemmSplitKMinSlices.
// int64 accumulators (INT16 x INT8) are never split.
SplitK chooseSplitK(const Tuning& tuning, const GemmTile& tile, const GemmTypes& types, std::int64_t batches,
                    std::int64_t m, std::int64_t n, std::int64_t k) {
  if (tuning.gemmSplitKGroups <= 0 || types.accumulator == "int64_t") return {};
  const std::int64_t groups = batches * ((m + tile.bm - 1) / tile.bm) * ((n + tile.bn - 1) / tile.bn);
  const std::int64_t byGroups = (tuning.gemmSplitKGroups + groups - 1) / groups;
  const std::int64_t byDepth = k / std::max(tuning.gemmSplitKMinDepth, tile.bk);
  const std::int64_t wanted = std::min(byGroups, byDepth);
  const std::int64_t fewest = std::max(tuning.gemmSplitKMinSlices, 2);
  if (wanted < fewest) return {};
  // Whole BK steps per slice; recount so that no slice is empty.
  const std::int64_t depth = (k + wanted * tile.bk - 1) / (wanted * tile.bk) * tile.bk;
  const std::int64_t slices = (k + depth - 1) / depth;
  if (slices < fewest) return {};
  return SplitK{static_cast<int>(slices), depth};
}

// Operands per 16-byte chunk of the shared tiles: 16 int8, else 8 (fp16, bf16).
int chunkOf(CoopMatTypes types) {
  return types == CoopMatTypes::S8xS8ToS32 ? 16 : 8;
}

// Whether an M x N GEMM has at least `minTiles` workgroups of tile `t` (subgroupsM = 0: no tile).
bool fills(const CoopMatTile& t, const GemmShape& g, int minTiles) {
  const std::int64_t tm = t.subgroupsM * t.blockM, tn = t.subgroupsN * t.blockN;
  return t.subgroupsM > 0 && ((g.m + tm - 1) / tm) * ((g.n + tn - 1) / tn) >= minTiles;
}

// Precision: the fragment types, best first, that the GEMM's operands may be multiplied on.
// fp16 x fp16: fp16 accumulators when TOSA's accumulator is FP16 (where the device lists such a
// shape), else fp32. fp32 x fp32 with fp32 accumulators only off Precision::Fp32: fp16 or bf16
// fragments with fp32 accumulators (Fp16x3: fp16 pairs). int8 x int8 -> int32 only with zero
// points 0 (fragments hold the raw bytes). None: the scalar core.
std::vector<CoopMatTypes> fragmentTypes(const GemmShape& g, Precision precision) {
  if (g.in == DType::Fp16 && g.weight == DType::Fp16) {
    if (g.acc == DType::Fp16) return {CoopMatTypes::F16xF16ToF16, CoopMatTypes::F16xF16ToF32};
    return {CoopMatTypes::F16xF16ToF32};
  }
  if (g.in == DType::Fp32 && g.weight == DType::Fp32 && g.acc == DType::Fp32) {
    switch (precision) {
      case Precision::Fp32: return {};
      case Precision::Bf16:
      case Precision::Bf16x3:
      case Precision::Fp32Bf16: return {CoopMatTypes::Bf16xBf16ToF32};
      case Precision::Fp16:
      case Precision::Fp16x3: return {CoopMatTypes::F16xF16ToF32};
    }
  }
  if (g.in == DType::Int8 && g.weight == DType::Int8 && g.zeroPointA == 0 && g.zeroPointB == 0) {
    return {CoopMatTypes::S8xS8ToS32};
  }
  return {};
}

// Tuning: the subgroup tile for a GEMM K deep on fragments of `types`, by how many workgroups
// each tile would give it. A convolution that gathers A element by element takes
// coopMatTileGather where it is as wide; a narrow tile for N no wider than its maxN; for fp16
// accumulators, which take half the registers of fp32 ones, coopMatTileHalfAcc (subgroups may
// own twice the block); a GEMM whose accumulators start from a residual takes coopMatTile or
// else coopMatTileResidual, where the tuning has one; others coopMatTile, the first of
// coopMatTilesMid they fit, or coopMatTileSmall.
const CoopMatTile& subgroupTile(const Tuning& tuning, const GemmShape& g, std::int64_t k,
                                CoopMatTypes types) {
  const CoopMatTile& gather = tuning.coopMatTileGather;
  const bool gatheredA = g.runA % chunkOf(types) != 0;
  if (gatheredA && gather.subgroupsM > 0 && g.n >= gather.subgroupsN * gather.blockN) return gather;
  const int largeMin = tuning.coopMatLargeMinTiles;
  for (const CoopMatNarrowTile& narrow : tuning.coopMatTilesNarrow) {
    if (g.n <= narrow.maxN && fills(narrow.tile, g, largeMin)) return narrow.tile;
  }
  const int halfAccMin = tuning.coopMatHalfAccMinTiles > 0 ? tuning.coopMatHalfAccMinTiles : largeMin;
  if (types == CoopMatTypes::F16xF16ToF16 && fills(tuning.coopMatTileHalfAcc, g, halfAccMin)) {
    return tuning.coopMatTileHalfAcc;
  }
  // Residual accumulators are only for fp32 operands (chooseResidualAccumulators).
  const bool residual = g.residualEpilogue && g.in == DType::Fp32 && tuning.coopMatResidualAccumulators &&
                        tuning.coopMatTileResidual.subgroupsM > 0;
  if (residual) {
    const bool common = fills(tuning.coopMatTile, g, std::max(largeMin, tuning.coopMatResidualMinTiles));
    return common ? tuning.coopMatTile : tuning.coopMatTileResidual;
  }
  if (fills(tuning.coopMatTile, g, largeMin)) return tuning.coopMatTile;
  for (const CoopMatMidTile& mid : tuning.coopMatTilesMid) {
    const bool fits = g.n >= mid.tile.subgroupsN * mid.tile.blockN && k >= mid.minDepth;
    if (fits && fills(mid.tile, g, mid.minTiles)) return mid.tile;
  }
  return tuning.coopMatTileSmall;
}

// The device's fragment shapes of `types` that tile the subgroup block of `tile` and start at
// 16-byte chunk boundaries of the shared tiles (include/gemm_coopmat.glsl), only
// tuning.coopMatFragment's where it names one, largest (fewest instructions per multiply) first.
std::vector<CoopMatShape> fragmentShapes(const Target& target, const CoopMatTile& tile, CoopMatTypes types) {
  const int chunk = chunkOf(types);
  const CoopMatShape& only = target.tuning.coopMatFragment;
  std::vector<CoopMatShape> shapes;
  for (const CoopMatShape& s : target.caps.coopMatShapes) {
    if (s.types != types || s.m <= 0 || s.n <= 0 || s.k <= 0 || tile.blockM % s.m != 0 ||
        tile.blockN % s.n != 0 || tile.bk % s.k != 0 || s.n % chunk != 0 || s.k % chunk != 0) {
      continue;
    }
    if (only.m != 0 && (s.m != only.m || s.n != only.n || s.k != only.k)) continue;
    shapes.push_back(s);
  }
  std::stable_sort(shapes.begin(), shapes.end(), [](const CoopMatShape& a, const CoopMatShape& b) {
    return a.m * a.n * a.k > b.m * b.n * b.k;
  });
  return shapes;
}

// The plan on `tile` with the largest fragment whose core fits the device's shared memory, or
// nullopt (the tile needs more invocations than the device has, or no fragment fits).
std::optional<CoopMatPlan> planOnTile(const Target& target, const GemmShape& g, std::int64_t k,
                                      CoopMatTypes types, const CoopMatTile& tile, bool split, int products) {
  const int sg = static_cast<int>(target.caps.subgroupSize);
  if (tile.subgroupsM * tile.subgroupsN * sg > target.caps.maxInvocations) return std::nullopt;
  const int chunk = chunkOf(types);
  const bool gatheredA = g.runA % chunk != 0;
  for (const CoopMatShape& shape : fragmentShapes(target, tile, types)) {
    CoopMatPlan plan;
    plan.shape = shape;
    plan.subgroupSize = sg;
    plan.fp32Operands = g.in == DType::Fp32;
    plan.splitOperands = split;
    plan.splitProducts = products;
    plan.khr = target.tuning.coopMatKhrEncoding;
    plan.wm = tile.blockM / shape.m;
    plan.wn = tile.blockN / shape.n;
    plan.bm = tile.subgroupsM * tile.blockM;
    plan.bn = tile.subgroupsN * tile.blockN;
    plan.bk = tile.bk;
    const int invocations = static_cast<int>(plan.workgroupSize());
    const int chunksPerInvocation = (plan.bm * plan.bk / chunk + invocations - 1) / invocations +
                                    (plan.bk * plan.bn / chunk + invocations - 1) / invocations;
    if (k <= target.tuning.coopMatPrefetchMaxDepth && !gatheredA && !split &&
        chunksPerInvocation <= target.tuning.coopMatPrefetchMaxChunks) {
      plan.prefetch = 2;
    }
    // The staging tile grows with the fragment.
    if (plan.sharedBytes() <= target.caps.maxSharedBytes && plan.bn % chunk == 0) return plan;
  }
  return std::nullopt;
}

// The subgroup cooperative-matrix config for the GEMM `g`, K being `k` deep (K after row-run
// padding), or nullopt: capabilities, then precision, then tuning rule it out.
std::optional<CoopMatPlan> chooseCoopMat(const Target& target, const GemmShape& g, std::int64_t k) {
  // Capabilities: subgroup matrices the converter can encode, of a known subgroup size. Tiny M
  // or N suit the scalar core better.
  if (!target.subgroupMatrices() || target.caps.subgroupSize == 0 || g.m <= 16 || g.n <= 16)
    return std::nullopt;
  // Precision: the fragment types the operands may be multiplied on.
  const std::vector<CoopMatTypes> wanted = fragmentTypes(g, target.precision);
  if (wanted.empty()) return std::nullopt;
  // Tuning: from which depth (and, for fp16 pairs, grid) rounded fp32 operands pay.
  const bool fp32Operands = g.in == DType::Fp32;
  const Precision precision = target.precision;
  const bool split = fp32Operands && (precision == Precision::Fp16x3 || precision == Precision::Bf16x3 ||
                                      precision == Precision::Fp32Bf16);
  // fp32-bf16: as many bf16 products as TOSA's bound needs at the GEMM's depth (K as TOSA
  // counts it, before row-run padding), or none: the FMA core.
  const int products = precision == Precision::Fp32Bf16 ? bf16SplitProducts(g.k) : 3;
  if (products == 0) return std::nullopt;
  const Tuning& tuning = target.tuning;
  if (fp32Operands && !split && k < tuning.fp16OperandsMinDepth) return std::nullopt;
  if (split &&
      (!fills(tuning.coopMatTileSplit, g, tuning.coopMatSplitMinTiles) || k < tuning.coopMatSplitMinDepth)) {
    return std::nullopt;
  }
  for (CoopMatTypes types : wanted) {
    if (types == CoopMatTypes::Bf16xBf16ToF32 && !tuning.coopMatKhrEncoding) continue;  // no NV bf16 matrices
    CoopMatTile tile = split ? tuning.coopMatTileSplit : subgroupTile(tuning, g, k, types);
    if (std::optional<CoopMatPlan> plan = planOnTile(target, g, k, types, tile, split, products)) return plan;
    // Six products stage three parts per operand: half as much shared memory again, which the
    // split tile's K slice may not leave (32 deep on an H200's 48 KiB). Thinner slices, down
    // to 16, before the FMA core.
    while (split && products == 6 && tile.bk > 16 && tile.bk % 2 == 0) {
      tile.bk /= 2;
      if (std::optional<CoopMatPlan> plan = planOnTile(target, g, k, types, tile, split, products)) return plan;
    }
  }
  return std::nullopt;
}

// The workgroup-scope config (VK_NV_cooperative_matrix2) for a GEMM whose A [M,K] and B [K,N]
// are plain row-major fp16 matrices, or nullopt: the device lacks workgroup-scope matrices,
// the types are not fp16 x fp16, the tuning has no tile for them, or M, N, K are not whole
// multiples of it.
std::optional<CoopMatPlan> chooseCoopMatWorkgroup(const Target& target, const GemmShape& g) {
  const CoopMatWorkgroupLimits& limits = target.caps.coopMatWorkgroup;
  const CoopMatWorkgroupTile& tile = target.tuning.coopMatWorkgroupTile;
  if (limits.invocations <= 0 || g.in != DType::Fp16 || g.weight != DType::Fp16 || tile.bm <= 0)
    return std::nullopt;
  const bool acc16 = g.acc == DType::Fp16 && limits.fp16Accumulators;
  if (g.m % tile.bm != 0 || g.n % tile.bn != 0 || g.k % tile.bk != 0) return std::nullopt;
  auto multiple = [](int v, int granularity) { return granularity > 0 && v % granularity == 0; };
  if (!multiple(tile.partM, limits.granularityM) || !multiple(tile.bn, limits.granularityN) ||
      !multiple(tile.bk, limits.granularityK)) {
    return std::nullopt;
  }
  if (limits.maxDimension > 0 && std::max({tile.partM, tile.bn, tile.bk}) > limits.maxDimension) return std::nullopt;
  // The staging tile of one accumulator, in what the driver leaves of shared memory.
  const int shared = tile.partM * tile.bn * (acc16 ? 2 : 4);
  const int invocations = target.workgroupMatrixInvocations();
  if (shared > target.caps.maxSharedBytes - limits.reservedShared ||
      invocations > target.caps.maxInvocations) {
    return std::nullopt;
  }
  CoopMatPlan plan;
  plan.shape = CoopMatShape{tile.partM, tile.bn, tile.bk, acc16 ? CoopMatTypes::F16xF16ToF16 : CoopMatTypes::F16xF16ToF32};
  plan.bm = tile.bm;
  plan.bn = tile.bn;
  plan.bk = tile.bk;
  plan.wm = plan.wn = 1;
  plan.khr = true;
  plan.workgroupScope = true;
  plan.partM = tile.partM;
  plan.invocations = invocations;
  return plan;
}

// A gathered A operand read as contiguous filter rows (GEMM_ROW_A): K grows to whole-chunk
// runs, where that pads K by at most tuning.coopMatRowRunsMaxPadding percent; the plan is then
// chosen again for the padded depth.
void readRowRuns(const Target& target, const GemmShape& g, GemmConfig& config) {
  const int maxPadding = target.tuning.coopMatRowRunsMaxPadding;
  if (!config.coopMat || g.rowRun <= 0 || g.runA % config.coopMat->chunk() == 0 || maxPadding <= 0) return;
  const std::int64_t chunk = config.coopMat->chunk();
  const std::int64_t rows = g.k / g.rowRun;
  const std::int64_t padded = ceilTo(g.rowRun, chunk);
  if (100 * rows * (padded - g.rowRun) > maxPadding * g.k) return;
  config.runs = KRuns{g.rowRun, padded};
  config.depth = rows * padded;
  config.coopMat = chooseCoopMat(target, g, config.depth);
}

}  // namespace

GemmConfig chooseGemm(const Target& target, const GemmShape& g) {
  GemmConfig config;
  config.depth = g.k;
  if (g.fastCores) {
    if (g.plainOperands) config.coopMat = chooseCoopMatWorkgroup(target, g);
    if (!config.coopMat) config.coopMat = chooseCoopMat(target, g, g.k);
    readRowRuns(target, g, config);
  }
  if (config.coopMat) {
    // MATMUL's epilogue stages a band of fragments at a time where the tuning says so;
    // convolutions measured slower with it and keep one fragment at a time.
    if (g.kind == GemmKind::Matmul) config.coopMat->bandEpilogue = target.tuning.coopMatBandEpilogue;
    config.tile = config.coopMat->tile();
  } else {
    config.dot4 = g.fastCores && useDot4(target, g.in, g.weight, g.out, g.zeroPointA, g.zeroPointB);
    // ovgf_udiv's dividends (output pixels, positions in K) must stay below 2^31; larger GEMMs
    // keep compile-time shapes.
    const bool divisible = g.batches * g.m < kMagicDivideLimit && g.k < kMagicDivideLimit;
    config.runtimeShapes = g.runtimeShapes && target.tuning.runtimeShapes && !config.dot4 && divisible;
    config.tile = chooseTile(target.tuning, g.m, g.n, g.kind, config.runtimeShapes);
  }
  if (g.splitK) {
    const std::optional<GemmTypes> types = gemmTypes(g.in, g.weight, g.out);
    if (types)
      config.split = chooseSplitK(target.tuning, config.tile, *types, g.batches, g.m, g.n, config.depth);
  }
  config.runtimeShapes = config.runtimeShapes && config.split.slices <= 1;
  return config;
}

}  // namespace openvgf::converter
