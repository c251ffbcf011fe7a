// SPDX-License-Identifier: Apache-2.0
// VGF encoder: writes a vgf::File as format 0.4.3 the way Arm's VGF library does
// (specs/vgf.md §1): 128-byte header with magic "VGF1", sections in the order module,
// sequence, resource, constants, each starting 8-byte aligned with its unpadded size in the
// header, flatbuffer scalars equal to the schema default omitted, and a CONST00 constant
// section with payloads padded to 8 bytes.
//
// The output depends only on the File's content (not on its decoded version or section
// ranges), so decode() followed by encode() reproduces an encoder output byte for byte.
#pragma once

#include <cstdint>
#include <vector>

#include "common/error.h"
#include "vgf/file.h"

namespace openvgf::vgf {

/// Encodes `file` (validated first with vgf::validate plus the writer's own rules:
/// no alias group on CONSTANT resources, sparsity dimension fits int32).
Result<std::vector<std::uint8_t>> encode(const File& file);

}  // namespace openvgf::vgf
