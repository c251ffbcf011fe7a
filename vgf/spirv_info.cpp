// SPDX-License-Identifier: Apache-2.0
// OpCapability / OpExtension scan of a SPIR-V module (see spirv_info.h).
#include "vgf/spirv_info.h"

#include <cstring>
#include <map>
#include <string_view>

#include <fmt/format.h>

namespace openvgf::vgf {
namespace {

constexpr std::uint32_t kOpExtension = 10, kOpCapability = 17, kOpFunction = 54;

// Capability numbers of SPIR-V spec §3.31 that compute modules commonly declare.
const std::map<std::uint32_t, std::string_view>& capabilityNames() {
  static const std::map<std::uint32_t, std::string_view> kNames = {
      {0, "Matrix"}, {1, "Shader"}, {8, "Float16Buffer"}, {9, "Float16"}, {10, "Float64"}, {11, "Int64"},
      {12, "Int64Atomics"}, {22, "Int16"}, {39, "Int8"}, {61, "GroupNonUniform"}, {62, "GroupNonUniformVote"},
      {63, "GroupNonUniformArithmetic"}, {64, "GroupNonUniformBallot"}, {65, "GroupNonUniformShuffle"},
      {66, "GroupNonUniformShuffleRelative"}, {67, "GroupNonUniformClustered"}, {68, "GroupNonUniformQuad"},
      {4433, "StorageBuffer16BitAccess"}, {4434, "UniformAndStorageBuffer16BitAccess"},
      {4448, "StorageBuffer8BitAccess"}, {4449, "UniformAndStorageBuffer8BitAccess"},
      {4464, "DenormPreserve"}, {4465, "DenormFlushToZero"}, {4466, "SignedZeroInfNanPreserve"},
      {4467, "RoundingModeRTE"}, {4468, "RoundingModeRTZ"},
      {5345, "VulkanMemoryModel"}, {5357, "CooperativeMatrixNV"}, {6016, "DotProductInputAll"},
      {6017, "DotProductInput4x8Bit"}, {6018, "DotProductInput4x8BitPacked"}, {6019, "DotProduct"},
      {6022, "CooperativeMatrixKHR"}};
  return kNames;
}

}  // namespace

SpirvRequirements spirvRequirements(std::span<const std::uint32_t> module) {
  SpirvRequirements out;
  std::size_t i = 5;
  while (i < module.size()) {
    const std::uint32_t count = module[i] >> 16, opcode = module[i] & 0xFFFFu;
    if (count == 0 || count > module.size() - i) break;
    if (opcode == kOpFunction) break;
    if (opcode == kOpCapability && count >= 2) {
      auto it = capabilityNames().find(module[i + 1]);
      out.capabilities.push_back(it != capabilityNames().end() ? std::string(it->second)
                                                               : fmt::format("Capability{}", module[i + 1]));
    } else if (opcode == kOpExtension && count >= 2) {
      // A nul-terminated literal string packed into the remaining words.
      const char* text = reinterpret_cast<const char*>(&module[i + 1]);
      const std::size_t maxBytes = (count - 1) * sizeof(std::uint32_t);
      out.extensions.emplace_back(text, strnlen(text, maxBytes));
    }
    i += count;
  }
  return out;
}

}  // namespace openvgf::vgf
