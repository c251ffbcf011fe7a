// SPDX-License-Identifier: Apache-2.0
// GATHER and SCATTER: verify and shape rules (values [N,K,C], indices [N,W]).
#include "tosa/ops/rules.h"

namespace openvgf::tosa::ops {
namespace {

Status verifyGather(OpCheck& c) {
  OPENVGF_TRY(c.requireType(1, "indices", DType::Int32));
  return c.checkTypes({c.in(0).dtype}, "values");
}

Result<std::vector<OutputInfo>> inferGather(const Inference& in) {
  OPENVGF_TRY(in.rank(0, "values", 3));
  OPENVGF_TRY(in.rank(1, "indices", 2));
  const Shape& v = in.in(0).shape;
  const Shape& i = in.in(1).shape;
  if (i[0] != v[0]) return invalidInput("indices: expected N = {}, got shape {}", v[0], shapeToString(i));
  return Inference::same(in.in(0).dtype, {v[0], i[1], v[2]});
}

Status verifyScatter(OpCheck& c) {
  OPENVGF_TRY(c.requireType(1, "indices", DType::Int32));
  OPENVGF_TRY(c.requireType(2, "input", c.in(0).dtype));
  return c.checkTypes({c.in(0).dtype}, "values_in");
}

Result<std::vector<OutputInfo>> inferScatter(const Inference& in) {
  OPENVGF_TRY(in.rank(0, "values_in", 3));
  OPENVGF_TRY(in.rank(1, "indices", 2));
  OPENVGF_TRY(in.rank(2, "input", 3));
  const Shape& v = in.in(0).shape;
  const Shape& i = in.in(1).shape;
  const Shape& x = in.in(2).shape;
  if (i[0] != v[0] || x[0] != v[0] || x[1] != i[1] || x[2] != v[2]) {
    return invalidInput("indices, input: expected shapes [N={0},W] and [N={0},W,C={1}], got {2} and {3}", v[0], v[2],
                        shapeToString(i), shapeToString(x));
  }
  return Inference::same(in.in(0).dtype, v);
}

}  // namespace

const OpRules kGatherRules{verifyGather, inferGather};
const OpRules kScatterRules{verifyScatter, inferScatter};

}  // namespace openvgf::tosa::ops
