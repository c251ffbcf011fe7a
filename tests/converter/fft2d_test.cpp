// SPDX-License-Identifier: Apache-2.0
// FFT2D (forward and inverse) and RFFT2D on the test device against the reference
// interpreter (direct DFT) under the compliance rules (dot-product rule of §3.4), including
// the degenerate H = 1 / W = 1 lines, plus a hand-checked impulse. Sizes the reference's
// O((HW)^2) evaluation cannot reach (256x256, lines longer than shared memory holds) are
// judged against a separable fp64 DFT under the same rule with a stricter bound.
#include <cmath>
#include <numbers>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tosa/compliance.h"

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

// In-place fp64 DFT of every line of an [n,h,w] complex array along W or H, with the
// angle reduced exactly ((i*k) mod L) before the trigonometry.
void dftAxis(std::vector<double>& re, std::vector<double>& im, std::int64_t n, std::int64_t h, std::int64_t w, bool alongW,
             double sign) {
  const std::int64_t length = alongW ? w : h;
  std::vector<double> c(static_cast<std::size_t>(length)), s(static_cast<std::size_t>(length));
  for (std::int64_t k = 0; k < length; ++k) {
    const double angle = 2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(length);
    c[static_cast<std::size_t>(k)] = std::cos(angle);
    s[static_cast<std::size_t>(k)] = sign * std::sin(angle);
  }
  std::vector<double> lineRe(static_cast<std::size_t>(length)), lineIm(static_cast<std::size_t>(length));
  const std::int64_t lines = alongW ? n * h : n * w;
  for (std::int64_t l = 0; l < lines; ++l) {
    auto at = [&](std::int64_t i) {
      return static_cast<std::size_t>(alongW ? l * w + i : ((l / w) * h + i) * w + l % w);
    };
    for (std::int64_t k = 0; k < length; ++k) {
      double sr = 0.0, si = 0.0;
      for (std::int64_t i = 0; i < length; ++i) {
        const auto phase = static_cast<std::size_t>((i * k) % length);
        const double r = re[at(i)], m = im[at(i)];
        sr += r * c[phase] + m * s[phase];
        si += m * c[phase] - r * s[phase];
      }
      lineRe[static_cast<std::size_t>(k)] = sr;
      lineIm[static_cast<std::size_t>(k)] = si;
    }
    for (std::int64_t k = 0; k < length; ++k) {
      re[at(k)] = lineRe[static_cast<std::size_t>(k)];
      im[at(k)] = lineIm[static_cast<std::size_t>(k)];
    }
  }
}

// Converts and runs FFT2D (or RFFT2D) on random data and judges both outputs with the
// dot-product rule against a separable fp64 DFT. The bound passed is max|input| * H*W,
// which is at most the reference's bounds run (sum of max|input| * (|cos| + |sin|) over
// H*W terms, each at least 1), so the check is at least as strict as TOSA's.
void expectLargeCompliant(std::mt19937& rng, std::int64_t n, std::int64_t h, std::int64_t w, bool real, bool inverse) {
  SCOPED_TRACE(fmt::format("{} [{},{},{}]{}", real ? "RFFT2D" : "FFT2D", n, h, w, inverse ? " inverse" : ""));
  const std::int64_t ow = real ? w / 2 + 1 : w;
  GraphBuilder g;
  std::vector<tosa::HostTensor> inputs{randomTensor(rng, DType::Fp32, {n, h, w}, -2.0, 2.0)};
  g.input("re", DType::Fp32, {n, h, w});
  if (!real) {
    g.input("im", DType::Fp32, {n, h, w});
    inputs.push_back(randomTensor(rng, DType::Fp32, {n, h, w}, -2.0, 2.0));
  }
  g.tensor("ore", DType::Fp32, {n, h, ow});
  g.tensor("oim", DType::Fp32, {n, h, ow});
  g.op(real ? tosa::Op::Rfft2d : tosa::Op::Fft2d, tosa::FftAttrs{inverse, false}, real ? std::vector<std::string>{"re"}
                                                                                       : std::vector<std::string>{"re", "im"},
       {"ore", "oim"});
  g.output("ore");
  g.output("oim");
  std::vector<std::vector<std::uint8_t>> bytes;
  for (const auto& t : inputs) bytes.push_back(t.bytes);
  auto out = convertAndRun(g.graph(), bytes);
  ASSERT_EQ(out.size(), 2u);

  const auto count = static_cast<std::size_t>(n * h * w);
  std::vector<double> re(count), im(count, 0.0);
  double maxAbs = 0.0;
  for (std::size_t i = 0; i < count; ++i) {
    re[i] = inputs[0].as<float>()[i];
    if (!real) im[i] = inputs[1].as<float>()[i];
    maxAbs = std::max({maxAbs, std::fabs(re[i]), std::fabs(im[i])});
  }
  const double sign = inverse ? -1.0 : 1.0;
  dftAxis(re, im, n, h, w, true, sign);
  dftAxis(re, im, n, h, w, false, sign);
  std::vector<double> refRe, refIm;
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t y = 0; y < h; ++y) {
      for (std::int64_t x = 0; x < ow; ++x) {
        refRe.push_back(re[static_cast<std::size_t>((b * h + y) * w + x)]);
        refIm.push_back(im[static_cast<std::size_t>((b * h + y) * w + x)]);
      }
    }
  }
  const std::vector<double> bounds(refRe.size(), maxAbs * static_cast<double>(h * w));
  const std::int64_t kernelSize = (real ? 1 : 2) * h * w;
  for (int part = 0; part < 2; ++part) {
    auto values = valuesOf<float>(out[static_cast<std::size_t>(part)]);
    ASSERT_EQ(values.size(), refRe.size());
    std::vector<double> test(values.begin(), values.end());
    auto verdict = tosa::compliance::checkDotProduct(test, part == 0 ? refRe : refIm, bounds, kernelSize, DType::Fp32,
                                                     DType::Fp32, false);
    EXPECT_TRUE(verdict.pass) << (part == 0 ? "real: " : "imaginary: ") << tosa::compliance::summary(verdict) << " "
                              << verdict.message;
  }
}

TEST_F(Fft2dTest, Large256x256) {
  expectLargeCompliant(rng, 1, 256, 256, false, false);
  expectLargeCompliant(rng, 1, 256, 256, false, true);
  expectLargeCompliant(rng, 1, 256, 256, true, false);
}

TEST_F(Fft2dTest, LinesLongerThanSharedMemory) {
  // The portable target holds 2048 complex points per workgroup: 4096 and 8192 take one
  // and two global butterfly stages before the shared-memory kernel (RFFT2D rows: 8192),
  // the two as one radix-4 dispatch.
  expectLargeCompliant(rng, 1, 2, 4096, false, false);
  expectLargeCompliant(rng, 2, 8192, 2, false, true);
  expectLargeCompliant(rng, 1, 4, 8192, true, false);
  // Three global stages: one radix-4 dispatch, then a single in-place stage.
  expectLargeCompliant(rng, 1, 16384, 1, false, false);
  // RFFT2D rows of 4096 real points are 2048 packed complex points: the largest that fit.
  expectLargeCompliant(rng, 2, 2, 4096, true, false);
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
