// SPDX-License-Identifier: Apache-2.0
// `openvgf run model.{vgf,tosa,pte}`: the Vulkan handler of `run`. Opens the model through
// api::LoadedModel (a .tosa is converted and cached, a .pte runs its VgfBackend delegate),
// reads the .npy inputs (by name or in order; `state:` inputs of a .tosa default to the
// variables' initial values), runs it on a Vulkan device, writes the outputs, and optionally
// repeats (min/median latency), profiles (Chrome trace + summary) and checks the outputs
// against the reference interpreter on a .tosa (--check; exit 1 on failure). Bad input is
// rejected before any device is touched.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "api/check.h"
#include "api/model.h"
#include "cli/command.h"
#include "common/file_io.h"
#include "runner/profile.h"
#include "tosa/npy.h"
#include "tosa/reader.h"

namespace openvgf::cli {
namespace {

// Reads every --input, converted to the type and shape of the model input it binds to.
// Inputs with a default (the initial value of a `state:` input) may be left out.
Result<std::vector<tosa::HostTensor>> readInputs(const RunOptions& options, const api::LoadedModel& loaded) {
  const std::vector<runner::TensorInfo>& expected = loaded.model().inputs();
  auto names = [&] {
    std::string text;
    for (const runner::TensorInfo& t : expected) text += fmt::format("{}'{}'", text.empty() ? "" : ", ", t.name);
    return text;
  };
  std::vector<std::string> paths(expected.size());
  std::vector<std::pair<std::string, std::string>> args;
  for (const std::string& argument : options.inputs) args.push_back(splitNamedInput(argument));
  for (const auto& [name, path] : args) {
    if (name.empty()) continue;
    std::optional<std::size_t> index = loaded.model().findInput(name);
    if (!index) {
      return invalidInput("{}: --input {}={}: expected an input name of the model ({}), got '{}'", options.path, name,
                          path, names(), name);
    }
    if (!paths[*index].empty()) {
      return invalidInput("{}: --input {}: expected one file per input, got '{}' twice", options.path, name, name);
    }
    paths[*index] = path;
  }
  // Inputs not named that have a default keep it when fewer files than inputs are given.
  std::vector<bool> defaulted(expected.size(), false);
  std::size_t given = options.inputs.size();
  for (std::size_t i = 0; i < expected.size() && given < expected.size(); ++i) {
    if (paths[i].empty() && loaded.defaultInputs().count(expected[i].name) != 0) {
      defaulted[i] = true;
      ++given;
    }
  }
  if (given != expected.size()) {
    bool state = false;
    for (std::size_t i = 0; i < expected.size(); ++i) state = state || expected[i].name.starts_with("state:");
    return invalidInput("{}: --input: expected {} input(s) ({}), got {}{}", options.path, expected.size(), names(),
                        options.inputs.size(),
                        state && loaded.defaultInputs().empty()
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
  std::vector<tosa::HostTensor> tensors;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (defaulted[i]) {
      tensors.push_back(loaded.defaultInputs().at(expected[i].name));
      continue;
    }
    Result<tosa::HostTensor> tensor = tosa::npy::readTensor(paths[i], expected[i].dtype, expected[i].shape);
    if (!tensor) return Unexpected(std::move(tensor).error().addContext(fmt::format("input '{}'", expected[i].name)));
    tensors.push_back(std::move(*tensor));
  }
  return tensors;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

Result<int> runModel(const RunOptions& options, std::span<const std::uint8_t>) {
  api::LoadOptions load;
  load.target = options.target;
  load.plan = options.plan;
  OPENVGF_ASSIGN_OR_RETURN(api::LoadedModel loaded, api::LoadedModel::load(options.path, load));
  const runner::Model& model = loaded.model();
  if (!options.output.empty() && model.outputs().size() != 1) {
    return invalidInput("{}: --output: expected a model with one output, got {}; use --output-dir DIR", options.path,
                        model.outputs().size());
  }
  std::optional<tosa::Graph> reference;
  if (!options.check.empty()) {
    OPENVGF_ASSIGN_OR_RETURN(reference, tosa::readGraph(std::filesystem::path(options.check)));
    loaded.addInitialStates(*reference);
  }
  OPENVGF_ASSIGN_OR_RETURN(std::vector<tosa::HostTensor> inputs, readInputs(options, loaded));
  std::vector<const tosa::HostTensor*> ordered;
  for (const tosa::HostTensor& t : inputs) ordered.push_back(&t);

  api::DeviceOptions device;
  device.validate = options.validate;
  device.device = options.device;
  device.pipelineCache = !options.noPipelineCache;
  OPENVGF_ASSIGN_OR_RETURN(std::unique_ptr<api::Model> runnable, api::Model::create(std::move(loaded), device));
  spdlog::info("device: {}", runnable->deviceName());
  runner::SessionOptions sessionOptions;
  sessionOptions.profile = !options.profile.empty();
  OPENVGF_ASSIGN_OR_RETURN(runner::Session session, runnable->createSession(sessionOptions));

  runner::ProfileRecorder recorder(session.segmentNames());
  std::vector<tosa::HostTensor> outputs;
  std::vector<double> latencies;
  for (int i = 0; i < std::max(1, options.repeat); ++i) {
    OPENVGF_TRY(session.run(ordered, outputs));
    latencies.push_back(session.lastTiming().hostMs);
    if (sessionOptions.profile) recorder.add(session.lastTiming());
  }

  if (!options.output.empty()) {
    OPENVGF_TRY(tosa::npy::writeTensor(options.output, outputs[0]));
  } else if (!options.outputDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.outputDir, ec);
    if (ec) return environmentError("{}: cannot create the output directory: {}", options.outputDir, ec.message());
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      std::filesystem::path path =
          std::filesystem::path(options.outputDir) / (sanitizeFileName(session.outputs()[i].name) + ".npy");
      OPENVGF_TRY(tosa::npy::writeTensor(path, outputs[i]));
    }
  }
  if (sessionOptions.profile) {
    OPENVGF_TRY(writeFileAtomic(options.profile, recorder.chromeTrace()));
    std::string summary = recorder.summary();
    if (!quiet()) std::fwrite(summary.data(), 1, summary.size(), stderr);
  }
  int exitCode = 0;
  if (reference) {
    OPENVGF_ASSIGN_OR_RETURN(std::vector<runner::OutputCheck> checks,
                             api::checkOutputs(*reference, options.check, runnable->model().inputs(), inputs,
                                               runnable->model().outputs(), outputs));
    for (const runner::OutputCheck& c : checks) {
      if (!c.verdict.pass || !quiet()) std::printf("%s\n", runner::formatCheck(c).c_str());
      if (!c.verdict.pass) exitCode = 1;
    }
    if (exitCode != 0 || !quiet()) std::printf("check: %s\n", exitCode == 0 ? "PASS" : "FAIL");
  }
  if (latencies.size() > 1 && !quiet()) {
    std::printf("%s: %zu runs on %s: min %.3f ms, median %.3f ms\n", options.path.c_str(), latencies.size(),
                runnable->deviceName().c_str(), *std::min_element(latencies.begin(), latencies.end()),
                median(latencies));
  }
  return exitCode;
}

OPENVGF_REGISTER_RUN(FileKind::Vgf, runModel);
OPENVGF_REGISTER_RUN(FileKind::Tosa, runModel);
OPENVGF_REGISTER_RUN(FileKind::Pte, runModel);

}  // namespace
}  // namespace openvgf::cli
