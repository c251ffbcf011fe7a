// SPDX-License-Identifier: Apache-2.0
// Test-only helpers shared by every CLI test: run the openvgf binary as a user would (stdout
// and stderr captured together, exit code kept) and make scratch folders.
#pragma once

#include <sys/wait.h>

#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/sanitizer_stride.h"

namespace openvgf::testing {

struct CommandResult {
  int exitCode = -1;
  std::string output;  // stdout and stderr together
};

/// Runs a shell command line, stdout and stderr together.
inline CommandResult runCommand(const std::string& commandLine) {
  CommandResult result;
  std::string command = commandLine + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, n);
  int status = pclose(pipe);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

/// Runs `openvgf <arguments>` through the shell; `env` is prepended (e.g. "XDG_CACHE_HOME=/x").
inline CommandResult runCli(const std::string& arguments, const std::string& env = "") {
  return runCommand(env + " " + std::string(OPENVGF_CLI) + " " + arguments);
}

/// A fresh, empty folder under the system temp folder, removed by the destructor.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("openvgf_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace openvgf::testing
