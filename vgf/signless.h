// SPDX-License-Identifier: Apache-2.0
// The signless view of unsigned tensor formats (defined in vgf/file.cpp).
#pragma once

#include <cstdint>

namespace openvgf::vgf {

/// The signed format of the same width for R8/R16/R32_UINT, else `vkFormat`: the same bytes
/// as a signless TOSA tensor. An unsigned model input or output keeps the format its file
/// declares; the kernels that read it are compiled for the signless one.
std::uint32_t signlessFormat(std::uint32_t vkFormat);

}  // namespace openvgf::vgf
