// SPDX-License-Identifier: Apache-2.0
// fold-crops end to end: a SLICE that drops the last row and column of an NHWC tensor before
// strided convolutions is not run; the convolutions read the uncropped buffer with its pitch
// and still treat the dropped row and column as padding. Judged against the reference
// interpreter on the portable target (the validation layer on), with the kernel counts
// showing whether the SLICE ran.
#include <gtest/gtest.h>

#include "converter/convert.h"
#include "converter/targets/target.h"
#include "tests/converter/run_util.h"
#include "tosa/builder.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::HostTensor;
using tosa::Value;

// x [2,10,10,ic] cropped to [2,9,9,ic], then a 3x3 stride-2 convolution with padding 1 (its
// last output row and column read the padding where the dropped row and column lie) and a
// 1x1 stride-2 one; with `alsoAdded`, the crop is also an ADD's input, so it must be stored.
tosa::Graph cropGraph(std::int64_t ic, bool alsoAdded, std::mt19937& rng) {
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {2, 10, 10, ic});
  Value c = b.slice(x, {0, 0, 0, 0}, {2, 9, 9, ic});
  tosa::ConvParams p3;
  p3.pad = {1, 1, 1, 1};
  p3.stride = {2, 2};
  p3.dilation = {1, 1};
  tosa::ConvParams p1 = p3;
  p1.pad = {0, 0, 0, 0};
  b.output(b.conv2d(c, b.constant(randomFp32({16, 3, 3, ic}, rng)), b.constant(randomFp32({16}, rng)), p3));
  b.output(b.conv2d(c, b.constant(randomFp32({12, 1, 1, ic}, rng)), std::nullopt, p1));
  if (alsoAdded) b.output(b.add(c, c));
  auto graph = b.build();
  EXPECT_TRUE(graph) << (graph ? "" : graph.error().message());
  return graph ? std::move(*graph) : tosa::Graph{};
}

// Also with the CPU entry's run-time shapes (Tuning::runtimeShapes, lavapipe's 8-lane
// subgroups), where the uncropped tensor's pitch comes from the parameter buffer.
TEST(FoldCrops, StridedConvolutionsReadTheUncroppedBuffer) {
  std::mt19937 rng(71);
  converter::ConvertOptions runtimeShapes;
  runtimeShapes.customTarget = lavapipeLikeTarget();  // with IC 8, the input as 64-bit words
  for (const converter::ConvertOptions& options : {converter::ConvertOptions{}, runtimeShapes}) {
    for (std::int64_t ic : {3, 8}) {  // element-wise and vec4 loads of the input
      SCOPED_TRACE(fmt::format("IC {}, {}", ic, options.customTarget ? "run-time shapes" : "portable"));
      RunOutcome outcome =
          convertRunCheck(cropGraph(ic, false, rng), {randomFp32({2, 10, 10, ic}, rng)}, options);
      expectAllPass(outcome);
      EXPECT_EQ(outcome.stats.kernels, 2u) << "the SLICE is folded into both convolutions";
    }
  }
}

TEST(FoldCrops, ACropOtherKernelsReadIsStillCopied) {
  std::mt19937 rng(72);
  RunOutcome outcome = convertRunCheck(cropGraph(8, true, rng), {randomFp32({2, 10, 10, 8}, rng)});
  expectAllPass(outcome);
  EXPECT_EQ(outcome.stats.kernels, 4u) << "SLICE, two convolutions and the ADD";
}

}  // namespace
}  // namespace openvgf::testing
