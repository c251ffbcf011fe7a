// SPDX-License-Identifier: Apache-2.0
#include "cli/command.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <algorithm>
#include <map>

#include <fmt/format.h>

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

Result<std::vector<std::string>> bindInputPaths(const RunOptions& options, const std::vector<std::string>& names,
                                                const std::map<std::string, tosa::HostTensor>& defaults) {
  auto listNames = [&]() {
    std::string text;
    for (const std::string& n : names) text += fmt::format("{}'{}'", text.empty() ? "" : ", ", n);
    return text;
  };
  std::vector<std::string> paths(names.size());
  std::vector<std::pair<std::string, std::string>> args;
  for (const std::string& argument : options.inputs) args.push_back(splitNamedInput(argument));
  for (const auto& [name, path] : args) {
    if (name.empty()) continue;
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      return invalidInput("{}: --input {}={}: expected an input name of the model ({}), got '{}'", options.path, name,
                          path, listNames(), name);
    }
    std::string& slot = paths[static_cast<std::size_t>(it - names.begin())];
    if (!slot.empty()) {
      return invalidInput("{}: --input {}: expected one file per input, got '{}' twice", options.path, name, name);
    }
    slot = path;
  }
  // Inputs not named that have a default keep it when fewer files than inputs are given.
  std::vector<bool> defaulted(names.size(), false);
  std::size_t given = options.inputs.size();
  for (std::size_t i = 0; i < names.size() && given < names.size(); ++i) {
    if (paths[i].empty() && defaults.count(names[i]) != 0) {
      defaulted[i] = true;
      ++given;
    }
  }
  if (given != names.size()) {
    const bool state = std::any_of(names.begin(), names.end(), [](const std::string& n) { return n.starts_with("state:"); });
    return invalidInput("{}: --input: expected {} input(s) ({}), got {}{}", options.path, names.size(), listNames(),
                        options.inputs.size(),
                        state && defaults.empty()
                            ? "; `state:` inputs start from the variables' initial values when the model is a .tosa "
                              "or --check names the .tosa"
                            : "");
  }
  std::size_t next = 0;
  for (const auto& [name, path] : args) {
    if (!name.empty()) continue;
    while (!paths[next].empty() || defaulted[next]) ++next;
    paths[next] = path;
  }
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
