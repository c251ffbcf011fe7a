// SPDX-License-Identifier: Apache-2.0
#include "common/cache_dir.h"

#include <cstdlib>

namespace openvgf {

std::filesystem::path cacheRoot() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return std::filesystem::path(xdg) / "openvgf";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0') {
    return std::filesystem::path(home) / ".cache" / "openvgf";
  }
  return {};
}

}  // namespace openvgf
