// SPDX-License-Identifier: Apache-2.0
// Every fp32 unary transcendental on a dense sweep of its whole domain, judged by the reference
// interpreter under TOSA 1.0's per-operator rules: 2^14 evenly spaced points over the range
// where the function varies, 2^12 magnitudes spread log-uniformly from 2^-126 to 2^127 of both
// signs, and the special values; every fp16 and bf16 value; POW on a grid. The operator sweep
// (op_sweep_cases.h) draws a few dozen random values from one interval; an ERF kernel 11 ulp off
// near |x| = 1.9 passed it, and so did a TANH whose driver builtin was 50 ulp off near 0.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/converter/run_util.h"
#include "tosa/builder.h"

namespace openvgf::testing {
namespace {

using tosa::DType;

struct Sweep {
  const char* name;
  tosa::Value (tosa::Builder::*op)(const tosa::Value&, std::string);
  double low, high;  // the dense part
};

std::vector<float> sweepValues(double low, double high) {
  std::vector<float> x;
  constexpr int kDense = 1 << 14;
  for (int i = 0; i <= kDense; ++i) x.push_back(static_cast<float>(low + (high - low) * i / kDense));
  constexpr int kWide = 1 << 11;
  for (int i = 0; i < kWide; ++i) {
    const float m = std::ldexp(1.0f, -126 + (253 * i) / kWide) * (1.0f + static_cast<float>(i % 7) / 8.0f);
    x.push_back(m);
    x.push_back(-m);
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float special : {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                        std::numeric_limits<float>::min(), -std::numeric_limits<float>::min()}) {
    x.push_back(special);
  }
  return x;
}

const std::vector<Sweep>& unarySweeps() {
  static const std::vector<Sweep> sweeps{
      {"EXP", &tosa::Builder::exp, -88, 88},           {"LOG", &tosa::Builder::log, 0, 100},
      {"SIN", &tosa::Builder::sin, -40, 40},           {"COS", &tosa::Builder::cos, -40, 40},
      {"TANH", &tosa::Builder::tanh, -10, 10},         {"SIGMOID", &tosa::Builder::sigmoid, -20, 20},
      {"ERF", &tosa::Builder::erf, -5, 5},             {"RSQRT", &tosa::Builder::rsqrt, 0, 100},
      {"RECIPROCAL", &tosa::Builder::reciprocal, -100, 100},
  };
  return sweeps;
}

TEST(TranscendentalSweep, EveryUnaryWithinTosaBoundsOverItsWholeDomain) {
  if (!localDeviceCaps()) GTEST_SKIP() << "no Vulkan device";
  for (const Sweep& s : unarySweeps()) {
    SCOPED_TRACE(s.name);
    const std::vector<float> x = sweepValues(s.low, s.high);
    tosa::Builder b;
    tosa::Value in = b.input("x", DType::Fp32, {static_cast<std::int64_t>(x.size())});
    b.output((b.*s.op)(in, "y"));
    auto graph = b.build();
    ASSERT_TRUE(graph) << graph.error().message();
    tosa::HostTensor t(DType::Fp32, {static_cast<std::int64_t>(x.size())});
    for (std::size_t i = 0; i < x.size(); ++i) t.as<float>()[i] = x[i];
    RunOutcome outcome = convertRunCheck(*graph, {t});
    ASSERT_TRUE(outcome.ran);
    for (const auto& c : outcome.checks) EXPECT_TRUE(c.verdict.pass) << runner::formatCheck(c);
  }
}

// fp16 and bf16 have 65536 values each: every one of them, NaNs and infinities included, through
// every unary transcendental (computed in fp32 and rounded to the type).
TEST(TranscendentalSweep, EveryFp16AndBf16ValueThroughEveryUnary) {
  if (!localDeviceCaps()) GTEST_SKIP() << "no Vulkan device";
  for (DType type : {DType::Fp16, DType::Bf16}) {
    for (const Sweep& s : unarySweeps()) {
      SCOPED_TRACE(fmt::format("{} {}", s.name, tosa::toString(type)));
      tosa::Builder b;
      tosa::Value in = b.input("x", type, {1 << 16});
      b.output((b.*s.op)(in, "y"));
      auto graph = b.build();
      ASSERT_TRUE(graph) << graph.error().message();
      tosa::HostTensor t(type, {1 << 16});
      for (std::uint32_t i = 0; i < (1u << 16); ++i) t.as<std::uint16_t>()[i] = static_cast<std::uint16_t>(i);
      RunOutcome outcome = convertRunCheck(*graph, {t});
      ASSERT_TRUE(outcome.ran);
      for (const auto& c : outcome.checks) EXPECT_TRUE(c.verdict.pass) << runner::formatCheck(c);
    }
  }
}

// POW on a grid of bases 2^-20 .. 2^20 (TOSA leaves x <= 0 undefined) and exponents -6 .. 6,
// the results kept inside fp32's normal range.
TEST(TranscendentalSweep, PowWithinTosaBoundsOverAGridOfBasesAndExponents) {
  if (!localDeviceCaps()) GTEST_SKIP() << "no Vulkan device";
  std::vector<float> xs, ys;
  for (int i = 0; i < 256; ++i) {
    for (int j = 0; j < 97; ++j) {
      xs.push_back(std::exp2(-20.0f + 40.0f * static_cast<float>(i) / 255.0f));
      ys.push_back(-6.0f + 12.0f * static_cast<float>(j) / 96.0f);
    }
  }
  const auto n = static_cast<std::int64_t>(xs.size());
  tosa::Builder b;
  tosa::Value x = b.input("x", DType::Fp32, {n});
  tosa::Value y = b.input("y", DType::Fp32, {n});
  b.output(b.pow(x, y, "z"));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  tosa::HostTensor tx(DType::Fp32, {n}), ty(DType::Fp32, {n});
  for (std::size_t i = 0; i < xs.size(); ++i) {
    tx.as<float>()[i] = xs[i];
    ty.as<float>()[i] = ys[i];
  }
  RunOutcome outcome = convertRunCheck(*graph, {tx, ty});
  ASSERT_TRUE(outcome.ran);
  for (const auto& c : outcome.checks) EXPECT_TRUE(c.verdict.pass) << runner::formatCheck(c);
}

}  // namespace
}  // namespace openvgf::testing
