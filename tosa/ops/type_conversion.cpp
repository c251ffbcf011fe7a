// SPDX-License-Identifier: Apache-2.0
// CAST and RESCALE: verify and shape rules. The output type is the graph's choice (checked
// against the type rows), the shape is the input's.
#include "tosa/ops/rules.h"

namespace openvgf::tosa::ops {
namespace {

Status requireSameShape(const OpCheck& c) {
  if (c.in(0).shape != c.out(0).shape) {
    return c.fail("output '{}': expected shape {}, got {}", c.out(0).name, shapeToString(c.in(0).shape),
                  shapeToString(c.out(0).shape));
  }
  return {};
}

Result<std::vector<OutputInfo>> inputShapeAnyType(const Inference& in) {
  return Inference::same(DType::Unknown, in.in(0).shape);
}

Status verifyCast(OpCheck& c) {
  OPENVGF_TRY(requireSameShape(c));
  return c.checkTypes({c.in(0).dtype, c.out(0).dtype}, "input x output");
}

/// rounding_mode, scale32 and the unsigned flags (ERROR_IF rules of RESCALE).
Status checkRescaleFlags(const OpCheck& c, const RescaleAttrs& a) {
  const DType inT = c.in(0).dtype, outT = c.out(0).dtype;
  if (a.roundingMode == RoundingMode::DoubleRound) {
    if (!a.scale32) return c.fail("rounding_mode: DOUBLE_ROUND requires scale32 (ERROR_IF !scale32 && DOUBLE_ROUND)");
    c.addExtensions(kExtDoubleRound);
  } else if (a.roundingMode == RoundingMode::InexactRound) {
    c.addExtensions(kExtInexactRound);
  } else if (a.roundingMode != RoundingMode::SingleRound) {
    return c.fail("rounding_mode: expected SINGLE_ROUND, INEXACT_ROUND or DOUBLE_ROUND, got {}",
                  static_cast<std::uint32_t>(a.roundingMode));
  }
  if (inT == DType::Int48 && a.scale32) return c.fail("scale32: expected false for INT48 input (ERROR_IF scale32 && in_t == i48)");
  if (a.inputUnsigned && a.outputUnsigned) return c.fail("input_unsigned and output_unsigned: expected at most one to be true");
  if (a.inputUnsigned && inT != DType::Int8 && inT != DType::Int16) {
    return c.fail("input_unsigned: only allowed for INT8/INT16 input, got {}", toString(inT));
  }
  if (a.outputUnsigned && outT != DType::Int8 && outT != DType::Int16) {
    return c.fail("output_unsigned: only allowed for INT8/INT16 output, got {}", toString(outT));
  }
  return {};
}

Status verifyRescale(OpCheck& c) {
  OPENVGF_ASSIGN_OR_RETURN(const auto* a, c.attrs<RescaleAttrs>());
  const DType inT = c.in(0).dtype, outT = c.out(0).dtype;
  OPENVGF_TRY(requireSameShape(c));
  OPENVGF_TRY(checkRescaleFlags(c, *a));
  std::int64_t nc = a->perChannel ? (c.in(0).shape.empty() ? 0 : c.in(0).shape.back()) : 1;
  DType multType = a->scale32 ? DType::Int32 : DType::Int16;
  if (c.in(1).dtype != multType || c.in(1).shape != Shape{nc}) {
    return c.fail("multiplier '{}': expected {} [{}] (scale32 = {}, per_channel = {}), got {}", c.in(1).name,
                  toString(multType), nc, a->scale32, a->perChannel, typeOf(c.in(1)));
  }
  if (c.in(2).dtype != DType::Int8 || c.in(2).shape != Shape{nc}) {
    return c.fail("shift '{}': expected INT8 [{}], got {}", c.in(2).name, nc, typeOf(c.in(2)));
  }
  OPENVGF_TRY(c.requireCtc(1, "multiplier"));
  OPENVGF_TRY(c.requireCtc(2, "shift"));
  bool inZpOk = inT == DType::Int8 || (a->inputUnsigned && inT == DType::Int16);
  bool outZpOk = outT == DType::Int8 || (a->outputUnsigned && outT == DType::Int16);
  OPENVGF_TRY(c.zeroPoint(3, "input_zp", inT, inZpOk));
  OPENVGF_TRY(c.zeroPoint(4, "output_zp", outT, outZpOk));
  return c.checkTypes({inT, outT}, "input x output");
}

}  // namespace

const OpRules kCastRules{verifyCast, inputShapeAnyType};
const OpRules kRescaleRules{verifyRescale, inputShapeAnyType};

}  // namespace openvgf::tosa::ops
