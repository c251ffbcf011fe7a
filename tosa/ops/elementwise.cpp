// SPDX-License-Identifier: Apache-2.0
// Activation functions, elementwise unary / binary / ternary operators and comparisons
// (CLAMP, ERF ... TANH, ADD ... TABLE, ABS ... SIN, NEGATE, SELECT, EQUAL ... GREATER_EQUAL):
// verify and shape rules. Operands broadcast: equal ranks, a dimension of 1 stretches.
#include <cmath>

#include "tosa/ops/rules.h"

namespace openvgf::tosa::ops {
namespace {

Result<std::vector<OutputInfo>> sameAsInput(const Inference& in) {
  return Inference::same(in.in(0).dtype, in.in(0).shape);
}

Status verifyClamp(OpCheck& c) {
  OPENVGF_ASSIGN_OR_RETURN(const auto* a, c.attrs<ClampAttrs>());
  OPENVGF_TRY(c.checkNan(a->nanMode));
  OPENVGF_TRY(c.checkTypes({c.in(0).dtype}, "input"));
  std::size_t n = hostElementBytes(c.in(0).dtype);
  if (a->minVal.size() != n || a->maxVal.size() != n) {
    return c.fail("min_val/max_val: expected {} bytes (one {} element), got {} and {}", n, toString(c.in(0).dtype),
                  a->minVal.size(), a->maxVal.size());
  }
  auto lo = scalarOf(c.in(0).dtype, a->minVal);
  auto hi = scalarOf(c.in(0).dtype, a->maxVal);
  if (lo && hi && (std::isnan(*lo) || std::isnan(*hi) || *hi < *lo)) {
    return c.fail(
        "min_val/max_val: expected min_val <= max_val and neither NaN (ERROR_IF max_val < min_val), got {} and {}",
        *lo, *hi);
  }
  return {};
}

/// Operands of the same type; the type rows are keyed by input1's type.
Status verifyBinary(OpCheck& c) {
  OPENVGF_TRY(c.requireType(1, "input2", c.in(0).dtype));
  return c.checkTypes({c.in(0).dtype}, "input1");
}

Status verifyMaxMin(OpCheck& c) {
  OPENVGF_ASSIGN_OR_RETURN(const auto* a, c.attrs<NanModeAttrs>());
  OPENVGF_TRY(c.checkNan(a->nanMode));
  return verifyBinary(c);
}

Result<std::vector<OutputInfo>> inferBinary(const Inference& in) { return in.broadcast2(in.in(0).dtype); }
Result<std::vector<OutputInfo>> inferComparison(const Inference& in) { return in.broadcast2(DType::Bool); }

Status verifyMul(OpCheck& c) {
  OPENVGF_TRY(c.requireType(1, "input2", c.in(0).dtype));
  const Tensor& shift = c.in(2);
  if (shift.dtype != DType::Int8 || shift.shape != Shape{1}) {
    return c.fail("shift '{}': expected INT8 [1], got {}", shift.name, typeOf(shift));
  }
  OPENVGF_TRY(c.requireCtc(2, "shift"));
  if (shift.data) {
    double s = scalarOf(DType::Int8, *shift.data).value_or(0);
    if (c.in(0).dtype != DType::Int32 && s != 0) {
      return c.fail("shift '{}': expected 0 for {} inputs (ERROR_IF in_t != i32 && shift != 0), got {}", shift.name,
                    toString(c.in(0).dtype), s);
    }
  }
  return c.checkTypes({c.in(0).dtype, c.out(0).dtype}, "input x output");
}

Result<std::vector<OutputInfo>> inferMul(const Inference& in) {
  DType t = in.in(0).dtype;
  return in.broadcast2(t == DType::Int8 || t == DType::Int16 ? DType::Int32 : t);
}

Status verifyTable(OpCheck& c) {
  OPENVGF_TRY(c.requireType(1, "table", c.in(0).dtype));
  std::int64_t want = c.in(0).dtype == DType::Int16 ? 513 : 256;
  if (c.in(1).shape != Shape{want}) {
    return c.fail("table '{}': expected shape [{}], got {}", c.in(1).name, want, shapeToString(c.in(1).shape));
  }
  OPENVGF_TRY(c.requireCtc(1, "table"));
  return c.checkTypes({c.in(0).dtype}, "input");
}

Result<std::vector<OutputInfo>> inferTable(const Inference& in) {
  return Inference::same(in.in(0).dtype == DType::Int16 ? DType::Int32 : in.in(0).dtype, in.in(0).shape);
}

Status verifyUnary(OpCheck& c) { return c.checkTypes({c.in(0).dtype}, "input1"); }

Status verifyNegate(OpCheck& c) {
  OPENVGF_TRY(c.zeroPoint(1, "input1_zp", c.in(0).dtype, c.in(0).dtype == DType::Int8));
  OPENVGF_TRY(c.zeroPoint(2, "output_zp", c.in(0).dtype, c.in(0).dtype == DType::Int8));
  return c.checkTypes({c.in(0).dtype}, "input1");
}

Status verifySelect(OpCheck& c) {
  OPENVGF_TRY(c.requireType(0, "input1", DType::Bool));
  OPENVGF_TRY(c.requireType(2, "input3", c.in(1).dtype));
  return c.checkTypes({c.in(1).dtype}, "input2");
}

Result<std::vector<OutputInfo>> inferSelect(const Inference& in) {
  const Shape& c = in.in(0).shape;
  const Shape& a = in.in(1).shape;
  const Shape& b = in.in(2).shape;
  if (c.size() != a.size() || c.size() != b.size()) {
    return invalidInput("input1, input2, input3: expected equal ranks, got {}, {} and {}", shapeToString(c),
                        shapeToString(a), shapeToString(b));
  }
  auto ca = broadcastShapes(c, a);
  auto cab = ca ? broadcastShapes(*ca, b) : std::nullopt;
  if (!cab) {
    return invalidInput("input1, input2, input3: expected broadcast-compatible shapes, got {}, {} and {}",
                        shapeToString(c), shapeToString(a), shapeToString(b));
  }
  return Inference::same(in.in(1).dtype, *cab);
}

}  // namespace

const OpRules kClampRules{verifyClamp, sameAsInput};
const OpRules kBinaryRules{verifyBinary, inferBinary};
const OpRules kMaxMinRules{verifyMaxMin, inferBinary};
const OpRules kComparisonRules{verifyBinary, inferComparison};
const OpRules kMulRules{verifyMul, inferMul};
const OpRules kTableRules{verifyTable, inferTable};
const OpRules kUnaryRules{verifyUnary, sameAsInput};
const OpRules kNegateRules{verifyNegate, sameAsInput};
const OpRules kSelectRules{verifySelect, inferSelect};

}  // namespace openvgf::tosa::ops
