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
#include "converter/lower_vgf.h"
#include "runner/check.h"
#include "runner/context.h"
#include "runner/profile.h"
#include "runner/session.h"
#include "tosa/npy.h"
#include "tosa/reader.h"
#include "vgf/decoder.h"

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

// Reads every --input, converted to the type and shape of the model input it binds to.
Result<std::vector<tosa::HostTensor>> readGraphInputs(const RunOptions& options, const runner::Model& model) {
  const std::vector<runner::TensorInfo>& expected = model.inputs();
  std::vector<std::string> names;
  for (const runner::TensorInfo& t : expected) names.push_back(t.name);
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::string> paths, bindInputPaths(options, names));
  std::vector<tosa::HostTensor> tensors;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    Result<tosa::HostTensor> tensor = tosa::npy::readTensor(paths[i], expected[i].dtype, expected[i].shape);
    if (!tensor) return Unexpected(std::move(tensor).error().addContext(fmt::format("input '{}'", expected[i].name)));
    tensors.push_back(std::move(*tensor));
  }
  return tensors;
}

// A VGF with GRAPH segments, lowered for the shapes of the given input arrays; with --check and
// no file, also the TOSA graph it carries as the reference.
struct PreparedGraphVgf {
  std::vector<std::uint8_t> lowered;
  std::vector<bool> unsignedOutputs;
  std::optional<tosa::Graph> reference;
};

Result<PreparedGraphVgf> prepareGraphVgf(const RunOptions& options, std::span<const std::uint8_t> bytes, const vgf::File& file) {
  std::vector<std::string> names;
  for (const vgf::BindingSlot& slot : file.inputs) names.push_back(converter::resourceTensorName(file, slot.mrtIndex));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::string> paths, bindInputPaths(options, names));
  std::vector<tosa::Shape> shapes;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    Result<tosa::npy::Array> array = tosa::npy::readFile(paths[i]);
    if (!array) return Unexpected(std::move(array).error().addContext(fmt::format("input '{}'", names[i])));
    shapes.push_back(array->shape);
  }
  OPENVGF_ASSIGN_OR_RETURN(converter::KnownShapes known, converter::modelInputShapes(file, shapes, options.path));
  PreparedGraphVgf out;
  if (options.checkSelf) {
    OPENVGF_ASSIGN_OR_RETURN(converter::GraphRun run, converter::decodeGraphModel(file, known, options.path));
    out.reference = std::move(run.graph);
  }
  converter::LowerOptions lowerOptions;
  lowerOptions.convert.target = options.target;
  OPENVGF_ASSIGN_OR_RETURN(converter::LoweredModel model,
                           converter::lowerGraphSegments(bytes, file, known, options.path, lowerOptions));
  if (model.cacheHit) {
    spdlog::info("{}: lowered VGF from the cache ({})", options.path, model.cacheFile.string());
  } else {
    spdlog::info("{}: lowered {} GRAPH segment run(s) into {} COMPUTE segments", options.path, model.graphRuns, model.kernels);
  }
  out.lowered = std::move(model.vgf);
  out.unsignedOutputs = converter::unsignedOutputs(file);
  return out;
}

Result<int> runGraphVgf(const RunOptions& options, std::span<const std::uint8_t> bytes) {
  Result<vgf::File> decoded = withContext(vgf::decode(bytes), options.path);
  if (!decoded) return Unexpected(std::move(decoded).error());
  PreparedGraphVgf graphVgf;
  if (converter::hasGraphSegments(*decoded)) {
    OPENVGF_ASSIGN_OR_RETURN(graphVgf, prepareGraphVgf(options, bytes, *decoded));
    decoded = withContext(vgf::decode(graphVgf.lowered), options.path);
    if (!decoded) return Unexpected(std::move(decoded).error());
  } else if (options.checkSelf) {
    return invalidInput("{}: --check: expected MODEL.tosa for a VGF of COMPUTE segments (it carries no TOSA graph)",
                        options.path);
  }
  OPENVGF_ASSIGN_OR_RETURN(runner::Model model, runner::Model::create(*decoded, options.path));
  if (!options.output.empty() && model.outputs().size() != 1) {
    return invalidInput("{}: --output: expected a model with one output, got {}; use --output-dir DIR", options.path,
                        model.outputs().size());
  }
  OPENVGF_ASSIGN_OR_RETURN(std::vector<tosa::HostTensor> inputs, readGraphInputs(options, model));
  std::optional<tosa::Graph> reference = std::move(graphVgf.reference);
  if (!options.check.empty()) {
    OPENVGF_ASSIGN_OR_RETURN(reference, tosa::readGraph(std::filesystem::path(options.check)));
  }
  std::vector<const tosa::HostTensor*> ordered;
  for (const tosa::HostTensor& t : inputs) ordered.push_back(&t);

  runner::ContextOptions contextOptions;
  contextOptions.validate = options.validate;
  contextOptions.device = options.device;
  contextOptions.pipelineCache = !options.noPipelineCache;
  OPENVGF_ASSIGN_OR_RETURN(std::unique_ptr<runner::Context> context, runner::Context::create(contextOptions, model));
  spdlog::info("device: {}", context->device().snapshot().name);
  runner::SessionOptions sessionOptions;
  sessionOptions.profile = !options.profile.empty();
  OPENVGF_ASSIGN_OR_RETURN(runner::Session session, runner::Session::create(*context, model, sessionOptions));
  if (Status saved = context->savePipelineCache(); !saved) {
    spdlog::warn("pipeline cache not saved: {}", saved.error().message());
  }

  runner::ProfileRecorder recorder(session.segmentNames());
  std::vector<tosa::HostTensor> outputs;
  std::vector<double> latencies;
  for (int i = 0; i < std::max(1, options.repeat); ++i) {
    OPENVGF_TRY(session.run(ordered, outputs));
    latencies.push_back(session.lastTiming().hostMs);
    if (sessionOptions.profile) recorder.add(session.lastTiming());
  }

  auto isUnsigned = [&](std::size_t i) { return i < graphVgf.unsignedOutputs.size() && graphVgf.unsignedOutputs[i]; };
  if (!options.output.empty()) {
    OPENVGF_TRY(tosa::npy::writeTensor(options.output, outputs[0], isUnsigned(0)));
  } else if (!options.outputDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.outputDir, ec);
    if (ec) return environmentError("{}: cannot create the output directory: {}", options.outputDir, ec.message());
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      std::filesystem::path path =
          std::filesystem::path(options.outputDir) / (sanitizeFileName(session.outputs()[i].name) + ".npy");
      OPENVGF_TRY(tosa::npy::writeTensor(path, outputs[i], isUnsigned(i)));
    }
  }
  if (sessionOptions.profile) {
    OPENVGF_TRY(writeFileAtomic(options.profile, recorder.chromeTrace()));
    std::string summary = recorder.summary();
    std::fwrite(summary.data(), 1, summary.size(), stderr);
  }
  int exitCode = 0;
  if (reference) {
    std::vector<std::string> inputNames, outputNames;
    for (const runner::TensorInfo& t : model.inputs()) inputNames.push_back(t.name);
    for (const runner::TensorInfo& t : model.outputs()) outputNames.push_back(t.name);
    auto checks = runner::checkAgainstReference(*reference, inputNames, inputs, outputNames, outputs);
    if (!checks) return Unexpected(std::move(checks).error().addContext(options.checkSelf ? options.path : options.check));
    for (const runner::OutputCheck& c : *checks) {
      std::printf("%s\n", runner::formatCheck(c).c_str());
      if (!c.verdict.pass) exitCode = 1;
    }
    std::printf("check: %s\n", exitCode == 0 ? "PASS" : "FAIL");
  }
  if (latencies.size() > 1) {
    std::printf("%s: %zu runs on %s: min %.3f ms, median %.3f ms\n", options.path.c_str(), latencies.size(),
                context->device().snapshot().name.c_str(), *std::min_element(latencies.begin(), latencies.end()),
                median(latencies));
  }
  return exitCode;
}

// A VGF with GRAPH segments is lowered for the shapes of its input arrays.
Result<int> runVgf(const RunOptions& options, std::span<const std::uint8_t> bytes) {
  Result<vgf::File> decoded = withContext(vgf::decode(bytes), options.path);
  if (!decoded) return Unexpected(std::move(decoded).error());
  if (converter::hasGraphSegments(*decoded)) return runGraphVgf(options, bytes);
  if (options.checkSelf) {
    return invalidInput("{}: --check: expected MODEL.tosa for a VGF of COMPUTE segments (it carries no TOSA graph)",
                        options.path);
  }
  return runModel(options, bytes);
}

OPENVGF_REGISTER_RUN(FileKind::Vgf, runVgf);
OPENVGF_REGISTER_RUN(FileKind::Tosa, runModel);

}  // namespace
}  // namespace openvgf::cli
