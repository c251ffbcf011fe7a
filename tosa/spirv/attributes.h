// SPDX-License-Identifier: Apache-2.0
// TOSA attributes <-> the attribute operands of a TOSA.001000.1 instruction, by the operand
// names of the grammar ("pad", "acc_type", ...). The decoder and the encoder both go through
// these two functions, so an attribute is read exactly as it is written. Enumerations use the
// instruction set's numbering (TOSA.001000.1 "Enumerated types"): acc_type INT32=1, FP16=2,
// FP32=3, INT48=4; nan_mode PROPAGATE=1, IGNORE=2; resize mode NEAREST_NEIGHBOR=1,
// BILINEAR=2; rounding_mode SINGLE_ROUND=1, INEXACT_ROUND=2, DOUBLE_ROUND=3.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"
#include "tosa/graph.h"

namespace openvgf::tosa::spirv {

/// The value of one attribute operand.
struct AttributeValue {
  enum class Kind { Int, Bool, List, Element };
  Kind kind = Kind::Int;
  std::int64_t value = 0;          // Int: the integer; Element: the raw bits of the scalar
  bool flag = false;               // Bool
  std::vector<std::int64_t> list;  // List: a rank-1 integer tensor
  DType dtype = DType::Unknown;    // Element: its TOSA type (CLAMP's min_val / max_val)
};

using NamedAttributes = std::vector<std::pair<std::string_view, AttributeValue>>;

/// `op`'s attributes from its attribute operands. Every operand must be one the op reads and
/// of the kind it expects; errors name the operand and the rule ("acc_type: expected 1
/// (INT32), 2 (FP16), 3 (FP32) or 4 (INT48), got 7").
Result<Attributes> attributesFromOperands(Op op, const NamedAttributes& operands);

/// The attribute operands that encode `attrs` for `op` (CLAMP's bounds take the input's
/// element type `elementType`).
Result<NamedAttributes> attributesToOperands(Op op, const Attributes& attrs, DType elementType);

}  // namespace openvgf::tosa::spirv
