// SPDX-License-Identifier: Apache-2.0
// Convolutions, MATMUL, pooling, reductions, ARGMAX, RESIZE and FFT on hand-computed cases.
#include <cmath>
#include <limits>

#include "graph_helpers.h"

namespace openvgf::tosa {
namespace {

using namespace reftest;
using ::testing::ElementsAre;

HostTensor conv2dI8(std::vector<std::int32_t> pad, std::vector<std::int32_t> stride, std::vector<std::int32_t> dil,
                    Shape outShape, std::int64_t inZp = 0) {
  auto in = ints(DType::Int8, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto w = ints(DType::Int8, {1, 2, 2, 1}, {1, 0, 0, 1});
  auto bias = ints(DType::Int32, {1}, {100});
  ConvAttrs a{pad, stride, dil, false, DType::Int32};
  return runOp(Op::Conv2d, {in, w, bias, ints(DType::Int8, {1}, {inZp}), ints(DType::Int8, {1}, {0})}, DType::Int32,
               outShape, a, {false, true, true, true, true});
}

TEST(Conv, Conv2dPaddingStrideDilationZeroPoint) {
  EXPECT_THAT(intValues(conv2dI8({0, 0, 0, 0}, {1, 1}, {1, 1}, {1, 2, 2, 1})), ElementsAre(106, 108, 112, 114));
  EXPECT_THAT(intValues(conv2dI8({1, 0, 1, 0}, {1, 1}, {1, 1}, {1, 3, 3, 1})),
              ElementsAre(101, 102, 103, 104, 106, 108, 107, 112, 114));
  EXPECT_THAT(intValues(conv2dI8({1, 0, 1, 0}, {2, 2}, {1, 1}, {1, 2, 2, 1})), ElementsAre(101, 103, 107, 114));
  EXPECT_THAT(intValues(conv2dI8({0, 0, 0, 0}, {1, 1}, {2, 2}, {1, 1, 1, 1})), ElementsAre(110));
  // input_zp 1 is subtracted from in-bounds values only: (1-1) + (5-1) + 100.
  EXPECT_THAT(intValues(conv2dI8({0, 0, 0, 0}, {1, 1}, {1, 1}, {1, 2, 2, 1}, 1)), ElementsAre(104, 106, 110, 112));
  EXPECT_THAT(intValues(conv2dI8({1, 0, 1, 0}, {1, 1}, {1, 1}, {1, 3, 3, 1}, 1))[0], 100);
}

TEST(Conv, Conv2dOutputSizeMustDivide) {
  auto in = ints(DType::Int8, {1, 4, 4, 1}, {});
  auto w = ints(DType::Int8, {1, 2, 2, 1}, {});
  auto bias = ints(DType::Int32, {1}, {0});
  ConvAttrs a{{0, 0, 0, 0}, {3, 3}, {1, 1}, false, DType::Int32};
  std::string msg = runOpError(Op::Conv2d, {in, w, bias}, DType::Int32, {1, 1, 1, 1}, a);
  EXPECT_NE(msg.find("multiple of stride 3"), std::string::npos) << msg;
}

TEST(Conv, Conv3dAndFloat) {
  // 1x2x2x2x1 input, 2x2x2 kernel of ones: the sum of all 8 inputs.
  auto in = floats(DType::Fp32, {1, 2, 2, 2, 1}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto w = floats(DType::Fp32, {1, 2, 2, 2, 1}, {1, 1, 1, 1, 1, 1, 1, 1});
  auto bias = floats(DType::Fp32, {1}, {0.5});
  ConvAttrs a{{0, 0, 0, 0, 0, 0}, {1, 1, 1}, {1, 1, 1}, false, DType::Fp32};
  EXPECT_THAT(floatValues(runOp(Op::Conv3d, {in, w, bias}, DType::Fp32, {1, 1, 1, 1, 1}, a)), ElementsAre(36.5));
}

TEST(Conv, DepthwiseUsesChannelTimesMultiplierOutputs) {
  auto in = ints(DType::Int8, {1, 2, 2, 2}, {1, 10, 2, 20, 3, 30, 4, 40});
  auto w = ints(DType::Int8, {2, 2, 2, 1}, {1, 2, 1, 2, 1, 2, 1, 2});
  auto bias = ints(DType::Int32, {2}, {0, 5});
  ConvAttrs a{{0, 0, 0, 0}, {1, 1}, {1, 1}, false, DType::Int32};
  EXPECT_THAT(intValues(runOp(Op::DepthwiseConv2d, {in, w, bias}, DType::Int32, {1, 1, 1, 2}, a)), ElementsAre(10, 205));
}

TEST(Conv, TransposeConv2d) {
  auto in = ints(DType::Int8, {1, 2, 2, 1}, {1, 2, 3, 4});
  auto w = ints(DType::Int8, {1, 2, 2, 1}, {1, 1, 1, 1});
  auto bias = ints(DType::Int32, {1}, {0});
  TransposeConv2dAttrs s2{{0, 0, 0, 0}, {2, 2}, false, DType::Int32};
  EXPECT_THAT(intValues(runOp(Op::TransposeConv2d, {in, w, bias}, DType::Int32, {1, 4, 4, 1}, s2)),
              ElementsAre(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4));
  TransposeConv2dAttrs s1{{0, 0, 0, 0}, {1, 1}, false, DType::Int32};
  EXPECT_THAT(intValues(runOp(Op::TransposeConv2d, {in, w, bias}, DType::Int32, {1, 3, 3, 1}, s1)),
              ElementsAre(1, 3, 2, 4, 10, 6, 3, 7, 4));
  // Negative out_pad crops: top/left -1 removes the first row and column.
  TransposeConv2dAttrs crop{{-1, 0, -1, 0}, {1, 1}, false, DType::Int32};
  EXPECT_THAT(intValues(runOp(Op::TransposeConv2d, {in, w, bias}, DType::Int32, {1, 2, 2, 1}, crop)),
              ElementsAre(10, 6, 7, 4));
}

TEST(MatMul, IntWithZeroPointAndFloat) {
  auto a = ints(DType::Int8, {1, 2, 3}, {1, 2, 3, 4, 5, 6});
  auto b = ints(DType::Int8, {1, 3, 2}, {7, 8, 9, 10, 11, 12});
  EXPECT_THAT(intValues(runOp(Op::MatMul, {a, b, ints(DType::Int8, {1}, {0}), ints(DType::Int8, {1}, {0})}, DType::Int32,
                              {1, 2, 2}, {}, {false, false, true, true})),
              ElementsAre(58, 64, 139, 154));
  EXPECT_THAT(intValues(runOp(Op::MatMul, {a, b, ints(DType::Int8, {1}, {1}), ints(DType::Int8, {1}, {0})}, DType::Int32,
                              {1, 2, 2}, {}, {false, false, true, true})),
              ElementsAre(31, 34, 112, 124));
  auto fa = floats(DType::Fp16, {1, 1, 2}, {0.5, 0.25});
  auto fb = floats(DType::Fp16, {1, 2, 1}, {2.0, 4.0});
  EXPECT_THAT(floatValues(runOp(Op::MatMul, {fa, fb}, DType::Fp32, {1, 1, 1})), ElementsAre(2.0));
}

TEST(Pooling, AvgPoolIntegerUsesReciprocalScale) {
  auto in = ints(DType::Int8, {1, 2, 2, 1}, {1, 2, 3, 4});
  AvgPool2dAttrs a{{2, 2}, {1, 1}, {1, 1, 1, 1}, DType::Int32};
  // Padding is not counted: corners average 1 tap, edges 2, the centre 4 (2.5 -> 3).
  EXPECT_THAT(intValues(runOp(Op::AvgPool2d, {in, ints(DType::Int8, {1}, {0}), ints(DType::Int8, {1}, {0})}, DType::Int8,
                              {1, 3, 3, 1}, a, {false, true, true})),
              ElementsAre(1, 2, 2, 2, 3, 3, 3, 4, 4));
  // -3/2: multiplier (2^30+1)*2/2 with shift 31 gives floor(-1.5000000014 + 0.5) = -2.
  auto neg = ints(DType::Int8, {1, 1, 2, 1}, {-1, -2});
  AvgPool2dAttrs b{{1, 2}, {1, 1}, {0, 0, 0, 0}, DType::Int32};
  EXPECT_THAT(intValues(runOp(Op::AvgPool2d, {neg, ints(DType::Int8, {1}, {0}), ints(DType::Int8, {1}, {3})},
                              DType::Int8, {1, 1, 1, 1}, b, {false, true, true})),
              ElementsAre(1));
  auto fin = floats(DType::Fp32, {1, 2, 2, 1}, {1, 2, 3, 4});
  EXPECT_THAT(floatValues(runOp(Op::AvgPool2d, {fin, floats(DType::Fp32, {1}, {0}), floats(DType::Fp32, {1}, {0})},
                                DType::Fp32, {1, 3, 3, 1}, AvgPool2dAttrs{{2, 2}, {1, 1}, {1, 1, 1, 1}, DType::Fp32},
                                {false, true, true})),
              ElementsAre(1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4));
  std::string msg = runOpError(Op::AvgPool2d, {in}, DType::Int8, {1, 3, 3, 1}, AvgPool2dAttrs{{2, 2}, {1, 1}, {2, 0, 0, 0}, DType::Int32});
  EXPECT_NE(msg.find("pad < kernel"), std::string::npos) << msg;
}

TEST(Pooling, MaxPoolNanModes) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto in = floats(DType::Fp32, {1, 1, 4, 1}, {nan, 1.0, nan, nan});
  auto prop = floatValues(runOp(Op::MaxPool2d, {in}, DType::Fp32, {1, 1, 2, 1}, MaxPool2dAttrs{{1, 2}, {1, 2}, {0, 0, 0, 0}, NanMode::Propagate}));
  EXPECT_TRUE(std::isnan(prop[0]) && std::isnan(prop[1]));
  auto ign = floatValues(runOp(Op::MaxPool2d, {in}, DType::Fp32, {1, 1, 2, 1}, MaxPool2dAttrs{{1, 2}, {1, 2}, {0, 0, 0, 0}, NanMode::Ignore}));
  EXPECT_EQ(ign[0], 1.0);
  EXPECT_TRUE(std::isnan(ign[1]));
  auto iin = ints(DType::Int8, {1, 2, 2, 1}, {-5, 3, 7, -128});
  EXPECT_THAT(intValues(runOp(Op::MaxPool2d, {iin}, DType::Int8, {1, 2, 2, 1}, MaxPool2dAttrs{{2, 2}, {1, 1}, {0, 1, 0, 1}, NanMode::Propagate})),
              ElementsAre(7, 3, 7, -128));
}

TEST(Reduction, SumMaxAnyProduct) {
  auto x = ints(DType::Int32, {2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_THAT(intValues(runOp(Op::ReduceSum, {x}, DType::Int32, {2, 1}, AxisAttrs{1})), ElementsAre(6, 15));
  EXPECT_THAT(intValues(runOp(Op::ReduceSum, {x}, DType::Int32, {1, 3}, AxisAttrs{0})), ElementsAre(5, 7, 9));
  EXPECT_THAT(intValues(runOp(Op::ReduceMax, {x}, DType::Int32, {2, 1}, AxisAttrs{1})), ElementsAre(3, 6));
  EXPECT_THAT(intValues(runOp(Op::ReduceMin, {x}, DType::Int32, {1, 3}, AxisAttrs{0})), ElementsAre(1, 2, 3));
  auto b = ints(DType::Bool, {2, 2}, {0, 1, 1, 1});
  EXPECT_THAT(intValues(runOp(Op::ReduceAny, {b}, DType::Bool, {2, 1}, AxisAttrs{1})), ElementsAre(1, 1));
  EXPECT_THAT(intValues(runOp(Op::ReduceAll, {b}, DType::Bool, {2, 1}, AxisAttrs{1})), ElementsAre(0, 1));
  auto f = floats(DType::Fp32, {1, 3}, {2, 3, 4});
  EXPECT_THAT(floatValues(runOp(Op::ReduceProduct, {f}, DType::Fp32, {1, 1}, AxisAttrs{1})), ElementsAre(24));
  std::string msg = runOpError(Op::ReduceSum, {x}, DType::Int32, {2, 1}, AxisAttrs{2});
  EXPECT_NE(msg.find("axis"), std::string::npos);
}

TEST(Reduction, ArgMaxFirstIndexAndNanModes) {
  EXPECT_THAT(intValues(runOp(Op::ArgMax, {ints(DType::Int8, {4}, {1, 3, 3, 2})}, DType::Int32, {}, ArgMaxAttrs{0})),
              ElementsAre(1));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto x = floats(DType::Fp32, {2, 4}, {1, nan, 5, nan, nan, nan, nan, nan});
  EXPECT_THAT(intValues(runOp(Op::ArgMax, {x}, DType::Int32, {2}, ArgMaxAttrs{1, NanMode::Propagate})), ElementsAre(1, 0));
  EXPECT_THAT(intValues(runOp(Op::ArgMax, {x}, DType::Int32, {2}, ArgMaxAttrs{1, NanMode::Ignore})), ElementsAre(2, 0));
}

TEST(Resize, NearestBilinearOffsetBorder) {
  auto in = ints(DType::Int8, {1, 2, 2, 1}, {10, 20, 30, 40});
  auto run = [&](ResizeMode mode, DType out, Shape shape, std::vector<std::int64_t> offset, std::vector<std::int64_t> border) {
    return intValues(runOp(Op::Resize, {in, shapeValue({2, 1, 2, 1}), shapeValue(offset), shapeValue(border)}, out, shape,
                           ResizeAttrs{mode}));
  };
  EXPECT_THAT(run(ResizeMode::Nearest, DType::Int8, {1, 3, 3, 1}, {0, 0}, {0, 0}),
              ElementsAre(10, 20, 20, 30, 40, 40, 30, 40, 40));
  EXPECT_THAT(run(ResizeMode::Bilinear, DType::Int32, {1, 3, 3, 1}, {0, 0}, {0, 0}),
              ElementsAre(40, 60, 80, 80, 100, 120, 120, 140, 160));
  EXPECT_THAT(run(ResizeMode::Bilinear, DType::Int32, {1, 1, 1, 1}, {1, 1}, {-1, -1}), ElementsAre(100));
  auto fin = floats(DType::Fp32, {1, 1, 2, 1}, {0, 1});
  EXPECT_THAT(floatValues(runOp(Op::Resize, {fin, shapeValue({1, 1, 4, 1}), shapeValue({0, 0}), shapeValue({0, 0})},
                                DType::Fp32, {1, 1, 5, 1}, ResizeAttrs{ResizeMode::Bilinear})),
              ElementsAre(0, 0.25, 0.5, 0.75, 1));
}

TEST(Fft, Rfft2dAndFft2d) {
  std::vector<HostTensor> ops{floats(DType::Fp32, {1, 2, 2}, {1, 1, 1, 1})};
  GraphBuilder b;
  auto x = b.input(ops[0]);
  auto re = b.tensor(DType::Fp32, {1, 2, 2});
  auto im = b.tensor(DType::Fp32, {1, 2, 2});
  b.op(Op::Rfft2d, {x}, {re, im}, FftAttrs{});
  b.output(re);
  b.output(im);
  auto r = b.run();
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_THAT(floatValues(r->outputs[0].value), ElementsAre(4, 0, 0, 0));
  GraphBuilder f;
  auto fr = f.input(floats(DType::Fp32, {1, 2, 2}, {1, 0, 0, 0}));
  auto fi = f.input(floats(DType::Fp32, {1, 2, 2}, {0, 0, 0, 0}));
  auto ore = f.tensor(DType::Fp32, {1, 2, 2});
  auto oim = f.tensor(DType::Fp32, {1, 2, 2});
  f.op(Op::Fft2d, {fr, fi}, {ore, oim}, FftAttrs{false, false});
  f.output(ore);
  f.output(oim);
  auto g = f.run();
  ASSERT_TRUE(g) << g.error().message();
  EXPECT_THAT(floatValues(g->outputs[0].value), ElementsAre(1, 1, 1, 1));
}

}  // namespace
}  // namespace openvgf::tosa
