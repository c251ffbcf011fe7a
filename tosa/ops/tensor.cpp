// SPDX-License-Identifier: Apache-2.0
// ARGMAX, FFT2D, RFFT2D and MATMUL (specs/tosa.md §2.3 tensor operators): verify and shape
// rules. The pools and convolutions have files of their own (pool.cpp, conv.cpp).
#include "tosa/ops/rules.h"

namespace openvgf::tosa::ops {
namespace {

bool isPowerOfTwo(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

Status verifyArgMax(OpCheck& c) {
  OPENVGF_ASSIGN_OR_RETURN(const auto* a, c.attrs<ArgMaxAttrs>());
  OPENVGF_TRY(c.checkNan(a->nanMode));
  return c.checkTypes({c.in(0).dtype}, "input");
}

Result<std::vector<OutputInfo>> inferArgMax(const Inference& in) {
  OPENVGF_ASSIGN_OR_RETURN(const auto* a, in.attrs<ArgMaxAttrs>());
  const Shape& s = in.in(0).shape;
  if (a->axis < 0 || static_cast<std::size_t>(a->axis) >= s.size()) {
    return invalidInput("axis: expected 0 <= axis < rank {}, got {}", s.size(), a->axis);
  }
  Shape out = s;
  out.erase(out.begin() + a->axis);
  return Inference::same(DType::Int32, out);
}

Status verifyFft(OpCheck& c) {
  const Shape& s = c.in(0).shape;
  if (s.size() == 3 && (!isPowerOfTwo(s[1]) || !isPowerOfTwo(s[2]))) {
    return c.fail("input_real '{}': expected H and W to be powers of two, got {}", c.in(0).name, shapeToString(s));
  }
  if (c.op() == Op::Fft2d) OPENVGF_TRY(c.requireType(1, "input_imag", c.in(0).dtype));
  return c.checkTypes({c.in(0).dtype}, "input_real");
}

Result<std::vector<OutputInfo>> inferFft(const Inference& in) {
  OPENVGF_TRY(in.rank(0, "input_real", 3));
  if (in.op() == Op::Fft2d) {
    if (in.in(0).shape != in.in(1).shape) {
      return invalidInput("input_imag: expected the shape of input_real {}, got {}", shapeToString(in.in(0).shape),
                          shapeToString(in.in(1).shape));
    }
    return std::vector<OutputInfo>{{in.in(0).dtype, in.in(0).shape}, {in.in(0).dtype, in.in(0).shape}};
  }
  Shape s = in.in(0).shape;
  s[2] = s[2] / 2 + 1;
  return std::vector<OutputInfo>{{in.in(0).dtype, s}, {in.in(0).dtype, s}};
}

Status verifyMatMul(OpCheck& c) {
  OPENVGF_TRY(c.zeroPoint(2, "A_zp", c.in(0).dtype, c.in(0).dtype == DType::Int8));
  OPENVGF_TRY(c.zeroPoint(3, "B_zp", c.in(1).dtype, c.in(1).dtype == DType::Int8));
  return c.checkTypes({c.in(0).dtype, c.in(1).dtype, c.out(0).dtype}, "A x B x output");
}

Result<std::vector<OutputInfo>> inferMatMul(const Inference& in) {
  OPENVGF_TRY(in.rank(0, "A", 3));
  OPENVGF_TRY(in.rank(1, "B", 3));
  const Shape& a = in.in(0).shape;
  const Shape& b = in.in(1).shape;
  if (a[0] != b[0] || a[2] != b[1]) {
    return invalidInput("B: expected shape [N={}, C={}, W], got {}", a[0], a[2], shapeToString(b));
  }
  DType out = in.in(0).dtype == DType::Bf16 ? DType::Fp32 : accumulatorOutput(in.in(0).dtype);
  return Inference::same(out, {a[0], a[1], b[2]});
}

}  // namespace

const OpRules kArgMaxRules{verifyArgMax, inferArgMax};
const OpRules kFftRules{verifyFft, inferFft};
const OpRules kMatMulRules{verifyMatMul, inferMatMul};

}  // namespace openvgf::tosa::ops
