// SPDX-License-Identifier: Apache-2.0
// fuse-transposes: a MATMUL's result, reshaped into heads and transposed, is stored
// transposed by the MATMUL; a result that something else also reads, and the result of
// an elementwise kernel, keep their TRANSPOSE.
#include <gtest/gtest.h>

#include "converter/passes/passes.h"
#include "tests/converter/graph_util.h"
#include "tosa/builder.h"

namespace openvgf::testing {
namespace {

using tosa::DType;
using tosa::Value;

converter::Program fused(const tosa::Graph& graph) { return programAfter(graph, {"elide-reshapes", "fuse-epilogues", "fuse-transposes"}); }

// [1,8,12] x [1,12,16], plus bias, split into 4 heads of 4 and made head-major.
tosa::Graph heads(bool alsoOutputProduct) {
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {1, 8, 12});
  Value w = b.input("w", DType::Fp32, {1, 12, 16});
  Value bias = b.input("bias", DType::Fp32, {1, 1, 16});
  Value q = b.add(b.matmul(x, w), bias, "q");
  b.output(b.transpose(b.reshape(q, {1, 8, 4, 4}, "h"), {0, 2, 1, 3}, "t"));
  if (alsoOutputProduct) b.output(q);
  auto graph = b.build();
  EXPECT_TRUE(graph) << graph.error().message();
  return *graph;
}

TEST(FuseTransposes, HeadSplitIsStoredByTheMatmul) {
  converter::Program program = fused(heads(false));
  ASSERT_EQ(program.nodes.size(), 1u) << converter::dumpProgram(program);
  const converter::Node& node = program.nodes[0];
  EXPECT_EQ(node.op.op, tosa::Op::MatMul);
  ASSERT_EQ(node.epilogue.size(), 2u);
  EXPECT_EQ(node.epilogue[1].op.op, tosa::Op::Transpose);
  EXPECT_EQ(node.output(), "t");
}

TEST(FuseTransposes, AResultReadElsewhereKeepsItsTranspose) {
  converter::Program program = fused(heads(true));
  EXPECT_EQ(program.nodes.size(), 2u) << converter::dumpProgram(program);
}

TEST(FuseTransposes, ElementwiseResultsKeepTheirTranspose) {
  tosa::Builder b;
  Value x = b.input("x", DType::Fp32, {2, 3, 4});
  b.output(b.transpose(b.exp(x), {2, 0, 1}, "t"));
  auto graph = b.build();
  ASSERT_TRUE(graph) << graph.error().message();
  converter::Program program = fused(*graph);
  EXPECT_EQ(program.nodes.size(), 2u) << converter::dumpProgram(program);
}

}  // namespace
}  // namespace openvgf::testing
