// SPDX-License-Identifier: Apache-2.0
// The installed API's Ethos-U models (openvgf.hpp, "Ethos-U models"): Model::open of a
// vela_bin_stream or of a .pte of Ethos-U delegates, its runs in the simulator and its
// bit-exact check against the reference interpreter. Options that need a Vulkan device are
// refused here, naming the option.
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/public_state.h"
#include "common/input_binding.h"
#include "tosa/reader.h"

namespace openvgf::detail {
namespace {

// `t`'s bytes as tensor `info` of `source`: a host tensor of its dtype and element count (the
// stream does not know the rank, so any shape with that many elements is taken).
tosa::HostTensor hostValue(const Tensor& t, const TensorInfo& info, const std::string& source, const char* role) {
  if (t.location() != MemoryLocation::Host) {
    throw Exception(ErrorCode::Unsupported,
                    fmt::format("{}: {} '{}': expected a host tensor, got a device-resident one (an Ethos-U model runs "
                                "in the simulator)",
                                source, role, info.name));
  }
  if (t.dtype() != info.dtype || t.elementCount() != tosa::elementCount(info.shape)) {
    raiseInvalid(fmt::format("{}: {} '{}': expected {} [{}] ({} elements), got {} [{}]", source, role, info.name,
                             toString(info.dtype), fmt::join(info.shape, ","), tosa::elementCount(info.shape),
                             toString(t.dtype()), fmt::join(t.shape(), ",")));
  }
  tosa::HostTensor host(toDType(info.dtype), info.shape);
  if (host.bytes.size() != t.byteSize()) {
    raiseInvalid(fmt::format("{}: {} '{}': expected {} bytes, got {}", source, role, info.name, host.bytes.size(), t.byteSize()));
  }
  if (t.byteSize() != 0) std::memcpy(host.bytes.data(), t.data(), t.byteSize());
  return host;
}

}  // namespace

namespace {

[[noreturn]] void refuse(const std::string& source, const std::string& what) {
  throw Exception(ErrorCode::Unsupported,
                  fmt::format("{}: {}: expected a model that runs on a Vulkan device, got an Ethos-U command stream "
                              "(it runs in the Ethos-U simulator on the CPU)",
                              source, what));
}

}  // namespace

void refuseForEthosU(const ModelState& model, const std::string& what) { refuse(model.ethosu->source(), what); }

std::shared_ptr<ModelState> openEthosU(const std::string& path, const ModelOptions& options) {
  std::optional<api::EthosUModel> loaded = unwrap(api::EthosUModel::load(path, options.plan));
  if (!loaded) return nullptr;
  const std::string& source = loaded->source();
  // Options that ask for what only a Vulkan device has are refused rather than ignored.
  if (!options.device.empty()) refuse(source, fmt::format("device '{}'", options.device));
  if (options.validate) refuse(source, "validate (the Vulkan validation layer)");
  if (options.pipelineStatistics) refuse(source, "pipelineStatistics");
  if (options.keepIntermediates) refuse(source, "keepIntermediates (per-layer outputs of a .tosa)");
  auto state = std::make_shared<ModelState>();
  state->format = ModelFormat::EthosU;
  if (!options.reference.empty()) {
    tosa::Graph graph = unwrap(tosa::readGraph(std::filesystem::path(options.reference)));
    unwrap(loaded->useReference(graph, options.reference));
    state->reference = std::move(graph);
    state->referencePath = options.reference;
  } else if (options.check) {
    raiseInvalid(fmt::format("{}: check: expected a reference (the .tosa the stream was compiled from): an Ethos-U "
                             "stream carries no TOSA graph",
                             source));
  }
  state->ethosu = std::make_unique<const api::EthosUModel>(std::move(*loaded));
  state->inputs = publicInfos(state->ethosu->inputs());
  state->outputs = publicInfos(state->ethosu->outputs());
  return state;
}

std::vector<std::size_t> bindEthosUInputs(const ModelState& model, const std::vector<std::string>& names,
                                          const std::string& source) {
  std::vector<std::string> declared;
  for (const TensorInfo& input : model.inputs) declared.push_back(input.name);
  return unwrap(bindInputs(declaredInputs(declared), names, source.empty() ? model.ethosu->source() : source));
}

void runEthosU(SessionState& state, const std::vector<std::string>& names, const std::vector<Tensor>& given,
               std::vector<Tensor> outputs, const RunOptions& options, RunState& run) {
  const ModelState& model = *state.model;
  const std::string& source = model.ethosu->source();
  if (options.keepOnDevice) refuseForEthosU(model, "keepOnDevice");
  const std::vector<std::size_t> order = bindEthosUInputs(model, names, "");
  std::vector<std::vector<std::uint8_t>> inputs;
  for (std::size_t i = 0; i < order.size(); ++i) {
    inputs.push_back(std::move(hostValue(given[order[i]], model.inputs[i], source, "input").bytes));
  }
  runner::ethosu::SimulatorStats stats;
  ++state.runs;
  Result<std::vector<std::vector<std::uint8_t>>> results = model.ethosu->run(inputs, &stats);
  if (!results) {
    run.failure = results.error();
    return;
  }
  state.simulated = stats;
  outputs.resize(model.outputs.size());
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const TensorInfo& info = model.outputs[o];
    Tensor& out = outputs[o];
    if (out.dtype() != info.dtype || out.shape() != info.shape || out.data() == nullptr) out = Tensor(info.dtype, info.shape);
    const std::vector<std::uint8_t>& bytes = (*results)[o];
    if (bytes.size() != out.byteSize()) {
      run.failure = Error(ErrorKind::Internal, fmt::format("{}: output '{}': the simulator gave {} bytes, expected {}",
                                                           source, info.name, bytes.size(), out.byteSize()));
      return;
    }
    if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  }
  run.outputs = std::move(outputs);
}

CheckReport checkEthosU(const ModelState& model, const std::map<std::string, Tensor>& inputs,
                        const std::vector<Tensor>& outputs) {
  const std::string& source = model.ethosu->source();
  if (!model.reference) {
    raiseInvalid(fmt::format("{}: check: expected a reference (ModelOptions::reference, the .tosa the stream was "
                             "compiled from): an Ethos-U stream carries no TOSA graph",
                             source));
  }
  std::vector<std::string> names;
  std::vector<const Tensor*> given;
  for (const auto& [name, tensor] : inputs) {
    names.push_back(name);
    given.push_back(&tensor);
  }
  const std::vector<std::size_t> order = bindEthosUInputs(model, names, source + ": check");
  std::vector<tosa::HostTensor> hostInputs;
  for (std::size_t i = 0; i < order.size(); ++i) {
    hostInputs.push_back(hostValue(*given[order[i]], model.inputs[i], source + ": check", "input"));
  }
  if (outputs.size() != model.outputs.size()) {
    raiseInvalid(fmt::format("{}: check: expected {} outputs, got {}", source, model.outputs.size(), outputs.size()));
  }
  std::vector<tosa::HostTensor> hostOutputs;
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    hostOutputs.push_back(hostValue(outputs[o], model.outputs[o], source + ": check", "output"));
  }
  CheckReport report;
  for (const api::BitExactCheck& c :
       unwrap(api::EthosUModel::checkBitExact(*model.reference, model.referencePath, hostInputs, hostOutputs))) {
    report.outputs.push_back({"", c.output, c.pass, c.line});
    report.pass = report.pass && c.pass;
  }
  return report;
}

}  // namespace openvgf::detail
