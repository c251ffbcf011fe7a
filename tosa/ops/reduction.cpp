// SPDX-License-Identifier: Apache-2.0
// REDUCE_ALL, REDUCE_ANY, REDUCE_MAX, REDUCE_MIN, REDUCE_PRODUCT, REDUCE_SUM: verify and shape
// rules (the reduced axis keeps size 1).
#include "tosa/ops/rules.h"

namespace openvgf::tosa::ops {
namespace {

Status verifyReduce(OpCheck& c) {
  if (c.op() == Op::ReduceMax || c.op() == Op::ReduceMin) {
    OPENVGF_ASSIGN_OR_RETURN(const auto* a, c.attrs<AxisAttrs>());
    OPENVGF_TRY(c.checkNan(a->nanMode));
    return c.checkTypes({c.in(0).dtype}, "input");
  }
  OPENVGF_TRY(c.checkTypes({c.in(0).dtype}, "input1"));
  OPENVGF_TRY(c.attrs<AxisAttrs>());
  return {};
}

Result<std::vector<OutputInfo>> inferReduce(const Inference& in) {
  OPENVGF_ASSIGN_OR_RETURN(const auto* a, in.attrs<AxisAttrs>());
  Shape s = in.in(0).shape;
  if (a->axis < 0 || static_cast<std::size_t>(a->axis) >= s.size()) {
    return invalidInput("axis: expected 0 <= axis < rank {}, got {}", s.size(), a->axis);
  }
  s[static_cast<std::size_t>(a->axis)] = 1;
  return Inference::same(in.in(0).dtype, s);
}

}  // namespace

const OpRules kReduceRules{verifyReduce, inferReduce};

}  // namespace openvgf::tosa::ops
