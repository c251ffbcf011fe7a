// SPDX-License-Identifier: Apache-2.0
// chooseGemm: how a GEMM-shaped operator runs on a target. One pure function over the
// Target's tables and the GEMM's shape, so every choice is testable without a GPU
// (tests/converter/gemm_choice_test.cpp) and every family decides the same way. The
// precedence, first that applies:
//   1. workgroup-scope cooperative matrices (VK_NV_cooperative_matrix2), when the target has
//      a tile for them and the operands are plain fp16 matrices of whole tiles;
//   2. subgroup cooperative matrices of the operand types (fp16, int8 without zero points,
//      fp32 rounded to fp16/bf16 fragments under --precision), on the first tile whose grid
//      the GEMM fills (chooseCoopMat has that order);
//   3. the scalar core (include/gemm.glsl) on the tuning table's tile for M x N, with packed
//      int8 dot products where the device has them;
// then, for the chosen tile, the split over K that brings the grid to the target's size.
#include <algorithm>
#include <utility>
#include <vector>

#include "converter/kernels/gemm_common.h"

namespace openvgf::converter {

using tosa::DType;

namespace {

std::int64_t ceilTo(std::int64_t v, std::int64_t step) { return (v + step - 1) / step * step; }

// Tile for an M x N problem on the scalar core (M or N <= 16: the small tile, transposed when
// N is the small one; at least target.tuning.gemmLargeMinGroups large tiles, and a convolution only
// where target.tuning.gemmLargeConvolutions: the large one).
GemmTile chooseTile(const Target& target, std::int64_t m, std::int64_t n, GemmKind kind) {
  if (m <= 16 || n <= 16) {
    // The small tile is flat (few rows, many columns); a GEMM with few columns gets it
    // transposed so that its columns are not mostly padding.
    GemmTile t = target.tuning.gemmSmall;
    if (n <= 16 && m > 16 && t.bn > t.bm) {
      std::swap(t.bm, t.bn);
      std::swap(t.tm, t.tn);
    }
    return t;
  }
  if (target.tuning.gemmLargeMinGroups > 0 &&
      (kind == GemmKind::Matmul || target.tuning.gemmLargeConvolutions)) {
    const GemmTile& large = target.tuning.gemmLarge;
    auto padded = [&](const GemmTile& t) { return ceilTo(m, t.bm) * ceilTo(n, t.bn); };
    const std::int64_t groups = (ceilTo(m, large.bm) / large.bm) * (ceilTo(n, large.bn) / large.bn);
    // A large tile on a narrow GEMM (N = 64 under a 128-wide tile) would mostly multiply padding.
    if (groups >= target.tuning.gemmLargeMinGroups && 8 * padded(large) <= 9 * padded(target.tuning.gemm))
      return large;
  }
  return target.tuning.gemm;
}

// Slices for `batches` M x N x K GEMMs on `tile`: as many as bring the grid to
// target.tuning.gemmSplitKGroups workgroups while every slice stays at least
// target.tuning.gemmSplitKMinDepth deep; none when that is fewer than target.tuning.gemmSplitKMinSlices.
// int64 accumulators (INT16 x INT8) are never split.
SplitK chooseSplitK(const Target& target, const GemmTile& tile, const GemmTypes& types, std::int64_t batches,
                    std::int64_t m, std::int64_t n, std::int64_t k) {
  if (target.tuning.gemmSplitKGroups <= 0 || types.accumulator == "int64_t") return {};
  const std::int64_t groups = batches * ((m + tile.bm - 1) / tile.bm) * ((n + tile.bn - 1) / tile.bn);
  const std::int64_t byGroups = (target.tuning.gemmSplitKGroups + groups - 1) / groups;
  const std::int64_t byDepth = k / std::max(target.tuning.gemmSplitKMinDepth, tile.bk);
  const std::int64_t wanted = std::min(byGroups, byDepth);
  const std::int64_t fewest = std::max(target.tuning.gemmSplitKMinSlices, 2);
  if (wanted < fewest) return {};
  // Whole BK steps per slice; recount so that no slice is empty.
  const std::int64_t depth = (k + wanted * tile.bk - 1) / (wanted * tile.bk) * tile.bk;
  const std::int64_t slices = (k + depth - 1) / depth;
  if (slices < fewest) return {};
  return SplitK{static_cast<int>(slices), depth};
}

// The subgroup cooperative-matrix config for an M x N GEMM with these tensor types, or
// nullopt when the target has no matching shape or the portable kernel suits better (tiny M
// or N). fp16 x fp16: fp16 accumulators when `accType` is FP16 and the device lists such a
// shape, else fp32. fp32 x fp32 only with Precision::Fp16 / Bf16 (fp16 / bf16
// fragments, fp32 accumulators) and K >= target.tuning.fp16OperandsMinDepth, or with
// Precision::Fp16x3 on target.tuning.coopMatTileSplit (its own minimum tiles and K). int8 x int8
// -> int32 only with zero points 0 (fragments hold the raw bytes).
std::optional<CoopMatPlan> chooseCoopMat(const Target& target, DType in, DType weight, DType accType,
                                         std::int64_t zeroPointA, std::int64_t zeroPointB, std::int64_t m,
                                         std::int64_t n, std::int64_t k, bool residualEpilogue,
                                         std::int64_t runA) {
  if (!target.subgroupMatrices() || target.caps.subgroupSize == 0 || m <= 16 || n <= 16) {
    return std::nullopt;
  }
  std::vector<CoopMatTypes> wanted;
  if (in == DType::Fp16 && weight == DType::Fp16) {
    if (accType == DType::Fp16) wanted.push_back(CoopMatTypes::F16xF16ToF16);
    wanted.push_back(CoopMatTypes::F16xF16ToF32);
  } else if (in == DType::Fp32 && weight == DType::Fp32 && accType == DType::Fp32 &&
             (((target.precision == Precision::Fp16 || target.precision == Precision::Bf16) &&
               k >= target.tuning.fp16OperandsMinDepth) ||
              target.precision == Precision::Fp16x3)) {
    wanted.push_back(target.precision == Precision::Bf16 ? CoopMatTypes::Bf16xBf16ToF32
                                                         : CoopMatTypes::F16xF16ToF32);
  } else if (in == DType::Int8 && weight == DType::Int8 && zeroPointA == 0 && zeroPointB == 0) {
    wanted.push_back(CoopMatTypes::S8xS8ToS32);
  } else {
    return std::nullopt;
  }
  const int sg = static_cast<int>(target.caps.subgroupSize);
  for (CoopMatTypes types : wanted) {
    if (types == CoopMatTypes::Bf16xBf16ToF32 && !target.tuning.coopMatKhrEncoding)
      continue;  // no NV bf16 matrices
    // Tiles by how many workgroups each would give the GEMM: a narrow tile for N no wider
    // than its maxN; for fp16 accumulators, which take half the registers of fp32 ones,
    // coopMatTileHalfAcc (subgroups may own twice the block); a GEMM whose accumulators start
    // from a residual takes coopMatTile or else coopMatTileResidual, where the target has one;
    // others coopMatTile, the first of coopMatTilesMid they fit, or coopMatTileSmall.
    auto fills = [&](const CoopMatTile& t, int minTiles) {
      const std::int64_t tm = t.subgroupsM * t.blockM, tn = t.subgroupsN * t.blockN;
      return t.subgroupsM > 0 && ((m + tm - 1) / tm) * ((n + tn - 1) / tn) >= minTiles;
    };
    // Residual accumulators are only for fp32 operands (chooseResidualAccumulators).
    const bool residual = residualEpilogue && in == DType::Fp32 &&
                          target.tuning.coopMatResidualAccumulators &&
                          target.tuning.coopMatTileResidual.subgroupsM > 0;
    const int largeMin = target.tuning.coopMatLargeMinTiles;
    const int chunk = types == CoopMatTypes::S8xS8ToS32 ? 16 : 8;  // operands per 16-byte chunk
    const bool gatheredA = runA % chunk != 0;
    auto pick = [&]() -> const CoopMatTile& {
      const CoopMatTile& gather = target.tuning.coopMatTileGather;
      if (gatheredA && gather.subgroupsM > 0 && n >= gather.subgroupsN * gather.blockN) return gather;
      for (const CoopMatNarrowTile& narrow : target.tuning.coopMatTilesNarrow) {
        if (n <= narrow.maxN && fills(narrow.tile, largeMin)) return narrow.tile;
      }
      const int halfAccMin =
          target.tuning.coopMatHalfAccMinTiles > 0 ? target.tuning.coopMatHalfAccMinTiles : largeMin;
      if (types == CoopMatTypes::F16xF16ToF16 && fills(target.tuning.coopMatTileHalfAcc, halfAccMin)) {
        return target.tuning.coopMatTileHalfAcc;
      }
      if (residual) {
        const bool common =
            fills(target.tuning.coopMatTile, std::max(largeMin, target.tuning.coopMatResidualMinTiles));
        return common ? target.tuning.coopMatTile : target.tuning.coopMatTileResidual;
      }
      if (fills(target.tuning.coopMatTile, largeMin)) return target.tuning.coopMatTile;
      for (const CoopMatMidTile& mid : target.tuning.coopMatTilesMid) {
        const bool fits = n >= mid.tile.subgroupsN * mid.tile.blockN && k >= mid.minDepth;
        if (fits && fills(mid.tile, mid.minTiles)) return mid.tile;
      }
      return target.tuning.coopMatTileSmall;
    };
    const bool split = in == DType::Fp32 && target.precision == Precision::Fp16x3;
    if (split && (!fills(target.tuning.coopMatTileSplit, target.tuning.coopMatSplitMinTiles) ||
                  k < target.tuning.coopMatSplitMinDepth)) {
      return std::nullopt;
    }
    const CoopMatTile& tile = split ? target.tuning.coopMatTileSplit : pick();
    // The largest fragment (fewest instructions per multiply) that tiles the subgroup block,
    // starts at 16-byte chunk boundaries of the shared tiles (include/gemm_coopmat.glsl) and
    // leaves the core within shared memory (the staging tile grows with the fragment).
    std::vector<CoopMatShape> shapes;
    for (const CoopMatShape& s : target.caps.coopMatShapes) {
      if (s.types != types || s.m <= 0 || s.n <= 0 || s.k <= 0 || tile.blockM % s.m != 0 || tile.blockN % s.n != 0 ||
          tile.bk % s.k != 0 || s.n % chunk != 0 || s.k % chunk != 0) {
        continue;
      }
      if (target.tuning.coopMatFragment.m != 0 &&
          (s.m != target.tuning.coopMatFragment.m || s.n != target.tuning.coopMatFragment.n ||
           s.k != target.tuning.coopMatFragment.k)) {
        continue;
      }
      shapes.push_back(s);
    }
    std::stable_sort(shapes.begin(), shapes.end(), [](const CoopMatShape& a, const CoopMatShape& b) {
      return a.m * a.n * a.k > b.m * b.n * b.k;
    });
    const int subgroups = tile.subgroupsM * tile.subgroupsN;
    if (subgroups * sg > target.caps.maxInvocations) continue;
    for (const CoopMatShape& shape : shapes) {
      CoopMatPlan plan;
      plan.shape = shape;
      plan.subgroupSize = sg;
      plan.fp32Operands = in == DType::Fp32;
      plan.splitOperands = split;
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
      if (plan.sharedBytes() <= target.caps.maxSharedBytes && plan.bn % chunk == 0) return plan;
    }
  }
  return std::nullopt;
}


// The workgroup-scope config (VK_NV_cooperative_matrix2) for a GEMM whose A [M,K] and B [K,N]
// are plain row-major fp16 matrices, or nullopt: the target lacks workgroup-scope matrices,
// the types are not fp16 x fp16, or M, N, K are not whole multiples of the tile.
std::optional<CoopMatPlan> chooseCoopMatWorkgroup(const Target& target, DType in, DType weight, DType accType,
                                                   std::int64_t m, std::int64_t n, std::int64_t k) {
  const CoopMatWorkgroupLimits& limits = target.caps.coopMatWorkgroup;
  const CoopMatWorkgroupTile& tile = target.tuning.coopMatWorkgroupTile;
  if (limits.invocations <= 0 || tile.bm <= 0 || in != DType::Fp16 || weight != DType::Fp16) return std::nullopt;
  const bool acc16 = accType == DType::Fp16 && limits.fp16Accumulators;
  if (m % tile.bm != 0 || n % tile.bn != 0 || k % tile.bk != 0) return std::nullopt;
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


}  // namespace

GemmConfig chooseGemm(const Target& target, const GemmShape& g) {
  GemmConfig config;
  config.depth = g.k;
  if (g.fastCores) {
    if (g.plainOperands) config.coopMat = chooseCoopMatWorkgroup(target, g.in, g.weight, g.acc, g.m, g.n, g.k);
    if (!config.coopMat) {
      config.coopMat = chooseCoopMat(target, g.in, g.weight, g.acc, g.zeroPointA, g.zeroPointB, g.m, g.n, g.k,
                                     g.residualEpilogue, g.runA);
    }
    // A gathered A operand read as contiguous filter rows (GEMM_ROW_A): K grows to whole-chunk
    // runs, where that pads K by at most coopMatRowRunsMaxPadding percent.
    if (config.coopMat && g.rowRun > 0 && g.runA % config.coopMat->chunk() != 0 &&
        target.tuning.coopMatRowRunsMaxPadding > 0) {
      const std::int64_t chunk = config.coopMat->chunk();
      const std::int64_t rows = g.k / g.rowRun;
      const std::int64_t padded = ceilTo(g.rowRun, chunk);
      if (100 * rows * (padded - g.rowRun) <= target.tuning.coopMatRowRunsMaxPadding * g.k) {
        config.runs = KRuns{g.rowRun, padded};
        config.depth = rows * padded;
        config.coopMat = chooseCoopMat(target, g.in, g.weight, g.acc, g.zeroPointA, g.zeroPointB, g.m, g.n,
                                       config.depth, g.residualEpilogue, g.runA);
      }
    }
  }
  if (config.coopMat) {
    // MATMUL's epilogue stages a band of fragments at a time where the target says so;
    // convolutions measured slower with it and keep one fragment at a time.
    if (g.kind == GemmKind::Matmul) config.coopMat->bandEpilogue = target.tuning.coopMatBandEpilogue;
    config.tile = config.coopMat->tile();
  } else {
    config.tile = chooseTile(target, g.m, g.n, g.kind);
    config.dot4 = g.fastCores && useDot4(target, g.in, g.weight, g.out, g.zeroPointA, g.zeroPointB);
  }
  if (g.splitK) {
    const std::optional<GemmTypes> types = gemmTypes(g.in, g.weight, g.out);
    if (types) config.split = chooseSplitK(target, config.tile, *types, g.batches, g.m, g.n, config.depth);
  }
  return config;
}

}  // namespace openvgf::converter
