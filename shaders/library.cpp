// SPDX-License-Identifier: Apache-2.0
// Lookup over the generated table of embedded shader sources (see cmake/EmbedFiles.cmake).
#include "shaders/library.h"

#include <algorithm>

namespace openvgf::shaders {

std::optional<std::string_view> find(std::string_view name) {
  auto sources = all();
  auto it = std::lower_bound(sources.begin(), sources.end(), name,
                             [](const Source& s, std::string_view n) { return s.name < n; });
  if (it == sources.end() || it->name != name) return std::nullopt;
  return it->text;
}

}  // namespace openvgf::shaders
