// SPDX-License-Identifier: Apache-2.0
// Program construction from the TOSA IR and its text dump.
#include "converter/program.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "converter/control_flow.h"
#include "converter/variables.h"

namespace openvgf::converter {

const tosa::Tensor* Program::find(const std::string& name) const {
  auto it = tensors.find(name);
  return it == tensors.end() ? nullptr : &it->second;
}

tosa::Tensor* Program::find(const std::string& name) {
  auto it = tensors.find(name);
  return it == tensors.end() ? nullptr : &it->second;
}

bool Program::isConstant(const std::string& name) const {
  const tosa::Tensor* t = find(name);
  return t != nullptr && t->data.has_value() && !t->variable;
}

std::size_t Program::useCount(const std::string& name) const {
  std::size_t n = 0;
  for (const Node& node : nodes) {
    n += static_cast<std::size_t>(std::count(node.op.inputs.begin(), node.op.inputs.end(), name));
    for (const FusedOp& f : node.epilogue) {
      n += static_cast<std::size_t>(std::count(f.op.inputs.begin(), f.op.inputs.end(), name));
    }
  }
  return n;
}

bool Program::isOutput(const std::string& name) const {
  return std::find(outputs.begin(), outputs.end(), name) != outputs.end();
}

const std::string& Program::bufferOf(const std::string& name) const {
  auto it = aliases.find(name);
  return it == aliases.end() ? name : it->second;
}

bool Program::isUsed(const std::string& name) const {
  if (isOutput(name) || useCount(name) > 0) return true;
  for (const auto& [view, base] : aliases) {
    if (base == name && (isOutput(view) || useCount(view) > 0)) return true;
  }
  return false;
}

Result<Program> makeProgram(const tosa::Graph& graph) {
  const tosa::Block* block = graph.mainBlock();
  if (block == nullptr) return invalidInput("graph: expected a main block, got none");
  Program program;
  for (const tosa::Tensor& t : block->tensors) program.tensors[t.name] = t;
  program.inputs = block->inputs;
  program.outputs = block->outputs;
  for (std::size_t i = 0; i < block->operators.size(); ++i) {
    const tosa::Operator& op = block->operators[i];
    for (const auto& name : op.inputs) {
      if (program.find(name) == nullptr) {
        return invalidInput("operators[{}] {}: input '{}': expected a tensor of the block, got an unknown name", i,
                            tosa::toString(op.op), name);
      }
    }
    for (const auto& name : op.outputs) {
      if (program.find(name) == nullptr) {
        return invalidInput("operators[{}] {}: output '{}': expected a tensor of the block, got an unknown name", i,
                            tosa::toString(op.op), name);
      }
    }
    if (op.op == tosa::Op::Const || op.op == tosa::Op::ConstShape) {
      for (const auto& name : op.outputs) {
        if (!program.isConstant(name)) {
          return invalidInput("operators[{}] {}: output '{}': expected constant data, got none", i,
                              tosa::toString(op.op), name);
        }
      }
      continue;
    }
    program.nodes.push_back(Node{i, op, {}});
  }
  OPENVGF_TRY(inlineControlFlow(program, graph));
  OPENVGF_TRY(lowerVariables(program));
  return program;
}

std::string dumpProgram(const Program& program) {
  std::string out;
  auto opText = [](const tosa::Operator& op) {
    return fmt::format("{}({}) -> {}", tosa::toString(op.op), fmt::join(op.inputs, ", "), fmt::join(op.outputs, ", "));
  };
  for (const auto& [view, base] : program.aliases) out += fmt::format("alias {} -> {}\n", view, base);
  for (const Node& node : program.nodes) {
    out += fmt::format("{} {}", node.index, opText(node.op));
    for (const FusedOp& f : node.epilogue) out += fmt::format(" |> {}", opText(f.op));
    out += '\n';
  }
  return out;
}

}  // namespace openvgf::converter
