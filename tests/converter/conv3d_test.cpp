// SPDX-License-Identifier: Apache-2.0
// CONV3D on the test device against the reference interpreter under the compliance rules,
// for every type row of CONV2D (INT8xINT8/INT4 -> INT32, INT16xINT8 -> INT48, FP16 with
// FP16/FP32 accumulation, FP32, BF16), with padding, strides, dilation, zero points, a
// large tile and run-time weights.
#include <gtest/gtest.h>

#include "tests/converter/reference_check.h"

namespace openvgf::testing {
namespace {

using tosa::DType;

class Conv3dTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vulkanAvailable()) GTEST_SKIP() << "no Vulkan device";
  }
  std::mt19937 rng{3};

  struct Geometry {
    std::int64_t n, id, ih, iw, ic, oc, kd, kh, kw;
    std::vector<std::int32_t> pad, stride, dilation;
  };

  void run(const GemmRow& r, const Geometry& geo, bool constWeights, std::int64_t inZp = 0) {
    auto outSize = [](std::int64_t in, std::int64_t k, std::int32_t p0, std::int32_t p1, std::int32_t s,
                      std::int32_t d) { return (in - 1 + p0 + p1 - (k - 1) * d) / s + 1; };
    const std::int64_t od = outSize(geo.id, geo.kd, geo.pad[0], geo.pad[1], geo.stride[0], geo.dilation[0]);
    const std::int64_t oh = outSize(geo.ih, geo.kh, geo.pad[2], geo.pad[3], geo.stride[1], geo.dilation[1]);
    const std::int64_t ow = outSize(geo.iw, geo.kw, geo.pad[4], geo.pad[5], geo.stride[2], geo.dilation[2]);
    auto [ilo, ihi] = rangeOf(r.in);
    auto [wlo, whi] = rangeOf(r.weight);
    auto [blo, bhi] = rangeOf(r.bias);
    auto x = randomTensor(rng, r.in, {geo.n, geo.id, geo.ih, geo.iw, geo.ic}, ilo, ihi);
    auto w = randomTensor(rng, r.weight, {geo.oc, geo.kd, geo.kh, geo.kw, geo.ic}, wlo, whi);
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
    g.tensor("y", r.out, {geo.n, od, oh, ow, geo.oc});
    tosa::ConvAttrs attrs{geo.pad, geo.stride, geo.dilation, false, r.acc};
    g.op(tosa::Op::Conv3d, attrs, {"x", "w", "b", "izp", "wzp"}, {"y"});
    g.output("y");
    expectCompliant(g.graph(), inputs);
  }
};

TEST_F(Conv3dTest, EveryTypeRow) {
  for (const GemmRow& r : kGemmRows) {
    SCOPED_TRACE(std::string(tosa::toString(r.in)) + "x" + std::string(tosa::toString(r.weight)) + " acc " +
                 std::string(tosa::toString(r.acc)));
    run(r, {2, 3, 4, 5, 6, 7, 2, 3, 3, {1, 0, 1, 1, 1, 1}, {1, 1, 1}, {1, 1, 1}}, true);
  }
}

TEST_F(Conv3dTest, StridesDilationZeroPointAndLargeTile) {
  run(kGemmRows[5], {1, 5, 6, 7, 5, 70, 3, 2, 3, {1, 1, 0, 1, 2, 0}, {2, 1, 2}, {1, 2, 1}}, true);
  run(kGemmRows[0], {1, 4, 5, 5, 9, 33, 2, 2, 2, {0, 1, 1, 0, 1, 1}, {1, 2, 1}, {2, 1, 1}}, true, 5);
}

TEST_F(Conv3dTest, RuntimeWeights) {
  run(kGemmRows[5], {1, 3, 3, 4, 3, 4, 2, 2, 2, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, {1, 1, 1}}, false);
  run(kGemmRows[2], {1, 3, 3, 4, 3, 4, 2, 2, 2, {1, 1, 0, 0, 1, 1}, {1, 1, 1}, {1, 1, 1}}, false);
}

}  // namespace
}  // namespace openvgf::testing
