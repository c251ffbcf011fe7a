// SPDX-License-Identifier: Apache-2.0
// Program construction from the TOSA IR and its text dump.
#include "converter/program.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "converter/control_flow.h"

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

namespace {

bool isVariableRead(const tosa::Operator& op) {
  return op.op == tosa::Op::VariableRead ||
         (op.op == tosa::Op::Identity && op.attributeTag == static_cast<std::uint8_t>(tosa::Op::VariableRead));
}

bool isVariableWrite(const tosa::Operator& op) {
  return op.op == tosa::Op::VariableWrite ||
         (op.op == tosa::Op::Identity && op.attributeTag == static_cast<std::uint8_t>(tosa::Op::VariableWrite));
}

struct Builder {
  const tosa::Graph& graph;
  Program& program;
  std::map<std::string, std::string> variableValue;  // variable tensor -> tensor holding its current value
  int inlined = 0;

  Status addOperators(const tosa::Block& block, const std::map<std::string, std::string>& rename,
                      std::optional<std::size_t> parentIndex);
};

// Adds the operators of `block`, renaming tensors through `rename` (inlined branches).
Status Builder::addOperators(const tosa::Block& block, const std::map<std::string, std::string>& rename,
                             std::optional<std::size_t> parentIndex) {
  auto name = [&](const std::string& n) {
    auto it = rename.find(n);
    return it == rename.end() ? n : it->second;
  };
  for (std::size_t i = 0; i < block.operators.size(); ++i) {
    tosa::Operator op = block.operators[i];
    // Inlined branch operators report the COND_IF's index (the user's operator).
    const std::size_t index = parentIndex.value_or(i);
    for (auto& n : op.inputs) n = name(n);
    for (auto& n : op.outputs) n = name(n);
    for (const auto& n : op.inputs) {
      if (program.find(n) == nullptr) {
        return invalidInput("operators[{}] {}: input '{}': expected a tensor of the block, got an unknown name", i,
                            tosa::toString(op.op), n);
      }
    }
    for (const auto& n : op.outputs) {
      if (program.find(n) == nullptr) {
        return invalidInput("operators[{}] {}: output '{}': expected a tensor of the block, got an unknown name", i,
                            tosa::toString(op.op), n);
      }
    }
    if (op.op == tosa::Op::Const || op.op == tosa::Op::ConstShape) {
      for (const auto& n : op.outputs) {
        if (!program.isConstant(n)) {
          return invalidInput("operators[{}] {}: output '{}': expected constant data, got none", i,
                              tosa::toString(op.op), n);
        }
      }
      continue;
    }
    // EXT-VARIABLE: reads take the variable's current value, writes give it a new one; the
    // state travels through the model input/output pair `state:<name>`.
    if (isVariableRead(op) && !op.inputs.empty() && variableValue.count(op.inputs[0]) != 0) {
      op.op = tosa::Op::Identity;
      op.attrs = std::monostate{};
      op.attributeTag = 0xFF;
      op.inputs[0] = variableValue[op.inputs[0]];
      program.nodes.push_back(Node{index, std::move(op), {}});
      continue;
    }
    if (isVariableWrite(op) && op.outputs.size() == 1 && variableValue.count(op.outputs[0]) != 0) {
      const std::string variable = op.outputs[0];
      tosa::Tensor value = *program.find(variable);
      value.variable = false;
      value.data.reset();
      value.name = fmt::format("state:{}#{}", variable, program.nodes.size());
      program.tensors[value.name] = value;
      op.op = tosa::Op::Identity;
      op.attrs = std::monostate{};
      op.attributeTag = 0xFF;
      op.outputs[0] = value.name;
      variableValue[variable] = value.name;
      program.nodes.push_back(Node{index, std::move(op), {}});
      continue;
    }
    // COND_IF whose condition is a constant: the taken branch is inlined.
    if (op.op == tosa::Op::CondIf && !op.inputs.empty() && program.isConstant(op.inputs[0]) &&
        std::holds_alternative<tosa::CondIfAttrs>(op.attrs)) {
      const auto& attrs = std::get<tosa::CondIfAttrs>(op.attrs);
      const bool taken = tosa::constantValue(*program.find(op.inputs[0])).bytes.at(0) != 0;
      const tosa::Block* branch = graph.findGraph(taken ? attrs.thenGraph : attrs.elseGraph);
      if (branch == nullptr || branch->inputs.size() + 1 != op.inputs.size() || branch->outputs.size() != op.outputs.size()) {
        return invalidInput("operators[{}] COND_IF: expected a branch graph matching its inputs and outputs", i);
      }
      std::map<std::string, std::string> inner;
      const std::string prefix = fmt::format("cond{}/", inlined++);
      for (const tosa::Tensor& t : branch->tensors) {
        tosa::Tensor copy = t;
        copy.name = prefix + t.name;
        inner[t.name] = copy.name;
        program.tensors[copy.name] = std::move(copy);
      }
      for (std::size_t k = 0; k < branch->inputs.size(); ++k) inner[branch->inputs[k]] = op.inputs[k + 1];
      // Branch outputs become copies into the COND_IF's outputs (IDENTITY nodes, elided later).
      OPENVGF_TRY(addOperators(*branch, inner, index));
      for (std::size_t k = 0; k < branch->outputs.size(); ++k) {
        tosa::Operator copy;
        copy.op = tosa::Op::Identity;
        auto it = inner.find(branch->outputs[k]);
        copy.inputs = {it == inner.end() ? branch->outputs[k] : it->second};
        copy.outputs = {op.outputs[k]};
        program.nodes.push_back(Node{index, std::move(copy), {}});
      }
      continue;
    }
    // Other COND_IF / WHILE_LOOP nodes are folded by inlineControlFlow (control_flow.h) when
    // their conditions are computed from constants only, else refused as Unsupported there.
    program.nodes.push_back(Node{index, std::move(op), {}});
  }
  return {};
}

}  // namespace

Result<Program> makeProgram(const tosa::Graph& graph) {
  const tosa::Block* block = graph.mainBlock();
  if (block == nullptr) return invalidInput("graph: expected a main block, got none");
  Program program;
  for (const tosa::Tensor& t : block->tensors) program.tensors[t.name] = t;
  program.inputs = block->inputs;
  program.outputs = block->outputs;
  Builder builder{graph, program, {}, 0};
  std::vector<std::string> variables;
  for (const tosa::Tensor& t : block->tensors) {
    if (!t.variable) continue;
    // The state enters as model input `state:<name>` (the caller feeds the initial value).
    tosa::Tensor state = t;
    state.name = fmt::format("state:{}", t.variableName.empty() ? t.name : t.variableName);
    state.variable = false;
    state.data.reset();
    program.tensors[state.name] = state;
    program.inputs.push_back(state.name);
    builder.variableValue[t.name] = state.name;
    variables.push_back(t.name);
  }
  program.outputNames = program.outputs;
  OPENVGF_TRY(builder.addOperators(*block, {}, std::nullopt));
  for (const std::string& v : variables) {
    const tosa::Tensor& t = *program.find(v);
    const std::string stateName = fmt::format("state:{}", t.variableName.empty() ? t.name : t.variableName);
    std::string value = builder.variableValue[v];
    if (value == stateName) {
      // Never written: the output state is a copy of the input state.
      tosa::Tensor copy = *program.find(stateName);
      copy.name = stateName + "#out";
      program.tensors[copy.name] = copy;
      tosa::Operator op;
      op.op = tosa::Op::Identity;
      op.inputs = {stateName};
      op.outputs = {copy.name};
      program.nodes.push_back(Node{block->operators.size(), std::move(op), {}});
      value = copy.name;
    }
    program.outputs.push_back(value);
    program.outputNames.push_back(stateName);
  }
  OPENVGF_TRY(inlineControlFlow(program, graph));
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
