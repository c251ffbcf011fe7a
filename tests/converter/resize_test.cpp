// SPDX-License-Identifier: Apache-2.0
// RESIZE on the test device against the reference interpreter under the compliance rules:
// every type row (INT8/INT16 NEAREST and BILINEAR, FP32, FP16, BF16), upscale, downscale
// and non-zero offset/border.
#include <gtest/gtest.h>

#include "tests/converter/reference_check.h"

namespace openvgf::testing {
namespace {

using tosa::DType;

class ResizeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vulkanAvailable()) GTEST_SKIP() << "no Vulkan device";
  }
  std::mt19937 rng{1121};

  struct Case {
    std::int64_t ih, iw;
    std::vector<std::int64_t> scale, offset, border;
  };

  void run(DType in, DType out, tosa::ResizeMode mode, const Case& c, bool bitExact = false) {
    const std::int64_t n = 2, ch = 3;
    const std::int64_t oh = ((c.ih - 1) * c.scale[0] - c.offset[0] + c.border[0]) / c.scale[1] + 1;
    const std::int64_t ow = ((c.iw - 1) * c.scale[2] - c.offset[1] + c.border[1]) / c.scale[3] + 1;
    GraphBuilder g;
    g.input("x", in, {n, c.ih, c.iw, ch});
    g.shapeConst("scale", c.scale);
    g.shapeConst("offset", c.offset);
    g.shapeConst("border", c.border);
    g.tensor("y", out, {n, oh, ow, ch});
    g.op(tosa::Op::Resize, tosa::ResizeAttrs{mode}, {"x", "scale", "offset", "border"}, {"y"});
    g.output("y");
    const double lo = in == DType::Int8 ? -128 : in == DType::Int16 ? -32768 : -4.0;
    const double hi = in == DType::Int8 ? 127 : in == DType::Int16 ? 32767 : 4.0;
    auto x = randomTensor(rng, in, {n, c.ih, c.iw, ch}, lo, hi);
    if (bitExact) {
      expectBitExact(g.graph(), {x});
    } else {
      expectCompliant(g.graph(), {x});
    }
  }
};

TEST_F(ResizeTest, AllTypeRowsUpDownAndOffsets) {
  const std::vector<Case> cases = {
      {5, 6, {4, 2, 6, 2}, {0, 0}, {0, 0}},    // x2, x3 upscale
      {8, 9, {1, 2, 1, 2}, {-1, 0}, {0, 0}},   // /2 downscale
      {4, 5, {11, 5, 7, 3}, {-3, 2}, {4, 1}},  // fractional scales, offsets and borders
  };
  struct Row {
    DType in, out;
    tosa::ResizeMode mode;
  };
  const std::vector<Row> rows = {
      {DType::Int8, DType::Int8, tosa::ResizeMode::Nearest},
      {DType::Int8, DType::Int32, tosa::ResizeMode::Bilinear},
      {DType::Int16, DType::Int16, tosa::ResizeMode::Nearest},
      {DType::Int16, DType::Int48, tosa::ResizeMode::Bilinear},
      {DType::Fp32, DType::Fp32, tosa::ResizeMode::Nearest},
      {DType::Fp32, DType::Fp32, tosa::ResizeMode::Bilinear},
      {DType::Fp16, DType::Fp16, tosa::ResizeMode::Nearest},
      {DType::Fp16, DType::Fp16, tosa::ResizeMode::Bilinear},
      {DType::Bf16, DType::Bf16, tosa::ResizeMode::Nearest},
      {DType::Bf16, DType::Bf16, tosa::ResizeMode::Bilinear},
  };
  for (const Row& r : rows) {
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(tosa::toString(r.in)) + " " + std::string(tosa::toString(r.mode)) + " " +
                   std::to_string(c.ih) + "x" + std::to_string(c.iw));
      run(r.in, r.out, r.mode, c);
    }
  }
}

TEST_F(ResizeTest, ScaleNearHalfPicksTheReferenceNeighbour) {
  // 2*ry == yn - 1 for large yn: the fraction sits just below one half, and its rounding
  // to resize_t (BF16 rounds 1023/2047 up to 0.5, FP16 and FP32 do not) decides the
  // neighbour, so the result must equal the reference run in the type's own precision.
  for (DType t : {DType::Fp32, DType::Fp16, DType::Bf16, DType::Int8}) {
    SCOPED_TRACE(std::string(tosa::toString(t)));
    run(t, t, tosa::ResizeMode::Nearest, Case{3, 3, {2047, 1023, 2047, 1023}, {0, 0}, {-2, -2}}, true);
  }
}

}  // namespace
}  // namespace openvgf::testing
