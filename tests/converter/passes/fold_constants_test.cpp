// SPDX-License-Identifier: Apache-2.0
// fold-constants: constant RESHAPE/TRANSPOSE chains become constant tensors.
#include <gtest/gtest.h>

#include "converter/passes/passes.h"
#include "tests/converter/graph_util.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::Op;

TEST(FoldConstants, TransposeOfWeightsBecomesConstant) {
  GraphBuilder g;
  g.input("x", DType::Fp32, {2, 3});
  g.constant<float>("w", DType::Fp32, {3, 2}, {1, 2, 3, 4, 5, 6});
  g.tensor("wt", DType::Fp32, {2, 3});
  g.op(Op::Transpose, tosa::TransposeAttrs{{1, 0}}, {"w"}, {"wt"});
  g.tensor("y", DType::Fp32, {2, 3});
  g.op(Op::Add, {}, {"x", "wt"}, {"y"});
  g.output("y");
  auto program = converter::makeProgram(g.graph());
  ASSERT_TRUE(program);
  auto changed = converter::passes::foldConstants(*program);
  ASSERT_TRUE(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(converter::dumpProgram(*program), "2 ADD(x, wt) -> y\n");
  ASSERT_TRUE(program->isConstant("wt"));
  auto value = tosa::constantValue(*program->find("wt"));
  EXPECT_EQ(valuesOf<float>(value.bytes), (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

TEST(FoldConstants, CastAndAddOfConstantsUseTheReference) {
  GraphBuilder g;
  g.input("x", DType::Int32, {3});
  g.constant<float>("w", DType::Fp32, {3}, {1.5f, -2.5f, 300.0f});
  g.tensor("wi", DType::Int8, {3});
  g.op(Op::Cast, {}, {"w"}, {"wi"});  // round half to even, saturate: 2, -2, 127
  g.tensor("wc", DType::Int32, {3});
  g.op(Op::Cast, {}, {"wi"}, {"wc"});
  g.tensor("y", DType::Int32, {3});
  g.op(Op::Add, {}, {"x", "wc"}, {"y"});
  g.output("y");
  auto program = converter::makeProgram(g.graph());
  ASSERT_TRUE(program);
  auto changed = converter::passes::foldConstants(*program);
  ASSERT_TRUE(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(converter::dumpProgram(*program), "3 ADD(x, wc) -> y\n");
  auto value = tosa::constantValue(*program->find("wc"));
  EXPECT_EQ(valuesOf<std::int32_t>(value.bytes), (std::vector<std::int32_t>{2, -2, 127}));
}

TEST(FoldConstants, RunTimeInputsAreLeftAlone) {
  GraphBuilder g;
  g.input("x", DType::Fp32, {2, 3});
  g.tensor("t", DType::Fp32, {3, 2});
  g.op(Op::Transpose, tosa::TransposeAttrs{{1, 0}}, {"x"}, {"t"});
  g.output("t");
  auto program = converter::makeProgram(g.graph());
  ASSERT_TRUE(program);
  auto before = converter::dumpProgram(*program);
  auto changed = converter::passes::foldConstants(*program);
  ASSERT_TRUE(changed);
  EXPECT_FALSE(*changed);
  EXPECT_EQ(converter::dumpProgram(*program), before);
}

}  // namespace
}  // namespace openvgf::testing
