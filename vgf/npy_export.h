// SPDX-License-Identifier: Apache-2.0
// A VGF constant as a NumPy .npy file: the payload bytes with the shape and dtype of the
// constant's model resource table entry (what `vgf_dump --dump-constant N -o x.npy` writes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "vgf/file.h"

namespace openvgf::vgf {

/// NumPy dtype string of a tensor format ("<f4", "|i1", ...); empty if unknown.
std::string numpyDtype(std::uint32_t vkFormat);

/// Constant `index` as .npy bytes (format version 1.0, or 2.0 for headers over 64 KiB).
/// Fails when the index, the format or the size does not fit the resource.
Result<std::vector<std::uint8_t>> constantToNpy(const File& file, std::size_t index);

}  // namespace openvgf::vgf
