// SPDX-License-Identifier: Apache-2.0
// One key for everything a Target decides (issue 32): fingerprint() serialises every member of
// Target (its capabilities, precision and tuning) and of the types they nest, so no cache (the
// model cache, api/model.cpp; the GRAPH-lowering cache, converter/lower_vgf.cpp) serves a VGF
// converted for other settings.
// fieldsOf() lists each struct's members in declaration order; fingerprint.cpp checks at
// compile time that each list has as many entries as its struct has members, so a member
// added to target.h but not here stops the build. describeTarget() stays the display line.
#pragma once

#include <concepts>
#include <string>
#include <tuple>
#include <type_traits>

#include "converter/targets/target.h"

namespace openvgf::converter {

/// `T` is `Struct` or `const Struct` (fieldsOf serves both readers and tests that change fields).
template <class T, class Struct>
concept StructOrConst = std::same_as<std::remove_const_t<T>, Struct>;

auto fieldsOf(StructOrConst<GemmTile> auto& t) { return std::tie(t.bm, t.bn, t.bk, t.tm, t.tn, t.stages); }
auto fieldsOf(StructOrConst<CoopMatShape> auto& s) { return std::tie(s.m, s.n, s.k, s.types); }
auto fieldsOf(StructOrConst<CoopMatTile> auto& t) {
  return std::tie(t.subgroupsM, t.subgroupsN, t.blockM, t.blockN, t.bk);
}
auto fieldsOf(StructOrConst<CoopMatNarrowTile> auto& t) { return std::tie(t.maxN, t.tile); }
auto fieldsOf(StructOrConst<CoopMatMidTile> auto& t) { return std::tie(t.tile, t.minTiles, t.minDepth); }
auto fieldsOf(StructOrConst<CoopMatWorkgroupTile> auto& t) {
  return std::tie(t.bm, t.bn, t.bk, t.partM, t.invocations);
}
auto fieldsOf(StructOrConst<CoopMatWorkgroupLimits> auto& w) {
  return std::tie(w.granularityM, w.granularityN, w.granularityK, w.invocations, w.maxDimension, w.reservedShared,
                  w.fp16Accumulators, w.invocationCounts);
}
auto fieldsOf(StructOrConst<Capabilities> auto& c) {
  return std::tie(c.maxSharedBytes, c.maxInvocations, c.subgroupSize, c.fp16Arithmetic, c.fp16RoundingRte,
                  c.integerDotProduct, c.float64, c.cooperativeMatrixNv, c.cooperativeMatrixKhr, c.coopMatShapes,
                  c.coopMatWorkgroup);
}
auto fieldsOf(StructOrConst<Tuning> auto& t) {
  return std::tie(t.gemm, t.gemmSmall, t.gemmLarge, t.gemmLargeMinGroups, t.gemmLargeConvolutions,
                  t.gemmSplitKGroups, t.gemmSplitKMinDepth, t.gemmSplitKMinSlices, t.elementwiseWg,
                  t.elementsPerInvocation, t.reduceThreads, t.coopMatKhrEncoding, t.coopMatFragment,
                  t.coopMatWorkgroupTile, t.fp16OperandsMinDepth, t.coopMatTileSplit, t.coopMatSplitMinTiles,
                  t.coopMatSplitMinDepth, t.coopMatTile, t.coopMatTileSmall, t.coopMatTileHalfAcc,
                  t.coopMatHalfAccMinTiles, t.coopMatTilesNarrow, t.coopMatLargeMinTiles, t.coopMatTileResidual,
                  t.coopMatResidualMinTiles, t.coopMatTileGather, t.coopMatRowRunsMaxPadding,
                  t.coopMatPrefetchMaxDepth, t.coopMatPrefetchMaxChunks, t.coopMatTilesMid, t.coopMatBandEpilogue,
                  t.coopMatResidualAccumulators, t.fp16Storage, t.coopMatDirectStoreMaxDepth,
                  t.spirvOptimizer, t.runtimeShapes);
}
auto fieldsOf(StructOrConst<Target> auto& t) { return std::tie(t.name, t.caps, t.precision, t.tuning, t.deviceName); }

/// Every member of `target`, nested ones field by field, as text in which no two targets that
/// differ in any member agree (strings are length-prefixed, lists counted). For cache keys.
std::string fingerprint(const Target& target);

}  // namespace openvgf::converter
