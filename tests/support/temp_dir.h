// SPDX-License-Identifier: Apache-2.0
// Scratch folders for tests, named per process.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace openvgf::testing {

/// `<system temp folder>/<name>-<pid>`: this process's own folder. The same test binary can run
/// in two build trees at once (release and a sanitizer tree, or two checkouts on one machine),
/// and with a fixed name one run's set-up or tear-down deletes the other's files mid-test.
inline std::filesystem::path processTempDir(std::string_view name) {
  return std::filesystem::temp_directory_path() / (std::string(name) + "-" + std::to_string(::getpid()));
}

}  // namespace openvgf::testing
