// SPDX-License-Identifier: Apache-2.0
// CAST and RESCALE: half-to-even, saturation, wrapping, apply_scale rounding and the
// DOUBLE_ROUND / unsigned / zero-point rules.
#include <cmath>

#include "graph_helpers.h"

namespace openvgf::tosa {
namespace {

using namespace reftest;
using ::testing::ElementsAre;

TEST(Cast, FloatToIntRoundsHalfToEvenAndSaturates) {
  auto x = floats(DType::Fp32, {8}, {2.5, 3.5, -2.5, 0.5, 1.5, 300.0, -300.0, -0.4});
  EXPECT_THAT(intValues(runOp(Op::Cast, {x}, DType::Int8, {8})), ElementsAre(2, 4, -2, 0, 2, 127, -128, 0));
}

TEST(Cast, IntNarrowingWrapsAndBool) {
  EXPECT_THAT(intValues(runOp(Op::Cast, {ints(DType::Int32, {3}, {300, -129, 127})}, DType::Int8, {3})),
              ElementsAre(44, 127, 127));
  EXPECT_THAT(intValues(runOp(Op::Cast, {ints(DType::Int8, {3}, {0, -3, 1})}, DType::Bool, {3})), ElementsAre(0, 1, 1));
  EXPECT_THAT(intValues(runOp(Op::Cast, {ints(DType::Bool, {2}, {1, 0})}, DType::Int16, {2})), ElementsAre(1, 0));
}

TEST(Cast, FloatToFloatFormats) {
  auto x = floats(DType::Fp32, {3}, {1.0 + std::ldexp(1, -11), 70000.0, -0.0});
  auto h = floatValues(runOp(Op::Cast, {x}, DType::Fp16, {3}));
  EXPECT_EQ(h[0], 1.0);
  EXPECT_TRUE(std::isinf(h[1]));
  EXPECT_TRUE(std::signbit(h[2]));
  auto e = floatValues(runOp(Op::Cast, {floats(DType::Fp32, {2}, {500.0, 0.3})}, DType::Fp8E4M3, {2}));
  EXPECT_TRUE(std::isnan(e[0]));  // OCP E4M3 has no infinity
  EXPECT_EQ(e[1], 0.3125);
  EXPECT_THAT(floatValues(runOp(Op::Cast, {ints(DType::Int32, {1}, {16777217})}, DType::Fp32, {1})), ElementsAre(16777216.0));
  EXPECT_THAT(floatValues(runOp(Op::Cast, {floats(DType::Fp32, {1}, {1.00390625})}, DType::Bf16, {1})), ElementsAre(1.0));
}

struct RescaleCase {
  DType in;
  DType out;
  std::vector<std::int64_t> values;
  std::int64_t multiplier;
  std::int64_t shift;
  std::int64_t inZp = 0;
  std::int64_t outZp = 0;
  RescaleAttrs attrs{true, RoundingMode::SingleRound, false, false, false};
};

std::vector<std::int64_t> rescale(const RescaleCase& c) {
  const auto n = static_cast<std::int64_t>(c.values.size());
  const DType multType = c.attrs.scale32 ? DType::Int32 : DType::Int16;
  return intValues(runOp(Op::Rescale,
                         {ints(c.in, {n}, c.values), ints(multType, {1}, {c.multiplier}), ints(DType::Int8, {1}, {c.shift}),
                          ints(c.in, {1}, {c.inZp}), ints(c.out, {1}, {c.outZp})},
                         c.out, {n}, c.attrs, {false, true, true, true, true}));
}

TEST(Rescale, SingleRoundTiesGoUp) {
  // scale 0.5: 3 -> 1.5 -> 2, 1 -> 0.5 -> 1, -1 -> -0.5 -> 0, -3 -> -1.5 -> -1.
  EXPECT_THAT(rescale({DType::Int32, DType::Int8, {3, 1, -1, -3}, 1 << 30, 31}), ElementsAre(2, 1, 0, -1));
}

TEST(Rescale, DoubleRoundChangesResultsOnlyForShiftAbove31) {
  RescaleCase c{DType::Int32, DType::Int32, {1, -1, -3, 2}, 1 << 30, 32};
  EXPECT_THAT(rescale(c), ElementsAre(0, 0, -1, 1));  // 0.25 -> 0 with a single rounding
  c.attrs.roundingMode = RoundingMode::DoubleRound;
  EXPECT_THAT(rescale(c), ElementsAre(1, 0, -1, 1));  // 0.25 -> 0.5 -> 1 with double rounding
  RescaleCase d{DType::Int32, DType::Int32, {1, 3}, 1 << 30, 31};
  d.attrs.roundingMode = RoundingMode::DoubleRound;
  EXPECT_THAT(rescale(d), ElementsAre(1, 2));  // shift 31: same as single rounding
}

TEST(Rescale, NegativeZeroPointsAndSaturation) {
  RescaleCase c{DType::Int8, DType::Int8, {10, 127, -128}, 1 << 30, 30, -5, -3};
  // (10 + 5) - 3 = 12; (127 + 5) - 3 = 129 -> 127; (-128 + 5) - 3 = -126.
  EXPECT_THAT(rescale(c), ElementsAre(12, 127, -126));
}

TEST(Rescale, UnsignedInputAndOutput) {
  RescaleCase in{DType::Int8, DType::Int8, {-1, 0}, 1 << 30, 30, -128, 0};
  in.attrs.inputUnsigned = true;  // 255 - 128 = 127; 0 - 128 = -128
  EXPECT_THAT(rescale(in), ElementsAre(127, -128));
  RescaleCase out{DType::Int16, DType::Int8, {200, 300, -5}, 1 << 30, 30};
  out.attrs.outputUnsigned = true;  // 200 -> 200 (bits 0xC8), 300 -> 255 (0xFF), -5 -> 0
  EXPECT_THAT(rescale(out), ElementsAre(-56, -1, 0));
}

TEST(Rescale, Scale16FromInt48) {
  RescaleCase c{DType::Int48, DType::Int32, {3 * (1LL << 20) + 1}, 1 << 14, 15};
  c.attrs.scale32 = false;
  EXPECT_THAT(rescale(c), ElementsAre(1572865));  // (3*2^34 + 2^14 + 2^14) >> 15
}

TEST(Rescale, PerChannel) {
  auto x = ints(DType::Int32, {2, 2}, {10, 10, 20, 20});
  auto out = runOp(Op::Rescale,
                   {x, ints(DType::Int32, {2}, {1 << 30, 1 << 30}), ints(DType::Int8, {2}, {30, 31}),
                    ints(DType::Int32, {1}, {0}), ints(DType::Int16, {1}, {0})},
                   DType::Int16, {2, 2}, RescaleAttrs{true, RoundingMode::SingleRound, true, false, false},
                   {false, true, true, true, true});
  EXPECT_THAT(intValues(out), ElementsAre(10, 5, 20, 10));
}

TEST(Rescale, ErrorIfRules) {
  std::string msg = runOpError(Op::Rescale,
                               {ints(DType::Int48, {1}, {1}), ints(DType::Int32, {1}, {1}), ints(DType::Int8, {1}, {30}),
                                ints(DType::Int48, {1}, {0}), ints(DType::Int32, {1}, {0})},
                               DType::Int32, {1}, RescaleAttrs{true, RoundingMode::SingleRound, false, false, false});
  EXPECT_NE(msg.find("scale32"), std::string::npos) << msg;
  msg = runOpError(Op::Rescale,
                   {ints(DType::Int16, {1}, {1}), ints(DType::Int32, {1}, {1}), ints(DType::Int8, {1}, {30}),
                    ints(DType::Int16, {1}, {4}), ints(DType::Int8, {1}, {0})},
                   DType::Int8, {1}, RescaleAttrs{true, RoundingMode::SingleRound, false, false, false});
  EXPECT_NE(msg.find("input_zp"), std::string::npos) << msg;
}

TEST(Rescale, InexactRoundGivesARangeRule) {
  GraphBuilder b;
  auto x = b.input(ints(DType::Int32, {2}, {3, 100}));
  auto m = b.constant(ints(DType::Int32, {1}, {1 << 30}));
  auto s = b.constant(ints(DType::Int8, {1}, {31}));
  auto izp = b.constant(ints(DType::Int32, {1}, {0}));
  auto ozp = b.constant(ints(DType::Int8, {1}, {0}));
  auto out = b.tensor(DType::Int8, {2});
  b.op(Op::Rescale, {x, m, s, izp, ozp}, {out}, RescaleAttrs{true, RoundingMode::InexactRound, false, false, false});
  b.output(out);
  reference::RunOptions precise;
  precise.precise = true;
  auto r = b.run(precise);
  ASSERT_TRUE(r) << r.error().message();
  const auto& rule = r->outputs[0].rule;
  ASSERT_EQ(rule.mode, compliance::CheckMode::IntRange);
  EXPECT_THAT(rule.minInt, ElementsAre(1, 50));  // 1.5 -> [1, 2]; 50 -> [50, 50]
  EXPECT_THAT(rule.maxInt, ElementsAre(2, 50));
}

}  // namespace
}  // namespace openvgf::tosa
