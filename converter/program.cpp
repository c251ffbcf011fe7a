// SPDX-License-Identifier: Apache-2.0
// Program construction from the TOSA IR and its text dump.
#include "converter/program.h"

#include <algorithm>
#include <set>

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

namespace {

bool isVariableRead(const tosa::Operator& op) {
  return op.op == tosa::Op::VariableRead ||
         (op.op == tosa::Op::Identity && op.attributeTag == static_cast<std::uint8_t>(tosa::Op::VariableRead));
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
    state.name = stateName(t);
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
    const std::string state = stateName(t);
    std::string value = builder.variableValue[v];
    if (value == state) {
      // Never written: the output state is a copy of the input state.
      tosa::Tensor copy = *program.find(state);
      copy.name = state + "#out";
      program.tensors[copy.name] = copy;
      tosa::Operator op;
      op.op = tosa::Op::Identity;
      op.inputs = {state};
      op.outputs = {copy.name};
      program.nodes.push_back(Node{block->operators.size(), std::move(op), {}});
      value = copy.name;
    }
    program.outputs.push_back(value);
    program.outputNames.push_back(state);
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

namespace openvgf::converter {
namespace {

std::string typedName(const Program& program, const std::string& name) {
  const tosa::Tensor* t = program.find(name);
  if (t == nullptr) return fmt::format("{}: ?", name);
  return fmt::format("{}: {}{}", name, tosa::toString(t->dtype), tosa::shapeToString(t->shape));
}

}  // namespace

std::string listProgram(const Program& program) {
  std::string out;
  for (const auto& name : program.inputs) out += fmt::format("input  {}\n", typedName(program, name));
  // Constants and aliases that nodes read, in name order (the map's order).
  std::set<std::string> read;
  for (const Node& node : program.nodes) {
    read.insert(node.op.inputs.begin(), node.op.inputs.end());
    for (const FusedOp& f : node.epilogue) read.insert(f.op.inputs.begin(), f.op.inputs.end());
  }
  read.insert(program.outputs.begin(), program.outputs.end());
  for (const auto& name : read) {
    if (program.isConstant(name)) out += fmt::format("const  {}\n", typedName(program, name));
  }
  for (const auto& [view, base] : program.aliases) {
    if (read.count(view) != 0) out += fmt::format("alias  {} = {}\n", typedName(program, view), base);
  }
  auto opText = [&](const tosa::Operator& op) {
    std::vector<std::string> outs;
    for (const auto& o : op.outputs) outs.push_back(typedName(program, o));
    return fmt::format("{}({}) -> {}", tosa::toString(op.op), fmt::join(op.inputs, ", "), fmt::join(outs, ", "));
  };
  for (const Node& node : program.nodes) {
    out += fmt::format("node   [{}] {}", node.index, opText(node.op));
    for (const FusedOp& f : node.epilogue) out += fmt::format("\n         |> [{}] {}", f.index, opText(f.op));
    out += '\n';
  }
  for (std::size_t i = 0; i < program.outputs.size(); ++i) {
    const std::string& name = program.outputs[i];
    const std::string& as = i < program.outputNames.size() ? program.outputNames[i] : name;
    out += as == name ? fmt::format("output {}\n", name) : fmt::format("output {} as {}\n", name, as);
  }
  return out;
}

Status verifyProgram(const Program& program) {
  auto known = [&](const std::string& name, std::string_view what) -> Status {
    if (program.find(name) == nullptr) return invalidInput("{} '{}': expected a tensor of the program, got an unknown name", what, name);
    return {};
  };
  for (const auto& [view, base] : program.aliases) {
    OPENVGF_TRY(known(view, "alias"));
    OPENVGF_TRY(known(base, fmt::format("alias {} -> base", view)));
    if (program.aliases.count(base) != 0) {
      return invalidInput("alias {} -> {}: expected a base that is not itself an alias", view, base);
    }
    const tosa::Tensor& a = *program.find(view);
    const tosa::Tensor& b = *program.find(base);
    if (a.dtype != b.dtype || tosa::elementCount(a.shape) != tosa::elementCount(b.shape)) {
      return invalidInput("alias {} -> {}: expected the same type and element count, got {}{} and {}{}", view, base,
                          tosa::toString(a.dtype), tosa::shapeToString(a.shape), tosa::toString(b.dtype),
                          tosa::shapeToString(b.shape));
    }
  }
  std::set<std::string> defined;
  for (const auto& name : program.inputs) {
    OPENVGF_TRY(known(name, "model input"));
    defined.insert(name);
  }
  auto isDefined = [&](const std::string& name) {
    return defined.count(name) != 0 || program.isConstant(name) || defined.count(program.bufferOf(name)) != 0 ||
           (program.bufferOf(name) != name && program.isConstant(program.bufferOf(name)));
  };
  auto write = [&](const std::string& label, const std::string& name) -> Status {
    OPENVGF_TRY(known(name, label + ": output"));
    if (defined.count(name) != 0 || program.isConstant(name) || program.aliases.count(name) != 0) {
      return invalidInput("{}: output '{}': expected a tensor written once (not a model input, constant, alias or "
                          "earlier result)", label, name);
    }
    defined.insert(name);
    return {};
  };
  for (const Node& node : program.nodes) {
    const std::string label = fmt::format("node [{}] {}", node.index, tosa::toString(node.op.op));
    if (node.op.outputs.empty()) return invalidInput("{}: expected at least one output, got none", label);
    for (const auto& in : node.op.inputs) {
      OPENVGF_TRY(known(in, label + ": input"));
      if (!isDefined(in)) return invalidInput("{}: input '{}': expected a value computed before the node, got none", label, in);
    }
    for (const auto& out : node.op.outputs) OPENVGF_TRY(write(label, out));
    std::string previous = node.op.outputs[0];
    for (const FusedOp& f : node.epilogue) {
      const std::string fused = fmt::format("{} |> [{}] {}", label, f.index, tosa::toString(f.op.op));
      if (f.op.outputs.empty() || f.chainInput >= f.op.inputs.size() || f.op.inputs[f.chainInput] != previous) {
        return invalidInput("{}: expected input {} to be the previous result '{}'", fused, f.chainInput, previous);
      }
      for (const auto& in : f.op.inputs) {
        OPENVGF_TRY(known(in, fused + ": input"));
        if (!isDefined(in)) return invalidInput("{}: input '{}': expected a value computed before the node, got none", fused, in);
      }
      for (const auto& out : f.op.outputs) OPENVGF_TRY(write(fused, out));
      previous = f.op.outputs[0];
    }
  }
  for (const auto& name : program.outputs) {
    OPENVGF_TRY(known(name, "model output"));
    if (!isDefined(name)) return invalidInput("model output '{}': expected a value the program computes, got none", name);
  }
  return {};
}

}  // namespace openvgf::converter
