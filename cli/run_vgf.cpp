// SPDX-License-Identifier: Apache-2.0
// `openvgf run model.{tosa,vgf,pte}`: the Vulkan handler of `run`, written on the installed
// API (openvgf/openvgf.hpp) only. The .npy inputs are read once; their shapes go to
// Model::open (a VGF with GRAPH segments is lowered for them), Model::bindInputs binds them by
// name or in order (`state:` inputs left out take their initial values), a Session runs the
// model, the outputs are written, and optionally the run is repeated (min/median latency),
// profiled (Chrome trace + summary) and checked against the reference interpreter
// (Session::check; exit 1 on failure, 3 when inconclusive). Bad input is rejected before any
// device is touched.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "command.h"
#include "debug.h"
#include "inputs.h"
#include "run_ethosu.h"
#include "openvgf/openvgf.hpp"

namespace openvgf::cli {
namespace {

// The model's own outputs (not the intermediates --dump keeps).
std::vector<std::string> outputNames(const Model& model) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < graphOutputCount(model); ++i) names.push_back(model.outputs()[i].name);
  return names;
}

// The outputs, as --output / --output-dir ask.
void writeOutputs(const RunOptions& options, const Model& model, const std::vector<Tensor>& outputs) {
  if (!options.output.empty()) {
    writeNpy(options.output, outputs[0], model.outputs()[0].isUnsigned);
    return;
  }
  if (options.outputDir.empty()) return;
  std::vector<std::filesystem::path> files = (outputFiles(options.path, options.outputDir, outputNames(model)));
  std::error_code ec;
  std::filesystem::create_directories(options.outputDir, ec);
  if (ec) fail(ErrorCode::Environment, fmt::format("{}: cannot create the output directory: {}", options.outputDir, ec.message()));
  for (std::size_t i = 0; i < files.size(); ++i) writeNpy(files[i].string(), outputs[i], model.outputs()[i].isUnsigned);
}

// Prints the check lines; returns the exit code: 0 every output passed, 1 one failed, 3 none
// failed but one was inconclusive (a tolerance too wide to judge it: not a PASS).
int printCheck(const CheckReport& report) {
  for (const OutputCheck& c : report.outputs) {
    if (!c.pass || !quiet()) std::printf("%s%s%s\n", c.part.c_str(), c.part.empty() ? "" : ": ", c.line.c_str());
  }
  const char* verdict = report.pass ? "PASS" : (report.inconclusive ? "INCONCLUSIVE" : "FAIL");
  if (!report.pass || !quiet()) std::printf("check: %s\n", verdict);
  return report.pass ? 0 : (report.inconclusive ? 3 : 1);
}

// One block per pipeline: its module, the dispatches that use it, then the driver's
// statistics as it names them (stdout: the user asked for them).
void printPipelineStatistics(const std::vector<PipelineStatistics>& pipelines) {
  for (const PipelineStatistics& p : pipelines) {
    std::printf("pipeline %s (%zu dispatch%s: %s)\n", p.module.c_str(), p.segments.size(),
                p.segments.size() == 1 ? "" : "es", fmt::format("{}", fmt::join(p.segments, ", ")).c_str());
    for (const PipelineStatistics::Statistic& s : p.statistics) {
      std::printf("  %s %s: %s\n", s.executable.c_str(), s.name.c_str(), s.value.c_str());
    }
  }
}

ModelOptions modelOptions(const RunOptions& options, const GivenInputs& given) {
  ModelOptions open;
  open.device = options.device;  // a .tosa with --target native is converted for the device it runs on
  open.target = options.target;
  open.plan = options.plan;
  open.validate = options.validate;
  open.pipelineCache = !options.noPipelineCache;
  open.pipelineStatistics = options.pipelineStats;
  open.reference = options.check;
  open.check = options.checkSelf;
  open.keepIntermediates = !options.dump.empty();
  // The given arrays' shapes lower a model with dynamic dimensions; images and random values
  // take the shapes the model has.
  if (given.allArrays() && !options.randomSeed) {
    for (const GivenInput& g : given.given) open.inputShapes.push_back(g.array->shape());
    open.inputShapeNames = given.names();
  }
  return open;
}

}  // namespace

int runModel(const RunOptions& options) {
  const GivenInputs given = readGivenInputs(options);
  const Model model = Model::open(options.path, modelOptions(options, given));
  // A .ethosu stream or a .pte of Ethos-U delegates: the simulator's run (its own options).
  if (model.format() == ModelFormat::EthosU) {
    if (!given.allArrays() || options.randomSeed) {
      fail(ErrorCode::Unsupported, fmt::format("{}: image inputs and --random-inputs: expected a model that runs on a "
                                               "Vulkan device, got an Ethos-U stream; give .npy files",
                                               model.source()));
    }
    std::vector<NpyArray> arrays;
    for (const GivenInput& g : given.given) arrays.push_back(*g.array);
    return runEthosU(options, model, given.names(), arrays);
  }
  if (!options.output.empty() && graphOutputCount(model) != 1) {
    fail(ErrorCode::InvalidInput, fmt::format("{}: --output: expected a model with one output, got {}; use "
                                              "--output-dir DIR", options.path, graphOutputCount(model)));
  }
  // Refused before any work, not after the run.
  if (!options.outputDir.empty()) (outputFiles(options.path, options.outputDir, outputNames(model)));
  const std::map<std::string, Tensor> inputs = bindGivenInputs(options, model, given);
  spdlog::info("device: {}", model.deviceName());
  SessionOptions sessionOptions;
  sessionOptions.profile = !options.profile.empty();
  Session session = model.createSession(sessionOptions);
  if (options.pipelineStats) printPipelineStatistics(session.pipelineStatistics());

  std::vector<Profile> profiles;
  std::vector<Tensor> outputs;
  std::vector<double> latencies;
  for (int i = 0; i < std::max(1, options.repeat); ++i) {
    session.runNamed(inputs, outputs);
    profiles.push_back(session.profile());
    latencies.push_back(profiles.back().hostMs);
  }
  writeOutputs(options, model, outputs);
  {
    // The preview is of the graph's own outputs, not the intermediates --dump keeps.
    const std::size_t own = graphOutputCount(model);
    const std::vector<TensorInfo> infos(model.outputs().begin(), model.outputs().begin() + static_cast<std::ptrdiff_t>(own));
    reportOutputs(infos, std::vector<Tensor>(outputs.begin(), outputs.begin() + static_cast<std::ptrdiff_t>(own)),
                  outputPaths(options, model));
  }
  if (!options.dump.empty()) writeDump(options.dump, model, outputs);
  if (options.topK > 0) printTopK(model, outputs, graphOutputCount(model), options.topK);
  if (sessionOptions.profile) {
    writeFile(options.profile, chromeTrace(profiles));
    if (!quiet()) std::fputs(profileSummary(profiles).c_str(), stderr);
  }
  int exitCode = 0;
  if (options.checkSelf || !options.check.empty()) exitCode = printCheck(session.check(inputs, outputs));
  if (latencies.size() > 1 && !quiet()) {
    std::printf("%s: %zu runs on %s: min %.3f ms, median %.3f ms\n", options.path.c_str(), latencies.size(),
                model.deviceName().c_str(), *std::min_element(latencies.begin(), latencies.end()), median(latencies));
  }
  return exitCode;
}

}  // namespace openvgf::cli
