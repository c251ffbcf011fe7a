// SPDX-License-Identifier: Apache-2.0
// `openvgf reference MODEL.tosa --input [NAME=]FILE.npy ... [--output FILE.npy | --output-dir DIR]`:
// runs the CPU reference interpreter on a .tosa graph, prints a short summary of each output
// and writes the outputs as .npy files. With --precise, floating-point outputs are computed
// in fp64 and written as float64 (the reference of TOSA's compliance checks).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "command.h"
#include "openvgf/openvgf.hpp"

namespace openvgf::cli {
namespace {

struct ReferenceArgs {
  std::string model;
  std::vector<std::string> inputs;
  std::string output;
  std::string outputDir;
  bool precise = false;
  bool strict = false;
  bool dynamic = false;
};

// Reads each input's file (bound by name or in the graph's input order) as the type and shape
// of the graph input it binds to.
std::vector<NamedTensor> readInputs(const ReferenceArgs& options, const ReferenceModel& model) {
  std::vector<std::string> names, files;
  for (const std::string& argument : options.inputs) {
    auto [name, file] = splitNamedInput(argument);
    names.push_back(std::move(name));
    files.push_back(std::move(file));
  }
  const std::vector<int> binding = model.bindInputs(names, options.model + ": --input");
  std::vector<NamedTensor> tensors;
  for (std::size_t i = 0; i < binding.size(); ++i) {
    const TensorInfo& info = model.inputs()[i];
    tensors.push_back({info.name, NpyArray::read(files[static_cast<std::size_t>(binding[i])]).toTensor(info)});
  }
  return tensors;
}

std::string preview(const Tensor& value) {
  const std::vector<double> values = toDoubles(value);
  constexpr std::size_t kShown = 8;
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < values.size() && i < kShown; ++i) shown.push_back(fmt::format("{:.6g}", values[i]));
  if (values.size() > kShown) shown.push_back("...");
  return fmt::format("[{}]", fmt::join(shown, ", "));
}

int runReference(const ReferenceArgs& options) {
  if (!options.output.empty() && !options.outputDir.empty()) {
    fail(ErrorCode::InvalidInput, "--output and --output-dir are mutually exclusive");
  }
  if (!options.output.empty()) checkWritableFile(options.output, "--output");
  if (!options.outputDir.empty()) checkWritableFolder(options.outputDir, "--output-dir");
  const ReferenceModel model = ReferenceModel::open(options.model, options.dynamic);
  const std::vector<NamedTensor> inputs = readInputs(options, model);
  openvgf::ReferenceOptions run;
  run.precise = options.precise;
  run.strict = options.strict;
  run.onWarning = [](const std::string& warning) { spdlog::warn("{}", warning); };
  const std::vector<NamedTensor> outputs = model.run(inputs, run);
  for (std::size_t i = 0; i < outputs.size() && !quiet(); ++i) {
    const Tensor& value = outputs[i].tensor;
    fmt::print("{} {} [{}] {}\n", outputs[i].name, toString(model.outputs()[i].dtype), fmt::join(value.shape(), ","),
               preview(value));
  }
  if (!options.output.empty()) {
    if (outputs.size() != 1) {
      fail(ErrorCode::InvalidInput, fmt::format("{}: --output: the graph has {} outputs; use --output-dir DIR to write "
                                                "each as DIR/<name>.npy", options.model, outputs.size()));
    }
    writeNpy(options.output, outputs[0].tensor);
  }
  if (!options.outputDir.empty()) {
    std::vector<std::string> names;
    for (const NamedTensor& out : outputs) names.push_back(out.name);
    const std::vector<std::filesystem::path> files = (outputFiles(options.model, options.outputDir, names));
    std::error_code ec;
    std::filesystem::create_directories(options.outputDir, ec);
    if (ec) {
      fail(ErrorCode::Environment, fmt::format("{}: cannot create the output directory: {}", options.outputDir, ec.message()));
    }
    for (std::size_t i = 0; i < files.size(); ++i) writeNpy(files[i].string(), outputs[i].tensor);
  }
  return 0;
}

void setup(CLI::App& sub, Action& action) {
  auto options = std::make_shared<ReferenceArgs>();
  sub.add_option("model", options->model, "A .tosa file")->required();
  sub.add_option("-i,--input", options->inputs, "[NAME=]FILE.npy; without NAME inputs bind in the graph's input order");
  sub.add_option("-o,--output", options->output, "Write the (single) output to FILE.npy");
  sub.add_option("--output-dir", options->outputDir, "Write each output as DIR/<output name>.npy");
  sub.add_flag("--precise", options->precise,
               "Compute floating-point operators in fp64 and write float outputs as float64");
  sub.add_flag("--strict", options->strict, "Fail on the first REQUIRE violation instead of warning");
  sub.add_flag("--dynamic", options->dynamic,
               "EXT-DYNAMIC: accept computed values where the spec requires compile-time constants");
  action = [options]() -> int { return runReference(*options); };
}

OPENVGF_REGISTER_COMMAND({"reference", "Run a .tosa graph on the CPU reference interpreter", 35, setup});

}  // namespace
}  // namespace openvgf::cli
