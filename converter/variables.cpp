// SPDX-License-Identifier: Apache-2.0
// EXT-VARIABLE lowering to a state input/output pair per variable (see variables.h).
#include "converter/variables.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace openvgf::converter {

std::string stateName(const std::string& variable) {
  return "state:" + variable;
}

Status lowerVariables(Program& program) {
  std::map<std::string, std::string> current;  // variable -> tensor holding its value now
  std::vector<std::string> declared;
  for (const auto& [name, tensor] : program.tensors) {
    if (tensor.variable) declared.push_back(name);
  }
  if (declared.empty()) return {};
  // The variable's own name (VariableAttribute) when the file has one, else the tensor's.
  auto displayName = [&](const std::string& tensor) {
    const std::string& own = program.tensors.at(tensor).variableName;
    return own.empty() ? tensor : own;
  };
  for (const std::string& v : declared) {
    const std::string in = stateName(v);
    if (program.find(in) != nullptr) {
      return invalidInput("variable '{}': expected no tensor named '{}' (reserved for its state), got one", v,
                          in);
    }
    tosa::Tensor t = program.tensors.at(v);
    t.name = in;
    t.variable = false;
    t.data.reset();
    program.tensors[in] = std::move(t);
    program.inputs.push_back(in);
    program.interfaceNames[in] = stateName(displayName(v));
    current[v] = in;
  }
  auto isVariable = [&](const std::string& name) {
    const tosa::Tensor* t = program.find(name);
    return t != nullptr && t->variable;
  };
  std::vector<Node> nodes;
  std::set<std::string> written;
  for (Node& node : program.nodes) {
    const tosa::Operator& op = node.op;
    if (op.op == tosa::Op::Variable) continue;
    const bool read = op.op == tosa::Op::VariableRead ||
                      (op.op == tosa::Op::Identity && !op.inputs.empty() && isVariable(op.inputs[0]));
    const bool write = op.op == tosa::Op::VariableWrite ||
                       (op.op == tosa::Op::Identity && !op.outputs.empty() && isVariable(op.outputs[0]));
    if (!read && !write) {
      for (const auto& name : op.inputs) {
        if (isVariable(name)) {
          return unsupported(
              "operators[{}] {}: input '{}': expected a variable to be read through VARIABLE_READ",
              node.index, tosa::toString(op.op), name);
        }
      }
      nodes.push_back(std::move(node));
      continue;
    }
    if (op.inputs.size() != 1 || op.outputs.size() != 1) {
      return invalidInput("operators[{}] {}: expected one input and one output", node.index,
                          tosa::toString(op.op));
    }
    const std::string& variable = read ? op.inputs[0] : op.outputs[0];
    if (!current.contains(variable)) {
      return invalidInput("operators[{}] {}: '{}': expected a declared variable", node.index,
                          tosa::toString(op.op), variable);
    }
    if (read) {
      Node copy = std::move(node);
      copy.op.op = tosa::Op::Identity;
      copy.op.attrs = {};
      copy.op.inputs = {current[variable]};
      nodes.push_back(std::move(copy));
    } else {
      const tosa::Tensor* value = program.find(op.inputs[0]);
      const tosa::Tensor& var = program.tensors.at(variable);
      if (value == nullptr || value->dtype != var.dtype || value->shape != var.shape) {
        return invalidInput("operators[{}] {}: '{}': expected a value of type {} {}", node.index,
                            tosa::toString(op.op), variable, tosa::toString(var.dtype),
                            tosa::shapeToString(var.shape));
      }
      current[variable] = op.inputs[0];
      written.insert(variable);
    }
  }
  for (const std::string& v : declared) {
    if (!written.contains(v)) continue;
    // The state output needs a buffer of its own (the final value may be a model input, a
    // constant or another output), so it is an IDENTITY copy under a converter-made name.
    const std::string out = fmt::format("{}#out", stateName(v));
    tosa::Tensor t = program.tensors.at(v);
    t.name = out;
    t.variable = false;
    t.data.reset();
    program.tensors[out] = std::move(t);
    Node copy;
    copy.index = program.nodes.empty() ? 0 : program.nodes.back().index;
    copy.op.op = tosa::Op::Identity;
    copy.op.inputs = {current[v]};
    copy.op.outputs = {out};
    nodes.push_back(std::move(copy));
    program.outputs.push_back(out);
    program.interfaceNames[out] = stateName(displayName(v));
  }
  program.nodes = std::move(nodes);
  return {};
}

}  // namespace openvgf::converter
