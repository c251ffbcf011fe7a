// SPDX-License-Identifier: Apache-2.0
#include "converter/variables.h"

namespace openvgf::converter {

std::string stateName(const tosa::Tensor& variable) {
  return "state:" + (variable.variableName.empty() ? variable.name : variable.variableName);
}

bool isVariableWrite(const tosa::Operator& op) {
  return op.op == tosa::Op::VariableWrite ||
         (op.op == tosa::Op::Identity && op.attributeTag == static_cast<std::uint8_t>(tosa::Op::VariableWrite));
}

std::map<std::string, tosa::HostTensor> initialStates(const tosa::Graph& graph) {
  std::map<std::string, tosa::HostTensor> states;
  const tosa::Block* main = graph.mainBlock();
  if (main == nullptr) return states;
  for (const tosa::Tensor& t : main->tensors) {
    if (!t.variable) continue;
    states[stateName(t)] = t.data ? tosa::constantValue(t) : tosa::HostTensor(t.dtype, t.shape);
  }
  return states;
}

}  // namespace openvgf::converter
