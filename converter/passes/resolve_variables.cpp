// SPDX-License-Identifier: Apache-2.0
// resolve-variables: each EXT-VARIABLE becomes the model input/output pair `state:<name>`.
// The input holds the value before the run (the caller feeds the initial value first), a
// VARIABLE_READ becomes an IDENTITY of the variable's current value, a VARIABLE_WRITE an
// IDENTITY into a fresh tensor `state:<name>#<node>` that is the current value from then on,
// and the last value written is the state output (a copy of the input if nothing writes it).
// Runs after inline-control-flow, so writes inside inlined branches count in program order.
//
//   before: r = VARIABLE_READ(acc); s = ADD(r, x); VARIABLE_WRITE(acc, s)   outputs: [s]
//   after:  r = IDENTITY(state:acc); s = ADD(r, x); state:acc#2 = IDENTITY(s)
//           inputs: [x, state:acc]   outputs: [s, state:acc#2] named [s, state:acc]
#include <fmt/format.h>

#include <map>

#include "converter/passes/passes.h"
#include "converter/variables.h"

namespace openvgf::converter::passes {
namespace {

// The TOSA tools write variable reads and writes as IDENTITY operators with the
// VariableRead / VariableWrite attribute tag.
bool isVariableRead(const tosa::Operator& op) {
  return op.op == tosa::Op::VariableRead ||
         (op.op == tosa::Op::Identity && op.attributeTag == static_cast<std::uint8_t>(tosa::Op::VariableRead));
}

void makeIdentity(tosa::Operator& op) {
  op.op = tosa::Op::Identity;
  op.attrs = std::monostate{};
  op.attributeTag = 0xFF;
}

}  // namespace

Result<bool> resolveVariables(Program& program) {
  if (program.variables.empty()) return false;
  std::map<std::string, std::string> current;  // variable tensor -> tensor holding its current value
  for (const std::string& variable : program.variables) {
    const tosa::Tensor* t = program.find(variable);
    if (t == nullptr) return internalError("variable '{}': expected a tensor of the program", variable);
    tosa::Tensor state = *t;
    state.name = stateName(*t);
    state.variable = false;
    state.data.reset();
    program.inputs.push_back(state.name);
    current[variable] = state.name;
    program.tensors[state.name] = std::move(state);
  }
  for (std::size_t k = 0; k < program.nodes.size(); ++k) {
    tosa::Operator& op = program.nodes[k].op;
    if (isVariableRead(op) && !op.inputs.empty() && current.contains(op.inputs[0])) {
      makeIdentity(op);
      op.inputs[0] = current[op.inputs[0]];
    } else if (isVariableWrite(op) && op.outputs.size() == 1 && current.contains(op.outputs[0])) {
      const std::string variable = op.outputs[0];
      tosa::Tensor value = *program.find(variable);
      value.variable = false;
      value.data.reset();
      value.name = fmt::format("state:{}#{}", variable, k);
      makeIdentity(op);
      op.outputs[0] = value.name;
      current[variable] = value.name;
      program.tensors[value.name] = std::move(value);
    }
  }
  for (const std::string& variable : program.variables) {
    const std::string state = stateName(*program.find(variable));
    std::string value = current[variable];
    if (value == state) {
      // Never written: the output state is a copy of the input state.
      tosa::Tensor copy = *program.find(state);
      copy.name = state + "#out";
      program.tensors[copy.name] = copy;
      tosa::Operator op;
      op.op = tosa::Op::Identity;
      op.inputs = {state};
      op.outputs = {copy.name};
      program.nodes.push_back(Node{program.sourceOperators, std::move(op), {}});
      value = copy.name;
    }
    program.outputs.push_back(value);
    program.outputNames.push_back(state);
  }
  program.variables.clear();
  return true;
}

}  // namespace openvgf::converter::passes
