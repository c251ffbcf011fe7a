// SPDX-License-Identifier: Apache-2.0
// Elementwise operators: hand-computed results, broadcasting, REQUIRE diagnostics, NaN modes.
#include <cmath>
#include <limits>

#include "graph_helpers.h"

namespace openvgf::tosa {
namespace {

using namespace reftest;
using ::testing::ElementsAre;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(Elementwise, AddBroadcastsInt32) {
  HostTensor out = runOp(Op::Add, {ints(DType::Int32, {2, 2}, {1, 2, 3, 4}), ints(DType::Int32, {1, 2}, {10, -20})},
                         DType::Int32, {2, 2});
  EXPECT_THAT(intValues(out), ElementsAre(11, -18, 13, -16));
}

TEST(Elementwise, AddOverflowIsADiagnosticNotUndefinedBehaviour) {
  GraphBuilder b;
  auto x = b.input(ints(DType::Int32, {2}, {2147483647, 5}));
  auto y = b.input(ints(DType::Int32, {2}, {1, 6}));
  auto out = b.tensor(DType::Int32, {2});
  b.op(Op::Add, {x, y}, {out});
  b.output(out);
  auto result = b.run();
  ASSERT_TRUE(result) << result.error().message();
  EXPECT_THAT(intValues(result->outputs[0].value), ElementsAre(-2147483648LL, 11));
  ASSERT_EQ(result->diagnostics.size(), 1u);
  EXPECT_NE(result->diagnostics[0].message.find("overflows INT32"), std::string::npos);
  EXPECT_NE(reference::toString(result->diagnostics[0]).find("operator 0 (ADD)"), std::string::npos);
  reference::RunOptions strict;
  strict.strict = true;
  auto failed = b.run(strict);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message().find("strict mode"), std::string::npos);
}

TEST(Elementwise, SubAndIncompatibleBroadcast) {
  HostTensor out = runOp(Op::Sub, {ints(DType::Int32, {3}, {5, 0, -7}), ints(DType::Int32, {1}, {2})}, DType::Int32, {3});
  EXPECT_THAT(intValues(out), ElementsAre(3, -2, -9));
  std::string msg = runOpError(Op::Sub, {ints(DType::Int32, {3}, {}), ints(DType::Int32, {2}, {})}, DType::Int32, {3});
  EXPECT_NE(msg.find("broadcast-compatible"), std::string::npos) << msg;
  EXPECT_NE(msg.find("operator 0 (SUB)"), std::string::npos) << msg;
}

TEST(Elementwise, ArithmeticRightShiftRounds) {
  auto a = ints(DType::Int8, {4}, {-7, 7, 5, -128});
  auto s = ints(DType::Int8, {4}, {1, 1, 2, 7});
  EXPECT_THAT(intValues(runOp(Op::ArithmeticRightShift, {a, s}, DType::Int8, {4}, ArithmeticRightShiftAttrs{false})),
              ElementsAre(-4, 3, 1, -1));
  // round: adds the last bit shifted out: -7>>1 = -4 (+1, bit 0 of -7 is 1) = -3; 7>>1 = 3+1; 5>>2 = 1 (+0, bit 1 of 5 is 0).
  EXPECT_THAT(intValues(runOp(Op::ArithmeticRightShift, {a, s}, DType::Int8, {4}, ArithmeticRightShiftAttrs{true})),
              ElementsAre(-3, 4, 1, -1));
}

TEST(Elementwise, LogicalShiftsTruncateToTheType) {
  auto a = ints(DType::Int8, {3}, {-1, 0x41, 1});
  auto s = ints(DType::Int8, {3}, {4, 1, 7});
  EXPECT_THAT(intValues(runOp(Op::LogicalRightShift, {a, s}, DType::Int8, {3})), ElementsAre(0x0F, 0x20, 0));
  EXPECT_THAT(intValues(runOp(Op::LogicalLeftShift, {a, s}, DType::Int8, {3})), ElementsAre(-16, -126, -128));
}

TEST(Elementwise, ShiftOutOfRangeIsADiagnostic) {
  GraphBuilder b;
  auto x = b.input(ints(DType::Int16, {1}, {1}));
  auto y = b.input(ints(DType::Int16, {1}, {16}));
  auto out = b.tensor(DType::Int16, {1});
  b.op(Op::LogicalLeftShift, {x, y}, {out});
  b.output(out);
  auto r = b.run();
  ASSERT_TRUE(r);
  ASSERT_FALSE(r->diagnostics.empty());
  EXPECT_NE(r->diagnostics[0].message.find("shift 16 outside [0, 15]"), std::string::npos);
}

TEST(Elementwise, BitwiseAndClz) {
  auto a = ints(DType::Int16, {2}, {0x0F0F, -1});
  auto b = ints(DType::Int16, {2}, {0x00FF, 0x1234});
  EXPECT_THAT(intValues(runOp(Op::BitwiseAnd, {a, b}, DType::Int16, {2})), ElementsAre(0x000F, 0x1234));
  EXPECT_THAT(intValues(runOp(Op::BitwiseOr, {a, b}, DType::Int16, {2})), ElementsAre(0x0FFF, -1));
  EXPECT_THAT(intValues(runOp(Op::BitwiseXor, {a, b}, DType::Int16, {2})), ElementsAre(0x0FF0, ~0x1234));
  EXPECT_THAT(intValues(runOp(Op::BitwiseNot, {a}, DType::Int16, {2})), ElementsAre(~0x0F0F, 0));
  EXPECT_THAT(intValues(runOp(Op::Clz, {ints(DType::Int32, {4}, {0, 1, -1, 0x00010000})}, DType::Int32, {4})),
              ElementsAre(32, 31, 0, 15));
}

TEST(Elementwise, IntDivTruncatesTowardZero) {
  auto a = ints(DType::Int32, {4}, {7, -7, 7, -7});
  auto b = ints(DType::Int32, {4}, {2, 2, -2, -2});
  EXPECT_THAT(intValues(runOp(Op::IntDiv, {a, b}, DType::Int32, {4})), ElementsAre(3, -3, -3, 3));
  GraphBuilder g;
  auto x = g.input(ints(DType::Int32, {1}, {1}));
  auto y = g.input(ints(DType::Int32, {1}, {0}));
  auto out = g.tensor(DType::Int32, {1});
  g.op(Op::IntDiv, {x, y}, {out});
  g.output(out);
  auto r = g.run();
  ASSERT_TRUE(r);
  ASSERT_EQ(r->diagnostics.size(), 1u);
  EXPECT_NE(r->diagnostics[0].message.find("division by zero"), std::string::npos);
}

TEST(Elementwise, MulWithShiftRoundsHalfUp) {
  auto a = ints(DType::Int32, {3}, {3, -3, 1 << 20});
  auto b = ints(DType::Int32, {3}, {1, 1, 1 << 20});
  auto shift = ints(DType::Int8, {1}, {1});
  // 3/2 = 1.5 -> 2; -3/2 = -1.5 -> -1 (half up); 2^40 / 2 overflows INT32 -> diagnostic.
  GraphBuilder g;
  auto x = g.input(a);
  auto y = g.input(b);
  auto s = g.constant(shift);
  auto out = g.tensor(DType::Int32, {3});
  g.op(Op::Mul, {x, y, s}, {out});
  g.output(out);
  auto r = g.run();
  ASSERT_TRUE(r);
  EXPECT_EQ(intValues(r->outputs[0].value)[0], 2);
  EXPECT_EQ(intValues(r->outputs[0].value)[1], -1);
  EXPECT_EQ(r->diagnostics.size(), 1u);
  // i32 without shift keeps the low 32 bits; i8 inputs give exact i32 products.
  EXPECT_THAT(intValues(runOp(Op::Mul, {ints(DType::Int32, {1}, {65536}), ints(DType::Int32, {1}, {65537}),
                                        ints(DType::Int8, {1}, {0})},
                              DType::Int32, {1}, {}, {false, false, true})),
              ElementsAre(65536));
  EXPECT_THAT(intValues(runOp(Op::Mul, {ints(DType::Int8, {2}, {-128, 127}), ints(DType::Int8, {2}, {-128, 127}),
                                        ints(DType::Int8, {1}, {0})},
                              DType::Int32, {2}, {}, {false, false, true})),
              ElementsAre(16384, 16129));
}

TEST(Elementwise, MaximumMinimumNanModes) {
  auto a = floats(DType::Fp32, {3}, {1.0, kNaN, kNaN});
  auto b = floats(DType::Fp32, {3}, {kNaN, 2.0, kNaN});
  auto prop = floatValues(runOp(Op::Maximum, {a, b}, DType::Fp32, {3}, NanModeAttrs{NanMode::Propagate}));
  EXPECT_TRUE(std::isnan(prop[0]) && std::isnan(prop[1]) && std::isnan(prop[2]));
  auto ign = floatValues(runOp(Op::Minimum, {a, b}, DType::Fp32, {3}, NanModeAttrs{NanMode::Ignore}));
  EXPECT_EQ(ign[0], 1.0);
  EXPECT_EQ(ign[1], 2.0);
  EXPECT_TRUE(std::isnan(ign[2]));
  EXPECT_THAT(intValues(runOp(Op::Maximum, {ints(DType::Int32, {2}, {-5, 9}), ints(DType::Int32, {2}, {3, -9})},
                              DType::Int32, {2})),
              ElementsAre(3, 9));
}

TEST(Elementwise, Fp16ResultsAreRoundedAfterEachOp) {
  // 2048 + 1 is not representable in fp16 (spacing 2 above 2048): ties to even -> 2048.
  auto out = floatValues(runOp(Op::Add, {floats(DType::Fp16, {2}, {2048, 2048}), floats(DType::Fp16, {2}, {1, 3})},
                               DType::Fp16, {2}));
  EXPECT_THAT(out, ElementsAre(2048.0, 2052.0));
  // Precise mode keeps fp64 values and rounds only the returned tensor.
  reference::RunOptions precise;
  precise.precise = true;
  GraphBuilder g;
  auto x = g.input(floats(DType::Fp16, {1}, {2048}));
  auto y = g.input(floats(DType::Fp16, {1}, {1}));
  auto o = g.tensor(DType::Fp16, {1});
  g.op(Op::Add, {x, y}, {o});
  g.output(o);
  auto r = g.run(precise);
  ASSERT_TRUE(r);
  EXPECT_THAT(r->outputs[0].precise, ElementsAre(2049.0));
  EXPECT_THAT(floatValues(r->outputs[0].value), ElementsAre(2048.0));
  EXPECT_EQ(r->outputs[0].rule.mode, compliance::CheckMode::Ulp);
  EXPECT_EQ(r->outputs[0].rule.ulp, 0.5);
}

TEST(Elementwise, UnaryFloatSpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  auto x = floats(DType::Fp32, {4}, {-inf, inf, -0.0, 0.0});
  EXPECT_THAT(floatValues(runOp(Op::Sigmoid, {x}, DType::Fp32, {4})), ElementsAre(0.0, 1.0, 0.5, 0.5));
  EXPECT_THAT(floatValues(runOp(Op::Exp, {x}, DType::Fp32, {4})), ElementsAre(0.0, inf, 1.0, 1.0));
  auto rec = floatValues(runOp(Op::Reciprocal, {x}, DType::Fp32, {4}));
  EXPECT_TRUE(std::signbit(rec[0]) && rec[0] == 0.0);
  EXPECT_EQ(rec[2], -inf);
  auto rs = floatValues(runOp(Op::Rsqrt, {x}, DType::Fp32, {4}));
  EXPECT_TRUE(std::isnan(rs[0]));
  EXPECT_EQ(rs[1], 0.0);
  EXPECT_EQ(rs[2], -inf);
  auto lg = floatValues(runOp(Op::Log, {floats(DType::Fp32, {3}, {-1.0, 0.0, 1.0})}, DType::Fp32, {3}));
  EXPECT_TRUE(std::isnan(lg[0]));
  EXPECT_EQ(lg[1], -inf);
  EXPECT_EQ(lg[2], 0.0);
  auto ab = floatValues(runOp(Op::Abs, {x}, DType::Fp32, {4}));
  EXPECT_FALSE(std::signbit(ab[2]));
  EXPECT_THAT(floatValues(runOp(Op::Ceil, {floats(DType::Fp32, {2}, {-1.5, 1.2})}, DType::Fp32, {2})),
              ElementsAre(-1.0, 2.0));
  EXPECT_THAT(floatValues(runOp(Op::Floor, {floats(DType::Fp32, {2}, {-1.5, 1.2})}, DType::Fp32, {2})),
              ElementsAre(-2.0, 1.0));
  auto tanhv = floatValues(runOp(Op::Tanh, {x}, DType::Fp32, {4}));
  EXPECT_EQ(tanhv[0], -1.0);
  EXPECT_TRUE(std::signbit(tanhv[2]));
  auto sc = floatValues(runOp(Op::Sin, {floats(DType::Fp32, {1}, {0.5})}, DType::Fp32, {1}));
  EXPECT_EQ(sc[0], static_cast<double>(static_cast<float>(std::sin(0.5))));
  auto co = floatValues(runOp(Op::Cos, {floats(DType::Fp32, {1}, {inf})}, DType::Fp32, {1}));
  EXPECT_TRUE(std::isnan(co[0]));
  auto er = floatValues(runOp(Op::Erf, {floats(DType::Fp32, {1}, {1.0})}, DType::Fp32, {1}));
  EXPECT_EQ(er[0], static_cast<double>(static_cast<float>(std::erf(1.0))));
  auto pw = floatValues(runOp(Op::Pow, {floats(DType::Fp32, {1}, {2.0}), floats(DType::Fp32, {1}, {10.0})}, DType::Fp32, {1}));
  EXPECT_EQ(pw[0], 1024.0);
}

TEST(Elementwise, NegateWithZeroPointsSaturates) {
  GraphBuilder g;
  auto x = g.input(ints(DType::Int8, {3}, {-128, 10, 127}));
  auto zp1 = g.constant(ints(DType::Int8, {1}, {-1}));
  auto zp2 = g.constant(ints(DType::Int8, {1}, {5}));
  auto out = g.tensor(DType::Int8, {3});
  g.op(Op::Negate, {x, zp1, zp2}, {out});
  g.output(out);
  auto r = g.run();
  ASSERT_TRUE(r);
  // -(x - (-1)) + 5: 132 -> 127 (saturated); -11 + 5 = -6; -128 + 5 = -123.
  EXPECT_THAT(intValues(r->outputs[0].value), ElementsAre(127, -6, -123));
  EXPECT_THAT(intValues(runOp(Op::Negate, {ints(DType::Int32, {2}, {5, -7})}, DType::Int32, {2})), ElementsAre(-5, 7));
  EXPECT_THAT(intValues(runOp(Op::Abs, {ints(DType::Int32, {2}, {5, -7})}, DType::Int32, {2})), ElementsAre(5, 7));
}

TEST(Elementwise, LogicalAndComparisons) {
  auto a = ints(DType::Bool, {4}, {0, 0, 1, 1});
  auto b = ints(DType::Bool, {4}, {0, 1, 0, 1});
  EXPECT_THAT(intValues(runOp(Op::LogicalAnd, {a, b}, DType::Bool, {4})), ElementsAre(0, 0, 0, 1));
  EXPECT_THAT(intValues(runOp(Op::LogicalOr, {a, b}, DType::Bool, {4})), ElementsAre(0, 1, 1, 1));
  EXPECT_THAT(intValues(runOp(Op::LogicalXor, {a, b}, DType::Bool, {4})), ElementsAre(0, 1, 1, 0));
  EXPECT_THAT(intValues(runOp(Op::LogicalNot, {a}, DType::Bool, {4})), ElementsAre(1, 1, 0, 0));
  auto x = floats(DType::Fp32, {3}, {1.0, kNaN, 3.0});
  auto y = floats(DType::Fp32, {3}, {1.0, kNaN, 2.0});
  EXPECT_THAT(intValues(runOp(Op::Equal, {x, y}, DType::Bool, {3})), ElementsAre(1, 0, 0));
  EXPECT_THAT(intValues(runOp(Op::Greater, {x, y}, DType::Bool, {3})), ElementsAre(0, 0, 1));
  EXPECT_THAT(intValues(runOp(Op::GreaterEqual, {x, y}, DType::Bool, {3})), ElementsAre(1, 0, 1));
}

TEST(Elementwise, SelectBroadcastsThreeWays) {
  auto c = ints(DType::Bool, {2, 1}, {1, 0});
  auto a = ints(DType::Int8, {1, 3}, {1, 2, 3});
  auto b = ints(DType::Int8, {2, 3}, {10, 20, 30, 40, 50, 60});
  EXPECT_THAT(intValues(runOp(Op::Select, {c, a, b}, DType::Int8, {2, 3})), ElementsAre(1, 2, 3, 40, 50, 60));
}

TEST(Elementwise, ClampIntAndFloatNanModes) {
  ClampAttrs ci{{static_cast<std::uint8_t>(-3)}, {5}, NanMode::Propagate};
  EXPECT_THAT(intValues(runOp(Op::Clamp, {ints(DType::Int8, {3}, {-100, 0, 100})}, DType::Int8, {3}, ci)),
              ElementsAre(-3, 0, 5));
  auto bytesOf = [](float f) {
    std::vector<std::uint8_t> v(4);
    std::memcpy(v.data(), &f, 4);
    return v;
  };
  ClampAttrs cf{bytesOf(0.0f), bytesOf(6.0f), NanMode::Ignore};
  auto out = floatValues(runOp(Op::Clamp, {floats(DType::Fp32, {3}, {kNaN, -1.0, 7.0})}, DType::Fp32, {3}, cf));
  EXPECT_THAT(out, ElementsAre(0.0, 0.0, 6.0));  // IGNORE: NaN -> min_val
  cf.nanMode = NanMode::Propagate;
  out = floatValues(runOp(Op::Clamp, {floats(DType::Fp32, {1}, {kNaN})}, DType::Fp32, {1}, cf));
  EXPECT_TRUE(std::isnan(out[0]));
  ClampAttrs bad{bytesOf(2.0f), bytesOf(1.0f), NanMode::Propagate};
  std::string msg = runOpError(Op::Clamp, {floats(DType::Fp32, {1}, {0})}, DType::Fp32, {1}, bad);
  EXPECT_NE(msg.find("max_val >= min_val"), std::string::npos) << msg;
}

TEST(Elementwise, TableInt8AndInt16Interpolation) {
  std::vector<std::int64_t> t8(256);
  for (int i = 0; i < 256; ++i) t8[static_cast<std::size_t>(i)] = 127 - i;  // table[x + 128]
  EXPECT_THAT(intValues(runOp(Op::Table, {ints(DType::Int8, {3}, {-128, 0, 127}), ints(DType::Int8, {256}, t8)},
                              DType::Int8, {3}, {}, {false, true})),
              ElementsAre(127, -1, -128));
  std::vector<std::int64_t> t16(513);
  for (int i = 0; i < 513; ++i) t16[static_cast<std::size_t>(i)] = i * 10;
  // index = (x + 32768) >> 7, frac = x & 127, out = table[index] * 128 + slope * frac.
  EXPECT_THAT(intValues(runOp(Op::Table, {ints(DType::Int16, {4}, {-32768, -32704, 0, 32767}), ints(DType::Int16, {513}, t16)},
                              DType::Int32, {4}, {}, {false, true})),
              ElementsAre(0, 640, 327680, 655350));
}

}  // namespace
}  // namespace openvgf::tosa
