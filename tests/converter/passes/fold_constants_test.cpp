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
