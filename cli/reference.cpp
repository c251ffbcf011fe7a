// SPDX-License-Identifier: Apache-2.0
// `openvgf reference MODEL.tosa --input [NAME=]FILE.npy ... [--output FILE.npy | --output-dir DIR]`:
// runs the CPU reference interpreter on a .tosa graph, prints a short summary of each output
// and writes the outputs as .npy files. With --precise, floating-point outputs are computed
// in fp64 and written as float64 (the reference of TOSA's compliance checks).
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "api/reference.h"
#include "cli/command.h"
#include "common/file_io.h"
#include "tosa/npy.h"
#include "tosa/reference/reference.h"

namespace openvgf::cli {
namespace {

struct ReferenceOptions {
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
Result<std::vector<tosa::HostTensor>> readInputs(const ReferenceOptions& options, const tosa::Block& main) {
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::string> files, bindInputPaths(options.model, options.inputs, main.inputs));
  std::vector<tosa::HostTensor> tensors;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const tosa::Tensor* t = main.findTensor(main.inputs[i]);
    if (t == nullptr) {
      return invalidInput("{}: input '{}': expected a tensor declared in the main block", options.model, main.inputs[i]);
    }
    OPENVGF_ASSIGN_OR_RETURN(tosa::HostTensor tensor, t->isUnranked ? tosa::npy::readTensor(files[i], t->dtype)
                                                                     : tosa::npy::readTensor(files[i], t->dtype, t->shape));
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

std::string preview(const tosa::reference::OutputValue& out) {
  auto values = tosa::compliance::toDoubles(out.value);
  if (!values) return "";
  constexpr std::size_t kShown = 8;
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < values->size() && i < kShown; ++i) shown.push_back(fmt::format("{:.6g}", (*values)[i]));
  if (values->size() > kShown) shown.push_back("...");
  return fmt::format("[{}]", fmt::join(shown, ", "));
}

Status writeOutput(const std::filesystem::path& path, const tosa::reference::OutputValue& out, bool precise) {
  if (precise && !out.precise.empty()) {
    tosa::npy::Array array;
    array.dtype = tosa::npy::DataType::Float64;
    array.shape = out.value.shape;
    array.data.resize(out.precise.size() * sizeof(double));
    std::memcpy(array.data.data(), out.precise.data(), array.data.size());
    return tosa::npy::writeFile(path, array);
  }
  return tosa::npy::writeTensor(path, out.value);
}

Result<int> runReference(const ReferenceOptions& options) {
  if (!options.output.empty() && !options.outputDir.empty()) {
    return invalidInput("--output and --output-dir are mutually exclusive");
  }
  if (!options.output.empty()) OPENVGF_TRY(checkOutputPath(options.output, "--output"));
  if (!options.outputDir.empty()) OPENVGF_TRY(checkOutputFolder(options.outputDir, "--output-dir"));
  OPENVGF_ASSIGN_OR_RETURN(tosa::Graph graph, api::readVerifiedGraph(options.model, options.dynamic));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<tosa::HostTensor> inputs, readInputs(options, *graph.mainBlock()));
  tosa::reference::RunOptions runOptions;
  runOptions.precise = options.precise;
  runOptions.strict = options.strict;
  Result<tosa::reference::RunResult> result = api::runReference(graph, options.model, inputs, runOptions);
  if (!result) return Unexpected(std::move(result).error());
  for (const auto& d : result->diagnostics) {
    spdlog::warn("{}: unpredictable result (REQUIRE failed): {}", options.model, tosa::reference::toString(d));
  }
  for (const auto& out : result->outputs) {
    if (quiet()) break;
    fmt::print("{} {} {} {}\n", out.name, tosa::toString(out.value.dtype), tosa::shapeToString(out.value.shape),
               preview(out));
  }
  if (!options.output.empty()) {
    if (result->outputs.size() != 1) {
      return invalidInput("{}: --output: the graph has {} outputs; use --output-dir DIR to write each as "
                          "DIR/<name>.npy",
                          options.model, result->outputs.size());
    }
    OPENVGF_TRY(writeOutput(options.output, result->outputs[0], options.precise));
  }
  if (!options.outputDir.empty()) {
    std::vector<std::string> names;
    for (const auto& out : result->outputs) names.push_back(out.name);
    OPENVGF_ASSIGN_OR_RETURN(std::vector<std::filesystem::path> files, outputFiles(options.model, options.outputDir, names));
    std::error_code ec;
    std::filesystem::create_directories(options.outputDir, ec);
    if (ec) return environmentError("{}: cannot create the output directory: {}", options.outputDir, ec.message());
    for (std::size_t i = 0; i < files.size(); ++i) OPENVGF_TRY(writeOutput(files[i], result->outputs[i], options.precise));
  }
  return 0;
}

void setup(CLI::App& sub, Action& action) {
  auto options = std::make_shared<ReferenceOptions>();
  sub.add_option("model", options->model, "A .tosa file")->required();
  sub.add_option("-i,--input", options->inputs, "[NAME=]FILE.npy; without NAME inputs bind in the graph's input order");
  sub.add_option("-o,--output", options->output, "Write the (single) output to FILE.npy");
  sub.add_option("--output-dir", options->outputDir, "Write each output as DIR/<output name>.npy");
  sub.add_flag("--precise", options->precise,
               "Compute floating-point operators in fp64 and write float outputs as float64");
  sub.add_flag("--strict", options->strict, "Fail on the first REQUIRE violation instead of warning");
  sub.add_flag("--dynamic", options->dynamic,
               "EXT-DYNAMIC: accept computed values where the spec requires compile-time constants");
  action = [options]() { return runReference(*options); };
}

OPENVGF_REGISTER_COMMAND({"reference", "Run a .tosa graph on the CPU reference interpreter", 35, setup});

}  // namespace
}  // namespace openvgf::cli
