// SPDX-License-Identifier: Apache-2.0
// `openvgf run model.ethosu` and `openvgf run program.pte` for Ethos-U delegates, on the
// installed API only: the model runs in the functional simulator; with --check model.tosa the
// outputs are compared bit for bit with the TOSA reference interpreter. Every message names
// the file (and the delegate).
#include "run_ethosu.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace openvgf::cli {
namespace {

// Without --check the stream's inputs have no names: the --input values bind in order, and
// the messages count them '#0', '#1', ... as a user does.
void checkUnnamedInputs(const std::string& source, const std::size_t declared, const std::vector<std::string>& names,
                        const std::vector<NpyArray>& arrays) {
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (!names[k].empty()) {
      fail(ErrorCode::InvalidInput, fmt::format("--input {}={}: named inputs need --check MODEL.tosa to know the names",
                                                names[k], arrays[k].path()));
    }
  }
  if (arrays.size() == declared) return;
  std::vector<std::string> quoted;
  for (std::size_t i = 0; i < declared; ++i) quoted.push_back(fmt::format("'#{}'", i));
  fail(ErrorCode::InvalidInput,
       fmt::format("{}: --input: expected {} input{} ({}), got {}{}", source, declared, declared == 1 ? "" : "s",
                   fmt::join(quoted, ", "), arrays.size(),
                   arrays.size() < declared ? fmt::format(" (no value for '#{}')", arrays.size()) : ""));
}

// The --output-dir files, one per output (none without --output-dir); refused before the run
// when two outputs would share one.
std::vector<std::filesystem::path> outputDirFiles(const RunOptions& options, const Model& model) {
  if (options.outputDir.empty()) return {};
  std::vector<std::string> names;
  for (const TensorInfo& out : model.outputs()) names.push_back(out.name);
  return (outputFiles(options.path, options.outputDir, names));
}

void writeOutputs(const RunOptions& options, const std::vector<std::filesystem::path>& files,
                  const std::vector<Tensor>& outputs) {
  if (!options.output.empty()) writeNpy(options.output, outputs[0]);
  if (options.outputDir.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(options.outputDir, ec);
  if (ec) fail(ErrorCode::Environment, fmt::format("{}: cannot create directory: {}", options.outputDir, ec.message()));
  for (std::size_t i = 0; i < outputs.size(); ++i) writeNpy(files[i].string(), outputs[i]);
}

}  // namespace

int runEthosU(const RunOptions& options, const Model& model, const std::vector<std::string>& names,
              const std::vector<NpyArray>& arrays) {
  const std::string& source = model.source();
  if (options.repeat != 1 || !options.profile.empty()) {
    fail(ErrorCode::InvalidInput, fmt::format("{}: --repeat, --profile, --device and --pipeline-stats apply to Vulkan "
                                              "models, not to the Ethos-U simulator",
                                              source));
  }
  if (!options.output.empty() && model.outputs().size() != 1) {
    fail(ErrorCode::InvalidInput, fmt::format("{}: --output: expected a model with one output, got {}; use "
                                              "--output-dir DIR",
                                              source, model.outputs().size()));
  }
  // Inputs bind by name (the names --check's graph gives them) or in order.
  std::vector<int> binding;
  if (options.check.empty()) {
    checkUnnamedInputs(source, model.inputs().size(), names, arrays);
    for (std::size_t i = 0; i < arrays.size(); ++i) binding.push_back(static_cast<int>(i));
  } else {
    binding = model.bindInputs(names, source + ": --input");
  }
  std::map<std::string, Tensor> inputs;
  for (std::size_t i = 0; i < binding.size(); ++i) {
    const TensorInfo& info = model.inputs()[i];
    // Any shape with the input's element count: the stream does not record the rank.
    inputs[info.name] = arrays[static_cast<std::size_t>(binding[i])].toTensor(
        info.dtype, fmt::format("{}: input '{}'", source, info.name));
  }
  const std::vector<std::filesystem::path> files = outputDirFiles(options, model);
  Session session = model.createSession();
  const std::vector<Tensor> outputs = session.runNamed(inputs);
  if (!quiet()) {
    const Profile profile = session.profile();
    fmt::print("{}: ran {} NPU operations ({} MACs) in the Ethos-U simulator\n", source, profile.npuOperations,
               profile.macs);
  }
  writeOutputs(options, files, outputs);
  reportOutputs(model.outputs(), outputs, outputPaths(options, model));
  if (options.check.empty()) return 0;
  const CheckReport report = session.check(inputs, outputs);
  for (const OutputCheck& c : report.outputs) fmt::print("{}\n", c.line);
  fmt::print("check: {}\n", report.pass ? "PASS (bit-exact with the TOSA reference)" : "FAIL");
  return report.pass ? 0 : 1;
}

}  // namespace openvgf::cli
