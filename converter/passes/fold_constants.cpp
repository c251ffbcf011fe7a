// SPDX-License-Identifier: Apache-2.0
// fold-constants: a node whose data inputs are all constants is evaluated at conversion
// time and its output becomes a constant tensor.
//
//   before: w = CONST; wt = TRANSPOSE(w) [perms 0,2,3,1]; y = CONV2D(x, wt, b)
//   after:  wt = CONST (permuted payload);                y = CONV2D(x, wt, b)
//
// Pure data movement (RESHAPE, IDENTITY, TRANSPOSE) is done here directly; every other
// operator (CONST_SHAPE arithmetic, CAST of weights, ...) is evaluated by the reference
// interpreter on a one-operator graph, so folded values are exactly TOSA's. Control flow,
// variables and CUSTOM are never folded; outputs above kMaxFoldElements stay on the device.
#include <algorithm>
#include <cstring>

#include "converter/passes/passes.h"
#include "tosa/reference/reference.h"

namespace openvgf::converter::passes {
namespace {

constexpr std::int64_t kMaxFoldElements = std::int64_t{1} << 22;

bool foldable(tosa::Op op) {
  switch (op) {
    case tosa::Op::CondIf:
    case tosa::Op::WhileLoop:
    case tosa::Op::Custom:
    case tosa::Op::Variable:
    case tosa::Op::VariableRead:
    case tosa::Op::VariableWrite: return false;
    default: return true;
  }
}

// Runs one operator with constant inputs through the reference interpreter.
std::optional<std::vector<tosa::HostTensor>> evaluateWithReference(const Program& program, const Node& node) {
  for (const auto& out : node.op.outputs) {
    const tosa::Tensor* t = program.find(out);
    if (t == nullptr || tosa::elementCount(t->shape) > kMaxFoldElements) return std::nullopt;
  }
  tosa::Graph graph;
  graph.regions.push_back(tosa::Region{"main", {tosa::Block{}}});
  tosa::Block& block = graph.regions[0].blocks[0];
  block.name = "main";
  for (const auto& name : node.op.inputs) {
    if (block.findTensor(name) != nullptr) continue;
    tosa::Tensor t = *program.find(program.bufferOf(name));
    const tosa::Tensor& view = *program.find(name);
    t.name = name;
    t.shape = view.shape;
    block.tensors.push_back(std::move(t));
    tosa::Operator c;
    c.op = view.dtype == tosa::DType::Shape ? tosa::Op::ConstShape : tosa::Op::Const;
    c.outputs = {name};
    block.operators.push_back(std::move(c));
  }
  for (const auto& name : node.op.outputs) {
    tosa::Tensor t = *program.find(name);
    t.data.reset();
    block.tensors.push_back(std::move(t));
    block.outputs.push_back(name);
  }
  block.operators.push_back(node.op);
  auto result = tosa::reference::run(graph, {});
  if (!result || result->outputs.size() != node.op.outputs.size()) return std::nullopt;
  std::vector<tosa::HostTensor> values;
  for (auto& out : result->outputs) values.push_back(std::move(out.value));
  return values;
}

bool allConstant(const Program& program, const Node& node) {
  if (node.op.inputs.empty() || !node.epilogue.empty()) return false;
  return foldable(node.op.op) && std::all_of(node.op.inputs.begin(), node.op.inputs.end(), [&](const std::string& n) {
           return program.isConstant(program.bufferOf(n));
         });
}

std::optional<std::vector<std::uint8_t>> evaluate(const Program& program, const Node& node) {
  const tosa::Tensor& in = *program.find(node.op.inputs[0]);
  const tosa::Tensor& out = *program.find(node.op.outputs[0]);
  if (in.dtype != out.dtype || tosa::elementCount(in.shape) != tosa::elementCount(out.shape)) return std::nullopt;
  const std::size_t eb = tosa::hostElementBytes(in.dtype);
  const auto& src = *in.data;
  if (src.size() < static_cast<std::size_t>(tosa::elementCount(in.shape)) * eb) return std::nullopt;
  switch (node.op.op) {
    case tosa::Op::Reshape:
    case tosa::Op::Identity: return src;
    case tosa::Op::Transpose: {
      if (!std::holds_alternative<tosa::TransposeAttrs>(node.op.attrs)) return std::nullopt;
      const auto& perms = std::get<tosa::TransposeAttrs>(node.op.attrs).perms;
      const std::size_t rank = in.shape.size();
      if (perms.size() != rank) return std::nullopt;
      std::vector<std::int64_t> inStride(rank, 1);
      for (std::size_t d = rank; d-- > 1;) inStride[d - 1] = inStride[d] * in.shape[d];
      std::vector<std::uint8_t> dst(src.size());
      std::vector<std::int64_t> idx(rank, 0);
      const std::int64_t total = tosa::elementCount(out.shape);
      for (std::int64_t o = 0; o < total; ++o) {
        std::int64_t s = 0;
        for (std::size_t i = 0; i < rank; ++i) {
          auto p = static_cast<std::size_t>(perms[i]);
          if (p >= rank) return std::nullopt;
          s += idx[i] * inStride[p];
        }
        std::memcpy(&dst[static_cast<std::size_t>(o) * eb], &src[static_cast<std::size_t>(s) * eb], eb);
        for (std::size_t i = rank; i-- > 0;) {
          if (++idx[i] < out.shape[i]) break;
          idx[i] = 0;
        }
      }
      return dst;
    }
    default: return std::nullopt;
  }
}

}  // namespace

Result<bool> foldConstants(Program& program) {
  bool changed = false;
  for (std::size_t i = 0; i < program.nodes.size();) {
    Node& node = program.nodes[i];
    const bool anyOutput = std::any_of(node.op.outputs.begin(), node.op.outputs.end(),
                                       [&](const std::string& n) { return program.isOutput(n); });
    if (allConstant(program, node) && !anyOutput) {
      if (node.op.outputs.size() == 1 && program.aliases.count(node.op.inputs[0]) == 0) {
        if (auto value = evaluate(program, node)) {
          program.find(node.op.outputs[0])->data = std::move(*value);
          program.nodes.erase(program.nodes.begin() + static_cast<std::ptrdiff_t>(i));
          changed = true;
          continue;
        }
      }
      if (auto values = evaluateWithReference(program, node)) {
        for (std::size_t k = 0; k < values->size(); ++k) {
          program.find(node.op.outputs[k])->data = std::move((*values)[k].bytes);
        }
        program.nodes.erase(program.nodes.begin() + static_cast<std::ptrdiff_t>(i));
        changed = true;
        continue;
      }
    }
    ++i;
  }
  return changed;
}

}  // namespace openvgf::converter::passes
