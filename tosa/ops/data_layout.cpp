// SPDX-License-Identifier: Apache-2.0
// CONCAT, PAD, RESHAPE, REVERSE, SLICE, TILE and TRANSPOSE: verify and shape rules. Shape
// operands (padding, shape, start, size, multiples) are compile-time shape_t values.
#include "tosa/ops/rules.h"

namespace openvgf::tosa::ops {
namespace {

Status verifyConcat(OpCheck& c) {
  for (std::size_t i = 1; i < c.inputs().size(); ++i) OPENVGF_TRY(c.requireType(i, "input1[]", c.in(0).dtype));
  return c.checkTypes({c.in(0).dtype}, "input1");
}

Result<std::vector<OutputInfo>> inferConcat(const Inference& in) {
  OPENVGF_ASSIGN_OR_RETURN(const auto* a, in.attrs<AxisAttrs>());
  if (in.size() == 0) return invalidInput("input1: expected at least one tensor in the list, got none");
  const ValueInfo& x = in.in(0);
  std::int64_t r = static_cast<std::int64_t>(x.shape.size());
  if (a->axis < 0 || a->axis >= r) return invalidInput("axis: expected 0 <= axis < rank {}, got {}", r, a->axis);
  Shape out = x.shape;
  for (std::size_t i = 1; i < in.size(); ++i) {
    const Shape& s = in.in(i).shape;
    if (s.size() != x.shape.size()) {
      return invalidInput("input1[{}]: expected rank {}, got shape {}", i, x.shape.size(), shapeToString(s));
    }
    for (std::size_t d = 0; d < s.size(); ++d) {
      if (static_cast<std::int32_t>(d) != a->axis && s[d] != x.shape[d]) {
        return invalidInput("input1[{}]: expected dimension {} = {} (all but axis equal), got {}", i, d, x.shape[d],
                            s[d]);
      }
    }
    out[static_cast<std::size_t>(a->axis)] += s[static_cast<std::size_t>(a->axis)];
  }
  return Inference::same(x.dtype, out);
}

Status verifyPad(OpCheck& c) {
  OPENVGF_TRY(c.requireType(1, "padding", DType::Shape));
  OPENVGF_TRY(c.requireType(2, "pad_const", c.in(0).dtype));
  auto n = checkedElementCount(c.in(2).shape);
  if (!n || *n != 1) {
    return c.fail("pad_const '{}': expected one element, got {}", c.in(2).name, shapeToString(c.in(2).shape));
  }
  OPENVGF_TRY(c.requireCtc(1, "padding"));
  OPENVGF_TRY(c.requireCtc(2, "pad_const"));
  return c.checkTypes({c.in(0).dtype}, "input1");
}

Result<std::vector<OutputInfo>> inferPad(const Inference& in) {
  const ValueInfo& x = in.in(0);
  OPENVGF_ASSIGN_OR_RETURN(auto padding, in.shapeValue(1, "padding", 2 * x.shape.size()));
  Shape out = x.shape;
  for (std::size_t d = 0; d < out.size(); ++d) {
    constexpr std::int64_t kMaxPad = std::int64_t{1} << 40;
    if (padding[2 * d] < 0 || padding[2 * d + 1] < 0 || padding[2 * d] > kMaxPad || padding[2 * d + 1] > kMaxPad) {
      return invalidInput("padding: expected values in [0, 2^40], got {} at dimension {}",
                          fmt::format("[{},{}]", padding[2 * d], padding[2 * d + 1]), d);
    }
    out[d] += padding[2 * d] + padding[2 * d + 1];
  }
  return Inference::same(x.dtype, out);
}

/// RESHAPE and TILE: input1 and one compile-time shape operand.
Status verifyShapeOperand(OpCheck& c) {
  const char* name = c.op() == Op::Reshape ? "shape" : "multiples";
  OPENVGF_TRY(c.requireType(1, name, DType::Shape));
  OPENVGF_TRY(c.requireCtc(1, name));
  return c.checkTypes({c.in(0).dtype}, "input1");
}

Result<std::vector<OutputInfo>> inferReshape(const Inference& in) {
  const ValueInfo& x = in.in(0);
  OPENVGF_ASSIGN_OR_RETURN(auto shape, in.shapeValue(1, "shape", Inference::kAnyLength));
  for (std::int64_t d : shape) {
    if (d < 1) return invalidInput("shape: expected every dimension >= 1, got {}", shapeToString(shape));
  }
  auto a = checkedElementCount(x.shape);
  auto b = checkedElementCount(shape);
  if (!a || !b || *a != *b) {
    return invalidInput("shape: expected the same element count as input1 {}, got {}", shapeToString(x.shape),
                        shapeToString(shape));
  }
  return Inference::same(x.dtype, shape);
}

Result<std::vector<OutputInfo>> inferTile(const Inference& in) {
  const ValueInfo& x = in.in(0);
  OPENVGF_ASSIGN_OR_RETURN(auto multiples, in.shapeValue(1, "multiples", x.shape.size()));
  Shape out = x.shape;
  for (std::size_t d = 0; d < out.size(); ++d) {
    if (multiples[d] < 1) return invalidInput("multiples: expected values >= 1, got {}", shapeToString(multiples));
    if (out[d] > std::numeric_limits<std::int64_t>::max() / multiples[d]) {
      return invalidInput("multiples: output dimension overflows");
    }
    out[d] *= multiples[d];
  }
  return Inference::same(x.dtype, out);
}

Status verifyReverse(OpCheck& c) {
  OPENVGF_TRY(c.checkTypes({c.in(0).dtype}, "input1"));
  OPENVGF_TRY(c.attrs<AxisAttrs>());
  return {};
}

Result<std::vector<OutputInfo>> inferReverse(const Inference& in) {
  const ValueInfo& x = in.in(0);
  OPENVGF_ASSIGN_OR_RETURN(const auto* a, in.attrs<AxisAttrs>());
  std::int64_t r = static_cast<std::int64_t>(x.shape.size());
  if (a->axis < 0 || a->axis >= r) return invalidInput("axis: expected 0 <= axis < rank {}, got {}", r, a->axis);
  return Inference::same(x.dtype, x.shape);
}

Status verifySlice(OpCheck& c) {
  OPENVGF_TRY(c.requireType(1, "start", DType::Shape));
  OPENVGF_TRY(c.requireType(2, "size", DType::Shape));
  OPENVGF_TRY(c.requireCtc(1, "start"));
  OPENVGF_TRY(c.requireCtc(2, "size"));
  return c.checkTypes({c.in(0).dtype}, "input1");
}

Result<std::vector<OutputInfo>> inferSlice(const Inference& in) {
  const ValueInfo& x = in.in(0);
  OPENVGF_ASSIGN_OR_RETURN(auto start, in.shapeValue(1, "start", x.shape.size()));
  OPENVGF_ASSIGN_OR_RETURN(auto size, in.shapeValue(2, "size", x.shape.size()));
  for (std::size_t d = 0; d < x.shape.size(); ++d) {
    if (start[d] < 0 || size[d] <= 0 || start[d] > x.shape[d] - size[d]) {
      return invalidInput(
          "start, size: expected start >= 0, size > 0 and start + size <= input dim, got start {} size {} for "
          "dimension {} of size {}",
          start[d], size[d], d, x.shape[d]);
    }
  }
  return Inference::same(x.dtype, size);
}

Status verifyTranspose(OpCheck& c) { return c.checkTypes({c.in(0).dtype}, "input1"); }

Result<std::vector<OutputInfo>> inferTranspose(const Inference& in) {
  const ValueInfo& x = in.in(0);
  OPENVGF_ASSIGN_OR_RETURN(const auto* a, in.attrs<TransposeAttrs>());
  std::size_t r = x.shape.size();
  if (a->perms.size() != r) return invalidInput("perms: expected {} values (input rank), got {}", r, intList(a->perms));
  std::vector<bool> seen(r, false);
  Shape out(r);
  for (std::size_t i = 0; i < r; ++i) {
    std::int32_t p = a->perms[i];
    if (p < 0 || static_cast<std::size_t>(p) >= r || seen[static_cast<std::size_t>(p)]) {
      return invalidInput("perms: expected a permutation of 0..{}, got {}", r - 1, intList(a->perms));
    }
    seen[static_cast<std::size_t>(p)] = true;
    out[i] = x.shape[static_cast<std::size_t>(p)];
  }
  return Inference::same(x.dtype, out);
}

}  // namespace

const OpRules kConcatRules{verifyConcat, inferConcat};
const OpRules kPadRules{verifyPad, inferPad};
const OpRules kReshapeRules{verifyShapeOperand, inferReshape};
const OpRules kReverseRules{verifyReverse, inferReverse};
const OpRules kSliceRules{verifySlice, inferSlice};
const OpRules kTileRules{verifyShapeOperand, inferTile};
const OpRules kTransposeRules{verifyTranspose, inferTranspose};

}  // namespace openvgf::tosa::ops
