// SPDX-License-Identifier: Apache-2.0
#include "command.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>

namespace openvgf::cli {

namespace {

std::vector<Command>& commands() {
  static std::vector<Command> list;
  return list;
}

bool quietFlag = false;

}  // namespace

void setQuiet(bool quiet) { quietFlag = quiet; }
bool quiet() { return quietFlag; }

bool registerCommand(Command command) {
  commands().push_back(std::move(command));
  return true;
}

const std::vector<Command>& registeredCommands() { return commands(); }

std::pair<std::string, std::string> splitNamedInput(const std::string& argument) {
  auto eq = argument.find('=');
  if (eq == std::string::npos || eq == 0) return {"", argument};
  std::error_code ec;
  if (std::filesystem::exists(argument, ec)) return {"", argument};
  return {argument.substr(0, eq), argument.substr(eq + 1)};
}

std::vector<std::filesystem::path> outputFiles(std::string_view source, const std::filesystem::path& dir,
                                               const std::vector<std::string>& names) {
  std::map<std::string, std::string> taken;  // file name -> the output that has it
  std::vector<std::filesystem::path> files;
  for (const std::string& name : names) {
    const std::string file = sanitizeFileName(name) + ".npy";
    if (auto [at, inserted] = taken.emplace(file, name); !inserted) {
      fail(ErrorCode::InvalidInput,
           fmt::format("{}: --output-dir: outputs '{}' and '{}' would both be written to {}; use --output for a "
                       "one-output model or rename the outputs",
                       source, at->second, name, (dir / file).string()));
    }
    files.push_back(dir / file);
  }
  return files;
}

std::string sanitizeFileName(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == '-';
    if (!ok) c = '_';
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

}  // namespace openvgf::cli
