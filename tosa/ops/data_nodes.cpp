// SPDX-License-Identifier: Apache-2.0
// CONST, CONST_SHAPE, IDENTITY, CUSTOM and the EXT-VARIABLE operators: verify and shape rules
// (only IDENTITY's outputs follow from its inputs), and the empty rules of UNKNOWN.
#include "tosa/ops/rules.h"

namespace openvgf::tosa::ops {
namespace {

Status verifyConst(OpCheck& c) {
  const Tensor& t = c.out(0);
  if (c.op() == Op::ConstShape && t.dtype != DType::Shape) {
    return c.fail("output '{}': expected type SHAPE, got {}", t.name, toString(t.dtype));
  }
  if (c.op() == Op::Const && t.dtype == DType::Shape) return c.fail("output '{}': SHAPE values come from CONST_SHAPE", t.name);
  if (!t.data) return c.fail("output '{}': expected constant data in the tensor, got none", t.name);
  auto count = checkedElementCount(t.shape);
  if (!count || t.data->size() != static_cast<std::size_t>(*count) * hostElementBytes(t.dtype)) {
    return c.fail("output '{}': expected {} data bytes for {}, got {}", t.name,
                  count ? static_cast<std::size_t>(*count) * hostElementBytes(t.dtype) : 0, typeOf(t), t.data->size());
  }
  return c.checkTypes({t.dtype}, "output");
}

Status verifyIdentity(OpCheck& c) {
  if (c.in(0).dtype != c.out(0).dtype) {
    return c.fail("output '{}': expected type {}, got {}", c.out(0).name, toString(c.in(0).dtype),
                  toString(c.out(0).dtype));
  }
  // IDENTITY also reads and writes variables (the serializer's convention).
  if (c.in(0).variable || c.out(0).variable) c.addExtensions(kExtVariable);
  return c.checkTypes({c.in(0).dtype}, "input1");
}

Result<std::vector<OutputInfo>> inferIdentity(const Inference& in) {
  return Inference::same(in.in(0).dtype, in.in(0).shape);
}

Status verifyVariable(OpCheck& c) {
  c.addExtensions(kExtVariable);
  return {};
}

Status verifyNothing(OpCheck&) { return {}; }

}  // namespace

const OpRules kConstRules{verifyConst, nullptr};
const OpRules kIdentityRules{verifyIdentity, inferIdentity};
const OpRules kCustomRules{verifyNothing, nullptr};
const OpRules kVariableRules{verifyVariable, nullptr};
const OpRules kNoneRules{verifyNothing, nullptr};

}  // namespace openvgf::tosa::ops
