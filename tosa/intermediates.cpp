// SPDX-License-Identifier: Apache-2.0
// Per-layer outputs (see intermediates.h).
#include "tosa/intermediates.h"

#include <algorithm>
#include <set>

namespace openvgf::tosa {
namespace {

// Operators whose results are not computed values: constants and variable bookkeeping.
bool computesValues(Op op) {
  return op != Op::Const && op != Op::ConstShape && op != Op::Variable && op != Op::VariableWrite;
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

}  // namespace openvgf::tosa
