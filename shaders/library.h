// SPDX-License-Identifier: Apache-2.0
// The embedded shader library: every GLSL template (`<family>.comp`) and shared include
// (`include/<name>.glsl`) of shaders/, compiled into the binary at build time so a
// conversion never reads shader files from disk.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace openvgf::shaders {

struct Source {
  std::string_view name;  // path relative to shaders/, e.g. "conv2d.comp", "include/common.glsl"
  std::string_view text;  // file contents
};

/// All embedded files, sorted by name.
std::span<const Source> all();

/// The text of one embedded file, if present.
std::optional<std::string_view> find(std::string_view name);

}  // namespace openvgf::shaders
