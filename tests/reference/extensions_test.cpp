// SPDX-License-Identifier: Apache-2.0
// Extension type combinations (INT16 with INT48 accumulators, INT4 weights, BF16, FP8) and
// REQUIRE diagnostics of the scaling helpers and SCATTER.
#include <cmath>

#include "graph_helpers.h"

namespace openvgf::tosa {
namespace {

using namespace reftest;
using ::testing::ElementsAre;

TEST(Extensions, Int16ConvAccumulatesInInt48ThenRescales) {
  // 1x1 conv, IC = 2: 30000 * 127 + 30000 * 127 = 7'620'000 (> INT16, fits INT48).
  GraphBuilder g;
  auto x = g.input(ints(DType::Int16, {1, 1, 1, 2}, {30000, 30000}));
  auto w = g.constant(ints(DType::Int8, {1, 1, 1, 2}, {127, 127}));
  auto bias = g.constant(ints(DType::Int48, {1}, {1LL << 40}));
  auto acc = g.tensor(DType::Int48, {1, 1, 1, 1});
  g.op(Op::Conv2d, {x, w, bias}, {acc}, ConvAttrs{{0, 0, 0, 0}, {1, 1}, {1, 1}, false, DType::Int48});
  auto m = g.constant(ints(DType::Int16, {1}, {1 << 14}));
  auto s = g.constant(ints(DType::Int8, {1}, {24}));  // scale 2^-10
  auto izp = g.constant(ints(DType::Int48, {1}, {0}));
  auto ozp = g.constant(ints(DType::Int32, {1}, {0}));
  auto out = g.tensor(DType::Int32, {1, 1, 1, 1});
  g.op(Op::Rescale, {acc, m, s, izp, ozp}, {out}, RescaleAttrs{false, RoundingMode::SingleRound, false, false, false});
  g.output(acc);
  g.output(out);
  auto r = g.run();
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_THAT(intValues(r->outputs[0].value), ElementsAre(7620000LL + (1LL << 40)));
  // (2^40 + 7620000) / 1024 = 1073741824 + 7441.40625 -> 1073749265
  EXPECT_THAT(intValues(r->outputs[1].value), ElementsAre(1073749265LL));
}

TEST(Extensions, Int4WeightsAndInt16Matmul) {
  auto x = ints(DType::Int8, {1, 1, 1, 2}, {-100, 50});
  auto w = ints(DType::Int4, {2, 1, 1, 2}, {7, -7, -1, 3});
  auto bias = ints(DType::Int32, {1}, {0});
  EXPECT_THAT(intValues(runOp(Op::Conv2d, {x, w, bias}, DType::Int32, {1, 1, 1, 2},
                              ConvAttrs{{0, 0, 0, 0}, {1, 1}, {1, 1}, false, DType::Int32})),
              ElementsAre(-1050, 250));
  auto a = ints(DType::Int16, {1, 1, 2}, {32767, 32767});
  auto b = ints(DType::Int16, {1, 2, 1}, {32767, 32767});
  EXPECT_THAT(intValues(runOp(Op::MatMul, {a, b}, DType::Int48, {1, 1, 1})), ElementsAre(2LL * 32767 * 32767));
}

TEST(Extensions, Bf16AndFp8) {
  // bf16 has 8 significant bits: 256 + 1 rounds to 256 (tie to even), 256 + 3 to 260.
  EXPECT_THAT(floatValues(runOp(Op::Add, {floats(DType::Bf16, {2}, {256, 256}), floats(DType::Bf16, {2}, {1, 3})},
                                DType::Bf16, {2})),
              ElementsAre(256.0, 260.0));
  // FP8E4M3 conv accumulating in FP16: 3 * (1.5 * 2) = 9.
  auto x = floats(DType::Fp8E4M3, {1, 1, 3, 1}, {1.5, 1.5, 1.5});
  auto w = floats(DType::Fp8E4M3, {1, 1, 3, 1}, {2, 2, 2});
  auto bias = floats(DType::Fp16, {1}, {0.5});
  EXPECT_THAT(floatValues(runOp(Op::Conv2d, {x, w, bias}, DType::Fp16, {1, 1, 1, 1},
                                ConvAttrs{{0, 0, 0, 0}, {1, 1}, {1, 1}, false, DType::Fp16})),
              ElementsAre(9.5));
  auto e5 = floatValues(runOp(Op::Cast, {floats(DType::Fp16, {2}, {62000, -1.25})}, DType::Fp8E5M2, {2}));
  EXPECT_TRUE(std::isinf(e5[0]));  // above 57344 + half a step (61440): inf
  EXPECT_EQ(e5[1], -1.25);
}

TEST(Extensions, RequireFailuresOfScalingAndScatter) {
  GraphBuilder g;
  auto x = g.input(ints(DType::Int32, {1}, {5}));
  auto m = g.constant(ints(DType::Int32, {1}, {1 << 30}));
  auto s = g.constant(ints(DType::Int8, {1}, {1}));  // shift < 2 violates apply_scale_32
  auto izp = g.constant(ints(DType::Int32, {1}, {0}));
  auto ozp = g.constant(ints(DType::Int32, {1}, {0}));
  auto out = g.tensor(DType::Int32, {1});
  g.op(Op::Rescale, {x, m, s, izp, ozp}, {out}, RescaleAttrs{true, RoundingMode::SingleRound, false, false, false});
  g.output(out);
  auto r = g.run();
  ASSERT_TRUE(r);
  ASSERT_FALSE(r->diagnostics.empty());
  EXPECT_NE(r->diagnostics[0].message.find("shift 1 outside [2, 62]"), std::string::npos);

  GraphBuilder sc;
  auto values = sc.input(ints(DType::Int8, {1, 2, 1}, {0, 0}));
  auto idx = sc.input(ints(DType::Int32, {1, 2}, {1, 1}));
  auto in = sc.input(ints(DType::Int8, {1, 2, 1}, {5, 6}));
  auto o = sc.tensor(DType::Int8, {1, 2, 1});
  sc.op(Op::Scatter, {values, idx, in}, {o});
  sc.output(o);
  auto rs = sc.run();
  ASSERT_TRUE(rs);
  ASSERT_EQ(rs->diagnostics.size(), 1u);
  EXPECT_NE(rs->diagnostics[0].message.find("written twice"), std::string::npos);
}

TEST(Extensions, ChainedElementwiseOutputsPassTheGraphCheck) {
  GraphBuilder g;
  std::vector<double> v(64);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) / 8.0 - 4.0;
  auto x = g.input(floats(DType::Fp16, {64}, v));
  auto e = g.tensor(DType::Fp16, {64});
  auto t = g.tensor(DType::Fp16, {64});
  auto r = g.tensor(DType::Fp16, {8, 8});
  auto newShape = g.constant(shapeValue({8, 8}));
  g.op(Op::Exp, {x}, {e});
  g.op(Op::Tanh, {e}, {t});
  g.op(Op::Reshape, {t, newShape}, {r});
  g.output(r);
  reference::RunOptions precise;
  precise.precise = true;
  auto ref = g.run(precise);
  ASSERT_TRUE(ref) << ref.error().message();
  EXPECT_EQ(ref->outputs[0].rule.mode, compliance::CheckMode::AbsError);
  auto normal = g.run();
  ASSERT_TRUE(normal) << normal.error().message();
  std::vector<HostTensor> actual{normal->outputs[0].value};
  auto verdicts = reference::checkOutputs(*ref, actual);
  ASSERT_TRUE(verdicts) << verdicts.error().message();
  EXPECT_TRUE((*verdicts)[0].pass) << compliance::summary((*verdicts)[0]);
}

}  // namespace
}  // namespace openvgf::tosa
