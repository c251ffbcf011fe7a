// SPDX-License-Identifier: Apache-2.0
// `openvgf run model.ethosu`: runs a vela_bin_stream in the functional simulator; with
// --check model.tosa the outputs are compared bit for bit with the TOSA reference interpreter.
#include <filesystem>

#include "cli/command.h"
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

tosa::Shape trimmedShape(const eu::VelaIo& io) {
  tosa::Shape s(io.shape.begin(), io.shape.end());
  while (s.size() > 1 && s.front() == 1) s.erase(s.begin());
  return s;
}

Result<int> runEthosU(const RunOptions& options, std::span<const std::uint8_t> bytes) {
  OPENVGF_ASSIGN_OR_RETURN(eu::LoadedModel model, eu::loadModel(bytes, options.path));
  if (!model.hasIo) return invalidInput("{}: a bare COP1 payload has no input/output placement; run a vela_bin_stream", options.path);
  if (options.repeat != 1 || !options.profile.empty() || !options.device.empty()) {
    return invalidInput("--repeat, --profile and --device apply to Vulkan models, not to the Ethos-U simulator");
  }
  std::optional<tosa::Graph> graph;
  if (!options.check.empty()) {
    OPENVGF_ASSIGN_OR_RETURN(graph, tosa::readGraph(std::filesystem::path(options.check)));
  }
  const tosa::Block* block = graph ? graph->mainBlock() : nullptr;
  if (graph && !block) return invalidInput("{}: expected a main block", options.check);
  const auto& ios = model.stream.inputs;
  if (options.inputs.size() != ios.size()) {
    return invalidInput("{}: expected {} inputs, got {}", options.path, ios.size(), options.inputs.size());
  }
  if (block && (block->inputs.size() != ios.size() || block->outputs.size() != model.stream.outputs.size())) {
    return invalidInput("{}: expected the model's {} inputs and {} outputs, got {} and {}", options.check, ios.size(),
                        model.stream.outputs.size(), block->inputs.size(), block->outputs.size());
  }
  // Bind inputs by name (with --check) or in order.
  std::vector<tosa::HostTensor> tensors(ios.size());
  std::vector<bool> bound(ios.size(), false);
  for (std::size_t k = 0; k < options.inputs.size(); ++k) {
    auto [name, path] = splitNamedInput(options.inputs[k]);
    std::size_t index = k;
    if (!name.empty()) {
      if (!block) return invalidInput("--input {}: named inputs need --check MODEL.tosa to know the names", options.inputs[k]);
      auto it = std::find(block->inputs.begin(), block->inputs.end(), name);
      if (it == block->inputs.end()) return invalidInput("--input {}: the model has no input '{}'", options.inputs[k], name);
      index = static_cast<std::size_t>(it - block->inputs.begin());
    }
    if (bound[index]) return invalidInput("--input {}: input {} is given twice", options.inputs[k], index);
    bound[index] = true;
    const tosa::DType type = typeForElemSize(ios[index].elemSize);
    OPENVGF_ASSIGN_OR_RETURN(tosa::HostTensor t, tosa::npy::readTensor(path, type));
    if (static_cast<std::uint64_t>(t.bytes.size()) != eu::ioByteSize(ios[index])) {
      return invalidInput("{}: expected {} elements for input {} of {}, got {}", path,
                          eu::ioByteSize(ios[index]) / ios[index].elemSize, index, options.path, t.size());
    }
    if (block) t.shape = block->findTensor(block->inputs[index])->shape;
    tensors[index] = std::move(t);
  }
  std::vector<std::vector<std::uint8_t>> raw;
  for (const tosa::HostTensor& t : tensors) raw.push_back(t.bytes);
  eu::SimulatorStats stats;
  OPENVGF_ASSIGN_OR_RETURN(std::vector<std::vector<std::uint8_t>> outputs,
                           withContext(eu::runModel(model, raw, &stats), options.path));
  fmt::print("{}: ran {} NPU operations ({} MACs) in the Ethos-U simulator\n", options.path, stats.operations, stats.macs);

  std::vector<tosa::HostTensor> results;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const eu::VelaIo& io = model.stream.outputs[i];
    tosa::HostTensor t(typeForElemSize(io.elemSize),
                       block ? block->findTensor(block->outputs[i])->shape : trimmedShape(io));
    if (t.bytes.size() != outputs[i].size()) return invalidInput("{}: output {} size does not match {}", options.path, i, options.check);
    t.bytes = outputs[i];
    results.push_back(std::move(t));
  }
  if (!options.output.empty()) {
    if (results.size() != 1) return invalidInput("--output: the model has {} outputs; use --output-dir", results.size());
    OPENVGF_TRY(tosa::npy::writeTensor(options.output, results[0]));
  }
  if (!options.outputDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.outputDir, ec);
    if (ec) return environmentError("{}: cannot create directory: {}", options.outputDir, ec.message());
    for (std::size_t i = 0; i < results.size(); ++i) {
      const std::string name = block ? block->outputs[i] : fmt::format("output{}", i);
      OPENVGF_TRY(tosa::npy::writeTensor(std::filesystem::path(options.outputDir) / (sanitizeFileName(name) + ".npy"), results[i]));
    }
  }
  if (!graph) return 0;
  OPENVGF_ASSIGN_OR_RETURN(tosa::reference::RunResult reference, tosa::reference::run(*graph, tensors));
  bool pass = true;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& want = reference.outputs[i].value.bytes;
    const auto& got = results[i].bytes;
    std::size_t bad = 0, first = 0;
    for (std::size_t k = 0; k < want.size() && k < got.size(); ++k) {
      if (want[k] != got[k] && bad++ == 0) first = k;
    }
    if (bad == 0 && want.size() == got.size()) {
      fmt::print("output '{}': bit-exact ({} elements)\n", block->outputs[i], results[i].size());
    } else {
      pass = false;
      fmt::print("output '{}': MISMATCH: {} of {} bytes differ, first at byte {} (simulator 0x{:02x}, reference 0x{:02x})\n",
                 block->outputs[i], bad, want.size(), first, got[first], want[first]);
    }
  }
  fmt::print("check: {}\n", pass ? "PASS (bit-exact with the TOSA reference)" : "FAIL");
  return pass ? 0 : 1;
}

OPENVGF_REGISTER_RUN(FileKind::EthosU, runEthosU);

}  // namespace
}  // namespace openvgf::cli
