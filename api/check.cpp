// SPDX-License-Identifier: Apache-2.0
// Reference checks with EXT-VARIABLE state (see check.h).
#include "api/check.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "converter/variables.h"
#include "tosa/compliance.h"
#include "tosa/intermediates.h"

namespace openvgf::api {
namespace {

struct StateVariable {
  std::string tensor;  // the variable's tensor name (the reference's key)
  std::string value;   // tensor the graph last writes into it; empty when never written
};

// The main block's variables by state name.
std::map<std::string, StateVariable> stateVariables(const tosa::Block& main) {
  std::map<std::string, StateVariable> variables;
  for (const tosa::Tensor& t : main.tensors) {
    if (!t.variable) continue;
    StateVariable variable{t.name, {}};
    for (const tosa::Operator& op : main.operators) {
      if (converter::isVariableWrite(op) && op.outputs.size() == 1 && op.outputs[0] == t.name && !op.inputs.empty()) {
        variable.value = op.inputs[0];
      }
    }
    variables[converter::stateName(t)] = std::move(variable);
  }
  return variables;
}

}  // namespace

Result<std::vector<runner::OutputCheck>> checkOutputs(const tosa::Graph& graph, const std::string& graphPath,
                                                      std::span<const runner::TensorInfo> inputInfo,
                                                      std::span<const tosa::HostTensor> inputs,
                                                      std::span<const runner::TensorInfo> outputInfo,
                                                      std::span<const tosa::HostTensor> outputs) {
  const tosa::Block* main = graph.mainBlock();
  if (main == nullptr) return invalidInput("{}: --check: expected a graph with a main block", graphPath);
  const std::map<std::string, StateVariable> variables = stateVariables(*main);

  // The reference sees the graph's own inputs; state inputs become the variables' values.
  tosa::reference::VariableState state;
  std::vector<std::string> inputNames;
  std::vector<tosa::HostTensor> graphInputs;
  for (std::size_t i = 0; i < inputInfo.size(); ++i) {
    auto variable = variables.find(inputInfo[i].name);
    if (variable != variables.end()) {
      state.set(variable->second.tensor, inputs[i]);
      continue;
    }
    inputNames.push_back(inputInfo[i].name);
    graphInputs.push_back(inputs[i]);
  }

  // Each written state becomes one more graph output, so the reference computes the rule
  // that judges it; a state that is already a graph output is compared with that output.
  tosa::Graph augmented = graph;
  tosa::Block& block = *augmented.mainBlock();
  std::vector<std::string> outputNames;
  std::vector<tosa::HostTensor> judged;
  std::vector<std::string> judgedAs;  // the name shown in each check line
  std::vector<std::pair<std::size_t, std::size_t>> sameAs;  // (state output, graph output it copies)
  std::vector<std::size_t> unwritten;                       // state outputs that must equal their input
  for (std::size_t i = 0; i < outputInfo.size(); ++i) {
    auto variable = variables.find(outputInfo[i].name);
    if (variable == variables.end()) {
      outputNames.push_back(outputInfo[i].name);
      judged.push_back(outputs[i]);
      judgedAs.push_back(outputInfo[i].name);
      continue;
    }
    const std::string& value = variable->second.value;
    if (value.empty()) {
      unwritten.push_back(i);
      continue;
    }
    if (std::find(block.outputs.begin(), block.outputs.end(), value) != block.outputs.end()) {
      for (std::size_t k = 0; k < outputInfo.size(); ++k) {
        if (outputInfo[k].name == value) sameAs.emplace_back(i, k);
      }
      continue;
    }
    block.outputs.push_back(value);
    outputNames.push_back(value);
    judged.push_back(outputs[i]);
    judgedAs.push_back(outputInfo[i].name);
  }
  std::map<std::string, tosa::HostTensor> before;
  for (std::size_t i : unwritten) {
    const auto& variable = variables.at(outputInfo[i].name);
    if (const tosa::HostTensor* value = state.find(variable.tensor)) before[outputInfo[i].name] = *value;
  }

  Result<std::vector<runner::OutputCheck>> checks =
      runner::checkAgainstReference(augmented, inputNames, graphInputs, outputNames, judged, &state);
  if (!checks) return Unexpected(std::move(checks).error().addContext(graphPath));
  for (std::size_t k = 0; k < checks->size(); ++k) (*checks)[k].name = judgedAs[k];
  // The state checks below follow the same reference run, so its REQUIRE failures apply too.
  const std::string unpredictable = checks->empty() ? std::string() : checks->front().unpredictable;
  for (const auto& [stateOutput, graphOutput] : sameAs) {
    tosa::compliance::Verdict verdict = tosa::compliance::checkExact(outputs[stateOutput], outputs[graphOutput]);
    if (!verdict.pass) verdict.message = "differs from output '" + outputInfo[graphOutput].name + "', which it copies";
    checks->push_back({outputInfo[stateOutput].name, std::move(verdict), unpredictable});
  }
  for (std::size_t i : unwritten) {
    const tosa::HostTensor* start = before.count(outputInfo[i].name) ? &before[outputInfo[i].name] : nullptr;
    if (start == nullptr) continue;
    checks->push_back({outputInfo[i].name, tosa::compliance::checkExact(outputs[i], *start), unpredictable});
  }
  return checks;
}

namespace {

// Operators left out of the per-operator report: they compute no value the device returns
// (constants, variable bookkeeping, shape values, which the operators reading them are
// judged with).
bool computesData(const tosa::Block& main, const tosa::Operator& op) {
  using tosa::Op;
  if (op.op == Op::Const || op.op == Op::ConstShape || op.op == Op::Variable || op.op == Op::VariableWrite) return false;
  return std::any_of(op.outputs.begin(), op.outputs.end(), [&](const std::string& name) {
    const tosa::Tensor* t = main.findTensor(name);
    return t == nullptr || (t->dtype != tosa::DType::Shape && !t->data);
  });
}

OperatorVerdict checkOperator(const tosa::Graph& graph, std::size_t index,
                              const std::map<std::string, tosa::HostTensor>& values) {
  const tosa::Operator& op = graph.mainBlock()->operators[index];
  OperatorVerdict verdict{index, op.op, {}, {}, 0};
  auto isOwnOutput = [&](const std::string& name) {
    return std::find(op.outputs.begin(), op.outputs.end(), name) != op.outputs.end();
  };
  auto judged = [&](const std::string& name) { return values.contains(name); };
  auto given = [&](const std::string& name) { return values.contains(name) && !isOwnOutput(name); };
  if (!std::any_of(op.outputs.begin(), op.outputs.end(), judged)) {
    verdict.notJudged = fmt::format("the device returned none of its outputs ('{}')", fmt::join(op.outputs, "', '"));
    return verdict;
  }
  Result<tosa::OperatorGraph> split = tosa::operatorGraph(graph, index, given, judged);
  if (!split) {
    verdict.notJudged = split.error().message();
    return verdict;
  }
  verdict.upstream = split->upstream;
  const tosa::Block& block = *split->graph.mainBlock();
  std::vector<tosa::HostTensor> inputs;
  for (const std::string& name : block.inputs) inputs.push_back(values.at(name));
  std::vector<tosa::HostTensor> outputs;
  for (const std::string& name : block.outputs) outputs.push_back(values.at(name));
  Result<std::vector<runner::OutputCheck>> checks =
      runner::checkAgainstReference(split->graph, block.inputs, inputs, block.outputs, outputs);
  if (!checks) {
    verdict.notJudged = "the reference interpreter refused it: " + checks.error().message();
    return verdict;
  }
  verdict.checks = std::move(*checks);
  return verdict;
}

}  // namespace

std::vector<OperatorVerdict> checkOperators(const tosa::Graph& graph,
                                            const std::map<std::string, tosa::HostTensor>& values) {
  std::vector<OperatorVerdict> verdicts;
  const tosa::Block* main = graph.mainBlock();
  if (main == nullptr) return verdicts;
  for (std::size_t i = 0; i < main->operators.size(); ++i) {
    if (computesData(*main, main->operators[i])) verdicts.push_back(checkOperator(graph, i, values));
  }
  return verdicts;
}

}  // namespace openvgf::api
