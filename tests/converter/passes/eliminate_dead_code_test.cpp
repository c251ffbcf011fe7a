// SPDX-License-Identifier: Apache-2.0
// eliminate-dead-code: unused chains go, everything feeding an output stays.
#include <gtest/gtest.h>

#include "converter/passes/passes.h"
#include "tests/converter/graph_util.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::Op;

TEST(EliminateDeadCode, RemovesUnusedChain) {
  GraphBuilder g;
  g.input("x", DType::Fp32, {4});
  g.input("y", DType::Fp32, {4});
  g.tensor("a", DType::Fp32, {4});
  g.tensor("b", DType::Fp32, {4});
  g.tensor("out", DType::Fp32, {4});
  g.op(Op::Add, {}, {"x", "y"}, {"a"});
  g.op(Op::Exp, {}, {"a"}, {"b"});
  g.op(Op::Mul, {}, {"x", "y"}, {"out"});
  g.output("out");
  auto program = converter::makeProgram(g.graph());
  ASSERT_TRUE(program);
  auto changed = converter::passes::eliminateDeadCode(*program);
  ASSERT_TRUE(changed);
  EXPECT_TRUE(*changed);
  EXPECT_EQ(converter::dumpProgram(*program), "2 MUL(x, y) -> out\n");
  auto again = converter::passes::eliminateDeadCode(*program);
  ASSERT_TRUE(again);
  EXPECT_FALSE(*again);
}

}  // namespace
}  // namespace openvgf::testing
