// SPDX-License-Identifier: Apache-2.0
// Shape and type inference (TOSA 1.0 §2.2-2.3 of specs/tosa.md): the helpers every shape rule
// uses and the dispatch to the operator's rule (tosa/ops/<family>.cpp, named by tosa/ops.def).
// Messages name the argument by its spec name and quote the rule.
#include "tosa/shape_inference.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>

#include "tosa/op_table.h"
#include "tosa/ops/rules.h"
#include "tosa/packing.h"

namespace openvgf::tosa {

namespace ops {

Status Inference::rank(std::size_t index, std::string_view name, std::size_t r) const {
  if (in_[index].shape.size() != r) {
    return invalidInput("{}: expected rank {}, got {} (shape {})", name, r, in_[index].shape.size(),
                        shapeToString(in_[index].shape));
  }
  return {};
}

Result<std::vector<std::int64_t>> Inference::shapeValue(std::size_t index, std::string_view name,
                                                        std::size_t length) const {
  const ValueInfo& v = in_[index];
  if (!v.shapeValue) {
    return invalidInput(
        "{}: expected a compile-time shape value (CONST_SHAPE output), got a value that is not "
        "known",
        name);
  }
  if (length != kAnyLength && v.shapeValue->size() != length) {
    return invalidInput("{}: expected {} values, got {}", name, length, v.shapeValue->size());
  }
  return *v.shapeValue;
}

Status Inference::checkVec(const std::vector<std::int32_t>& v, std::size_t n, std::string_view name) {
  if (v.size() != n) return invalidInput("{}: expected {} values, got {}", name, n, intList(v));
  return {};
}

Result<std::int64_t> Inference::spatial(std::string_view dim, std::int64_t in, std::int64_t padA, std::int64_t padB,
                                        std::int64_t k, std::int64_t stride, std::int64_t dilation,
                                        std::string_view rule) const {
  if (stride < 1 || dilation < 1) {
    return invalidInput("{}: expected stride >= 1 and dilation >= 1, got stride {} dilation {}", dim, stride,
                        dilation);
  }
  std::int64_t num = in - 1 + padA + padB - (k - 1) * dilation;
  auto out = convOutputSize(in, padA, padB, k, stride, dilation);
  if (!out) return invalidInput("{}: {} must divide exactly and be >= 1, got ({}) / {}", dim, rule, num, stride);
  return *out;
}

Result<std::vector<OutputInfo>> Inference::same(DType dtype, Shape shape) {
  return std::vector<OutputInfo>{{dtype, std::move(shape)}};
}

Result<std::vector<OutputInfo>> Inference::broadcast2(DType out) const {
  const Shape& a = in_[0].shape;
  const Shape& b = in_[1].shape;
  if (a.size() != b.size()) {
    return invalidInput("input1, input2: expected equal ranks (TOSA does not expand ranks), got {} and {}",
                        shapeToString(a), shapeToString(b));
  }
  auto s = broadcastShapes(a, b);
  if (!s) {
    return invalidInput(
        "input1, input2: expected broadcast-compatible shapes (equal or 1 per dimension), got {} "
        "and {}",
        shapeToString(a), shapeToString(b));
  }
  return same(out, *s);
}

DType accumulatorOutput(DType in) {
  switch (in) {
    case DType::Int8: return DType::Int32;
    case DType::Int16: return DType::Int48;
    case DType::Fp8E4M3:
    case DType::Fp8E5M2: return DType::Fp16;
    default: return in;
  }
}

}  // namespace ops

bool hasShapeInference(Op op) { return isValid(op) && opInfo(op).rules->infer != nullptr; }

std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return std::nullopt;
  Shape out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i] || b[i] == 1) {
      out[i] = a[i];
    } else if (a[i] == 1) {
      out[i] = b[i];
    } else {
      return std::nullopt;
    }
  }
  return out;
}

std::optional<std::int64_t> convOutputSize(std::int64_t in, std::int64_t padBefore, std::int64_t padAfter,
                                           std::int64_t kernel, std::int64_t stride, std::int64_t dilation) {
  if (stride < 1 || dilation < 1 || kernel < 1) return std::nullopt;
  // Operands come from 32-bit fields and dimensions below 2^31, so this cannot overflow int64.
  std::int64_t num = in - 1 + padBefore + padAfter - (kernel - 1) * dilation;
  if (num < 0 || num % stride != 0) return std::nullopt;
  return num / stride + 1;
}

Result<std::vector<OutputInfo>> inferOutputs(Op op, const Attributes& attrs,
                                             std::span<const ValueInfo> inputs) {
  const int expected = opArity(op).inputs;
  if (expected != kVariadic && inputs.size() != static_cast<std::size_t>(expected)) {
    return invalidInput("{}: expected {} inputs, got {}", toString(op), expected, inputs.size());
  }
  const ops::OpRules* rules = opInfo(op).rules;
  if (rules->infer == nullptr) return unsupported("{}: outputs are not determined by the inputs", toString(op));
  return rules->infer(ops::Inference(op, attrs, inputs));
}

}  // namespace openvgf::tosa
