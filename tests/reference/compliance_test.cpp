// SPDX-License-Identifier: Apache-2.0
// Compliance rules: hand-made cases that must pass and must fail in each mode, and the
// graph-level check over a precise reference run.
#include "tosa/compliance.h"

#include <cmath>
#include <limits>

#include "graph_helpers.h"

namespace openvgf::tosa {
namespace {

using namespace reftest;
using namespace compliance;

TEST(Compliance, UlpHelpers) {
  EXPECT_EQ(ulpOf(1.0, DType::Fp32), std::ldexp(1, -23));
  EXPECT_EQ(ulpOf(3.0, DType::Fp16), std::ldexp(1, -9));
  EXPECT_EQ(ulpOf(0.0, DType::Fp32), 0.0);
  EXPECT_EQ(ulpOf(std::ldexp(1, -140), DType::Fp32), std::ldexp(1, -149));  // subnormal: normal_min ulp
}

TEST(Compliance, ExactMode) {
  EXPECT_TRUE(checkExact(ints(DType::Int8, {3}, {1, 2, 3}), ints(DType::Int8, {3}, {1, 2, 3})).pass);
  Verdict v = checkExact(ints(DType::Int8, {3}, {1, 2, 4}), ints(DType::Int8, {3}, {1, 2, 3}));
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.firstFailIndex, 2);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(checkExact(floats(DType::Fp32, {2}, {nan, -0.0}), floats(DType::Fp32, {2}, {nan, 0.0})).pass);
}

TEST(Compliance, UlpMode) {
  const double ref = 1.0 + std::ldexp(1, -24);  // halfway between two fp32 values
  std::vector<double> r{ref};
  EXPECT_TRUE(checkUlp(std::vector<double>{1.0}, r, 0.5, DType::Fp32).pass);
  EXPECT_TRUE(checkUlp(std::vector<double>{1.0 + std::ldexp(1, -23)}, r, 0.5, DType::Fp32).pass);
  Verdict v = checkUlp(std::vector<double>{1.0 + std::ldexp(1, -22)}, r, 0.5, DType::Fp32);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.firstFailIndex, 0);
  EXPECT_GT(v.maxUlpError, 1.0);
  // NaN reference requires NaN; a tiny reference may be flushed to zero.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(checkUlp(std::vector<double>{0.0}, std::vector<double>{nan}, 0.5, DType::Fp32).pass);
  EXPECT_TRUE(checkUlp(std::vector<double>{0.0}, std::vector<double>{std::ldexp(1, -130)}, 0.5, DType::Fp32).pass);
}

TEST(Compliance, AbsErrorMode) {
  std::vector<double> ref{2.0, 3.0};
  std::vector<double> bnd{0.1, 0.1};
  EXPECT_TRUE(checkAbsError(std::vector<double>{2.05, 2.95}, ref, bnd, DType::Fp32).pass);
  Verdict v = checkAbsError(std::vector<double>{2.05, 3.2}, ref, bnd, DType::Fp32);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.firstFailIndex, 1);
  EXPECT_GT(calcAbsErrorBound(1.0, 5, 0.5, 1, DType::Fp32), 0.0);
  EXPECT_NEAR(reduceProductBound(2.0, 3, DType::Fp16), 2.0 * (std::pow(1 + std::ldexp(1, -11), 3) - 1), 1e-15);
}

TEST(Compliance, DotProductMode) {
  // 1000 elements, KS 16, fp32: errors of a few output ulps pass, a large one fails.
  const std::size_t n = 1000;
  std::vector<double> ref(n), bnd(n), good(n), bad(n);
  for (std::size_t i = 0; i < n; ++i) {
    ref[i] = 1.0 + static_cast<double>(i) / 1000.0;
    bnd[i] = 16.0;
    good[i] = ref[i] + ((i % 2 != 0) ? 1 : -1) * std::ldexp(1, -22);
    bad[i] = ref[i];
  }
  Verdict ok = checkDotProduct(good, ref, bnd, 16, DType::Fp32, DType::Fp32, false);
  EXPECT_TRUE(ok.pass) << summary(ok);
  EXPECT_EQ(ok.absBoundLimit, 32.0);
  bad[500] = ref[500] + 1e-3;
  Verdict v = checkDotProduct(bad, ref, bnd, 16, DType::Fp32, DType::Fp32, false);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.firstFailIndex, 500);
  // Systematic errors inside the per-element bound still fail the variance test.
  std::vector<double> biased(n);
  for (std::size_t i = 0; i < n; ++i) biased[i] = ref[i] + 30.0 * 16.0 * std::ldexp(1, -24);
  Verdict b = checkDotProduct(biased, ref, bnd, 16, DType::Fp32, DType::Fp32, false);
  EXPECT_FALSE(b.pass);
  EXPECT_NE(b.message.find("squared"), std::string::npos);
}

TEST(Compliance, CastFpAndIntRange) {
  std::vector<double> ref{1.0 + std::ldexp(1, -10) * 0.75};
  EXPECT_TRUE(checkCastFp(std::vector<double>{1.0}, ref, DType::Fp16).pass);                       // truncation allowed
  EXPECT_TRUE(checkCastFp(std::vector<double>{1.0 + std::ldexp(1, -10)}, ref, DType::Fp16).pass);  // RNE
  EXPECT_FALSE(checkCastFp(std::vector<double>{1.0 + std::ldexp(1, -9)}, ref, DType::Fp16).pass);   // 2 ulp away
  std::vector<std::int64_t> lo{1, 50}, hi{2, 50};
  EXPECT_TRUE(checkIntRange(std::vector<double>{2, 50}, lo, hi).pass);
  EXPECT_FALSE(checkIntRange(std::vector<double>{0, 50}, lo, hi).pass);
  std::vector<std::int64_t> ulo{200}, uhi{201};
  EXPECT_TRUE(checkIntRange(std::vector<double>{-56}, ulo, uhi, 8).pass);  // 0xC8 as uint8
}

TEST(Compliance, GraphLevelCheckOfAConv) {
  // CONV2D fp32 in precise mode: the fp32 reference itself must pass; a perturbed one fails.
  GraphBuilder g;
  std::vector<double> in(1 * 8 * 8 * 4);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::sin(static_cast<double>(i)) * 3.0;
  std::vector<double> w(4 * 3 * 3 * 4);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::cos(static_cast<double>(i) * 0.7);
  auto x = g.input(floats(DType::Fp32, {1, 8, 8, 4}, in));
  auto wt = g.constant(floats(DType::Fp32, {4, 3, 3, 4}, w));
  auto bias = g.constant(floats(DType::Fp32, {4}, {0.5, 0, 0, 0}));
  auto out = g.tensor(DType::Fp32, {1, 8, 8, 4});
  g.op(Op::Conv2d, {x, wt, bias}, {out}, ConvAttrs{{1, 1, 1, 1}, {1, 1}, {1, 1}, false, DType::Fp32});
  auto sig = g.tensor(DType::Fp32, {1, 8, 8, 4});
  g.op(Op::Sigmoid, {out}, {sig});
  g.output(out);
  g.output(sig);
  reference::RunOptions precise;
  precise.precise = true;
  auto ref = g.run(precise);
  ASSERT_TRUE(ref) << ref.error().message();
  ASSERT_EQ(ref->outputs[0].rule.mode, CheckMode::DotProduct);
  EXPECT_EQ(ref->outputs[0].rule.kernelSize, 36);
  EXPECT_TRUE(ref->outputs[0].rule.biasNonZero);
  EXPECT_EQ(ref->outputs[0].bounds.size(), 256u);
  EXPECT_EQ(ref->outputs[1].rule.mode, CheckMode::AbsError);
  EXPECT_EQ(ref->outputs[1].rule.absBound.size(), 256u);  // own bound + the conv's propagated error
  auto normal = g.run();
  ASSERT_TRUE(normal);
  std::vector<HostTensor> actual{normal->outputs[0].value, normal->outputs[1].value};
  auto verdicts = reference::checkOutputs(*ref, actual);
  ASSERT_TRUE(verdicts) << verdicts.error().message();
  EXPECT_TRUE((*verdicts)[0].pass) << summary((*verdicts)[0]);
  EXPECT_TRUE((*verdicts)[1].pass) << summary((*verdicts)[1]);
  auto wrong = floatValues(actual[0]);
  wrong[17] += 0.01;
  actual[0] = floats(DType::Fp32, {1, 8, 8, 4}, wrong);
  auto failed = reference::checkOutputs(*ref, actual);
  ASSERT_TRUE(failed);
  EXPECT_FALSE((*failed)[0].pass);
  EXPECT_EQ((*failed)[0].firstFailIndex, 17);
}

TEST(Compliance, VacuousToleranceWouldPassAnAllZeroAnswer) {
  using V = std::vector<double>;
  const V ref{4.0, -1.0, 0.5};
  EXPECT_FALSE(vacuousTolerance(V{0.0}, ref));
  EXPECT_FALSE(vacuousTolerance(V{}, ref));
  EXPECT_FALSE(vacuousTolerance(V{0.0}, V{0.0, 0.0}));  // exact: an all-zero output must be all zero
  EXPECT_FALSE(vacuousTolerance(V{3.99}, ref));        // zero fails at the largest element
  EXPECT_TRUE(vacuousTolerance(V{4.0}, ref));
  // Per element: one wide element does not make the rest vacuous, and the reverse.
  EXPECT_FALSE(vacuousTolerance(V{100.0, 0.1, 0.1}, ref));
  EXPECT_FALSE(vacuousTolerance(V{4.0, 1.0, 0.4}, ref));
  EXPECT_TRUE(vacuousTolerance(V{4.0, 1.0, 0.5}, ref));
  EXPECT_TRUE(vacuousTolerance(V{std::numeric_limits<double>::infinity()}, V{1e30}));
  EXPECT_TRUE(vacuousTolerance(V{1e-30}, V{0.0, 0.0}));  // any tolerance around an all-zero output
  // A non-finite reference value is judged by its own rule (NaN must be NaN), not by size.
  EXPECT_TRUE(vacuousTolerance(V{1.0}, V{std::numeric_limits<double>::quiet_NaN(), 0.5}));
}

TEST(Compliance, AChainedRuleTooWideToJudgeIsInconclusive) {
  const HostTensor expected = floats(DType::Fp32, {3}, {4.0, -1.0, 0.5});
  const std::vector<double> precise{4.0, -1.0, 0.5};
  Rule rule;
  rule.mode = CheckMode::AbsError;
  rule.absBound = {4.0};
  rule.chained = true;
  // All zeros is within +-4 of every element: neither PASS nor FAIL.
  Result<Verdict> zeros = check(rule, floats(DType::Fp32, {3}, {0, 0, 0}), expected, precise);
  ASSERT_TRUE(zeros);
  EXPECT_FALSE(zeros->pass);
  EXPECT_TRUE(zeros->inconclusive);
  EXPECT_EQ(zeros->failures, 0);
  EXPECT_EQ(zeros->maxTolerance, 4.0);
  EXPECT_EQ(zeros->maxMagnitude, 4.0);
  EXPECT_THAT(zeros->message, ::testing::HasSubstr("up to 4, is at least |reference| at every element (the largest 4)"));
  EXPECT_THAT(summary(*zeros), ::testing::StartsWith("INCONCLUSIVE (ABS_ERROR"));
  // The exact answer too: the verdict is about the tolerance, not the answer.
  Result<Verdict> exact = check(rule, expected, expected, precise);
  ASSERT_TRUE(exact);
  EXPECT_TRUE(exact->inconclusive);
  // Beyond even that tolerance: FAIL, not inconclusive.
  Result<Verdict> far = check(rule, floats(DType::Fp32, {3}, {9, -1, 0.5}), expected, precise);
  ASSERT_TRUE(far);
  EXPECT_FALSE(far->pass);
  EXPECT_FALSE(far->inconclusive);
  EXPECT_EQ(far->failures, 1);
  // A tolerance below the magnitude judges: the exact answer passes, zeros fail.
  rule.absBound = {0.5};
  EXPECT_TRUE(check(rule, expected, expected, precise)->pass);
  EXPECT_FALSE(check(rule, floats(DType::Fp32, {3}, {0, 0, 0}), expected, precise)->inconclusive);
  // An operator's own ABS_ERROR rule (not chained) is TOSA's: judged as it is.
  rule.absBound = {4.0};
  rule.chained = false;
  EXPECT_TRUE(check(rule, floats(DType::Fp32, {3}, {0, 0, 0}), expected, precise)->pass);
}

// A chain of 1x1 convolutions over 8 channels: each scales the propagated tolerance by about
// sum|w| but the values by less (signs cancel), so the output tolerance outgrows the output.
// `layers` convolutions, then the fp32 run judged against the precise one.
Verdict chainOfConvolutions(int layers) {
  GraphBuilder g;
  std::vector<double> in(2 * 2 * 8);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = std::sin(static_cast<double>(i) + 0.3);
  std::string x = g.input(floats(DType::Fp32, {1, 2, 2, 8}, in));
  auto bias = g.constant(floats(DType::Fp32, {8}, std::vector<double>(8, 0.0)));
  for (int l = 0; l < layers; ++l) {
    std::vector<double> w(8 * 8);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.4 * std::cos(static_cast<double>(i) * 0.7 + l);
    auto wt = g.constant(floats(DType::Fp32, {8, 1, 1, 8}, w));
    auto out = g.tensor(DType::Fp32, {1, 2, 2, 8});
    g.op(Op::Conv2d, {x, wt, bias}, {out}, ConvAttrs{{0, 0, 0, 0}, {1, 1}, {1, 1}, false, DType::Fp32});
    x = out;
  }
  g.output(x);
  reference::RunOptions precise;
  precise.precise = true;
  auto ref = g.run(precise);
  EXPECT_TRUE(ref) << ref.error().message();
  auto normal = g.run();
  EXPECT_TRUE(normal);
  if (!ref || !normal) return {};
  EXPECT_EQ(ref->outputs[0].rule.chained, layers > 1);
  std::vector<HostTensor> actual{normal->outputs[0].value};
  auto verdicts = reference::checkOutputs(*ref, actual);
  EXPECT_TRUE(verdicts) << verdicts.error().message();
  return verdicts ? (*verdicts)[0] : Verdict{};
}

TEST(Compliance, DeepChainsAreInconclusiveShortOnesJudged) {
  const Verdict shallow = chainOfConvolutions(3);
  EXPECT_TRUE(shallow.pass) << summary(shallow);
  EXPECT_LT(shallow.maxTolerance, 1e-3 * shallow.maxMagnitude) << summary(shallow);
  const Verdict deep = chainOfConvolutions(40);
  EXPECT_FALSE(deep.pass) << summary(deep);
  EXPECT_TRUE(deep.inconclusive) << summary(deep);
  EXPECT_GE(deep.maxTolerance, deep.maxMagnitude) << summary(deep);
  EXPECT_EQ(deep.failures, 0) << summary(deep);
}

}  // namespace
}  // namespace openvgf::tosa
