// SPDX-License-Identifier: Apache-2.0
// TRANSPOSE_CONV2D on the test device against the reference interpreter under the
// compliance rules, for every type row of CONV2D (INT8xINT8/INT4 -> INT32, INT16xINT8 ->
// INT48, FP16 with FP16/FP32 accumulation, FP32, BF16), strides 1..3, negative and
// positive out_pad, zero points, run-time weights and a fused RESCALE epilogue.
#include <gtest/gtest.h>

#include "tests/converter/reference_check.h"

namespace openvgf::testing {
namespace {

using tosa::DType;

class TransposeConv2dTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vulkanAvailable()) GTEST_SKIP() << "no Vulkan device";
  }
  std::mt19937 rng{20261121};

  struct Geometry {
    std::int64_t n, ih, iw, ic, oc, kh, kw;
    std::int32_t sy, sx;
    std::vector<std::int32_t> outPad;
  };

  void run(const GemmRow& r, const Geometry& geo, bool constWeights, std::int64_t inZp = 0) {
    const std::int64_t oh = (geo.ih - 1) * geo.sy + geo.outPad[0] + geo.outPad[1] + geo.kh;
    const std::int64_t ow = (geo.iw - 1) * geo.sx + geo.outPad[2] + geo.outPad[3] + geo.kw;
    auto [ilo, ihi] = rangeOf(r.in);
    auto [wlo, whi] = rangeOf(r.weight);
    auto [blo, bhi] = rangeOf(r.bias);
    auto x = randomTensor(rng, r.in, {geo.n, geo.ih, geo.iw, geo.ic}, ilo, ihi);
    auto w = randomTensor(rng, r.weight, {geo.oc, geo.kh, geo.kw, geo.ic}, wlo, whi);
    auto b = randomTensor(rng, r.bias, {geo.oc}, blo, bhi);
    GraphBuilder g;
    g.input("x", r.in, x.shape);
    std::vector<tosa::HostTensor> inputs = {x};
    if (constWeights) {
      addConstant(g, "w", w);
    } else {
      g.input("w", r.weight, w.shape);
      inputs.push_back(w);
    }
    addConstant(g, "b", b);
    addConstant(g, "izp", scalarTensor(r.in, static_cast<double>(inZp)));
    addConstant(g, "wzp", scalarTensor(r.weight, 0));
    g.tensor("y", r.out, {geo.n, oh, ow, geo.oc});
    tosa::TransposeConv2dAttrs attrs{geo.outPad, {geo.sy, geo.sx}, false, r.acc};
    g.op(tosa::Op::TransposeConv2d, attrs, {"x", "w", "b", "izp", "wzp"}, {"y"});
    g.output("y");
    expectCompliant(g.graph(), inputs);
  }
};

TEST_F(TransposeConv2dTest, EveryTypeRow) {
  for (const GemmRow& r : kGemmRows) {
    SCOPED_TRACE(std::string(tosa::toString(r.in)) + "x" + std::string(tosa::toString(r.weight)) + " acc " +
                 std::string(tosa::toString(r.acc)));
    run(r, {2, 4, 5, 6, 7, 3, 3, 2, 2, {0, 0, 0, 0}}, true);
  }
}

TEST_F(TransposeConv2dTest, StridesOutPadAndLargeTile) {
  const GemmRow fp32 = kGemmRows[5];
  run(fp32, {1, 5, 4, 9, 70, 3, 2, 3, 1, {-1, 2, 1, -1}}, true);
  run(fp32, {1, 3, 3, 4, 5, 4, 4, 2, 3, {1, 0, -2, -3}}, true);
  run(fp32, {2, 3, 3, 4, 5, 1, 2, 2, 3, {0, 1, 0, 0}}, true);  // kernel smaller than the stride: bias-only phases
  run(kGemmRows[0], {1, 6, 5, 17, 40, 2, 3, 1, 2, {0, 1, 0, 1}}, true, -9);
}

TEST_F(TransposeConv2dTest, RuntimeWeights) {
  run(kGemmRows[5], {1, 4, 4, 5, 6, 3, 3, 2, 2, {0, 0, 0, 0}}, false);
  run(kGemmRows[0], {1, 4, 4, 5, 6, 3, 3, 2, 2, {0, 0, 0, 0}}, false);
}

TEST_F(TransposeConv2dTest, RescaleEpilogueIsFused) {
  const std::int64_t n = 1, ih = 3, iw = 4, ic = 8, oc = 6, k = 3;
  const std::int64_t oh = (ih - 1) * 2 + k, ow = (iw - 1) * 2 + k;
  auto x = randomTensor(rng, DType::Int8, {n, ih, iw, ic}, -128, 127);
  GraphBuilder g;
  g.input("x", DType::Int8, x.shape);
  addConstant(g, "w", randomTensor(rng, DType::Int8, {oc, k, k, ic}, -127, 127));
  addConstant(g, "b", randomTensor(rng, DType::Int32, {oc}, -1000, 1000));
  g.constant<std::int8_t>("zp", DType::Int8, {1}, {0});
  g.tensor("acc", DType::Int32, {n, oh, ow, oc});
  g.op(tosa::Op::TransposeConv2d, tosa::TransposeConv2dAttrs{{0, 0, 0, 0}, {2, 2}, false, DType::Int32},
       {"x", "w", "b", "zp", "zp"}, {"acc"});
  g.constant<std::int32_t>("m", DType::Int32, {1}, {1395864371});
  g.constant<std::int8_t>("s", DType::Int8, {1}, {38});
  g.constant<std::int32_t>("rizp", DType::Int32, {1}, {0});
  g.constant<std::int8_t>("rozp", DType::Int8, {1}, {3});
  g.tensor("y", DType::Int8, {n, oh, ow, oc});
  tosa::RescaleAttrs ra;
  ra.scale32 = true;
  ra.roundingMode = tosa::RoundingMode::SingleRound;
  g.op(tosa::Op::Rescale, ra, {"acc", "m", "s", "rizp", "rozp"}, {"y"});
  g.output("y");
  converter::ConvertOptions options;
  options.cacheDir = testCacheDir();
  auto model = converter::convert(g.graph(), options);
  ASSERT_TRUE(model) << model.error().message();
  EXPECT_EQ(model->stats.kernels, 1u);
  expectCompliant(g.graph(), {x});
}

}  // namespace
}  // namespace openvgf::testing
