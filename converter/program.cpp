// SPDX-License-Identifier: Apache-2.0
// Program construction from the TOSA IR and its text dump.
#include "converter/program.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>


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

// Copies the blocks that control-flow operators anywhere in the graph name, resolved the way
// tosa::Graph::findGraph resolves them (inline-control-flow reads them from the Program).
void copyControlFlowBlocks(const tosa::Graph& graph, Program& program) {
  auto copy = [&](const std::string& name) {
    if (program.blocks.contains(name)) return;
    if (const tosa::Block* b = graph.findGraph(name)) program.blocks.emplace(name, *b);
  };
  for (const tosa::Region& region : graph.regions) {
    for (const tosa::Block& block : region.blocks) {
      for (const tosa::Operator& op : block.operators) {
        if (const auto* c = std::get_if<tosa::CondIfAttrs>(&op.attrs)) {
          copy(c->thenGraph);
          copy(c->elseGraph);
        } else if (const auto* w = std::get_if<tosa::WhileLoopAttrs>(&op.attrs)) {
          copy(w->condGraph);
          copy(w->bodyGraph);
        }
      }
    }
  }
}

}  // namespace

Result<Program> makeProgram(const tosa::Graph& graph) {
  const tosa::Block* block = graph.mainBlock();
  if (block == nullptr) return invalidInput("graph: expected a main block, got none");
  Program program;
  for (const tosa::Tensor& t : block->tensors) {
    program.tensors[t.name] = t;
    if (t.variable) program.variables.push_back(t.name);
  }
  program.inputs = block->inputs;
  program.outputs = block->outputs;
  program.outputNames = program.outputs;
  program.sourceOperators = block->operators.size();
  for (std::size_t i = 0; i < block->operators.size(); ++i) {
    const tosa::Operator& op = block->operators[i];
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
    program.nodes.push_back(Node{i, op, {}});
  }
  copyControlFlowBlocks(graph, program);
  return program;
}

std::string dumpProgram(const Program& program) {
  std::string out;
  auto opText = [](const tosa::Operator& op) {
    return fmt::format("{}({}) -> {}", tosa::toString(op.op), fmt::join(op.inputs, ", "), fmt::join(op.outputs, ", "));
  };
  for (const auto& [view, base] : program.aliases) {
    out += fmt::format("{} {} -> {}\n", program.crops.count(view) != 0 ? "crop" : "alias", view, base);
  }
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
    if (read.count(view) == 0) continue;
    const char* kind = program.crops.count(view) != 0 ? "crop " : "alias";
    out += fmt::format("{}  {} = {}\n", kind, typedName(program, view), base);
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

Status checkCrop(const Program& program, const std::string& view, const std::string& base) {
  const tosa::Tensor* viewTensor = program.find(view);
  const tosa::Tensor* baseTensor = program.find(base);
  if (viewTensor == nullptr || baseTensor == nullptr) return invalidInput("crop {} -> {}: unknown tensor", view, base);
  const tosa::Tensor& a = *viewTensor;
  const tosa::Tensor& b = *baseTensor;
  if (a.dtype != b.dtype || a.shape.size() != 4 || b.shape.size() != 4 || a.shape[0] != b.shape[0] ||
      a.shape[3] != b.shape[3] || a.shape[1] > b.shape[1] || a.shape[2] > b.shape[2]) {
    return invalidInput("crop {}: expected an NHWC view of its base with no more rows or columns, got {}{} of {}{}",
                        view, tosa::toString(a.dtype), tosa::shapeToString(a.shape), tosa::toString(b.dtype),
                        tosa::shapeToString(b.shape));
  }
  if (program.isOutput(view)) return invalidInput("crop {}: expected no model output", view);
  for (const Node& node : program.nodes) {
    for (std::size_t i = 0; i < node.op.inputs.size(); ++i) {
      if (node.op.inputs[i] == view && (node.op.op != tosa::Op::Conv2d || i != 0)) {
        return invalidInput("crop {}: read by {} input {}, expected only CONV2D input 0", view,
                            tosa::toString(node.op.op), i);
      }
    }
    for (const FusedOp& f : node.epilogue) {
      if (std::find(f.op.inputs.begin(), f.op.inputs.end(), view) != f.op.inputs.end()) {
        return invalidInput("crop {}: read by a fused {}, expected only CONV2D input 0", view, tosa::toString(f.op.op));
      }
    }
  }
  return {};
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
    if (program.crops.count(view) != 0) {
      OPENVGF_TRY(checkCrop(program, view, base));
      continue;
    }
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
  // Variables not yet resolved hold a value from the start and take any number of writes.
  auto isVariable = [&](const std::string& name) {
    return std::find(program.variables.begin(), program.variables.end(), name) != program.variables.end();
  };
  auto isDefined = [&](const std::string& name) {
    return defined.count(name) != 0 || program.isConstant(name) || defined.count(program.bufferOf(name)) != 0 ||
           (program.bufferOf(name) != name && program.isConstant(program.bufferOf(name))) || isVariable(name);
  };
  auto write = [&](const std::string& label, const std::string& name) -> Status {
    OPENVGF_TRY(known(name, label + ": output"));
    if (isVariable(name)) return {};
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
      if (f.op.outputs.empty() || f.chainInput >= f.op.inputs.size() ||
          program.bufferOf(f.op.inputs[f.chainInput]) != previous) {
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
