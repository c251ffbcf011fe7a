// SPDX-License-Identifier: Apache-2.0
// `openvgf run model.vgf`: the VGF handler of `run`. Reads the .npy inputs (by name or in
// order), runs the model on a Vulkan device through runner::Session, writes the outputs,
// and optionally repeats (min/median latency), profiles (Chrome trace + summary) and checks
// the outputs against the reference interpreter on a .tosa (--check; exit 1 on failure).
// A VGF with GRAPH segments (Arm's encoding) is lowered to COMPUTE segments first (cached,
// converter/lower_vgf.h); `--check` without a file then checks against the graph it carries.
// Bad input is rejected before any device is touched.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cli/command.h"
#include "common/file_io.h"
#include "converter/lower_vgf.h"
#include "runner/check.h"
#include "runner/context.h"
#include "runner/model.h"
#include "runner/profile.h"
#include "runner/session.h"
#include "tosa/npy.h"
#include "tosa/reader.h"
#include "vgf/decoder.h"

namespace openvgf::cli {
namespace {

// Reads every --input, converted to the type and shape of the model input it binds to.
Result<std::vector<tosa::HostTensor>> readInputs(const RunOptions& options, const runner::Model& model) {
  const std::vector<runner::TensorInfo>& expected = model.inputs();
  std::vector<std::string> names;
  for (const runner::TensorInfo& t : expected) names.push_back(t.name);
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::string> paths, bindInputPaths(options, names));
  std::vector<tosa::HostTensor> tensors;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    Result<tosa::HostTensor> tensor = tosa::npy::readTensor(paths[i], expected[i].dtype, expected[i].shape);
    if (!tensor) return Unexpected(std::move(tensor).error().addContext(fmt::format("{}: input '{}'", options.path, expected[i].name)));
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

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

Result<int> runVgf(const RunOptions& options, std::span<const std::uint8_t> bytes) {
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
  OPENVGF_ASSIGN_OR_RETURN(std::vector<tosa::HostTensor> inputs, readInputs(options, model));
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

OPENVGF_REGISTER_RUN(FileKind::Vgf, runVgf);

}  // namespace
}  // namespace openvgf::cli
