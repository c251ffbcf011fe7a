// SPDX-License-Identifier: Apache-2.0
// Single-op and small multi-op graphs converted and run on lavapipe (validation layer on),
// compared with straightforward CPU loops written from the TOSA pseudocode
// (specs/tosa.md §2.3). Integer results must be bit-exact.
#include <algorithm>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "tests/converter/graph_util.h"
#include "tosa/float_types.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::Op;

class OpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vulkanAvailable()) GTEST_SKIP() << "no Vulkan device";
  }
  std::mt19937 rng{20261121};
};

void expectNear(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * std::max(1.0f, std::fabs(want[i]))) << "at " << i;
  }
}

std::int32_t applyScale32(std::int32_t value, std::int32_t multiplier, int shift) {
  std::int64_t round = std::int64_t{1} << (shift - 1);
  return static_cast<std::int32_t>((static_cast<std::int64_t>(value) * multiplier + round) >> shift);
}

TEST_F(OpsTest, AddBroadcastFp32) {
  GraphBuilder g;
  g.input("a", DType::Fp32, {2, 3, 4});
  g.input("b", DType::Fp32, {1, 3, 1});
  g.tensor("y", DType::Fp32, {2, 3, 4});
  g.op(Op::Add, {}, {"a", "b"}, {"y"});
  g.output("y");
  auto a = randomFloats(rng, 24), b = randomFloats(rng, 3);
  auto out = convertAndRun(g.graph(), {bytesOf(a), bytesOf(b)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> want(24);
  for (int i = 0; i < 24; ++i) want[static_cast<std::size_t>(i)] = a[static_cast<std::size_t>(i)] + b[static_cast<std::size_t>((i / 4) % 3)];
  expectNear(valuesOf<float>(out[0]), want, 0.0f);
}

TEST_F(OpsTest, MulInt32WithShift) {
  GraphBuilder g;
  g.input("a", DType::Int32, {37});
  g.input("b", DType::Int32, {37});
  g.constant<std::int8_t>("s", DType::Int8, {1}, {5});
  g.tensor("y", DType::Int32, {37});
  g.op(Op::Mul, {}, {"a", "b", "s"}, {"y"});
  g.output("y");
  auto a = randomInts<std::int32_t>(rng, 37, -30000, 30000), b = randomInts<std::int32_t>(rng, 37, -30000, 30000);
  auto out = convertAndRun(g.graph(), {bytesOf(a), bytesOf(b)});
  ASSERT_EQ(out.size(), 1u);
  auto got = valuesOf<std::int32_t>(out[0]);
  for (std::size_t i = 0; i < 37; ++i) {
    std::int64_t p = static_cast<std::int64_t>(a[i]) * b[i];
    EXPECT_EQ(got[i], static_cast<std::int32_t>((p + 16) >> 5)) << i;
  }
}

TEST_F(OpsTest, FusedChainSubMulClamp) {
  GraphBuilder g;
  g.input("x", DType::Fp32, {3, 50});
  g.input("m", DType::Fp32, {1, 50});
  g.constant<float>("s", DType::Fp32, {1, 1}, {2.5f});
  g.tensor("t0", DType::Fp32, {3, 50});
  g.tensor("t1", DType::Fp32, {3, 50});
  g.tensor("y", DType::Fp32, {3, 50});
  g.op(Op::Sub, {}, {"x", "m"}, {"t0"});
  g.op(Op::Mul, {}, {"t0", "s"}, {"t1"});
  tosa::ClampAttrs clamp;
  float lo = -1.0f, hi = 1.5f;
  clamp.minVal.resize(4);
  clamp.maxVal.resize(4);
  std::memcpy(clamp.minVal.data(), &lo, 4);
  std::memcpy(clamp.maxVal.data(), &hi, 4);
  g.op(Op::Clamp, clamp, {"t1"}, {"y"});
  g.output("y");
  auto x = randomFloats(rng, 150), m = randomFloats(rng, 50);
  converter::ConvertOptions options;
  options.cacheDir = testCacheDir();
  auto model = converter::convert(g.graph(), options);
  ASSERT_TRUE(model) << model.error().message();
  EXPECT_EQ(model->stats.kernels, 1u);  // one fused kernel
  auto out = convertAndRun(g.graph(), {bytesOf(x), bytesOf(m)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> want(150);
  for (std::size_t i = 0; i < 150; ++i) want[i] = std::clamp((x[i] - m[i % 50]) * 2.5f, lo, hi);
  expectNear(valuesOf<float>(out[0]), want, 0.0f);
}

TEST_F(OpsTest, CastFp32ToInt8RoundsHalfEvenAndSaturates) {
  std::vector<float> x = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 127.4f, 127.6f, 300.0f, -300.0f, -128.5f, 3.49f, -2.51f};
  GraphBuilder g;
  g.input("x", DType::Fp32, {static_cast<std::int64_t>(x.size())});
  g.tensor("y", DType::Int8, {static_cast<std::int64_t>(x.size())});
  g.op(Op::Cast, {}, {"x"}, {"y"});
  g.output("y");
  auto out = convertAndRun(g.graph(), {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  auto got = valuesOf<std::int8_t>(out[0]);
  std::vector<int> want = {0, 2, 2, 0, -2, 127, 127, 127, -128, -128, 3, -3};
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], want[i]) << x[i];
}

TEST_F(OpsTest, RescaleInt32ToInt8PerChannel) {
  GraphBuilder g;
  g.input("x", DType::Int32, {4, 3});
  g.constant<std::int32_t>("m", DType::Int32, {3}, {1 << 30, 1518500250, 1 << 29});
  g.constant<std::int8_t>("s", DType::Int8, {3}, {31, 33, 32});
  g.constant<std::int32_t>("izp", DType::Int32, {1}, {0});
  g.constant<std::int8_t>("ozp", DType::Int8, {1}, {-3});
  g.tensor("y", DType::Int8, {4, 3});
  tosa::RescaleAttrs attrs;
  attrs.scale32 = true;
  attrs.roundingMode = tosa::RoundingMode::SingleRound;
  attrs.perChannel = true;
  g.op(Op::Rescale, attrs, {"x", "m", "s", "izp", "ozp"}, {"y"});
  g.output("y");
  std::vector<std::int32_t> x = {1000, -1000, 77, 400, 255, -256, -1, 1, 0, 100000, -100000, 3};
  auto out = convertAndRun(g.graph(), {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  auto got = valuesOf<std::int8_t>(out[0]);
  const std::int32_t mult[3] = {1 << 30, 1518500250, 1 << 29};
  const int shift[3] = {31, 33, 32};
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::int32_t r = applyScale32(x[i], mult[i % 3], shift[i % 3]) - 3;
    EXPECT_EQ(got[i], std::clamp(r, -128, 127)) << i;
  }
}

// apply_scale_32 is computed in 32-bit halves on the GPU; every shift 2..62 (one per
// channel), large and small multipliers, both rounding modes, INT32 -> INT32 so that no
// clamp hides a wrong bit. Values stay in the range where the TOSA result fits in 32 bits
// for the larger shifts and cover the sign/carry cases (0, -1, extremes).
TEST_F(OpsTest, RescaleInt32EveryShiftBothRoundingModes) {
  constexpr int kChannels = 61;
  std::vector<std::int32_t> mult(kChannels);
  std::vector<std::int8_t> shift(kChannels);
  std::uniform_int_distribution<std::int32_t> multDist(1, std::numeric_limits<std::int32_t>::max());
  for (int c = 0; c < kChannels; ++c) {
    shift[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c + 2);
    mult[static_cast<std::size_t>(c)] = c % 4 == 0 ? (1 << 30) : multDist(rng);
  }
  const int rows = 40;
  std::vector<std::int32_t> x(static_cast<std::size_t>(rows * kChannels));
  std::uniform_int_distribution<std::int32_t> valueDist(std::numeric_limits<std::int32_t>::min(),
                                                        std::numeric_limits<std::int32_t>::max());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const int row = static_cast<int>(i) / kChannels;
    x[i] = row == 0 ? 0 : row == 1 ? -1 : row == 2 ? 1 : row == 3 ? std::numeric_limits<std::int32_t>::min()
         : row == 4 ? std::numeric_limits<std::int32_t>::max() : valueDist(rng) >> (row % 31);
  }
  for (auto mode : {tosa::RoundingMode::SingleRound, tosa::RoundingMode::DoubleRound}) {
    GraphBuilder g;
    g.input("x", DType::Int32, {rows, kChannels});
    g.constant<std::int32_t>("m", DType::Int32, {kChannels}, mult);
    g.constant<std::int8_t>("s", DType::Int8, {kChannels}, shift);
    g.constant<std::int32_t>("izp", DType::Int32, {1}, {0});
    g.constant<std::int32_t>("ozp", DType::Int32, {1}, {0});
    g.tensor("y", DType::Int32, {rows, kChannels});
    tosa::RescaleAttrs attrs;
    attrs.scale32 = true;
    attrs.roundingMode = mode;
    attrs.perChannel = true;
    g.op(Op::Rescale, attrs, {"x", "m", "s", "izp", "ozp"}, {"y"});
    g.output("y");
    auto out = convertAndRun(g.graph(), {bytesOf(x)});
    ASSERT_EQ(out.size(), 1u);
    auto got = valuesOf<std::int32_t>(out[0]);
    ASSERT_EQ(got.size(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::size_t c = i % kChannels;
      const int sh = shift[c];
      // TOSA apply_scale_32 in 64 bits; results outside int32 are outside the spec, so
      // only in-range ones are compared.
      std::int64_t round = std::int64_t{1} << (sh - 1);
      if (mode == tosa::RoundingMode::DoubleRound && sh > 31) round += x[i] >= 0 ? (std::int64_t{1} << 30) : -(std::int64_t{1} << 30);
      std::int64_t want = (static_cast<std::int64_t>(x[i]) * mult[c] + round) >> sh;
      if (want < std::numeric_limits<std::int32_t>::min() || want > std::numeric_limits<std::int32_t>::max()) continue;
      ASSERT_EQ(got[i], want) << "x " << x[i] << " multiplier " << mult[c] << " shift " << sh
                              << (mode == tosa::RoundingMode::DoubleRound ? " double" : " single");
    }
  }
}

// RESCALE with scale32 = false (apply_scale_16) from INT16, per channel.
TEST_F(OpsTest, RescaleInt16Scale16PerChannel) {
  GraphBuilder g;
  g.input("x", DType::Int16, {64, 4});
  g.constant<std::int16_t>("m", DType::Int16, {4}, {32767, 12345, 1, 20000});
  g.constant<std::int8_t>("s", DType::Int8, {4}, {15, 2, 3, 40});
  g.constant<std::int16_t>("izp", DType::Int16, {1}, {0});
  g.constant<std::int32_t>("ozp", DType::Int32, {1}, {0});
  g.tensor("y", DType::Int32, {64, 4});
  tosa::RescaleAttrs attrs;
  attrs.scale32 = false;
  attrs.roundingMode = tosa::RoundingMode::SingleRound;
  attrs.perChannel = true;
  g.op(Op::Rescale, attrs, {"x", "m", "s", "izp", "ozp"}, {"y"});
  g.output("y");
  auto x = randomInts<std::int16_t>(rng, 256, -32768, 32767);
  auto out = convertAndRun(g.graph(), {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  auto got = valuesOf<std::int32_t>(out[0]);
  const std::int64_t mult[4] = {32767, 12345, 1, 20000};
  const int shift[4] = {15, 2, 3, 40};
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::int64_t want = (x[i] * mult[i % 4] + (std::int64_t{1} << (shift[i % 4] - 1))) >> shift[i % 4];
    EXPECT_EQ(got[i], want) << i;
  }
}

// CONV2D reference (NHWC, OHWI), integer or float accumulation in T.
template <typename In, typename Acc>
std::vector<Acc> conv2dRef(const std::vector<In>& in, const std::vector<In>& w, const std::vector<Acc>& bias, int n, int ih,
                           int iw, int ic, int oc, int kh, int kw, int stride, int pad, int dil, int oh, int ow, int inZp,
                           int wZp) {
  std::vector<Acc> out(static_cast<std::size_t>(n * oh * ow * oc));
  for (int b = 0; b < n; ++b)
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox)
        for (int o = 0; o < oc; ++o) {
          Acc acc = 0;
          for (int ky = 0; ky < kh; ++ky)
            for (int kx = 0; kx < kw; ++kx) {
              int y = oy * stride - pad + ky * dil, x = ox * stride - pad + kx * dil;
              if (y < 0 || y >= ih || x < 0 || x >= iw) continue;
              for (int c = 0; c < ic; ++c) {
                Acc a = static_cast<Acc>(in[static_cast<std::size_t>(((b * ih + y) * iw + x) * ic + c)]) - inZp;
                Acc ww = static_cast<Acc>(w[static_cast<std::size_t>(((o * kh + ky) * kw + kx) * ic + c)]) - wZp;
                acc += a * ww;
              }
            }
          out[static_cast<std::size_t>(((b * oh + oy) * ow + ox) * oc + o)] = acc + bias[static_cast<std::size_t>(o)];
        }
  return out;
}

TEST_F(OpsTest, Conv2dFp32TiledWithPadding) {
  const int n = 2, ih = 9, iw = 11, ic = 5, oc = 70, k = 3, stride = 2, pad = 1, dil = 1;
  const int oh = (ih - 1 + 2 * pad - (k - 1) * dil) / stride + 1, ow = (iw - 1 + 2 * pad - (k - 1) * dil) / stride + 1;
  auto in = randomFloats(rng, static_cast<std::size_t>(n * ih * iw * ic));
  auto w = randomFloats(rng, static_cast<std::size_t>(oc * k * k * ic));
  auto bias = randomFloats(rng, oc);
  GraphBuilder g;
  g.input("x", DType::Fp32, {n, ih, iw, ic});
  g.constant("w", DType::Fp32, {oc, k, k, ic}, w);
  g.constant("b", DType::Fp32, {oc}, bias);
  g.constant<float>("zp", DType::Fp32, {1}, {0.0f});
  g.tensor("y", DType::Fp32, {n, oh, ow, oc});
  tosa::ConvAttrs attrs{{pad, pad, pad, pad}, {stride, stride}, {dil, dil}, false, DType::Fp32};
  g.op(Op::Conv2d, attrs, {"x", "w", "b", "zp", "zp"}, {"y"});
  g.output("y");
  auto out = convertAndRun(g.graph(), {bytesOf(in)});
  ASSERT_EQ(out.size(), 1u);
  auto want = conv2dRef<float, float>(in, w, bias, n, ih, iw, ic, oc, k, k, stride, pad, dil, oh, ow, 0, 0);
  expectNear(valuesOf<float>(out[0]), want, 1e-5f);
}

TEST_F(OpsTest, Conv2dInt8RescaleClampFused) {
  const int n = 1, ih = 6, iw = 7, ic = 19, oc = 24, k = 3, stride = 1, pad = 1, dil = 2;
  const int oh = (ih - 1 + 2 * pad - (k - 1) * dil) / stride + 1, ow = (iw - 1 + 2 * pad - (k - 1) * dil) / stride + 1;
  auto in = randomInts<std::int8_t>(rng, static_cast<std::size_t>(n * ih * iw * ic), -128, 127);
  auto w = randomInts<std::int8_t>(rng, static_cast<std::size_t>(oc * k * k * ic), -127, 127);
  auto bias = randomInts<std::int32_t>(rng, oc, -1000, 1000);
  GraphBuilder g;
  g.input("x", DType::Int8, {n, ih, iw, ic});
  g.constant("w", DType::Int8, {oc, k, k, ic}, w);
  g.constant("b", DType::Int32, {oc}, bias);
  g.constant<std::int8_t>("izp", DType::Int8, {1}, {-7});
  g.constant<std::int8_t>("wzp", DType::Int8, {1}, {0});
  g.tensor("acc", DType::Int32, {n, oh, ow, oc});
  tosa::ConvAttrs attrs{{pad, pad, pad, pad}, {stride, stride}, {dil, dil}, false, DType::Int32};
  g.op(Op::Conv2d, attrs, {"x", "w", "b", "izp", "wzp"}, {"acc"});
  g.constant<std::int32_t>("m", DType::Int32, {1}, {1395864371});
  g.constant<std::int8_t>("s", DType::Int8, {1}, {40});
  g.constant<std::int32_t>("rizp", DType::Int32, {1}, {0});
  g.constant<std::int8_t>("rozp", DType::Int8, {1}, {5});
  g.tensor("q", DType::Int8, {n, oh, ow, oc});
  tosa::RescaleAttrs ra;
  ra.scale32 = true;
  ra.roundingMode = tosa::RoundingMode::SingleRound;
  g.op(Op::Rescale, ra, {"acc", "m", "s", "rizp", "rozp"}, {"q"});
  tosa::ClampAttrs ca{{static_cast<std::uint8_t>(-20)}, {static_cast<std::uint8_t>(100)}, tosa::NanMode::Propagate};
  g.tensor("y", DType::Int8, {n, oh, ow, oc});
  g.op(Op::Clamp, ca, {"q"}, {"y"});
  g.output("y");
  converter::ConvertOptions options;
  options.cacheDir = testCacheDir();
  auto model = converter::convert(g.graph(), options);
  ASSERT_TRUE(model) << model.error().message();
  EXPECT_EQ(model->stats.kernels, 1u);  // RESCALE and CLAMP in the conv epilogue
  auto out = convertAndRun(g.graph(), {bytesOf(in)});
  ASSERT_EQ(out.size(), 1u);
  auto acc = conv2dRef<std::int8_t, std::int32_t>(in, w, bias, n, ih, iw, ic, oc, k, k, stride, pad, dil, oh, ow, -7, 0);
  auto got = valuesOf<std::int8_t>(out[0]);
  for (std::size_t i = 0; i < acc.size(); ++i) {
    std::int32_t r = std::clamp(applyScale32(acc[i], 1395864371, 40) + 5, -128, 127);
    ASSERT_EQ(got[i], std::clamp(r, -20, 100)) << i;
  }
}

TEST_F(OpsTest, DepthwiseConv2dFp32) {
  const int n = 1, ih = 10, iw = 9, c = 6, cm = 2, k = 3, stride = 1, pad = 1;
  const int oh = ih, ow = iw;
  auto in = randomFloats(rng, static_cast<std::size_t>(n * ih * iw * c));
  auto w = randomFloats(rng, static_cast<std::size_t>(k * k * c * cm));
  auto bias = randomFloats(rng, static_cast<std::size_t>(c * cm));
  GraphBuilder g;
  g.input("x", DType::Fp32, {n, ih, iw, c});
  g.constant("w", DType::Fp32, {k, k, c, cm}, w);
  g.constant("b", DType::Fp32, {c * cm}, bias);
  g.constant<float>("zp", DType::Fp32, {1}, {0.0f});
  g.tensor("y", DType::Fp32, {n, oh, ow, c * cm});
  tosa::ConvAttrs attrs{{pad, pad, pad, pad}, {stride, stride}, {1, 1}, false, DType::Fp32};
  g.op(Op::DepthwiseConv2d, attrs, {"x", "w", "b", "zp", "zp"}, {"y"});
  g.output("y");
  auto out = convertAndRun(g.graph(), {bytesOf(in)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> want(static_cast<std::size_t>(n * oh * ow * c * cm));
  for (int oy = 0; oy < oh; ++oy)
    for (int ox = 0; ox < ow; ++ox)
      for (int ch = 0; ch < c; ++ch)
        for (int m = 0; m < cm; ++m) {
          float acc = 0;
          for (int ky = 0; ky < k; ++ky)
            for (int kx = 0; kx < k; ++kx) {
              int y = oy - pad + ky, x = ox - pad + kx;
              if (y < 0 || y >= ih || x < 0 || x >= iw) continue;
              acc += in[static_cast<std::size_t>((y * iw + x) * c + ch)] * w[static_cast<std::size_t>(((ky * k + kx) * c + ch) * cm + m)];
            }
          want[static_cast<std::size_t>((oy * ow + ox) * c * cm + ch * cm + m)] = acc + bias[static_cast<std::size_t>(ch * cm + m)];
        }
  expectNear(valuesOf<float>(out[0]), want, 1e-5f);
}

TEST_F(OpsTest, MatMulFp32LargeTileWithReshapedInput) {
  const int b = 2, h = 70, c = 37, w = 65;
  auto a = randomFloats(rng, static_cast<std::size_t>(b * h * c));
  auto bm = randomFloats(rng, static_cast<std::size_t>(b * c * w));
  GraphBuilder g;
  g.input("a_flat", DType::Fp32, {b * h * c});
  g.shapeConst("shape", {b, h, c});
  g.tensor("a", DType::Fp32, {b, h, c});
  g.op(Op::Reshape, {}, {"a_flat", "shape"}, {"a"});
  g.input("b", DType::Fp32, {b, c, w});
  g.constant<float>("zp", DType::Fp32, {1}, {0.0f});
  g.tensor("y", DType::Fp32, {b, h, w});
  g.op(Op::MatMul, {}, {"a", "b", "zp", "zp"}, {"y"});
  g.output("y");
  auto out = convertAndRun(g.graph(), {bytesOf(a), bytesOf(bm)});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> want(static_cast<std::size_t>(b * h * w));
  for (int n = 0; n < b; ++n)
    for (int i = 0; i < h; ++i)
      for (int j = 0; j < w; ++j) {
        float acc = 0;
        for (int k = 0; k < c; ++k) acc += a[static_cast<std::size_t>((n * h + i) * c + k)] * bm[static_cast<std::size_t>((n * c + k) * w + j)];
        want[static_cast<std::size_t>((n * h + i) * w + j)] = acc;
      }
  expectNear(valuesOf<float>(out[0]), want, 1e-5f);
}

TEST_F(OpsTest, MatMulInt8WithZeroPoints) {
  const int b = 1, h = 5, c = 33, w = 9;
  auto a = randomInts<std::int8_t>(rng, static_cast<std::size_t>(b * h * c), -128, 127);
  auto bm = randomInts<std::int8_t>(rng, static_cast<std::size_t>(b * c * w), -128, 127);
  GraphBuilder g;
  g.input("a", DType::Int8, {b, h, c});
  g.input("b", DType::Int8, {b, c, w});
  g.constant<std::int8_t>("azp", DType::Int8, {1}, {3});
  g.constant<std::int8_t>("bzp", DType::Int8, {1}, {-2});
  g.tensor("y", DType::Int32, {b, h, w});
  g.op(Op::MatMul, {}, {"a", "b", "azp", "bzp"}, {"y"});
  g.output("y");
  auto out = convertAndRun(g.graph(), {bytesOf(a), bytesOf(bm)});
  ASSERT_EQ(out.size(), 1u);
  auto got = valuesOf<std::int32_t>(out[0]);
  for (int i = 0; i < h; ++i)
    for (int j = 0; j < w; ++j) {
      std::int32_t acc = 0;
      for (int k = 0; k < c; ++k) acc += (a[static_cast<std::size_t>(i * c + k)] - 3) * (bm[static_cast<std::size_t>(k * w + j)] + 2);
      EXPECT_EQ(got[static_cast<std::size_t>(i * w + j)], acc);
    }
}

TEST_F(OpsTest, AvgPool2dInt8CountsOnlyValidTaps) {
  const int ih = 5, iw = 6, c = 3, k = 3, stride = 2, pad = 1;
  const int oh = (ih + 2 * pad - k) / stride + 1, ow = (iw + 2 * pad - k) / stride + 1;
  auto in = randomInts<std::int8_t>(rng, static_cast<std::size_t>(ih * iw * c), -128, 127);
  GraphBuilder g;
  g.input("x", DType::Int8, {1, ih, iw, c});
  g.constant<std::int8_t>("izp", DType::Int8, {1}, {-4});
  g.constant<std::int8_t>("ozp", DType::Int8, {1}, {6});
  g.tensor("y", DType::Int8, {1, oh, ow, c});
  tosa::AvgPool2dAttrs attrs{{k, k}, {stride, stride}, {pad, pad, pad, pad}, DType::Int32};
  g.op(Op::AvgPool2d, attrs, {"x", "izp", "ozp"}, {"y"});
  g.output("y");
  auto out = convertAndRun(g.graph(), {bytesOf(in)});
  ASSERT_EQ(out.size(), 1u);
  auto got = valuesOf<std::int8_t>(out[0]);
  for (int oy = 0; oy < oh; ++oy)
    for (int ox = 0; ox < ow; ++ox)
      for (int ch = 0; ch < c; ++ch) {
        std::int32_t acc = 0, count = 0;
        for (int ky = 0; ky < k; ++ky)
          for (int kx = 0; kx < k; ++kx) {
            int y = oy * stride - pad + ky, x = ox * stride - pad + kx;
            if (y < 0 || y >= ih || x < 0 || x >= iw) continue;
            acc += in[static_cast<std::size_t>((y * iw + x) * c + ch)] + 4;
            ++count;
          }
        std::uint32_t v = static_cast<std::uint32_t>(count);
        int kk = v > 1 ? 32 - __builtin_clz(v - 1) : 0;
        std::int32_t m = static_cast<std::int32_t>((((std::int64_t{1} << 30) + 1) << kk) / v);
        std::int32_t r = std::clamp(applyScale32(acc, m, 30 + kk) + 6, -128, 127);
        EXPECT_EQ(got[static_cast<std::size_t>((oy * ow + ox) * c + ch)], r);
      }
}

// C = 68 takes the 16-byte kernel (four channels per invocation), 70 the scalar one.
// ERF against the C library's erf in double (an independent oracle), under TOSA's ERF rule of
// 5 ulp of the fp32 result, at 2^16 evenly spaced points over [-4.5, 4.5] and the special values.
// The kernel once summed its Maclaurin series as the terms were formed and gave 7-11 ulp near
// |x| = 1.9 (found by `compare --per-operator` on the BERT layer's GELU).
TEST_F(OpsTest, ErfWithinFiveUlpAcrossTheWholeCurve) {
  std::vector<float> x;
  constexpr int kPoints = 1 << 16;
  for (int i = 0; i <= kPoints; ++i) x.push_back(static_cast<float>(-4.5 + 9.0 * i / kPoints));
  const float inf = std::numeric_limits<float>::infinity();
  for (float special : {0.0f, -0.0f, 1e-30f, -1e-30f, 1.0f, -1.0f, 4.0f, inf, -inf}) x.push_back(special);
  GraphBuilder g;
  g.input("x", DType::Fp32, {static_cast<std::int64_t>(x.size())});
  g.tensor("y", DType::Fp32, {static_cast<std::int64_t>(x.size())});
  g.op(Op::Erf, {}, {"x"}, {"y"});
  g.output("y");
  auto out = convertAndRun(g.graph(), {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  const std::vector<float> got = valuesOf<float>(out[0]);
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double want = std::erf(static_cast<double>(x[i]));
    // One unit in the last place of the fp32 result (2^-149 at zero).
    const double ulp = want == 0 ? std::ldexp(1.0, -149) : std::ldexp(1.0, std::max(std::ilogb(want) - 23, -149));
    const double ulps = std::fabs(static_cast<double>(got[i]) - want) / ulp;
    worst = std::max(worst, ulps);
    EXPECT_LE(ulps, 5.0) << "erf(" << x[i] << ") = " << got[i] << ", want " << want;
    if (ulps > 5.0) break;
  }
  RecordProperty("worst_ulps", std::to_string(worst));
  std::vector<float> nan{std::numeric_limits<float>::quiet_NaN()};
  GraphBuilder n;
  n.input("x", DType::Fp32, {1});
  n.tensor("y", DType::Fp32, {1});
  n.op(Op::Erf, {}, {"x"}, {"y"});
  n.output("y");
  auto nanOut = convertAndRun(n.graph(), {bytesOf(nan)});
  ASSERT_EQ(nanOut.size(), 1u);
  EXPECT_TRUE(std::isnan(valuesOf<float>(nanOut[0])[0]));
}

TEST_F(OpsTest, MaxPool2dFp32) {
  for (const int c : {70, 68}) {
    SCOPED_TRACE(::testing::Message() << "C " << c);
    const int ih = 7, iw = 7, k = 2, stride = 2;
    const int oh = 3, ow = 3;
    auto in = randomFloats(rng, static_cast<std::size_t>(ih * iw * c));
    GraphBuilder g;
    g.input("x", DType::Fp32, {1, ih, iw, c});
    g.tensor("y", DType::Fp32, {1, oh, ow, c});
    tosa::MaxPool2dAttrs attrs{{k, k}, {stride, stride}, {0, 0, 0, 0}, tosa::NanMode::Propagate};
    g.op(Op::MaxPool2d, attrs, {"x"}, {"y"});
    g.output("y");
    auto out = convertAndRun(g.graph(), {bytesOf(in)});
    ASSERT_EQ(out.size(), 1u);
    std::vector<float> want(static_cast<std::size_t>(oh * ow * c));
    for (int oy = 0; oy < oh; ++oy)
      for (int ox = 0; ox < ow; ++ox)
        for (int ch = 0; ch < c; ++ch) {
          float m = -INFINITY;
          for (int ky = 0; ky < k; ++ky)
            for (int kx = 0; kx < k; ++kx)
              m = std::max(m, in[static_cast<std::size_t>(((oy * 2 + ky) * iw + ox * 2 + kx) * c + ch)]);
          want[static_cast<std::size_t>((oy * ow + ox) * c + ch)] = m;
        }
    expectNear(valuesOf<float>(out[0]), want, 0.0f);
  }
}

// fp16 MAX_POOL2D, 3x3 stride 2 with padding, over a C wider than one workgroup and a small
// odd one (the scalar kernel) and a multiple of 8 (the 16-byte kernel, eight channels per
// invocation), with NaNs and infinities in the input, under both NaN modes: exact against
// the maximum computed here.
TEST_F(OpsTest, MaxPool2dFp16NanModes) {
  const int ih = 9, iw = 8, k = 3, stride = 2, pad = 1;
  const int oh = 5, ow = 4;
  for (int c : {70, 5, 72}) {
    for (tosa::NanMode mode : {tosa::NanMode::Propagate, tosa::NanMode::Ignore}) {
      SCOPED_TRACE(::testing::Message() << "C " << c << " NaN mode " << static_cast<int>(mode));
      auto values = randomFloats(rng, static_cast<std::size_t>(ih * iw * c));
      values[3] = NAN;
      values[static_cast<std::size_t>(c * 5 + 1)] = INFINITY;
      values[static_cast<std::size_t>(c * 20 + 2)] = -INFINITY;
      std::vector<std::uint16_t> in(values.size());
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = tosa::floatToFp16(values[i]);
      GraphBuilder g;
      g.input("x", DType::Fp16, {1, ih, iw, c});
      g.tensor("y", DType::Fp16, {1, oh, ow, c});
      const tosa::MaxPool2dAttrs attrs{{k, k}, {stride, stride}, {pad, pad, pad, pad}, mode};
      g.op(Op::MaxPool2d, attrs, {"x"}, {"y"});
      g.output("y");
      auto out = convertAndRun(g.graph(), {bytesOf(in)});
      ASSERT_EQ(out.size(), 1u);
      const auto got = valuesOf<std::uint16_t>(out[0]);
      for (int oy = 0; oy < oh; ++oy)
        for (int ox = 0; ox < ow; ++ox)
          for (int ch = 0; ch < c; ++ch) {
            float m = mode == tosa::NanMode::Ignore ? NAN : -INFINITY;
            for (int ky = 0; ky < k; ++ky)
              for (int kx = 0; kx < k; ++kx) {
                const int y = oy * stride - pad + ky, x = ox * stride - pad + kx;
                if (y < 0 || y >= ih || x < 0 || x >= iw) continue;
                const float v = tosa::fp16ToFloat(in[static_cast<std::size_t>((y * iw + x) * c + ch)]);
                if (mode == tosa::NanMode::Ignore) {
                  if (!std::isnan(v)) m = std::isnan(m) ? v : std::max(m, v);
                } else {
                  m = std::isnan(m) || std::isnan(v) ? NAN : std::max(m, v);
                }
              }
            const float r = tosa::fp16ToFloat(got[static_cast<std::size_t>((oy * ow + ox) * c + ch)]);
            if (std::isnan(m)) {
              EXPECT_TRUE(std::isnan(r)) << oy << " " << ox << " " << ch;
            } else {
              EXPECT_EQ(r, m) << oy << " " << ox << " " << ch;
            }
          }
    }
  }
}

TEST_F(OpsTest, ReduceSumFp32LastAndMiddleAxis) {
  for (std::int32_t axis : {1, 2}) {
    const std::int64_t d0 = 3, d1 = 300, d2 = axis == 2 ? 1000 : 5;
    auto x = randomFloats(rng, static_cast<std::size_t>(d0 * d1 * d2));
    tosa::Shape outShape = {d0, axis == 1 ? 1 : d1, axis == 2 ? 1 : d2};
    GraphBuilder g;
    g.input("x", DType::Fp32, {d0, d1, d2});
    g.tensor("y", DType::Fp32, outShape);
    g.op(Op::ReduceSum, tosa::AxisAttrs{axis, tosa::NanMode::Propagate}, {"x"}, {"y"});
    g.output("y");
    auto out = convertAndRun(g.graph(), {bytesOf(x)});
    ASSERT_EQ(out.size(), 1u);
    std::vector<float> want(static_cast<std::size_t>(tosa::elementCount(outShape)), 0.0f);
    for (std::int64_t i = 0; i < d0; ++i)
      for (std::int64_t j = 0; j < d1; ++j)
        for (std::int64_t k = 0; k < d2; ++k) {
          std::int64_t o = axis == 1 ? i * d2 + k : i * d1 + j;
          want[static_cast<std::size_t>(o)] += x[static_cast<std::size_t>((i * d1 + j) * d2 + k)];
        }
    expectNear(valuesOf<float>(out[0]), want, 1e-4f);
  }
}

TEST_F(OpsTest, ReduceMaxInt32) {
  auto x = randomInts<std::int32_t>(rng, 4 * 777, INT32_MIN / 2, INT32_MAX / 2);
  GraphBuilder g;
  g.input("x", DType::Int32, {4, 777});
  g.tensor("y", DType::Int32, {4, 1});
  g.op(Op::ReduceMax, tosa::AxisAttrs{1, tosa::NanMode::Propagate}, {"x"}, {"y"});
  g.output("y");
  auto out = convertAndRun(g.graph(), {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  auto got = valuesOf<std::int32_t>(out[0]);
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(got[static_cast<std::size_t>(r)], *std::max_element(x.begin() + r * 777, x.begin() + (r + 1) * 777));
  }
}

TEST_F(OpsTest, TransposePadSliceConcatInt8) {
  // x [2,3,4] -> TRANSPOSE [2,0,1] -> [4,2,3] -> PAD (1,0),(0,1),(2,0) value 9 -> [5,3,5]
  // -> SLICE start [1,0,1] size [4,3,3] -> CONCAT with itself on axis 0 -> [8,3,3]
  auto x = randomInts<std::int8_t>(rng, 24, -128, 127);
  GraphBuilder g;
  g.input("x", DType::Int8, {2, 3, 4});
  g.tensor("t", DType::Int8, {4, 2, 3});
  g.op(Op::Transpose, tosa::TransposeAttrs{{2, 0, 1}}, {"x"}, {"t"});
  g.shapeConst("padding", {1, 0, 0, 1, 2, 0});
  g.constant<std::int8_t>("pv", DType::Int8, {1}, {9});
  g.tensor("p", DType::Int8, {5, 3, 5});
  g.op(Op::Pad, {}, {"t", "padding", "pv"}, {"p"});
  g.shapeConst("start", {1, 0, 1});
  g.shapeConst("size", {4, 3, 3});
  g.tensor("s", DType::Int8, {4, 3, 3});
  g.op(Op::Slice, {}, {"p", "start", "size"}, {"s"});
  g.tensor("y", DType::Int8, {8, 3, 3});
  g.op(Op::Concat, tosa::AxisAttrs{0, tosa::NanMode::Propagate}, {"s", "s"}, {"y"});
  g.output("y");
  auto out = convertAndRun(g.graph(), {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  auto got = valuesOf<std::int8_t>(out[0]);
  auto tAt = [&](int i, int j, int k) { return x[static_cast<std::size_t>((j * 3 + k) * 4 + i)]; };  // t[i,j,k] = x[j,k,i]
  auto pAt = [&](int i, int j, int k) -> int {
    int ti = i - 1, tj = j, tk = k - 2;
    if (ti < 0 || ti >= 4 || tj >= 2 || tk < 0 || tk >= 3) return 9;
    return tAt(ti, tj, tk);
  };
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) {
          EXPECT_EQ(got[static_cast<std::size_t>(((c * 4 + i) * 3 + j) * 3 + k)], pAt(i + 1, j, k + 1)) << c << i << j << k;
        }
}

TEST_F(OpsTest, TileAndReverseFp32) {
  auto x = randomFloats(rng, 6);
  GraphBuilder g;
  g.input("x", DType::Fp32, {2, 3});
  g.shapeConst("mult", {2, 3});
  g.tensor("t", DType::Fp32, {4, 9});
  g.op(Op::Tile, {}, {"x", "mult"}, {"t"});
  g.tensor("y", DType::Fp32, {4, 9});
  g.op(Op::Reverse, tosa::AxisAttrs{1, tosa::NanMode::Propagate}, {"t"}, {"y"});
  g.output("y");
  auto out = convertAndRun(g.graph(), {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  auto got = valuesOf<float>(out[0]);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 9; ++j) {
      int tj = 8 - j;
      EXPECT_EQ(got[static_cast<std::size_t>(i * 9 + j)], x[static_cast<std::size_t>((i % 2) * 3 + tj % 3)]);
    }
}

TEST_F(OpsTest, GatherAndScatterFp32) {
  const int n = 2, k = 5, c = 3, w = 4;
  auto values = randomFloats(rng, static_cast<std::size_t>(n * k * c));
  std::vector<std::int32_t> idx = {4, 0, 2, 2, 1, 3, 0, 4};
  GraphBuilder g;
  g.input("v", DType::Fp32, {n, k, c});
  g.input("i", DType::Int32, {n, w});
  g.tensor("y", DType::Fp32, {n, w, c});
  g.op(Op::Gather, {}, {"v", "i"}, {"y"});
  g.output("y");
  auto out = convertAndRun(g.graph(), {bytesOf(values), bytesOf(idx)});
  ASSERT_EQ(out.size(), 1u);
  auto got = valuesOf<float>(out[0]);
  for (int b = 0; b < n; ++b)
    for (int j = 0; j < w; ++j)
      for (int ch = 0; ch < c; ++ch) {
        EXPECT_EQ(got[static_cast<std::size_t>((b * w + j) * c + ch)],
                  values[static_cast<std::size_t>((b * k + idx[static_cast<std::size_t>(b * w + j)]) * c + ch)]);
      }

  std::vector<std::int32_t> sidx = {4, 0, 2, 1, 1, 3, 0, 4};
  auto input = randomFloats(rng, static_cast<std::size_t>(n * w * c));
  GraphBuilder s;
  s.input("v", DType::Fp32, {n, k, c});
  s.input("i", DType::Int32, {n, w});
  s.input("x", DType::Fp32, {n, w, c});
  s.tensor("y", DType::Fp32, {n, k, c});
  s.op(Op::Scatter, {}, {"v", "i", "x"}, {"y"});
  s.output("y");
  auto sout = convertAndRun(s.graph(), {bytesOf(values), bytesOf(sidx), bytesOf(input)});
  ASSERT_EQ(sout.size(), 1u);
  auto want = values;
  for (int b = 0; b < n; ++b)
    for (int j = 0; j < w; ++j)
      for (int ch = 0; ch < c; ++ch) {
        want[static_cast<std::size_t>((b * k + sidx[static_cast<std::size_t>(b * w + j)]) * c + ch)] =
            input[static_cast<std::size_t>((b * w + j) * c + ch)];
      }
  expectNear(valuesOf<float>(sout[0]), want, 0.0f);
}

TEST_F(OpsTest, ArgMaxFirstIndexOfMaximum) {
  std::vector<float> x(3 * 100);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 11);
  GraphBuilder g;
  g.input("x", DType::Fp32, {3, 100});
  g.tensor("y", DType::Int32, {3});
  g.op(Op::ArgMax, tosa::ArgMaxAttrs{1, tosa::NanMode::Propagate}, {"x"}, {"y"});
  g.output("y");
  auto out = convertAndRun(g.graph(), {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  auto got = valuesOf<std::int32_t>(out[0]);
  for (int r = 0; r < 3; ++r) {
    auto begin = x.begin() + r * 100;
    EXPECT_EQ(got[static_cast<std::size_t>(r)], std::max_element(begin, begin + 100) - begin);
  }
}

TEST_F(OpsTest, TableInt8) {
  std::vector<std::int8_t> table(256);
  for (int i = 0; i < 256; ++i) table[static_cast<std::size_t>(i)] = static_cast<std::int8_t>((i * 7) & 0xFF);
  auto x = randomInts<std::int8_t>(rng, 300, -128, 127);
  GraphBuilder g;
  g.input("x", DType::Int8, {300});
  g.constant("t", DType::Int8, {256}, table);
  g.tensor("y", DType::Int8, {300});
  g.op(Op::Table, {}, {"x", "t"}, {"y"});
  g.output("y");
  auto out = convertAndRun(g.graph(), {bytesOf(x)});
  ASSERT_EQ(out.size(), 1u);
  auto got = valuesOf<std::int8_t>(out[0]);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_EQ(got[i], table[static_cast<std::size_t>(x[i] + 128)]);
}

TEST_F(OpsTest, UnsupportedOpNamesOperatorAndTypes) {
  GraphBuilder g;
  g.input("x", DType::Fp32, {1, 8, 8, 2});
  g.input("y", DType::Fp32, {1, 8, 8, 2});
  g.tensor("re", DType::Fp32, {1, 8, 8, 2});
  g.tensor("im", DType::Fp32, {1, 8, 8, 2});
  g.op(Op::Custom, tosa::CustomAttrs{"x", "y", {}}, {"x", "y"}, {"re", "im"});
  g.output("re");
  g.output("im");
  converter::ConvertOptions options;
  options.cacheDir = testCacheDir();
  auto model = converter::convert(g.graph(), options);
  ASSERT_FALSE(model);
  EXPECT_EQ(model.error().kind(), ErrorKind::Unsupported);
  EXPECT_NE(model.error().message().find("operators[0] CUSTOM (FP32, FP32 -> FP32, FP32)"), std::string::npos)
      << model.error().message();
}

}  // namespace
}  // namespace openvgf::testing
