// SPDX-License-Identifier: Apache-2.0
// `openvgf run model.{tosa,vgf,pte}`: the Vulkan handler of `run`. Argument handling and
// printing around the api: api::LoadedModel opens the model (a .tosa is converted, GRAPH
// segments are lowered for the input arrays' shapes, a .pte's VgfBackend delegates become the
// parts of its plan; all cached), the .npy inputs bind by name or in order (`state:` inputs
// of a .tosa default to the variables' initial values), api::Session runs it, the outputs
// are written, and optionally the run is repeated (min/median latency), profiled (Chrome
// trace + summary) and checked against the reference interpreter (--check MODEL.tosa, or
// without a file on the graph the model carries; exit 1 on failure). Bad input is rejected
// before any device is touched.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "api/check.h"
#include "api/devices.h"
#include "api/model.h"
#include "api/session.h"
#include "cli/command.h"
#include "cli/run_ethosu.h"
#include "common/file_io.h"
#include "pte/program.h"
#include "runner/check.h"
#include "runner/profile.h"
#include "tosa/npy.h"
#include "tosa/reader.h"

namespace openvgf::cli {
namespace {

// Reads every --input, converted to the type and shape of the model input it binds to.
// Inputs with a default (the initial value of a `state:` input) may be left out.
Result<std::vector<tosa::HostTensor>> readInputs(const RunOptions& options, const api::LoadedModel& loaded) {
  const std::vector<runner::TensorInfo>& expected = loaded.inputs();
  std::vector<std::string> names;
  for (const runner::TensorInfo& t : expected) names.push_back(t.name);
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::string> paths,
                           bindInputPaths(options.path, options.inputs, names, loaded.defaultInputs()));
  std::vector<tosa::HostTensor> tensors;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    if (paths[i].empty()) {
      tensors.push_back(loaded.defaultInputs().at(expected[i].name));
      continue;
    }
    Result<tosa::HostTensor> tensor = tosa::npy::readTensor(paths[i], expected[i].dtype, expected[i].shape);
    if (!tensor) return Unexpected(std::move(tensor).error().addContext(fmt::format("{}: input '{}'", options.path, expected[i].name)));
    tensors.push_back(std::move(*tensor));
  }
  return tensors;
}

// The shapes of the input arrays (a VGF with GRAPH segments is lowered for them).
Result<std::vector<tosa::Shape>> inputArrayShapes(const RunOptions& options, const std::vector<std::string>& names) {
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::string> paths, bindInputPaths(options.path, options.inputs, names));
  std::vector<tosa::Shape> shapes;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    Result<tosa::npy::Array> array = tosa::npy::readFile(paths[i]);
    if (!array) return Unexpected(std::move(array).error().addContext(fmt::format("{}: input '{}'", options.path, names[i])));
    shapes.push_back(array->shape);
  }
  return shapes;
}

std::vector<std::string> outputNames(const api::LoadedModel& loaded) {
  std::vector<std::string> names;
  for (const auto& out : loaded.outputs()) names.push_back(out.name);
  return names;
}

// The outputs, as --output / --output-dir ask.
Status writeOutputs(const RunOptions& options, const api::LoadedModel& loaded, const std::vector<tosa::HostTensor>& outputs) {
  auto isUnsigned = [&](std::size_t i) { return i < loaded.unsignedOutputs().size() && loaded.unsignedOutputs()[i]; };
  if (!options.output.empty()) return tosa::npy::writeTensor(options.output, outputs[0], isUnsigned(0));
  if (options.outputDir.empty()) return {};
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::filesystem::path> files,
                           outputFiles(options.path, options.outputDir, outputNames(loaded)));
  std::error_code ec;
  std::filesystem::create_directories(options.outputDir, ec);
  if (ec) return environmentError("{}: cannot create the output directory: {}", options.outputDir, ec.message());
  for (std::size_t i = 0; i < outputs.size(); ++i) OPENVGF_TRY(tosa::npy::writeTensor(files[i], outputs[i], isUnsigned(i)));
  return {};
}

// Prints the check lines; returns whether every output passed.
bool printChecks(const std::vector<api::PartCheck>& parts) {
  bool pass = true;
  for (const api::PartCheck& part : parts) {
    for (const runner::OutputCheck& c : part.checks) {
      if (!c.verdict.pass || !quiet()) {
        std::printf("%s%s%s\n", part.label.c_str(), part.label.empty() ? "" : ": ", runner::formatCheck(c).c_str());
      }
      pass = pass && c.verdict.pass;
    }
  }
  if (!pass || !quiet()) std::printf("check: %s\n", pass ? "PASS" : "FAIL");
  return pass;
}

// One block per pipeline: its module, the dispatches that use it, then the driver's
// statistics as it names them (stdout: the user asked for them).
void printPipelineStatistics(const std::vector<runner::PipelineStatistics>& pipelines) {
  for (const runner::PipelineStatistics& p : pipelines) {
    std::string uses;
    for (const std::string& s : p.segments) uses += fmt::format("{}{}", uses.empty() ? "" : ", ", s);
    std::printf("pipeline %s (%zu dispatch%s: %s)\n", p.module.c_str(), p.segments.size(),
                p.segments.size() == 1 ? "" : "es", uses.c_str());
    for (const vulkan::PipelineStatistic& s : p.statistics) {
      std::printf("  %s %s: %s\n", s.executable.c_str(), s.name.c_str(), s.value.c_str());
    }
  }
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

Result<int> runModel(const RunOptions& options, std::span<const std::uint8_t>) {
  api::LoadOptions load;
  load.target = options.target;
  load.device = options.device;  // a .tosa with --target native is converted for the device it runs on
  load.tuning = api::tuningFromEnvironment();
  load.plan = options.plan;
  load.inputShapes = [&options](const std::vector<std::string>& names) { return inputArrayShapes(options, names); };
  OPENVGF_ASSIGN_OR_RETURN(api::LoadedModel loaded, api::LoadedModel::load(options.path, load));
  if (!options.output.empty() && loaded.outputs().size() != 1) {
    return invalidInput("{}: --output: expected a model with one output, got {}; use --output-dir DIR", options.path,
                        loaded.outputs().size());
  }
  // Refused before any work, not after the run.
  if (!options.outputDir.empty()) OPENVGF_TRY(outputFiles(options.path, options.outputDir, outputNames(loaded)));
  if (!options.check.empty() && loaded.program()) {
    return invalidInput("{}: --check {}: expected --check without a file for a .pte (each delegate is checked against "
                        "the TOSA graph its VGF carries)", options.path, options.check);
  }
  std::vector<tosa::Graph> references;
  if (options.checkSelf) {
    OPENVGF_ASSIGN_OR_RETURN(references, loaded.carriedGraphs());
  } else if (!options.check.empty()) {
    OPENVGF_ASSIGN_OR_RETURN(tosa::Graph reference, tosa::readGraph(std::filesystem::path(options.check)));
    loaded.addInitialStates(reference);
    references.push_back(std::move(reference));
  }
  OPENVGF_ASSIGN_OR_RETURN(std::vector<tosa::HostTensor> inputs, readInputs(options, loaded));
  std::vector<const tosa::HostTensor*> ordered;
  for (const tosa::HostTensor& t : inputs) ordered.push_back(&t);

  api::DeviceOptions device;
  device.validate = options.validate;
  device.device = options.device;
  device.pipelineCache = !options.noPipelineCache;
  device.pipelineStatistics = options.pipelineStats;
  OPENVGF_ASSIGN_OR_RETURN(std::unique_ptr<api::Model> runnable, api::Model::create(std::move(loaded), device));
  spdlog::info("device: {}", runnable->deviceName());
  runner::SessionOptions sessionOptions;
  sessionOptions.profile = !options.profile.empty();
  OPENVGF_ASSIGN_OR_RETURN(api::Session session, api::Session::create(*runnable, sessionOptions));
  if (options.pipelineStats) {
    OPENVGF_ASSIGN_OR_RETURN(std::vector<runner::PipelineStatistics> pipelines, session.pipelineStatistics());
    printPipelineStatistics(pipelines);
  }

  runner::ProfileRecorder recorder(session.segmentNames());
  std::vector<tosa::HostTensor> outputs;
  std::vector<double> latencies;
  for (int i = 0; i < std::max(1, options.repeat); ++i) {
    OPENVGF_TRY(session.run(ordered, outputs));
    latencies.push_back(session.lastTiming().hostMs);
    if (sessionOptions.profile) recorder.add(session.lastTiming());
  }
  OPENVGF_TRY(writeOutputs(options, runnable->loaded(), outputs));
  if (sessionOptions.profile) {
    OPENVGF_TRY(writeFileAtomic(options.profile, recorder.chromeTrace()));
    std::string summary = recorder.summary();
    if (!quiet()) std::fwrite(summary.data(), 1, summary.size(), stderr);
  }
  int exitCode = 0;
  if (options.checkSelf) {
    OPENVGF_ASSIGN_OR_RETURN(std::vector<api::PartCheck> checks, api::checkCarriedGraphs(session, references, inputs, outputs));
    if (!printChecks(checks)) exitCode = 1;
  } else if (!references.empty()) {
    OPENVGF_ASSIGN_OR_RETURN(std::vector<runner::OutputCheck> checks,
                             api::checkOutputs(references[0], options.check, session.inputs(), inputs, session.outputs(),
                                               outputs));
    if (!printChecks({api::PartCheck{"", std::move(checks)}})) exitCode = 1;
  }
  if (latencies.size() > 1 && !quiet()) {
    std::printf("%s: %zu runs on %s: min %.3f ms, median %.3f ms\n", options.path.c_str(), latencies.size(),
                runnable->deviceName().c_str(), *std::min_element(latencies.begin(), latencies.end()),
                median(latencies));
  }
  return exitCode;
}

// A .pte whose delegates are all Ethos-U streams runs in the simulator; any other goes through
// the api, which runs VgfBackend delegates and names what it cannot run.
Result<int> runProgram(const RunOptions& options, std::span<const std::uint8_t> bytes) {
  OPENVGF_ASSIGN_OR_RETURN(pte::Program program, withContext(pte::readProgram(bytes), options.path));
  bool ethosU = false, other = false;
  for (const pte::ExecutionPlan& plan : program.plans) {
    for (const pte::Delegate& delegate : plan.delegates) {
      (delegate.kind == pte::PayloadKind::VelaBinStream ? ethosU : other) = true;
    }
  }
  if (ethosU && !other) return runEthosUPte(options, bytes);
  return runModel(options, bytes);
}

OPENVGF_REGISTER_RUN(FileKind::Tosa, runModel);
OPENVGF_REGISTER_RUN(FileKind::Vgf, runModel);
OPENVGF_REGISTER_RUN(FileKind::Pte, runProgram);

}  // namespace
}  // namespace openvgf::cli
