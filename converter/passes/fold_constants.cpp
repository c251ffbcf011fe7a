// SPDX-License-Identifier: Apache-2.0
// fold-constants: a node whose data inputs are all constants is evaluated at conversion
// time and its output becomes a constant tensor.
//
//   before: w = CONST; wt = TRANSPOSE(w) [perms 0,2,3,1]; y = CONV2D(x, wt, b)
//   after:  wt = CONST (permuted payload);                y = CONV2D(x, wt, b)
//
// Evaluated here: RESHAPE, IDENTITY, TRANSPOSE (pure data movement, exact for every
// type). Other all-constant nodes stay and run on the device.
#include <algorithm>
#include <cstring>

#include "converter/passes/passes.h"

namespace openvgf::converter::passes {
namespace {

bool allConstant(const Program& program, const Node& node) {
  if (node.op.inputs.empty() || !node.epilogue.empty()) return false;
  return std::all_of(node.op.inputs.begin(), node.op.inputs.end(), [&](const std::string& n) { return program.isConstant(n); });
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
    if (allConstant(program, node) && node.op.outputs.size() == 1 && !program.isOutput(node.op.outputs[0])) {
      if (auto value = evaluate(program, node)) {
        tosa::Tensor* out = program.find(node.op.outputs[0]);
        out->data = std::move(*value);
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
