// SPDX-License-Identifier: Apache-2.0
// Row-wise chains (fuse-rows, kernels/rowwise.h) and transposed stores (fuse-transposes)
// on the device, judged against the reference interpreter under the compliance rules;
// the kernel counts show that the fusion happened.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/converter/run_util.h"
#include "tosa/builder.h"
#include "tosa/float_types.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::HostTensor;
using tosa::Value;

class RowChains : public ::testing::Test {
 protected:
  std::mt19937 rng{20261127};

  HostTensor random(DType dtype, tosa::Shape shape, double lo = -4.0, double hi = 4.0) {
    HostTensor t(dtype, std::move(shape));
    std::uniform_real_distribution<double> dist(lo, hi);
    const std::size_t n = static_cast<std::size_t>(tosa::elementCount(t.shape));
    for (std::size_t i = 0; i < n; ++i) {
      if (dtype == DType::Fp16) {
        t.as<std::uint16_t>()[i] = tosa::doubleToFp16(dist(rng));
      } else {
        t.as<float>()[i] = static_cast<float>(dist(rng));
      }
    }
    return t;
  }

  Value scalar(tosa::Builder& b, DType dtype, std::size_t rank, double value) {
    return b.constant(dtype, tosa::Shape(rank, 1), std::vector<double>{value});
  }

  // Layer norm over the last axis, written the way exporters write it (mean through
  // REDUCE_SUM and a 1/N constant), with per-column gamma and beta.
  tosa::Graph layerNorm(DType dtype, const tosa::Shape& shape) {
    const std::int64_t n = shape.back();
    const auto rank = static_cast<std::int32_t>(shape.size());
    tosa::Shape column(shape.size(), 1);
    column.back() = n;
    std::vector<double> gamma, beta;
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (std::int64_t i = 0; i < n; ++i) {
      gamma.push_back(dist(rng));
      beta.push_back(dist(rng));
    }
    tosa::Builder b;
    Value x = b.input("x", dtype, shape);
    Value inv = scalar(b, dtype, shape.size(), 1.0 / static_cast<double>(n));
    Value mean = b.mul(b.reduceSum(x, rank - 1), inv);
    Value centred = b.sub(x, mean);
    Value var = b.mul(b.reduceSum(b.mul(centred, centred), rank - 1), inv);
    Value norm = b.mul(centred, b.rsqrt(b.add(var, scalar(b, dtype, shape.size(), 1e-5))));
    b.output(b.add(b.mul(norm, b.constant(dtype, column, gamma, "gamma")),
                   b.constant(dtype, column, beta, "beta"), "y"));
    auto graph = b.build();
    EXPECT_TRUE(graph) << graph.error().message();
    return *graph;
  }
};

tosa::Graph softmax(DType dtype, const tosa::Shape& shape) {
  const auto axis = static_cast<std::int32_t>(shape.size()) - 1;
  tosa::Builder b;
  Value x = b.input("x", dtype, shape);
  Value e = b.exp(b.sub(x, b.reduceMax(x, axis)));
  b.output(b.mul(e, b.reciprocal(b.reduceSum(e, axis)), 0, "y"));
  auto graph = b.build();
  EXPECT_TRUE(graph) << graph.error().message();
  return *graph;
}

TEST_F(RowChains, SoftmaxIsOneKernelAtEveryRowLength) {
  // One column per invocation and fewer; rows that leave invocations idle; the longest row.
  for (const tosa::Shape& shape : {tosa::Shape{5, 2}, tosa::Shape{2, 6, 128}, tosa::Shape{3, 1000}, tosa::Shape{2, 4096}}) {
    SCOPED_TRACE(tosa::shapeToString(shape));
    RunOutcome outcome = convertRunCheck(softmax(DType::Fp32, shape), {random(DType::Fp32, shape)});
    expectAllPass(outcome);
    EXPECT_EQ(outcome.stats.kernels, 1u);
  }
}

TEST_F(RowChains, Fp16SoftmaxRoundsLikeSeparateKernels) {
  const tosa::Shape shape{4, 12, 128};
  RunOutcome outcome = convertRunCheck(softmax(DType::Fp16, shape), {random(DType::Fp16, shape)});
  expectAllPass(outcome);
  EXPECT_EQ(outcome.stats.kernels, 1u);
}

TEST_F(RowChains, LayerNormIsOneKernel) {
  for (DType dtype : {DType::Fp32, DType::Fp16}) {
    SCOPED_TRACE(tosa::toString(dtype));
    const tosa::Shape shape{1, 24, 768};
    RunOutcome outcome = convertRunCheck(layerNorm(dtype, shape), {random(dtype, shape)});
    expectAllPass(outcome);
    EXPECT_EQ(outcome.stats.kernels, 1u);
  }
}

TEST_F(RowChains, NanRowsFollowTheReductionsNanMode) {
  // Row 0 plain, row 1 one NaN, row 2 all NaN: PROPAGATE makes rows 1 and 2 NaN, IGNORE only
  // row 2.
  const tosa::Shape shape{3, 40};
  HostTensor x = random(DType::Fp32, shape);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  x.as<float>()[40 + 7] = nan;
  for (int i = 0; i < 40; ++i) x.as<float>()[80 + i] = nan;
  for (tosa::NanMode mode : {tosa::NanMode::Propagate, tosa::NanMode::Ignore}) {
    tosa::Builder b;
    Value in = b.input("x", DType::Fp32, shape);
    Value low = b.reduceMin(in, 1, mode);
    b.output(b.sub(b.sub(in, b.reduceMax(in, 1, mode)), low, "y"));
    auto graph = b.build();
    ASSERT_TRUE(graph) << graph.error().message();
    RunOutcome outcome = convertRunCheck(*graph, {x});
    expectAllPass(outcome);
  }
}

TEST_F(RowChains, TransposedStoresOfMatmulAndConvolution) {
  // Attention heads: [1,S,H*D] -> [1,H,S,D], with split-K (deep K, small grid) and without.
  for (std::int64_t k : {24, 1536}) {
    SCOPED_TRACE(k);
    tosa::Builder b;
    Value x = b.input("x", DType::Fp32, {1, 32, k});
    Value w = b.constant(random(DType::Fp32, {1, k, 96}, -0.1, 0.1));
    Value q = b.add(b.matmul(x, w), b.constant(random(DType::Fp32, {1, 1, 96})));
    b.output(b.transpose(b.reshape(q, {1, 32, 6, 16}), {0, 2, 1, 3}, "heads"));
    auto graph = b.build();
    ASSERT_TRUE(graph) << graph.error().message();
    RunOutcome outcome = convertRunCheck(*graph, {random(DType::Fp32, {1, 32, k})});
    expectAllPass(outcome);
    EXPECT_EQ(outcome.stats.kernels, 1u + outcome.stats.splitKGemms);
  }
  // NHWC convolution written out as NCHW.
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {1, 9, 7, 8});
  tosa::ConvParams cp;
  cp.pad = {1, 1, 1, 1};
  Value c = b.conv2d(x, b.constant(random(DType::Fp32, {5, 3, 3, 8}, -0.2, 0.2)), b.constant(random(DType::Fp32, {5})), cp);
  b.output(b.transpose(b.clamp(c, 0.0, 6.0), {0, 3, 1, 2}, "nchw"));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  RunOutcome outcome = convertRunCheck(*graph, {random(DType::Fp32, {1, 9, 7, 8})});
  expectAllPass(outcome);
  EXPECT_EQ(outcome.stats.kernels, 1u + outcome.stats.splitKGemms);
}

}  // namespace
}  // namespace openvgf::testing
