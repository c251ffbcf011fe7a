// SPDX-License-Identifier: Apache-2.0
// fuse-elementwise: an elementwise chain becomes one node; a consumer that broadcasts
// the chain's result to a larger shape starts a new node.
#include <gtest/gtest.h>

#include "converter/passes/passes.h"
#include "tests/converter/graph_util.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::Op;

TEST(FuseElementwise, ChainBecomesOneNode) {
  GraphBuilder g;
  g.input("x", DType::Fp32, {2, 3});
  g.input("m", DType::Fp32, {1, 3});
  g.tensor("a", DType::Fp32, {2, 3});
  g.tensor("b", DType::Fp32, {2, 3});
  g.tensor("y", DType::Fp32, {2, 3});
  g.op(Op::Sub, {}, {"x", "m"}, {"a"});
  g.op(Op::Exp, {}, {"a"}, {"b"});
  g.op(Op::Mul, {}, {"b", "x"}, {"y"});
  g.output("y");
  auto program = converter::makeProgram(g.graph());
  ASSERT_TRUE(program);
  auto changed = converter::passes::fuseElementwise(*program);
  ASSERT_TRUE(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(converter::dumpProgram(*program), "0 SUB(x, m) -> a |> EXP(a) -> b |> MUL(b, x) -> y\n");
}

TEST(FuseElementwise, BroadcastingConsumerIsNotFused) {
  GraphBuilder g;
  g.input("x", DType::Fp32, {1, 3});
  g.input("z", DType::Fp32, {4, 3});
  g.tensor("a", DType::Fp32, {1, 3});
  g.tensor("y", DType::Fp32, {4, 3});
  g.op(Op::Exp, {}, {"x"}, {"a"});
  g.op(Op::Add, {}, {"a", "z"}, {"y"});
  g.output("y");
  auto program = converter::makeProgram(g.graph());
  ASSERT_TRUE(program);
  auto changed = converter::passes::fuseElementwise(*program);
  ASSERT_TRUE(changed);
  EXPECT_FALSE(*changed);
}

}  // namespace
}  // namespace openvgf::testing
