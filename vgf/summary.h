// SPDX-License-Identifier: Apache-2.0
// Human-readable summary of a VGF for `openvgf inspect`: version, modules (type, code
// kind, size), resources (category, format, shape, alias group), segments (bindings,
// dispatch shape), constants (sizes) and the model interface with names.
#pragma once

#include <string>

#include "vgf/file.h"

namespace openvgf::vgf {

/// Multi-line text; every line starts with `indent`.
std::string formatSummary(const File& file, const std::string& indent = "");

}  // namespace openvgf::vgf
