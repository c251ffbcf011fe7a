// SPDX-License-Identifier: Apache-2.0
// JSON view of a VGF with the keys and structure of Arm's `vgf_dump` output
// (specs/vgf.md §2): header, modules, resources, model_sequence, constants. Objects are
// nlohmann::json (keys sorted); print with dump(4) to match vgf_dump's layout.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "vgf/file.h"

namespace openvgf::vgf {

nlohmann::json toJson(const File& file);

/// Text of a JSON document; names from files are arbitrary bytes, so invalid UTF-8 is
/// replaced (U+FFFD) instead of making nlohmann::json throw.
std::string dumpJson(const nlohmann::json& json, int indent = 4);

}  // namespace openvgf::vgf
