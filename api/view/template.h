// SPDX-License-Identifier: Apache-2.0
// The page template of `openvgf view` (page.html, page.css, page.js in this folder), embedded
// into the library at build time by cmake/EmbedFiles.cmake, as the shader templates are, so
// the page is written without reading files and the template is edited as HTML/CSS/JS.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <string_view>

namespace openvgf::api::view::page {

struct Source {
  std::string_view name;  // file name in api/view/, e.g. "page.js"
  std::string_view text;  // its contents
};

/// All embedded files, sorted by name (generated).
std::span<const Source> all();

inline std::optional<std::string_view> find(std::string_view name) {
  auto sources = all();
  auto it = std::find_if(sources.begin(), sources.end(), [&](const Source& s) { return s.name == name; });
  if (it == sources.end()) return std::nullopt;
  return it->text;
}

}  // namespace openvgf::api::view::page
