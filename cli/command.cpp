// SPDX-License-Identifier: Apache-2.0
#include "command.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

CLI::Validator atLeast(double minimum, bool whole, bool above) {
  const std::string range =
      fmt::format("{} {} {}", whole ? "a whole number" : "a number", above ? "above" : "of at least", minimum);
  return CLI::Validator(
      [range, minimum, whole, above](std::string& text) -> std::string {
        double value = 0;
        std::size_t used = 0;
        try {
          value = std::stod(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        const bool ok = used == text.size() && !text.empty() && (above ? value > minimum : value >= minimum) && (!whole || value == std::floor(value));
        return ok ? "" : fmt::format("expected {}, got '{}'", range, text);
      },
      fmt::format("{} {} {}", whole ? "INT" : "NUMBER", above ? ">" : ">=", minimum));
}

CLI::Validator oneOf(std::vector<std::string> choices) {
  const std::string listed = fmt::format("{}", fmt::join(choices, "|"));
  return CLI::Validator(
      [choices](std::string& text) -> std::string {
        if (std::find(choices.begin(), choices.end(), text) != choices.end()) return "";
        std::string expected;
        for (std::size_t i = 0; i < choices.size(); ++i) {
          expected += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
        }
        return fmt::format("expected {}, got '{}'{}", expected, text, didYouMean(text, choices));
      },
      listed);
}

std::string sizeText(std::uint64_t bytes) {
  if (bytes < 1000) return fmt::format("{} byte{}", bytes, bytes == 1 ? "" : "s");
  const char* units[] = {"kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes) / 1000;
  std::size_t unit = 0;
  while (value >= 999.95 && unit + 1 < std::size(units)) {
    value /= 1000;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, units[unit]);
}

namespace {

// "FP32 (1, 4, 4, 4): min -1.5, max 2, mean 0.25; first 8 of 64: 0.5 1 ..." of one output;
// an output the model declares unsigned is shown as UINT8/16/32 with its unsigned values.
std::string previewOf(const TensorInfo& info, const Tensor& tensor) {
  const std::string type = toString(tensor.dtype());
  const bool asUnsigned = info.isUnsigned && type.starts_with("INT");
  return fmt::format("{}{} ({}{}): {}", asUnsigned ? "U" : "", type, fmt::join(tensor.shape(), ", "),
                     tensor.shape().size() == 1 ? "," : "", summarizeValues(tensor, asUnsigned));
}

}  // namespace

void reportOutputs(const std::vector<TensorInfo>& infos, const std::vector<Tensor>& outputs,
                   const std::vector<std::string>& files) {
  if (quiet()) return;
  bool written = false;
  for (std::size_t i = 0; i < outputs.size() && i < infos.size(); ++i) {
    const std::string file = i < files.size() ? files[i] : "";
    written = written || !file.empty();
    const std::string preview = previewOf(infos[i], outputs[i]);
    if (file.empty()) {
      fmt::print("output '{}': {}\n", infos[i].name, preview);
    } else {
      std::error_code ec;
      const std::uintmax_t bytes = std::filesystem::file_size(file, ec);
      fmt::print("wrote {} ({}): output '{}' {}\n", file, ec ? std::string("?") : sizeText(bytes), infos[i].name, preview);
    }
  }
  if (!written) fmt::print("outputs not written: add -o FILE.npy (one output) or --output-dir DIR\n");
}

std::vector<std::string> outputPaths(const RunOptions& options, const Model& model) {
  if (!options.output.empty()) return {options.output};
  if (options.outputDir.empty()) return {};
  std::vector<std::string> names;
  for (const TensorInfo& out : model.outputs()) {
    if (!out.intermediate) names.push_back(out.name);  // run --dump writes the intermediates apart
  }
  std::vector<std::string> paths;
  for (const std::filesystem::path& file : outputFiles(options.path, options.outputDir, names)) paths.push_back(file.string());
  return paths;
}

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

double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  return n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
}

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace openvgf::cli
