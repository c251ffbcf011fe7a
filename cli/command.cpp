// SPDX-License-Identifier: Apache-2.0
#include "cli/command.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "common/input_binding.h"

namespace openvgf::cli {

namespace {

std::vector<Command>& commands() {
  static std::vector<Command> list;
  return list;
}
std::map<FileKind, InspectHandler>& inspectHandlers() {
  static std::map<FileKind, InspectHandler> map;
  return map;
}
std::map<FileKind, RunHandler>& runHandlers() {
  static std::map<FileKind, RunHandler> map;
  return map;
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

bool registerInspectHandler(FileKind kind, InspectHandler handler) {
  if (!inspectHandlers().emplace(kind, std::move(handler)).second) {
    std::fprintf(stderr, "openvgf: internal error: two inspect handlers for %s files\n", std::string(toString(kind)).c_str());
    std::abort();
  }
  return true;
}

bool registerRunHandler(FileKind kind, RunHandler handler) {
  // Two handlers for one kind would leave the choice to static-initialization order.
  if (!runHandlers().emplace(kind, std::move(handler)).second) {
    std::fprintf(stderr, "openvgf: internal error: two run handlers for %s files\n", std::string(toString(kind)).c_str());
    std::abort();
  }
  return true;
}

const InspectHandler* findInspectHandler(FileKind kind) {
  auto it = inspectHandlers().find(kind);
  return it == inspectHandlers().end() ? nullptr : &it->second;
}

const RunHandler* findRunHandler(FileKind kind) {
  auto it = runHandlers().find(kind);
  return it == runHandlers().end() ? nullptr : &it->second;
}

std::pair<std::string, std::string> splitNamedInput(const std::string& argument) {
  auto eq = argument.find('=');
  if (eq == std::string::npos || eq == 0) return {"", argument};
  std::error_code ec;
  if (std::filesystem::exists(argument, ec)) return {"", argument};
  return {argument.substr(0, eq), argument.substr(eq + 1)};
}

Result<std::vector<std::string>> bindInputPaths(std::string_view source, const std::vector<std::string>& arguments,
                                                const std::vector<std::string>& names,
                                                const std::map<std::string, tosa::HostTensor>& defaults) {
  std::vector<DeclaredInput> declared;
  for (const std::string& name : names) declared.push_back({name, defaults.contains(name)});
  std::vector<std::string> given;
  std::vector<std::string> files;
  for (const std::string& argument : arguments) {
    auto [name, file] = splitNamedInput(argument);
    given.push_back(std::move(name));
    files.push_back(std::move(file));
  }
  const bool state = std::any_of(names.begin(), names.end(), [](const std::string& n) { return n.starts_with("state:"); });
  const std::string_view hint = state && defaults.empty()
                                    ? "; `state:` inputs start from the variables' initial values when the model is a "
                                      ".tosa or --check names the .tosa"
                                    : "";
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::size_t> binding,
                           bindInputs(declared, given, fmt::format("{}: --input", source), hint));
  std::vector<std::string> paths;
  for (std::size_t k : binding) paths.push_back(k == kDefaultValue ? std::string() : files[k]);
  return paths;
}

Result<std::vector<std::filesystem::path>> outputFiles(std::string_view source, const std::filesystem::path& dir,
                                                       const std::vector<std::string>& names) {
  std::map<std::string, std::string> taken;  // file name -> the output that has it
  std::vector<std::filesystem::path> files;
  for (const std::string& name : names) {
    const std::string file = sanitizeFileName(name) + ".npy";
    if (auto [at, inserted] = taken.emplace(file, name); !inserted) {
      return invalidInput("{}: --output-dir: outputs '{}' and '{}' would both be written to {}; use --output for a "
                          "one-output model or rename the outputs",
                          source, at->second, name, (dir / file).string());
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
