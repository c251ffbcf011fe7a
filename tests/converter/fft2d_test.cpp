// SPDX-License-Identifier: Apache-2.0
// FFT2D (forward and inverse) and RFFT2D on the test device against the reference
// interpreter (direct DFT) under the compliance rules (dot-product rule of §3.4), including
// the degenerate H = 1 / W = 1 lines, plus a hand-checked impulse.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/converter/reference_check.h"

namespace openvgf::testing {
namespace {

using tosa::DType;

class Fft2dTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vulkanAvailable()) GTEST_SKIP() << "no Vulkan device";
  }
  std::mt19937 rng{42};

  void fft(std::int64_t n, std::int64_t h, std::int64_t w, bool inverse) {
    SCOPED_TRACE(fmt::format("FFT2D [{},{},{}]", n, h, w));
    GraphBuilder g;
    g.input("re", DType::Fp32, {n, h, w});
    g.input("im", DType::Fp32, {n, h, w});
    g.tensor("ore", DType::Fp32, {n, h, w});
    g.tensor("oim", DType::Fp32, {n, h, w});
    g.op(tosa::Op::Fft2d, tosa::FftAttrs{inverse, false}, {"re", "im"}, {"ore", "oim"});
    g.output("ore");
    g.output("oim");
    expectCompliant(g.graph(), {randomTensor(rng, DType::Fp32, {n, h, w}, -2.0, 2.0),
                                randomTensor(rng, DType::Fp32, {n, h, w}, -2.0, 2.0)});
  }

  void rfft(std::int64_t n, std::int64_t h, std::int64_t w) {
    SCOPED_TRACE(fmt::format("RFFT2D [{},{},{}]", n, h, w));
    GraphBuilder g;
    g.input("x", DType::Fp32, {n, h, w});
    g.tensor("ore", DType::Fp32, {n, h, w / 2 + 1});
    g.tensor("oim", DType::Fp32, {n, h, w / 2 + 1});
    g.op(tosa::Op::Rfft2d, tosa::FftAttrs{false, false}, {"x"}, {"ore", "oim"});
    g.output("ore");
    g.output("oim");
    expectCompliant(g.graph(), {randomTensor(rng, DType::Fp32, {n, h, w}, -2.0, 2.0)});
  }
};

TEST_F(Fft2dTest, ForwardAndInverse) {
  for (bool inverse : {false, true}) {
    SCOPED_TRACE(inverse ? "inverse" : "forward");
    fft(2, 8, 16, inverse);
    fft(1, 32, 64, inverse);
    fft(1, 1, 8, inverse);
    fft(3, 4, 1, inverse);
  }
}

TEST_F(Fft2dTest, RealInput) {
  rfft(2, 8, 16);
  rfft(1, 64, 32);
  rfft(1, 1, 4);
  rfft(2, 4, 1);
  rfft(1, 2, 2);
}

TEST_F(Fft2dTest, ImpulseGivesAPlaneWave) {
  // x[1][2] = 1 in an 4x8 grid: X[ky][kx] = exp(-2*pi*i*(ky/4 + 2*kx/8)).
  const std::int64_t h = 4, w = 8;
  std::vector<float> x(static_cast<std::size_t>(h * w), 0.0f);
  x[static_cast<std::size_t>(1 * w + 2)] = 1.0f;
  GraphBuilder g;
  g.input("x", DType::Fp32, {1, h, w});
  g.tensor("ore", DType::Fp32, {1, h, w / 2 + 1});
  g.tensor("oim", DType::Fp32, {1, h, w / 2 + 1});
  g.op(tosa::Op::Rfft2d, tosa::FftAttrs{false, false}, {"x"}, {"ore", "oim"});
  g.output("ore");
  g.output("oim");
  auto out = convertAndRun(g.graph(), {bytesOf(x)});
  ASSERT_EQ(out.size(), 2u);
  auto re = valuesOf<float>(out[0]), im = valuesOf<float>(out[1]);
  for (std::int64_t ky = 0; ky < h; ++ky) {
    for (std::int64_t kx = 0; kx <= w / 2; ++kx) {
      const double angle = 2.0 * 3.14159265358979323846 *
                           (static_cast<double>(ky) / 4.0 + 2.0 * static_cast<double>(kx) / 8.0);
      const auto i = static_cast<std::size_t>(ky * (w / 2 + 1) + kx);
      EXPECT_NEAR(re[i], std::cos(angle), 1e-6) << ky << "," << kx;
      EXPECT_NEAR(im[i], -std::sin(angle), 1e-6) << ky << "," << kx;
    }
  }
}

}  // namespace
}  // namespace openvgf::testing
