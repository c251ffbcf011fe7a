// SPDX-License-Identifier: Apache-2.0
// Output shapes and types of TOSA 1.0 operators from their inputs and attributes: the one
// place that knows the spec's shape formulas (conv/pool output size, broadcasting, RESIZE,
// TRANSPOSE_CONV2D, ...). The Builder uses it to create output tensors, the verifier to check
// them; both therefore report the same rule text on a violation.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "tosa/graph.h"

namespace openvgf::tosa {

/// What inference needs to know about one operator input.
struct ValueInfo {
  DType dtype = DType::Unknown;
  Shape shape;
  /// The values of a shape_t input (CONST_SHAPE output), when known.
  std::optional<std::vector<std::int64_t>> shapeValue;
};

/// One inferred output. `dtype` is Unknown when the op leaves the output type to the graph
/// (CAST, RESCALE, MATMUL's f16 -> f32 variant is a choice too: the default is reported).
struct OutputInfo {
  DType dtype = DType::Unknown;
  Shape shape;
  bool operator==(const OutputInfo&) const = default;
};

/// Infers the outputs of `op`. Errors are InvalidInput with a message that quotes the rule,
/// e.g. "input: expected rank 4, got 3" or "OH = (IH - 1 + pad_top + pad_bottom - (KH - 1) *
/// dilation_y) / stride_y + 1 must divide exactly, got (5 - 1 + 0 + 0 - 2) / 3". Ops whose
/// outputs are not determined by their inputs (CONST, CONST_SHAPE, CUSTOM, COND_IF,
/// WHILE_LOOP, VARIABLE*) return Unsupported.
Result<std::vector<OutputInfo>> inferOutputs(Op op, const Attributes& attrs,
                                             std::span<const ValueInfo> inputs);

/// True when inferOutputs can determine `op`'s outputs.
bool hasShapeInference(Op op);

/// Broadcast of two equal-rank shapes (a dimension of 1 stretches). nullopt if incompatible.
std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b);

/// Output size of one spatial dimension of a convolution or pooling window:
/// (in - 1 + padBefore + padAfter - (kernel - 1) * dilation) / stride + 1, or nullopt when
/// the division is not exact or the result is < 1.
std::optional<std::int64_t> convOutputSize(std::int64_t in, std::int64_t padBefore, std::int64_t padAfter,
                                           std::int64_t kernel, std::int64_t stride, std::int64_t dilation);

}  // namespace openvgf::tosa
