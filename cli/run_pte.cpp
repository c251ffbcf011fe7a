// SPDX-License-Identifier: Apache-2.0
// `openvgf run program.pte`: the ExecuTorch handler of `run`. Plans the chosen execution plan
// (--plan, default forward) with pte::planVgfExecution, reads the plan's inputs from the .npy
// files, runs each VgfBackend delegate on the Vulkan device (its VGF lowered first when it has
// GRAPH segments, cached like `run model.vgf`), performs the copies/views between delegates,
// and writes the plan's outputs. `--check` (no file) checks each delegate's outputs against
// the TOSA graph its VGF carries, on the inputs that delegate received.
#include <cstdio>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cli/command.h"
#include "converter/lower_vgf.h"
#include "pte/program.h"
#include "pte/run_plan.h"
#include "runner/check.h"
#include "runner/context.h"
#include "runner/model.h"
#include "runner/session.h"
#include "tosa/npy.h"
#include "vgf/decoder.h"

namespace openvgf::cli {
namespace {

/// The TOSA type of an ExecuTorch ScalarType (specs/pte.md §1.4) as a delegate sees it.
std::optional<tosa::DType> tosaType(std::int8_t scalarType) {
  switch (scalarType) {
    case 0:   // Byte (uint8): the signless INT8 bit pattern
    case 1: return tosa::DType::Int8;
    case 2: return tosa::DType::Int16;
    case 3: return tosa::DType::Int32;
    case 4: return tosa::DType::Int48;
    case 5: return tosa::DType::Fp16;
    case 6: return tosa::DType::Fp32;
    case 11: return tosa::DType::Bool;
    case 15: return tosa::DType::Bf16;
    case 23: return tosa::DType::Fp8E5M2;
    case 24: return tosa::DType::Fp8E4M3;
    default: return std::nullopt;
  }
}

tosa::Shape shapeOf(const pte::Value& v) { return tosa::Shape(v.sizes.begin(), v.sizes.end()); }

/// Runs one delegate's VGF on `inputs`; with `check`, judges its outputs against the graph it carries.
Result<std::vector<tosa::HostTensor>> runDelegate(const RunOptions& options, const pte::Delegate& delegate,
                                                  const std::string& where, const std::vector<const tosa::HostTensor*>& inputs,
                                                  bool& checkFailed) {
  std::vector<std::uint8_t> storage;
  OPENVGF_ASSIGN_OR_RETURN(vgf::File file, withContext(pte::decodeVgfPayload(delegate.payload, storage), where));
  const std::span<const std::uint8_t> bytes = storage.empty() ? delegate.payload : std::span<const std::uint8_t>(storage);
  std::vector<std::uint8_t> lowered;
  std::optional<tosa::Graph> reference;
  if (converter::hasGraphSegments(file)) {
    std::vector<tosa::Shape> shapes;
    for (const tosa::HostTensor* t : inputs) shapes.push_back(t->shape);
    OPENVGF_ASSIGN_OR_RETURN(converter::KnownShapes known, converter::modelInputShapes(file, shapes, where));
    if (options.checkSelf) {
      OPENVGF_ASSIGN_OR_RETURN(converter::GraphRun run, converter::decodeGraphModel(file, known, where));
      reference = std::move(run.graph);
    }
    converter::LowerOptions lowerOptions;
    lowerOptions.convert.target = options.target;
    OPENVGF_ASSIGN_OR_RETURN(converter::LoweredModel model, converter::lowerGraphSegments(bytes, file, known, where, lowerOptions));
    spdlog::info("{}: {}", where, model.cacheHit ? "lowered VGF from the cache" : fmt::format("lowered into {} COMPUTE segments", model.kernels));
    lowered = std::move(model.vgf);
    OPENVGF_ASSIGN_OR_RETURN(file, withContext(vgf::decode(lowered), where));
  } else if (options.checkSelf) {
    return invalidInput("{}: --check: expected a delegate VGF with GRAPH segments (a TOSA graph to check against), got "
                        "COMPUTE segments only", where);
  }
  OPENVGF_ASSIGN_OR_RETURN(runner::Model model, runner::Model::create(file, where));
  runner::ContextOptions contextOptions;
  contextOptions.validate = options.validate;
  contextOptions.device = options.device;
  contextOptions.pipelineCache = !options.noPipelineCache;
  OPENVGF_ASSIGN_OR_RETURN(std::unique_ptr<runner::Context> context, runner::Context::create(contextOptions, model));
  OPENVGF_ASSIGN_OR_RETURN(runner::Session session, runner::Session::create(*context, model));
  if (Status saved = context->savePipelineCache(); !saved) spdlog::warn("pipeline cache not saved: {}", saved.error().message());
  std::vector<tosa::HostTensor> outputs;
  OPENVGF_TRY(session.run(inputs, outputs));
  if (reference) {
    std::vector<std::string> inputNames, outputNames;
    std::vector<tosa::HostTensor> inputValues;
    for (const runner::TensorInfo& t : model.inputs()) inputNames.push_back(t.name);
    for (const runner::TensorInfo& t : model.outputs()) outputNames.push_back(t.name);
    for (const tosa::HostTensor* t : inputs) inputValues.push_back(*t);
    OPENVGF_ASSIGN_OR_RETURN(std::vector<runner::OutputCheck> checks,
                             withContext(runner::checkAgainstReference(*reference, inputNames, inputValues, outputNames, outputs), where));
    for (const runner::OutputCheck& c : checks) {
      std::printf("%s: %s\n", where.c_str(), runner::formatCheck(c).c_str());
      checkFailed = checkFailed || !c.verdict.pass;
    }
  }
  return outputs;
}

Result<int> runPte(const RunOptions& options, std::span<const std::uint8_t> bytes) {
  if (!options.check.empty()) {
    return invalidInput("{}: --check {}: expected --check without a file for a .pte (each delegate is checked against the TOSA "
                        "graph its VGF carries)", options.path, options.check);
  }
  OPENVGF_ASSIGN_OR_RETURN(pte::Program program, withContext(pte::readProgram(bytes), options.path));
  OPENVGF_ASSIGN_OR_RETURN(pte::RunPlan plan, withContext(pte::planVgfExecution(program, options.plan), options.path));
  const pte::ExecutionPlan& ep = program.plans[plan.planIndex];
  if (!options.output.empty() && plan.outputs.size() != 1) {
    return invalidInput("{}: --output: expected a plan with one output, got {}; use --output-dir DIR", options.path,
                        plan.outputs.size());
  }
  std::vector<std::string> names;
  for (std::size_t i = 0; i < plan.inputs.size(); ++i) names.push_back(fmt::format("input_{}", i));
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::string> paths, bindInputPaths(options, names));
  std::map<std::int32_t, tosa::HostTensor> values;
  for (std::size_t i = 0; i < plan.inputs.size(); ++i) {
    const pte::Value& v = ep.values[static_cast<std::size_t>(plan.inputs[i])];
    std::optional<tosa::DType> dtype = tosaType(v.scalarType);
    if (!dtype) {
      return unsupported("{}: plan '{}': input {}: expected a tensor type a VGF delegate takes, got {}", options.path, plan.name,
                         i, pte::scalarTypeName(v.scalarType));
    }
    OPENVGF_ASSIGN_OR_RETURN(tosa::HostTensor t, tosa::npy::readTensor(paths[i], *dtype, shapeOf(v)));
    values[plan.inputs[i]] = std::move(t);
  }
  bool checkFailed = false;
  for (const pte::Step& step : plan.steps) {
    if (step.kind == pte::Step::Kind::Copy) {
      tosa::HostTensor copy = values.at(step.inputs[0]);
      copy.shape = shapeOf(ep.values[static_cast<std::size_t>(step.outputs[0])]);
      values[step.outputs[0]] = std::move(copy);
      continue;
    }
    const std::string where = fmt::format("{}: plan '{}' delegates[{}] (instruction {})", options.path, plan.name, step.delegate,
                                          step.instruction);
    std::vector<const tosa::HostTensor*> inputs;
    for (std::int32_t v : step.inputs) inputs.push_back(&values.at(v));
    OPENVGF_ASSIGN_OR_RETURN(std::vector<tosa::HostTensor> outputs,
                             runDelegate(options, ep.delegates[step.delegate], where, inputs, checkFailed));
    for (std::size_t k = 0; k < outputs.size(); ++k) values[step.outputs[k]] = std::move(outputs[k]);
  }
  for (std::size_t i = 0; i < plan.outputs.size(); ++i) {
    const bool isUnsigned = ep.values[static_cast<std::size_t>(plan.outputs[i])].scalarType == 0;  // Byte
    if (!options.output.empty()) {
      OPENVGF_TRY(tosa::npy::writeTensor(options.output, values.at(plan.outputs[i]), isUnsigned));
    } else if (!options.outputDir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(options.outputDir, ec);
      if (ec) return environmentError("{}: cannot create the output directory: {}", options.outputDir, ec.message());
      OPENVGF_TRY(tosa::npy::writeTensor(std::filesystem::path(options.outputDir) / fmt::format("output_{}.npy", i),
                                         values.at(plan.outputs[i]), isUnsigned));
    }
  }
  if (options.checkSelf) std::printf("check: %s\n", checkFailed ? "FAIL" : "PASS");
  return checkFailed ? 1 : 0;
}

OPENVGF_REGISTER_RUN(FileKind::Pte, runPte);

}  // namespace
}  // namespace openvgf::cli
