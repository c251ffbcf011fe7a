// SPDX-License-Identifier: Apache-2.0
// Split-K GEMMs (converter/kernels/gemm_common.h: chooseGemm, addGemmKernel): small M x N
// with deep K becomes a partial pass plus a reduction that runs the epilogue. Each case is
// converted twice, with split-K on (the portable target's default) and off, and both runs
// are judged against the reference interpreter; the kernel counts show which was which.
#include <gtest/gtest.h>

#include "converter/kernels/gemm_common.h"
#include "converter/targets/target.h"
#include "tests/converter/run_util.h"
#include "tosa/builder.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::HostTensor;
using tosa::Value;

template <typename T>
HostTensor randomInts(DType dtype, tosa::Shape shape, std::mt19937& rng, int lo, int hi) {
  HostTensor t(dtype, std::move(shape));
  std::uniform_int_distribution<int> dist(lo, hi);
  for (auto& v : t.as<T>()) v = static_cast<T>(dist(rng));
  return t;
}

// The portable target, optionally with packed int8 dot products (include/gemm_dot4.glsl,
// which lavapipe supports), with split-K on or off.
converter::ConvertOptions withSplitK(bool on, bool dot4 = false) {
  converter::ConvertOptions options;
  converter::Target target = converter::portableTarget();
  target.caps.integerDotProduct = dot4;
  if (!on) target.tuning.gemmSplitKGroups = 0;
  options.customTarget = target;
  return options;
}

// Runs `graph` with split-K off and on; expects `unsplitKernels` kernels without it and
// `splitKernels` with it, and every output within the compliance rules both times.
void expectSplitAndUnsplitPass(const tosa::Graph& graph, const std::vector<HostTensor>& inputs,
                               std::size_t unsplitKernels, std::size_t splitKernels, bool dot4 = false) {
  for (bool on : {false, true}) {
    SCOPED_TRACE(on ? "split-K" : "no split-K");
    RunOutcome outcome = convertRunCheck(graph, inputs, withSplitK(on, dot4));
    expectAllPass(outcome);
    EXPECT_EQ(outcome.stats.kernels, on ? splitKernels : unsplitKernels);
    EXPECT_EQ(outcome.stats.splitKGemms, on ? splitKernels - unsplitKernels : 0u);
  }
}

class SplitK : public ::testing::Test {
 protected:
  std::mt19937 rng{20261121};

  // A 3x3, pad 1 int8 CONV2D of x ([1, h, w, ic]) to oc channels, seeded weights and bias.
  Value int8Conv3x3(tosa::Builder& b, const Value& x, std::int64_t ic, std::int64_t oc, std::int64_t inputZp,
                    std::int64_t weightZp) {
    tosa::ConvParams cp;
    cp.pad = {1, 1, 1, 1};
    cp.inputZp = inputZp;
    cp.weightZp = weightZp;
    return b.conv2d(x, b.constant(randomInts<std::int8_t>(DType::Int8, {oc, 3, 3, ic}, rng, -127, 127)),
                    b.constant(randomInts<std::int32_t>(DType::Int32, {oc}, rng, -5000, 5000)), cp);
  }
};

TEST_F(SplitK, Conv2dFp32WithBiasAndClamp) {
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {1, 7, 7, 128});
  tosa::ConvParams cp;
  cp.pad = {1, 1, 1, 1};
  Value c = b.conv2d(x, b.constant(randomFp32({96, 3, 3, 128}, rng, -0.1f, 0.1f)), b.constant(randomFp32({96}, rng)),
                     cp);
  b.output(b.clamp(c, 0.0, 6.0));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  expectSplitAndUnsplitPass(*graph, {randomFp32({1, 7, 7, 128}, rng)}, 1, 2);
}

// Integer accumulators sum exactly, so the per-channel RESCALE in the reduction's epilogue
// (its parameters in the kernel's parameter buffer) must match the reference bit for bit.
TEST_F(SplitK, Conv2dInt8PerChannelRescaleEpilogue) {
  const int oc = 40;
  tosa::Builder b;
  Value acc = int8Conv3x3(b, b.input("x", DType::Int8, {1, 5, 6, 160}), 160, oc, -3, 0);
  tosa::RescaleParams rp;
  for (int i = 0; i < oc; ++i) {
    rp.multiplier.push_back(1395864371 + i * 1000003);
    rp.shift.push_back(44 + i % 3);
  }
  rp.outputZp = 4;
  b.output(b.clamp(b.rescale(acc, rp), -100, 120));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  expectSplitAndUnsplitPass(*graph, {randomInts<std::int8_t>(DType::Int8, {1, 5, 6, 160}, rng, -128, 127)}, 1, 2);
}

// The packed dot-product core corrects each slice for the zero points over its own K range;
// a K that is not a multiple of the slice depth leaves zero-point padding in the last one.
TEST_F(SplitK, Conv2dInt8DotProductsWithZeroPoints) {
  tosa::Builder b;
  b.output(int8Conv3x3(b, b.input("x", DType::Int8, {1, 6, 5, 150}), 150, 36, 9, -4));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  expectSplitAndUnsplitPass(*graph, {randomInts<std::int8_t>(DType::Int8, {1, 6, 5, 150}, rng, -128, 127)}, 1, 2,
                            /*dot4=*/true);
}

// Batched MATMUL: slices of each batch land in their own partial rows, and the last slice
// is shorter than the others (K = 700).
TEST_F(SplitK, BatchedMatMulWithShortLastSlice) {
  tosa::Builder b;
  Value a = b.input("a", DType::Fp32, {3, 20, 700});
  Value m = b.input("b", DType::Fp32, {3, 700, 24});
  b.output(b.matmul(a, m));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  expectSplitAndUnsplitPass(*graph, {randomFp32({3, 20, 700}, rng), randomFp32({3, 700, 24}, rng)}, 1, 2);
}

TEST_F(SplitK, Conv3dFp32) {
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {1, 2, 4, 4, 64});
  tosa::ConvParams cp;
  cp.pad = {1, 1, 1, 1, 1, 1};
  Value c = b.conv3d(x, b.constant(randomFp32({24, 3, 3, 3, 64}, rng, -0.1f, 0.1f)), b.constant(randomFp32({24}, rng)),
                     cp);
  b.output(c);
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  expectSplitAndUnsplitPass(*graph, {randomFp32({1, 2, 4, 4, 64}, rng)}, 1, 2);
}

}  // namespace
}  // namespace openvgf::testing
