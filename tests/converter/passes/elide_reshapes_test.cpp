// SPDX-License-Identifier: Apache-2.0
// elide-reshapes: RESHAPE/IDENTITY disappear and their outputs alias the input buffer,
// except where the output is a model output.
#include <gtest/gtest.h>

#include "converter/passes/passes.h"
#include "tests/converter/graph_util.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::Op;

TEST(ElideReshapes, ConsumersReadTheSourceBuffer) {
  GraphBuilder g;
  g.input("x", DType::Fp32, {2, 3});
  g.shapeConst("s", {3, 2});
  g.tensor("r", DType::Fp32, {3, 2});
  g.op(Op::Reshape, {}, {"x", "s"}, {"r"});
  g.tensor("y", DType::Fp32, {3, 2});
  g.op(Op::Exp, {}, {"r"}, {"y"});
  g.output("y");
  auto program = converter::makeProgram(g.graph());
  ASSERT_TRUE(program);
  auto changed = converter::passes::elideReshapes(*program);
  ASSERT_TRUE(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(converter::dumpProgram(*program), "alias r -> x\n2 EXP(r) -> y\n");
}

TEST(ElideReshapes, ModelOutputKeepsItsCopy) {
  GraphBuilder g;
  g.input("x", DType::Fp32, {2, 3});
  g.shapeConst("s", {6});
  g.tensor("y", DType::Fp32, {6});
  g.op(Op::Reshape, {}, {"x", "s"}, {"y"});
  g.output("y");
  auto program = converter::makeProgram(g.graph());
  ASSERT_TRUE(program);
  auto changed = converter::passes::elideReshapes(*program);
  ASSERT_TRUE(changed);
  EXPECT_FALSE(*changed);
  EXPECT_EQ(converter::dumpProgram(*program), "1 RESHAPE(x, s) -> y\n");
}

}  // namespace
}  // namespace openvgf::testing
