// SPDX-License-Identifier: Apache-2.0
// `openvgf run model.ethosu` and `openvgf run program.pte` for Ethos-U delegates: runs a
// vela_bin_stream in the functional simulator; with --check model.tosa the outputs are
// compared bit for bit with the TOSA reference interpreter. Every message names the file.
#include <filesystem>

#include "cli/run_ethosu.h"
#include "pte/program.h"
#include "runner/ethosu/session.h"
#include "tosa/npy.h"
#include "tosa/reader.h"
#include "tosa/reference/reference.h"

namespace openvgf::cli {
namespace {

namespace eu = runner::ethosu;

tosa::DType typeForElemSize(std::int32_t elemSize) {
  return elemSize == 4 ? tosa::DType::Int32 : elemSize == 2 ? tosa::DType::Int16 : tosa::DType::Int8;
}

tosa::Shape trimmedShape(const eu::LoadedModel& model, const eu::VelaIo& io) {
  tosa::Shape s(io.shape.begin(), io.shape.begin() + model.ioRank);
  while (s.size() > 1 && s.front() == 1) s.erase(s.begin());
  return s;
}

/// Compares each output byte for byte with the reference interpreter's; prints one line each.
Result<int> checkOutputs(const tosa::Graph& graph, const tosa::Block& block, const std::vector<tosa::HostTensor>& inputs,
                         const std::vector<tosa::HostTensor>& results, const std::string& tosaPath) {
  OPENVGF_ASSIGN_OR_RETURN(tosa::reference::RunResult reference, withContext(tosa::reference::run(graph, inputs), tosaPath));
  bool pass = true;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& want = reference.outputs[i].value.bytes;
    const auto& got = results[i].bytes;
    std::size_t bad = 0, first = 0;
    for (std::size_t k = 0; k < want.size() && k < got.size(); ++k) {
      if (want[k] != got[k] && bad++ == 0) first = k;
    }
    if (bad == 0 && want.size() == got.size()) {
      fmt::print("output '{}': bit-exact ({} elements)\n", block.outputs[i], results[i].size());
    } else {
      pass = false;
      fmt::print("output '{}': MISMATCH: {} of {} bytes differ, first at byte {} (simulator 0x{:02x}, reference 0x{:02x})\n",
                 block.outputs[i], bad, want.size(), first, first < got.size() ? got[first] : 0,
                 first < want.size() ? want[first] : 0);
    }
  }
  fmt::print("check: {}\n", pass ? "PASS (bit-exact with the TOSA reference)" : "FAIL");
  return pass ? 0 : 1;
}

Status writeOutputs(const RunOptions& options, const std::vector<tosa::HostTensor>& results,
                    const std::vector<std::string>& names) {
  if (!options.output.empty()) {
    if (results.size() != 1) return invalidInput("--output: the model has {} outputs; use --output-dir", results.size());
    OPENVGF_TRY(tosa::npy::writeTensor(options.output, results[0]));
  }
  if (!options.outputDir.empty()) {
    OPENVGF_ASSIGN_OR_RETURN(std::vector<std::filesystem::path> files, outputFiles(options.path, options.outputDir, names));
    std::error_code ec;
    std::filesystem::create_directories(options.outputDir, ec);
    if (ec) return environmentError("{}: cannot create directory: {}", options.outputDir, ec.message());
    for (std::size_t i = 0; i < results.size(); ++i) OPENVGF_TRY(tosa::npy::writeTensor(files[i], results[i]));
  }
  return {};
}

}  // namespace

Result<int> runEthosUModel(const RunOptions& options, const eu::LoadedModel& model, std::string_view name) {
  if (!model.hasIo) return invalidInput("{}: a bare COP1 payload has no input/output placement; run a vela_bin_stream", name);
  if (options.repeat != 1 || !options.profile.empty() || !options.device.empty() || options.pipelineStats) {
    return invalidInput("{}: --repeat, --profile, --device and --pipeline-stats apply to Vulkan models, not to the "
                        "Ethos-U simulator",
                        name);
  }
  std::optional<tosa::Graph> graph;
  if (!options.check.empty()) {
    OPENVGF_ASSIGN_OR_RETURN(graph, tosa::readGraph(std::filesystem::path(options.check)));
  }
  const tosa::Block* block = graph ? graph->mainBlock() : nullptr;
  if (graph && !block) return invalidInput("{}: expected a main block", options.check);
  const auto& ios = model.inputs;
  if (block && (block->inputs.size() != ios.size() || block->outputs.size() != model.outputs.size())) {
    return invalidInput("{}: expected the model's {} inputs and {} outputs, got {} and {}", options.check, ios.size(),
                        model.outputs.size(), block->inputs.size(), block->outputs.size());
  }
  // Inputs bind by name (the names --check's graph gives them) or in order.
  std::vector<std::string> inputNames;
  for (std::size_t i = 0; i < ios.size(); ++i) inputNames.push_back(block ? block->inputs[i] : fmt::format("#{}", i));
  if (!block) {
    for (const std::string& argument : options.inputs) {
      if (!splitNamedInput(argument).first.empty()) {
        return invalidInput("--input {}: named inputs need --check MODEL.tosa to know the names", argument);
      }
    }
  }
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::string> paths, bindInputPaths(name, options.inputs, inputNames));
  std::vector<tosa::HostTensor> tensors;
  for (std::size_t index = 0; index < ios.size(); ++index) {
    const std::string& path = paths[index];
    OPENVGF_ASSIGN_OR_RETURN(tosa::HostTensor t, tosa::npy::readTensor(path, typeForElemSize(ios[index].elementSize)));
    if (static_cast<std::uint64_t>(t.bytes.size()) != eu::ioByteSize(model, ios[index])) {
      return invalidInput("{}: expected {} elements for input {} of {}, got {}", path,
                          eu::ioByteSize(model, ios[index]) / static_cast<std::uint64_t>(std::max(1, ios[index].elementSize)),
                          index, name, t.size());
    }
    if (block) t.shape = block->findTensor(block->inputs[index])->shape;
    tensors.push_back(std::move(t));
  }
  std::vector<std::vector<std::uint8_t>> raw;
  for (const tosa::HostTensor& t : tensors) raw.push_back(t.bytes);
  eu::SimulatorStats stats;
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::vector<std::uint8_t>> outputs, eu::runModel(model, raw, name, &stats));
  if (!quiet()) {
    fmt::print("{}: ran {} NPU operations ({} MACs) in the Ethos-U simulator\n", name, stats.operations, stats.macs);
  }
  std::vector<tosa::HostTensor> results;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const eu::VelaIo& io = model.outputs[i];
    tosa::HostTensor t(typeForElemSize(io.elementSize), block ? block->findTensor(block->outputs[i])->shape : trimmedShape(model, io));
    if (t.bytes.size() != outputs[i].size()) {
      return invalidInput("{}: output {} has {} bytes but {} describes {}", name, i, outputs[i].size(), options.check,
                          t.bytes.size());
    }
    t.bytes = outputs[i];
    results.push_back(std::move(t));
    names.push_back(block ? block->outputs[i] : fmt::format("output{}", i));
  }
  OPENVGF_TRY(writeOutputs(options, results, names));
  if (!graph) return 0;
  return checkOutputs(*graph, *block, tensors, results, options.check);
}

Result<int> runEthosUPte(const RunOptions& options, std::span<const std::uint8_t> bytes) {
  OPENVGF_ASSIGN_OR_RETURN(pte::Program program, withContext(pte::readProgram(bytes), options.path));
  const pte::Delegate* found = nullptr;
  std::string where;
  for (std::size_t p = 0; p < program.plans.size(); ++p) {
    for (std::size_t d = 0; d < program.plans[p].delegates.size(); ++d) {
      const pte::Delegate& delegate = program.plans[p].delegates[d];
      if (delegate.kind != pte::PayloadKind::VelaBinStream) continue;
      if (found) {
        return unsupported("{}: more than one Ethos-U delegate ({} and execution_plan[{}] delegates[{}]); run one with "
                           "`openvgf extract` and `openvgf run` on its .ethosu.bin",
                           options.path, where, p, d);
      }
      found = &delegate;
      where = fmt::format("execution_plan[{}] '{}' delegates[{}] ({})", p, program.plans[p].name, d, delegate.backendId);
    }
  }
  if (!found) return invalidInput("{}: expected an Ethos-U (EthosUBackend) delegate, found none", options.path);
  const std::string name = fmt::format("{}: {}", options.path, where);
  if (!found->vela) return invalidInput("{}: payload: {}", name, found->payloadProblem);
  OPENVGF_ASSIGN_OR_RETURN(eu::LoadedModel model, eu::loadModel(*found->vela, name));
  return runEthosUModel(options, model, name);
}

namespace {

Result<int> runEthosUFile(const RunOptions& options, std::span<const std::uint8_t> bytes) {
  OPENVGF_ASSIGN_OR_RETURN(eu::LoadedModel model, eu::loadModel(bytes, options.path));
  return runEthosUModel(options, model, options.path);
}

OPENVGF_REGISTER_RUN(FileKind::EthosU, runEthosUFile);

}  // namespace
}  // namespace openvgf::cli
