// SPDX-License-Identifier: Apache-2.0
// Per-layer outputs (see intermediates.h).
#include "tosa/intermediates.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace openvgf::tosa {
namespace {

// Operators whose results are not computed values: constants and variable bookkeeping.
bool computesValues(Op op) {
  return op != Op::Const && op != Op::ConstShape && op != Op::Variable && op != Op::VariableWrite;
}

bool isControlFlow(Op op) { return op == Op::CondIf || op == Op::WhileLoop; }

bool touchesState(const Block& main, const Operator& op) {
  if (op.op == Op::Variable || op.op == Op::VariableRead || op.op == Op::VariableWrite) return true;
  auto isVariable = [&](const std::string& name) {
    const Tensor* t = main.findTensor(name);
    return t != nullptr && t->variable;
  };
  return std::any_of(op.inputs.begin(), op.inputs.end(), isVariable) ||
         std::any_of(op.outputs.begin(), op.outputs.end(), isVariable);
}

// What operatorGraph gathers: the operators to run (main block indices) and the tensors the
// new graph takes as inputs.
struct Split {
  const Block& main;
  std::size_t root;  // the operator being split
  const std::function<bool(const std::string&)>& given;
  std::set<std::size_t> operators;
  std::vector<std::string> inputs;
  std::set<std::string> tensors;  // every tensor the operators touch
};

// "" for the operator being split (the caller names it), else the upstream one: "operator 3 ADD before it: ".
std::string where(const Split& split, std::size_t index) {
  if (index == split.root) return "";
  return fmt::format("operator {} {} before it: ", index, toString(split.main.operators[index].op));
}

// Takes operator `index` and, for each input that is neither given nor constant, its producer.
Status gather(Split& split, std::size_t index) {
  if (!split.operators.insert(index).second) return {};
  const Operator& op = split.main.operators[index];
  if (touchesState(split.main, op)) {
    return invalidInput("{}expected no EXT-VARIABLE state (a variable's value depends on the whole run)",
                        where(split, index));
  }
  for (const std::string& name : op.outputs) split.tensors.insert(name);
  for (const std::string& name : op.inputs) {
    if (name.empty() || !split.tensors.insert(name).second) continue;
    const Tensor* t = split.main.findTensor(name);
    if (t != nullptr && t->data) continue;  // a constant travels with the graph
    if (split.given(name)) {
      split.inputs.push_back(name);
      continue;
    }
    std::size_t producer = index;
    for (std::size_t k = 0; k < index; ++k) {
      const auto& outs = split.main.operators[k].outputs;
      if (std::find(outs.begin(), outs.end(), name) != outs.end()) producer = k;
    }
    if (producer == index) {
      return invalidInput("{}input '{}': expected a value (given, constant or computed before it), got none",
                          where(split, index), name);
    }
    OPENVGF_TRY(gather(split, producer));
  }
  return {};
}

}  // namespace

std::vector<ComputedTensor> computedTensors(const Graph& graph) {
  std::vector<ComputedTensor> computed;
  const Block* main = graph.mainBlock();
  if (main == nullptr) return computed;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < main->operators.size(); ++i) {
    const Operator& op = main->operators[i];
    if (!computesValues(op.op)) continue;
    for (const std::string& name : op.outputs) {
      const Tensor* t = main->findTensor(name);
      if (t == nullptr || t->dtype == DType::Shape || t->variable || t->isUnranked || t->data) continue;
      if (!seen.insert(name).second) continue;
      const bool isOutput =
          std::find(main->outputs.begin(), main->outputs.end(), name) != main->outputs.end();
      computed.push_back({name, i, op.op, isOutput});
    }
  }
  return computed;
}

std::vector<ComputedTensor> keepIntermediates(Graph& graph) {
  std::vector<ComputedTensor> computed = computedTensors(graph);
  Block* main = graph.mainBlock();
  if (main == nullptr) return computed;
  for (const ComputedTensor& c : computed) {
    if (!c.graphOutput) main->outputs.push_back(c.tensor);
  }
  return computed;
}

Result<OperatorGraph> operatorGraph(const Graph& graph, std::size_t opIndex,
                                    const std::function<bool(const std::string&)>& given,
                                    const std::function<bool(const std::string&)>& judged) {
  const Block* main = graph.mainBlock();
  if (main == nullptr || opIndex >= main->operators.size()) {
    return invalidInput("operator {}: expected an operator of the main block", opIndex);
  }
  Split split{*main, opIndex, given, {}, {}, {}};
  OPENVGF_TRY(gather(split, opIndex));
  const Operator& op = main->operators[opIndex];
  const bool nested = isControlFlow(op.op);

  Block block;
  block.name = main->name;
  for (std::size_t k : split.operators) block.operators.push_back(main->operators[k]);
  for (const Tensor& t : main->tensors) {
    if (nested || split.tensors.contains(t.name)) block.tensors.push_back(t);
  }
  block.inputs = split.inputs;
  for (const std::string& name : op.outputs) {
    if (judged(name)) block.outputs.push_back(name);
  }
  OperatorGraph out;
  out.upstream = split.operators.size() - 1;
  out.graph.version = graph.version;
  if (nested) {
    out.graph.regions = graph.regions;  // the bodies, wherever they are
    *out.graph.mainBlock() = std::move(block);
  } else {
    out.graph.regions.push_back({graph.regions[0].name, {}});
    out.graph.regions[0].blocks.push_back(std::move(block));
  }
  return out;
}

}  // namespace openvgf::tosa
