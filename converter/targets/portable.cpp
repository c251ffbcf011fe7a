// SPDX-License-Identifier: Apache-2.0
// The portable target: Vulkan 1.3 core plus the storage/integer features every desktop
// GPU and lavapipe share (8/16-bit storage, Int64, subgroup arithmetic). Tiles sized for
// at most 256-invocation workgroups and 16 KiB of shared memory: 64x64 tiles with 4x4
// blocks (256 invocations). GEMMs with M or N <= 16 (fully connected layers at batch 1) get
// 16x64 tiles of 4x4 blocks, the smallest tile whose register block is whole vec4s (2.5x
// faster on lavapipe than 2x2). No 8x8 blocks: they run about twice as fast on lavapipe,
// but on an H100 they made MobileNetV2 at batch 32 2.4x and ResNet-50 at batch 32 4.7x
// slower (64 invocations per workgroup); `--target native` on a CPU device uses them.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/suggest.h"
#include "converter/targets/target.h"

namespace openvgf::converter {

Target portableTarget() {
  Target t;
  t.name = "portable";
  t.tuning.gemm = GemmTile{64, 64, 16, 4, 4};
  t.tuning.gemmSmall = GemmTile{16, 64, 16, 4, 4};
  return t;
}

Result<Target> targetByName(const std::string& name, const DeviceCaps* device, std::string_view tuning) {
  Target t;
  if (name == "portable") {
    t = portableTarget();  // fixed for every device: tuning overrides are not applied
  } else if (name == "native") {
    if (device == nullptr) {
      return invalidInput("--target native: expected the device the model will run on, got none (the command or "
                          "API call that converts chooses it)");
    }
    t = nativeTarget(*device);
    if (!tuning.empty()) OPENVGF_TRY(applyTuningOverrides(t, tuning));
  } else {
    return invalidInput("--target: expected portable or native, got '{}'{}", name, didYouMean(name, {"portable", "native"}));
  }
  OPENVGF_TRY(verifyTarget(t));
  return t;
}

std::string describeTarget(const Target& target) {
  std::string out = target.name;
  if (!target.deviceName.empty()) out += fmt::format(" ({})", target.deviceName);
  std::vector<std::string> features;
  if (target.caps.subgroupSize != 0) features.push_back(fmt::format("subgroup {}", target.caps.subgroupSize));
  if (target.caps.fp16Arithmetic) features.push_back(target.caps.fp16RoundingRte ? "fp16 (RTE)" : "fp16");
  if (target.caps.integerDotProduct) features.push_back("integer dot product");
  if (target.subgroupMatrices()) {
    std::string shapes;
    for (const CoopMatShape& s : target.caps.coopMatShapes) {
      const char* types = s.types == CoopMatTypes::F16xF16ToF32     ? "f16+f32"
                          : s.types == CoopMatTypes::F16xF16ToF16   ? "f16+f16"
                          : s.types == CoopMatTypes::Bf16xBf16ToF32 ? "bf16+f32"
                                                                    : "s8+s32";
      shapes += fmt::format(" {}x{}x{} {}", s.m, s.n, s.k, types);
    }
    features.push_back("cooperative matrix" + shapes);
  }
  if (target.caps.cooperativeMatrixKhr)
    features.push_back(target.tuning.coopMatKhrEncoding ? "KHR cooperative matrix (used)"
                                                        : "KHR cooperative matrix");
  if (const CoopMatWorkgroupLimits& wg = target.caps.coopMatWorkgroup; wg.invocations > 0) {
    features.push_back(
        fmt::format("workgroup-scope matrices (granularity {}x{}x{}, {} invocations of [{}], max {}, "
                    "{} bytes of shared memory reserved{})",
                    wg.granularityM, wg.granularityN, wg.granularityK, target.workgroupMatrixInvocations(),
                    fmt::join(wg.invocationCounts, " "), wg.maxDimension, wg.reservedShared,
                    wg.fp16Accumulators ? ", fp16 accumulators" : ""));
  }
  switch (target.precision) {
    case Precision::Fp32: break;
    case Precision::Fp16: features.push_back("fp16 GEMM operands (--precision fp16)"); break;
    case Precision::Bf16: features.push_back("bf16 GEMM operands (--precision bf16)"); break;
    case Precision::Fp16x3:
      features.push_back("fp32 GEMM operands as fp16 pairs (--precision fp16x3)");
      break;
    case Precision::Bf16x3:
      features.push_back("fp32 GEMM operands as bf16 parts, 3 products (--precision bf16x3)");
      break;
    case Precision::Fp32Bf16:
      features.push_back("fp32 GEMM operands as bf16 parts, 3 or 6 products within TOSA's bound (--precision fp32-bf16)");
      break;
  }
  if (!features.empty()) out += ": " + fmt::format("{}", fmt::join(features, ", "));
  return out;
}

Status verifyTarget(const Target& target) {
  for (const GemmTile* tile : {&target.tuning.gemm, &target.tuning.gemmSmall, &target.tuning.gemmLarge}) {
    if (tile == &target.tuning.gemmLarge && target.tuning.gemmLargeMinGroups <= 0) continue;
    if (tile->bm % tile->tm != 0 || tile->bn % tile->tn != 0) {
      return internalError("target {}: GEMM tile {}x{}: expected multiples of the register block {}x{}", target.name,
                           tile->bm, tile->bn, tile->tm, tile->tn);
    }
    int invocations = (tile->bm / tile->tm) * (tile->bn / tile->tn);
    if (invocations > target.caps.maxInvocations) {
      return internalError("target {}: GEMM tile needs {} invocations, limit {}", target.name, invocations,
                           target.caps.maxInvocations);
    }
    // Two staged tiles of fp32/int32, padded by one column (scalar layout) or one vec4
    // (vec4 layout, TM and TN multiples of 4) per row; the vec4 layout may double-buffer.
    const bool vec4 = tile->tm % 4 == 0 && tile->tn % 4 == 0;
    // No shared buffer (stages 0): the lanes of a subgroup are a row of BN/TN invocations.
    const bool subgroupRows = tile->tn > 0 && target.caps.subgroupSize == static_cast<std::uint32_t>(tile->bn / tile->tn);
    if (tile->stages != 1 && !(vec4 && tile->stages == 2) && !(vec4 && subgroupRows && tile->stages == 0)) {
      return internalError("target {}: GEMM tile {}x{}: expected 1 shared buffer, 2 with 4-aligned register blocks, "
                           "or 0 with those where BN/TN is the subgroup size ({})",
                           target.name, tile->bm, tile->bn, target.caps.subgroupSize);
    }
    if (vec4 && (tile->bm % 4 != 0 || tile->bn % 4 != 0 || tile->bk % 4 != 0)) {
      return internalError("target {}: GEMM tile {}x{}x{}: expected multiples of 4", target.name, tile->bm, tile->bn,
                           tile->bk);
    }
    const int pad = vec4 ? 4 : 1;
    int shared = tile->stages * tile->bk * (tile->bm + pad + tile->bn + pad) * 4;
    if (shared > target.caps.maxSharedBytes) {
      return internalError("target {}: GEMM tile needs {} bytes of shared memory, limit {}", target.name,
                           shared, target.caps.maxSharedBytes);
    }
  }
  std::vector<const CoopMatTile*> coopMatTiles{&target.tuning.coopMatTile, &target.tuning.coopMatTileSmall,
                                               &target.tuning.coopMatTileSplit};
  // The optional tiles, where set (subgroupsM = 0: none).
  for (const CoopMatTile* tile : {&target.tuning.coopMatTileHalfAcc, &target.tuning.coopMatTileResidual,
                                  &target.tuning.coopMatTileGather}) {
    if (tile->subgroupsM != 0) coopMatTiles.push_back(tile);
  }
  for (const CoopMatNarrowTile& narrow : target.tuning.coopMatTilesNarrow)
    coopMatTiles.push_back(&narrow.tile);
  for (const CoopMatMidTile& mid : target.tuning.coopMatTilesMid) coopMatTiles.push_back(&mid.tile);
  for (const CoopMatTile* tile : coopMatTiles) {
    // Shared tiles are stored in 16-byte chunks (8 fp16 / 16 int8 along K and N).
    if (tile->subgroupsM < 1 || tile->subgroupsN < 1 || tile->blockM < 8 || tile->blockN < 8 || tile->bk < 16 ||
        tile->blockM % 8 != 0 || tile->blockN % 8 != 0 || tile->bk % 16 != 0) {
      return internalError("target {}: cooperative-matrix tile {}x{} subgroups of {}x{}, K slice {}: expected at "
                           "least one subgroup each way, blocks multiples of 8 and a K slice multiple of 16",
                           target.name, tile->subgroupsM, tile->subgroupsN, tile->blockM, tile->blockN, tile->bk);
    }
  }
  if (const CoopMatWorkgroupTile& wg = target.tuning.coopMatWorkgroupTile; wg.bm > 0) {
    // 16-byte chunks along K and N: the row strides of the vector views.
    if (wg.partM <= 0 || wg.bm % wg.partM != 0 || wg.bn <= 0 || wg.bk <= 0 || wg.bn % 8 != 0 || wg.bk % 8 != 0) {
      return internalError("target {}: workgroup cooperative-matrix tile {}x{}x{} with {}-row parts: expected BM a "
                           "multiple of the part and BN, BK multiples of 8",
                           target.name, wg.bm, wg.bn, wg.bk, wg.partM);
    }
  }
  if (target.tuning.elementwiseWg > target.caps.maxInvocations ||
      target.tuning.reduceThreads > target.caps.maxInvocations) {
    return internalError("target {}: workgroup size exceeds {} invocations", target.name,
                         target.caps.maxInvocations);
  }
  return {};
}

}  // namespace openvgf::converter
