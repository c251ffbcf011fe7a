// SPDX-License-Identifier: Apache-2.0
// What a SPIR-V module asks of a device, read from its header section: the OpCapability and
// OpExtension instructions. `openvgf inspect` shows them per module, so a VGF that needs an
// optional feature (fp16 arithmetic, VK_NV_cooperative_matrix, ...) says so visibly.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace openvgf::vgf {

struct SpirvRequirements {
  std::vector<std::string> capabilities;  // e.g. "Float16", "CooperativeMatrixNV"; unknown: "Capability<n>"
  std::vector<std::string> extensions;    // e.g. "SPV_NV_cooperative_matrix"
};

/// Scans the module up to its first function. A malformed module yields what was read up to
/// the damage (the decoder and the runner report malformed code; this is for display).
SpirvRequirements spirvRequirements(std::span<const std::uint32_t> module);

}  // namespace openvgf::vgf
