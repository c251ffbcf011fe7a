// SPDX-License-Identifier: Apache-2.0
#include "cli/command.h"

#include <cstring>
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

}  // namespace

bool registerCommand(Command command) {
  commands().push_back(std::move(command));
  return true;
}

const std::vector<Command>& registeredCommands() { return commands(); }

bool registerInspectHandler(FileKind kind, InspectHandler handler) {
  inspectHandlers()[kind] = std::move(handler);
  return true;
}

bool registerRunHandler(FileKind kind, RunHandler handler) {
  runHandlers()[kind] = std::move(handler);
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

std::string_view toString(FileKind kind) {
  switch (kind) {
    case FileKind::Unknown: return "unknown";
    case FileKind::Tosa: return "TOSA flatbuffer";
    case FileKind::Vgf: return "VGF";
    case FileKind::Pte: return "ExecuTorch program";
    case FileKind::EthosU: return "Ethos-U command stream";
    case FileKind::Npy: return "NumPy array";
    case FileKind::SpirV: return "SPIR-V module";
  }
  return "unknown";
}

FileKind detectFileKind(std::span<const std::uint8_t> bytes) {
  auto at = [&](std::size_t offset, std::string_view magic) {
    return bytes.size() >= offset + magic.size() &&
           std::memcmp(bytes.data() + offset, magic.data(), magic.size()) == 0;
  };
  if (at(4, "TOSA")) return FileKind::Tosa;
  if (at(4, "ET12")) return FileKind::Pte;
  // VGF: 'VGF1' or the deprecated magic 0xF0E1D2C3 (LE) at offset 0 of the 128-byte header.
  if (at(0, "VGF1") || at(0, "\xC3\xD2\xE1\xF0")) return FileKind::Vgf;
  if (at(0, "\x93NUMPY")) return FileKind::Npy;
  if (at(0, "\x03\x02\x23\x07")) return FileKind::SpirV;
  // Ethos-U: ExecuTorch vela_bin_stream (first block named "vela_bin_stream") or a raw
  // COP1 driver payload.
  if (at(0, "vela_bin_stream") || at(0, "COP1") || at(0, "COP2")) return FileKind::EthosU;
  return FileKind::Unknown;
}

std::pair<std::string, std::string> splitNamedInput(const std::string& argument) {
  auto eq = argument.find('=');
  if (eq == std::string::npos || eq == 0) return {"", argument};
  std::error_code ec;
  if (std::filesystem::exists(argument, ec)) return {"", argument};
  return {argument.substr(0, eq), argument.substr(eq + 1)};
}

Result<std::vector<std::string>> bindInputPaths(const RunOptions& options, const std::vector<std::string>& names) {
  auto listNames = [&]() {
    std::string text;
    for (const std::string& n : names) text += fmt::format("{}'{}'", text.empty() ? "" : ", ", n);
    return text;
  };
  if (options.inputs.size() != names.size()) {
    return invalidInput("{}: --input: expected {} input(s) ({}), got {}", options.path, names.size(), listNames(),
                        options.inputs.size());
  }
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
  std::size_t next = 0;
  for (const auto& [name, path] : args) {
    if (!name.empty()) continue;
    while (!paths[next].empty()) ++next;
    paths[next] = path;
  }
  return paths;
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
