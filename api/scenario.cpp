// SPDX-License-Identifier: Apache-2.0
// openvgf::runScenario: a scenario of Arm's scenario-runner, checked whole by
// runner::scenario::load, then run command by command. Buffers and tensors live in host
// memory between commands: dispatch_compute runs on the runner's ComputeDispatcher, and
// dispatch_graph on the public Model (a GRAPH VGF is lowered and cached as `openvgf run` does),
// so each command finishes before the next one starts and every barrier the scenario asks for
// holds. dispatch_barrier and mark_boundary therefore need no work of their own.
#include <cstring>
#include <map>

#include "api/public_state.h"
#include "openvgf/openvgf.hpp"
#include "runner/scenario.h"

namespace openvgf {
namespace {

namespace sc = runner::scenario;

struct GraphRun {
  Model model;
  Session session;
};

// Runs a dispatch_graph command: the model's inputs and outputs are views of the scenario's
// memory (load() checked their shapes and formats against the VGF).
void runGraph(const sc::Scenario& scenario, const sc::Command& command, GraphRun& graph,
              std::vector<std::vector<std::uint8_t>>& memory) {
  const std::vector<TensorInfo>& inputs = graph.model.inputs();
  const std::vector<TensorInfo>& outputs = graph.model.outputs();
  if (inputs.size() != command.graphInputs.size() || outputs.size() != command.graphOutputs.size()) {
    raise(Error(ErrorKind::Internal, scenario.file.string() + ": " + command.where +
                                         ": the model's interface differs from its VGF's binding slots"));
  }
  std::vector<Tensor> given;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    std::vector<std::uint8_t>& bytes = memory[command.graphInputs[i]];
    given.push_back(Tensor::view(inputs[i].dtype, inputs[i].shape, bytes.data(), bytes.size()));
  }
  std::vector<Tensor> results;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    std::vector<std::uint8_t>& bytes = memory[command.graphOutputs[i]];
    results.push_back(Tensor::view(outputs[i].dtype, outputs[i].shape, bytes.data(), bytes.size()));
  }
  // Outputs of the right dtype and shape are filled in place (Session::run).
  graph.session.run(given, results);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    std::vector<std::uint8_t>& bytes = memory[command.graphOutputs[i]];
    if (results[i].data() != bytes.data()) std::memcpy(bytes.data(), results[i].data(), bytes.size());
  }
}

void writeOutputs(const sc::Scenario& scenario, std::vector<std::vector<std::uint8_t>>& memory,
                  ScenarioResult& result) {
  for (std::size_t i = 0; i < scenario.resources.size(); ++i) {
    const sc::Resource& r = scenario.resources[i];
    if (r.dst.empty()) continue;
    tosa::npy::Array array;
    array.dtype = r.dstType;
    array.shape = r.kind == sc::ResourceKind::Tensor ? r.dims : tosa::Shape{static_cast<std::int64_t>(r.bytes)};
    array.data = std::move(memory[i]);
    unwrap(withContext(tosa::npy::writeFile(r.dst, array), scenario.file.string() + ": " + r.where + ".dst"));
    result.written.push_back(r.dst.string());
  }
}

}  // namespace

ScenarioResult runScenario(const std::string& path, const ScenarioOptions& options) {
  sc::Scenario scenario = unwrap(sc::load(path));
  std::vector<std::vector<std::uint8_t>> memory(scenario.resources.size());
  for (std::size_t i = 0; i < scenario.resources.size(); ++i) {
    const sc::Resource& r = scenario.resources[i];
    if (r.kind != sc::ResourceKind::Buffer && r.kind != sc::ResourceKind::Tensor) continue;
    memory[i] = r.initial.empty() ? std::vector<std::uint8_t>(r.bytes, 0) : r.initial;
  }
  std::unique_ptr<sc::ComputeDispatcher> compute;
  if (scenario.hasCompute) {
    runner::ContextOptions context;
    context.validate = options.validate;
    context.device = options.device;
    context.pipelineCache = options.pipelineCache;
    context.cacheDir = options.cacheDir;
    compute = unwrap(withContext(sc::ComputeDispatcher::create(scenario, context), scenario.file.string()));
  }
  std::map<std::size_t, GraphRun> graphs;  // by graph resource, opened at first use
  ScenarioResult result;
  for (const sc::Command& command : scenario.commands) {
    if (command.kind == sc::CommandKind::DispatchCompute) {
      unwrap(withContext(compute->dispatch(scenario, command, memory), scenario.file.string()));
    } else if (command.kind == sc::CommandKind::DispatchGraph) {
      auto it = graphs.find(command.target);
      if (it == graphs.end()) {
        ModelOptions modelOptions;
        modelOptions.device = options.device;
        modelOptions.validate = options.validate;
        modelOptions.pipelineCache = options.pipelineCache;
        modelOptions.modelCache = options.modelCache;
        modelOptions.cacheDir = options.cacheDir;
        Model model = Model::open(scenario.resources[command.target].vgf.string(), modelOptions);
        Session session = model.createSession();
        it = graphs.emplace(command.target, GraphRun{std::move(model), std::move(session)}).first;
      }
      runGraph(scenario, command, it->second, memory);
    }
    ++result.commands;
  }
  if (compute) unwrap(compute->checkValidation());
  writeOutputs(scenario, memory, result);
  return result;
}

}  // namespace openvgf
