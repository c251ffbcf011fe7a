// SPDX-License-Identifier: Apache-2.0
// JSON view of a VGF with the keys and structure of Arm's `vgf_dump` output
// (specs/vgf.md §2): header, modules, resources, model_sequence, constants. Objects are
// nlohmann::json (keys sorted); print with dump(4) to match vgf_dump's layout.
#pragma once

#include <nlohmann/json.hpp>

#include "vgf/file.h"

namespace openvgf::vgf {

nlohmann::json toJson(const File& file);

}  // namespace openvgf::vgf
